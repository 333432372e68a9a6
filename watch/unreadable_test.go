package watch

// Unreadable files, for real. Root reads a chmod 000 file anyway, so when
// the tests run as root this test runs itself again as the user nobody
// (a copy of the test binary in a world-writable temporary folder), where
// permissions bite.

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const unreadableChildEnv = "THUND_UNREADABLE_CHILD"

func TestWatchUnreadable(t *testing.T) {
	if os.Getuid() == 0 && os.Getenv(unreadableChildEnv) == "" {
		runAsNobody(t)
		return
	}
	dir := copyRetail(t)
	mustDo(t, os.MkdirAll(filepath.Join(dir, "extra"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(dir, "spark-pipeline.yml"), []byte("name: retail\nstorage: file:///storage\nlibraries:\n  - glob:\n      include: transformations/**\n  - glob:\n      include: extra/**\n"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(dir, "extra", "sentinel.sql"), []byte("-- @kind: view\nSELECT 1 AS s\n"), 0o644))
	w := startWatch(t, dir, Options{Previews: datasetNames(t, dir), Limit: 1 << 20, Debounce: 100 * time.Millisecond})
	w.run()
	sentinel := 0

	// A sample nobody may read: the datasets that read it fail, saying
	// why, when a run needs them (an upstream edit re-runs them).
	products := filepath.Join(dir, "samples", "products.csv")
	mustDo(t, os.Chmod(products, 0))
	if f, err := os.Open(products); err == nil {
		f.Close()
		t.Fatalf("uid %d can read a chmod 000 file: this test needs a user without that power", os.Getuid())
	}
	clean := filepath.Join(dir, "transformations", "clean_orders.sql")
	writeAtomic(t, clean, strings.Replace(readFile(t, clean), "lower(status) AS status", "lower(trim(status)) AS status", 1))
	// Today the run stops at the source (Run registers every sample
	// first), so nothing re-runs until the sample is readable again; the
	// run says which file and why.
	r, objs := w.run()
	said := false
	for _, o := range objs {
		low := strings.ToLower(string(o.raw))
		if (o.Type == "run" || o.Phase == "failed") && strings.Contains(low, "samples/products.csv") && strings.Contains(low, "permission denied") {
			said = true
		}
	}
	if !said {
		t.Errorf("an unreadable sample gave no failure that names it and says why: run %+v, %s", r, types(objs))
	}
	t.Logf("unreadable sample: re-ran %v, note %.120q", r.Reran, r.Note)

	// A query saved unreadable (created with mode 000 and renamed over the
	// old one): watch mode skips it until it can read it.
	top := filepath.Join(dir, "transformations", "top_products.sql")
	newTop := strings.Replace(readFile(t, top), "<= 2", "<= 1", 1)
	tmp := top + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0)
	mustDo(t, err)
	_, err = io.WriteString(f, newTop)
	mustDo(t, err)
	mustDo(t, f.Close())
	mustDo(t, os.Rename(tmp, top))
	settle(t, w, dir, &sentinel)
	t.Logf("a query saved unreadable: warnings on stderr: %q", w.stderr.String())

	// Readable again by chmod alone, with no save: watch mode reads both
	// again and catches up with a fresh run.
	mustDo(t, os.Chmod(products, 0o644))
	mustDo(t, os.Chmod(top, 0o644))
	settle(t, w, dir, &sentinel)
	fresh := freshOutputs(t, dir)
	for k, want := range fresh {
		if strings.Join(w.previews[k], "\n") != strings.Join(want, "\n") {
			t.Errorf("after chmod 644 alone, %s differs from a fresh run: %d rows, want %d", k, len(w.previews[k]), len(want))
		}
	}

	// The next save of each file brings watch mode back in step.
	mustDo(t, os.WriteFile(products, []byte(readFile(t, products)), 0o644))
	mustDo(t, os.WriteFile(top, []byte(readFile(t, top)), 0o644))
	settle(t, w, dir, &sentinel)
	w.stop()
	fresh = freshOutputs(t, dir)
	if len(fresh) != 9 {
		t.Errorf("a fresh run completed %d datasets, want 9", len(fresh))
	}
	for k, want := range fresh {
		if got := w.previews[k]; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: watch mode holds %d rows, a fresh run %d", k, len(got), len(want))
		}
	}
}

// runAsNobody runs TestWatchUnreadable again as the user nobody.
func runAsNobody(t *testing.T) {
	base, err := os.MkdirTemp("", "thund-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	mustDo(t, os.Chmod(base, 0o777))
	bin := filepath.Join(base, "watch.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.WriteFile(bin, b, 0o755))
	tmp := filepath.Join(base, "tmp")
	mustDo(t, os.Mkdir(tmp, 0o777))
	mustDo(t, os.Chmod(tmp, 0o777))
	cmd := exec.Command(bin, "-test.run=^TestWatchUnreadable$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), unreadableChildEnv+"=1", "TMPDIR="+tmp, "HOME="+tmp, "GOCACHE="+filepath.Join(tmp, "gocache"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "unreadable_test.go") || strings.HasPrefix(strings.TrimSpace(l), "---") {
			t.Log("as nobody: " + strings.TrimSpace(l))
		}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run as nobody here (%v): unreadable files are not tested", err)
	}
	if err != nil {
		t.Fatalf("TestWatchUnreadable as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestWatchUnreadable") {
		t.Fatalf("TestWatchUnreadable did not run as nobody:\n%s", out)
	}
}
