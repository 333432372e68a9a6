package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/thund-dev/thund/internal/testutil"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// copyPipeline copies a testdata pipeline into a temporary folder.
func copyPipeline(t *testing.T, name string) string {
	return testutil.CopyToTemp(t, filepath.Join("..", "..", "testdata", name))
}

// ndjson is one decoded output object, with its preview rows (canonical
// JSON, sorted) when it is a preview.
type ndjson struct {
	Type    string   `json:"type"`
	Dataset string   `json:"dataset"`
	Reran   []string `json:"reran"`
	Removed []string `json:"removed"`
	rows    []string
}

func decodeLine(t *testing.T, line []byte) ndjson {
	t.Helper()
	var o ndjson
	if err := json.Unmarshal(line, &o); err != nil {
		t.Errorf("not JSON: %s", line)
		return o
	}
	if o.Type == "preview" {
		var p struct {
			Rows []json.RawMessage `json:"rows"`
		}
		json.Unmarshal(line, &p)
		for _, r := range p.Rows {
			dec := json.NewDecoder(bytes.NewReader(r))
			dec.UseNumber()
			var v any
			dec.Decode(&v)
			b, _ := json.Marshal(v)
			o.rows = append(o.rows, string(b))
		}
		sort.Strings(o.rows)
	}
	return o
}

// TestWatchModeMatchesOnce runs watch mode through the command line
// (--json, --debounce, --preview, --limit), edits the pipeline, stops it
// as Ctrl-C does (exit 0), and checks that the datasets it holds equal
// what --once computes on the edited folder.
func TestWatchModeMatchesOnce(t *testing.T) {
	dir := copyPipeline(t, "retail")
	names := "clean_orders,order_lines,billable_lines,customer_orders,customer_ranking,daily_revenue,revenue_by_region,top_products"
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"--json", "--debounce", "200ms", "--preview", names, "--limit", "100000", dir}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, code := startWatch(ctx, o, &stderr)
	lines := make(chan ndjson, 1<<14)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			lines <- decodeLine(t, sc.Bytes())
		}
		io.Copy(io.Discard, pr)
	}()
	latest := map[string][]string{}
	nextRun := func() ndjson {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case o, ok := <-lines:
				if !ok {
					t.Fatal("watch mode ended early")
				}
				if o.Type == "preview" {
					latest[o.Dataset] = o.rows
				}
				if o.Type == "run" {
					return o
				}
			case <-deadline:
				t.Fatal("no run object within 30 s")
			}
		}
	}
	if r := nextRun(); len(r.Reran) != 8 {
		t.Fatalf("startup re-ran %v", r.Reran)
	}
	edit := func(rel, old, new string) {
		p := filepath.Join(dir, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(b), old, new, 1)
		if text == string(b) {
			t.Fatalf("%s has no %q", rel, old)
		}
		if err := os.WriteFile(p+".tmp", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			t.Fatal(err)
		}
	}
	edit("transformations/clean_orders.sql", "amount > 0", "amount > 20")
	if r := nextRun(); len(r.Reran) != 8 {
		t.Errorf("editing clean_orders re-ran %v, want all 8", r.Reran)
	}
	edit("samples/customers.csv", "North", "Nord")
	if r := nextRun(); strings.Join(sortedCopy(r.Reran), ",") != "customer_orders,customer_ranking,revenue_by_region" {
		t.Errorf("editing customers.csv re-ran %v, want customer_orders and its cone", r.Reran)
	}
	edit("transformations/top_products.sql", "<= 2", "<= 1")
	if r := nextRun(); strings.Join(r.Reran, ",") != "top_products" {
		t.Errorf("editing top_products re-ran %v", r.Reran)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit status %d after Ctrl-C, want 0; stderr: %s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch mode did not stop")
	}

	var once, onceErr bytes.Buffer
	if c := run([]string{"--once", "--json", "--limit", "100000", dir}, &once, &onceErr); c != 0 {
		t.Fatalf("--once exit %d: %s", c, onceErr.String())
	}
	want := map[string][]string{}
	for _, l := range bytes.Split(bytes.TrimSpace(once.Bytes()), []byte("\n")) {
		if o := decodeLine(t, l); o.Type == "preview" {
			want[o.Dataset] = o.rows
		}
	}
	if len(want) != 8 {
		t.Fatalf("--once previewed %d datasets, want 8", len(want))
	}
	for name, rows := range want {
		if strings.Join(latest[name], "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s: watch mode holds\n%v\n--once computes\n%v", name, latest[name], rows)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestWatchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--debounce", "0s", "."},
		{"--debounce", "soon", "."},
		{"--debounce", "-5ms", "."},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %s)", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{filepath.Join(t.TempDir(), "missing")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "open pipeline") {
		t.Errorf("missing folder: exit %d, stderr %q", code, stderr.String())
	}
}

// startWatch runs watch mode with o until ctx ends; its output is read
// from the pipe, and its exit status arrives on the channel.
func startWatch(ctx context.Context, o options, stderr io.Writer) (*io.PipeReader, <-chan int) {
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		c := watchUntil(ctx, o, pw, stderr)
		pw.Close()
		code <- c
	}()
	return pr, code
}
