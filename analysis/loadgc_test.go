package analysis

import (
	"math"
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

// memoryLimit returns the memory limit without changing it.
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// TestLoadGCRestores: a cold load turns the collector off under a memory
// limit while it runs, and the previous target and limit are back once
// the last load running has ended, not before.
func TestLoadGCRestores(t *testing.T) {
	if _, env := os.LookupEnv("GOGC"); env {
		t.Skip("GOGC is set: loadGC leaves the collector alone")
	}
	if _, env := os.LookupEnv("GOMEMLIMIT"); env {
		t.Skip("GOMEMLIMIT is set: loadGC only raises the target")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	duringLoad := func(when string) {
		t.Helper()
		if got := gcPercent(); got >= 0 {
			t.Errorf("%s: the target is %d, want the collector off", when, got)
		}
		// The test's process holds far less than the headroom.
		if lim := memoryLimit(); lim < loadGCHeadroom || lim > 2*loadGCHeadroom {
			t.Errorf("%s: the memory limit is %d, want %d above the %d bytes held", when, lim, loadGCHeadroom, runtimeMemory())
		}
	}
	outer := loadGC()
	duringLoad("during a load")
	inner := loadGC()
	outer()
	duringLoad("after the first of two loads")
	inner()
	if got, lim := gcPercent(), memoryLimit(); got != 150 || lim != math.MaxInt64 {
		t.Errorf("after the loads the target is %d and the limit %d, want the previous 150 and none", got, lim)
	}
	// A higher target is turned off too, and restored.
	debug.SetGCPercent(800)
	done := loadGC()
	duringLoad("with a target of 800")
	done()
	if got := gcPercent(); got != 800 {
		t.Errorf("a target of 800 was restored to %d", got)
	}
	// Under a limit of the program's, the target is raised only.
	debug.SetMemoryLimit(4 << 30)
	debug.SetGCPercent(150)
	done = loadGC()
	if got, lim := gcPercent(), memoryLimit(); got != loadGCPercent || lim != 4<<30 {
		t.Errorf("under a limit of 4 GiB the load set the target %d and the limit %d, want %d and the limit kept", got, lim, loadGCPercent)
	}
	done()
	if got, lim := gcPercent(), memoryLimit(); got != 150 || lim != 4<<30 {
		t.Errorf("after a load under a limit: target %d, limit %d, want 150 and 4 GiB", got, lim)
	}
	// A collector turned off is left off.
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(-1)
	done = loadGC()
	if got, lim := gcPercent(), memoryLimit(); got >= 0 || lim != math.MaxInt64 {
		t.Errorf("with the collector off the load set the target %d and the limit %d", got, lim)
	}
	done()
	if got := gcPercent(); got >= 0 {
		t.Errorf("the collector was turned back on (%d)", got)
	}
	debug.SetGCPercent(150)
}
