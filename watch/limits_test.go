package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/engine"
)

func TestLimitsFillWhatIsUnset(t *testing.T) {
	cfg := project.Config{QueryTimeout: time.Minute, MemoryLimit: "1GB", TempLimit: "3GB"}
	got := Limits(engine.Options{StateDir: "s", QueryTimeout: time.Second}, cfg)
	want := engine.Options{StateDir: "s", QueryTimeout: time.Second, MemoryLimit: "1GB", TempLimit: "3GB"}
	if got != want {
		t.Errorf("Limits = %+v, want %+v", got, want)
	}
	if got := Limits(engine.Options{}, project.Config{}); got != (engine.Options{}) {
		t.Errorf("Limits of nothing = %+v", got)
	}
}

// thund.yaml's limits.query_timeout bounds watch mode's statements, and a
// later change of the limits says it needs a restart.
func TestWatchTakesConfigLimits(t *testing.T) {
	dir := copyRetail(t)
	yaml := filepath.Join(dir, "thund.yaml")
	base := readFile(t, yaml)
	mustDo(t, os.WriteFile(yaml, []byte(base+"limits:\n  query_timeout: 1s\n"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(dir, "transformations", "slow.sql"), []byte(slow), 0o644))
	w := startWatch(t, dir, Options{})
	_, objs := w.run()
	failed := ""
	for _, o := range objs {
		if o.Type == "event" && o.Dataset == "slow" && o.Phase == "failed" {
			failed = string(o.raw)
		}
	}
	if !strings.Contains(failed, "limit of 1s") || !strings.Contains(failed, "limits.query_timeout") {
		t.Fatalf("slow did not fail on the 1s limit: %q", failed)
	}
	if strings.Contains(w.stderr.String(), "limits of thund.yaml changed") {
		t.Fatalf("warned before any change: %s", w.stderr.String())
	}
	writeAtomic(t, yaml, base+"limits:\n  query_timeout: 2s\n")
	w.run()
	if !strings.Contains(w.stderr.String(), "limits of thund.yaml changed: they apply when thund-watch restarts") {
		t.Fatalf("no warning about the changed limits; stderr: %s", w.stderr.String())
	}
}

// A preview page in watch mode holds at most project.PreviewMaxRows rows.
func TestWatchPreviewLimitIsBounded(t *testing.T) {
	dir := copyRetail(t)
	mustDo(t, os.WriteFile(filepath.Join(dir, "transformations", "big.sql"), []byte("SELECT x AS n FROM range(12000) AS r(x)\n"), 0o644))
	w := startWatch(t, dir, Options{Previews: []string{"big"}, Limit: 1 << 40})
	w.run()
	if got := len(w.previews["big"]); got != project.PreviewMaxRows {
		t.Fatalf("big previewed %d rows, want %d", got, project.PreviewMaxRows)
	}
}
