package analysis

import (
	"os"
	"runtime/debug"
	"testing"
)

// gcPercent returns the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestLoadGCRestores: a cold load raises the collector's target while it
// runs, and the previous target is back once the last load running has
// ended, not before.
func TestLoadGCRestores(t *testing.T) {
	if _, env := os.LookupEnv("GOGC"); env {
		t.Skip("GOGC is set: loadGC leaves the collector alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	outer := loadGC()
	if got := gcPercent(); got != loadGCPercent {
		t.Fatalf("during a load the target is %d, want %d", got, loadGCPercent)
	}
	inner := loadGC()
	outer()
	if got := gcPercent(); got != loadGCPercent {
		t.Errorf("the first load's end restored %d while another load runs", got)
	}
	inner()
	if got := gcPercent(); got != 150 {
		t.Errorf("after the loads the target is %d, want the previous 150", got)
	}
	// A target already above the load's is left as it is.
	debug.SetGCPercent(800)
	done := loadGC()
	if got := gcPercent(); got != 800 {
		t.Errorf("a higher target was changed to %d", got)
	}
	done()
	if got := gcPercent(); got != 800 {
		t.Errorf("a higher target was restored to %d", got)
	}
}
