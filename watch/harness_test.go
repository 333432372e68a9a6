package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// wait bounds every wait on output; it only matters when a test fails.
const wait = 30 * time.Second

// copyRetail copies testdata/retail into a fresh temporary folder.
func copyRetail(t testing.TB) string {
	return testutil.CopyToTemp(t, filepath.Join("..", "testdata", "retail"))
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// object is one NDJSON line of output, decoded.
type object struct {
	Type    string          `json:"type"`
	Dataset string          `json:"dataset"`
	Phase   string          `json:"phase"`
	Code    string          `json:"code"`
	File    string          `json:"file"`
	Change  string          `json:"change"`
	Rows    json.RawMessage `json:"rows"`
	raw     []byte
}

// watcher is watch mode running in-process with NDJSON output, read
// object by object.
type watcher struct {
	t       testing.TB
	dir     string
	objs    chan object
	cancel  context.CancelFunc
	done    chan error
	stderr  *syncBuffer
	stopped bool
	// previews holds the latest preview rows per dataset key (each row
	// as canonical JSON), which is what the session holds.
	previews map[string][]string
}

// startWatch starts watch mode on dir; o's Dir, JSON, Out and Warn are
// set here.
func startWatch(t testing.TB, dir string, o Options) *watcher {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{t: t, dir: dir, objs: make(chan object, 1<<16), cancel: cancel, done: make(chan error, 1), stderr: &syncBuffer{}, previews: map[string][]string{}}
	o.Dir, o.JSON, o.Out, o.Warn = dir, true, pw, w.stderr
	if o.Engine.Threads == 0 {
		o.Engine.Threads = 2
	}
	go func() {
		err := Run(ctx, o)
		pw.Close()
		w.done <- err
	}()
	go func() {
		defer close(w.objs)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var obj object
			line := append([]byte(nil), sc.Bytes()...)
			if err := json.Unmarshal(line, &obj); err != nil {
				t.Errorf("output line is not JSON: %s", line)
				continue
			}
			obj.raw = line
			w.objs <- obj
		}
		io.Copy(io.Discard, pr)
	}()
	t.Cleanup(w.stop)
	return w
}

// run collects objects up to the next run object and returns both.
func (w *watcher) run() (RunJSON, []object) {
	w.t.Helper()
	var got []object
	deadline := time.After(wait)
	for {
		select {
		case obj, ok := <-w.objs:
			if !ok {
				w.t.Fatalf("watch mode ended early; stderr: %s", w.stderr.String())
			}
			got = append(got, obj)
			switch obj.Type {
			case "preview":
				w.previews[ir.NameKey(obj.Dataset)] = canonicalRows(w.t, obj.Rows)
			case "run":
				var r RunJSON
				if err := json.Unmarshal(obj.raw, &r); err != nil {
					w.t.Fatal(err)
				}
				for _, name := range r.Removed {
					delete(w.previews, ir.NameKey(name))
				}
				return r, got
			}
		case <-deadline:
			w.t.Fatalf("no run within %s; got %d objects; stderr: %s", wait, len(got), w.stderr.String())
		}
	}
}

// until collects objects until one satisfies ok.
func (w *watcher) until(ok func(object) bool) []object {
	w.t.Helper()
	var got []object
	deadline := time.After(wait)
	for {
		select {
		case obj, open := <-w.objs:
			if !open {
				w.t.Fatalf("watch mode ended early; stderr: %s", w.stderr.String())
			}
			got = append(got, obj)
			if ok(obj) {
				return got
			}
		case <-deadline:
			w.t.Fatalf("no matching object within %s; stderr: %s", wait, w.stderr.String())
		}
	}
}

// stop cancels watch mode as Ctrl-C does and checks it ends cleanly.
func (w *watcher) stop() {
	if w.stopped {
		return
	}
	w.stopped = true
	w.cancel()
	select {
	case err := <-w.done:
		if err != nil {
			w.t.Errorf("watch mode ended with %v", err)
		}
	case <-time.After(wait):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		w.t.Errorf("watch mode did not stop within %s of cancelling; goroutines:\n%s", wait, buf)
	}
}

// canonicalRows renders each row as canonical JSON, sorted, for
// order-insensitive comparison.
func canonicalRows(t testing.TB, raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var rows []json.RawMessage
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("preview rows: %v", err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = canonical(t, r)
	}
	sort.Strings(out)
	return out
}

func canonical(t testing.TB, raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// freshOutputs runs the pipeline at dir from scratch, as --once does, and
// returns every completed dataset's rows, canonical and sorted.
func freshOutputs(t testing.TB, dir string) map[string][]string {
	t.Helper()
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := engine.Open(snap.Root, engine.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	res, err := sess.Run(ctx, snap.Pipeline, engine.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, k := range res.Order {
		d := res.Datasets[k]
		if d.Phase != engine.Completed {
			continue
		}
		p, err := preview.Dataset(ctx, sess, d.Name, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(p.Rows)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = canonicalRows(t, raw)
	}
	return out
}

// datasetNames lists the pipeline's datasets, to preview them all.
func datasetNames(t testing.TB, dir string) []string {
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range snap.Pipeline.Datasets {
		out = append(out, d.Name)
	}
	return out
}

// writeAtomic saves a file as many editors do: the new text goes to a
// temporary file that is then renamed over the old one.
func writeAtomic(t testing.TB, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// patchInPlace overwrites old with new (same length) in a file with one
// write, as an editor that saves in place does.
func patchInPlace(t testing.TB, path, old, new string) {
	t.Helper()
	if len(old) != len(new) {
		t.Fatalf("patch %q -> %q changes the length", old, new)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(old))
	if i < 0 {
		t.Fatalf("%s has no %q", path, old)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(new), int64(i)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// expectRun checks a run object: the files it reports changed and the
// datasets it re-ran (in any order).
func expectRun(t testing.TB, step string, r RunJSON, changed, reran []string) {
	t.Helper()
	if changed != nil && strings.Join(sorted(r.Changed), ",") != strings.Join(sorted(changed), ",") {
		t.Errorf("%s: changed %v, want %v", step, r.Changed, changed)
	}
	if strings.Join(sorted(r.Reran), ",") != strings.Join(sorted(reran), ",") {
		t.Errorf("%s: re-ran %v, want %v", step, r.Reran, reran)
	}
	if r.Cancelled {
		t.Errorf("%s: run cancelled", step)
	}
}
