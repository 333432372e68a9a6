package analysis

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A cold load builds what the snapshot keeps (the files' texts, trees and
// results, about 57 MB for 10,000 files) while it allocates about three
// times as much again that dies young. With the collector's default
// target (a collection whenever the heap has grown by the live heap,
// GOGC=100) the heap's growth from nothing triggers a collection every
// few megabytes early on, each marking everything built so far; at a
// target of 400% there are still three or four collections per load, and
// the collector (marking, sweeping, the write barrier while it marks)
// took about a fifth of the CPU time of a load in a fresh process. So
// while a load of loadGCFrom files or more runs, the collector is off,
// bounded by a memory limit of what the process holds when the load
// starts plus loadGCHeadroom: a load that allocates more than that (a
// pipeline of about 40,000 files of the benchmark's size) is collected
// at the limit rather than growing without bound. When the last load
// running ends, the previous target and limit are restored, and the
// first allocation after it collects the load's garbage, so what a
// long-running process (the language server) keeps afterwards is
// collected as before. The price is the peak during the load: what the
// load allocates in all (about 230 MB for 10,000 files) above what the
// process held.
//
// The user's choice stands: with GOGC set in the environment the
// collector is left alone, and with GOMEMLIMIT set (or a limit set by
// the program) the target is raised to loadGCPercent instead of turned
// off, under that limit.
const (
	loadGCFrom     = 1000
	loadGCPercent  = 400
	loadGCHeadroom = 1 << 30
)

var loadGCState struct {
	sync.Mutex
	running int
	// prevPercent and prevLimit are restored when the last load ends,
	// when set says loadGC changed them.
	prevPercent int
	prevLimit   int64
	set         bool
}

// loadGC turns the collector off (or raises its target) for a cold load,
// see loadGCHeadroom, and returns the function that restores it.
func loadGC() (restore func()) {
	st := &loadGCState
	st.Lock()
	defer st.Unlock()
	if st.running == 0 {
		st.set = false
		if _, env := os.LookupEnv("GOGC"); !env {
			st.prevPercent, st.prevLimit, st.set = relaxGC()
		}
	}
	st.running++
	return func() {
		st.Lock()
		defer st.Unlock()
		if st.running--; st.running == 0 && st.set {
			debug.SetGCPercent(st.prevPercent)
			debug.SetMemoryLimit(st.prevLimit)
			st.set = false
		}
	}
}

// relaxGC sets the load's collector policy and returns the target and
// limit it replaced, and whether it changed them.
func relaxGC() (prevPercent int, prevLimit int64, changed bool) {
	prevLimit = debug.SetMemoryLimit(-1) // a negative limit only reads it
	_, envLimit := os.LookupEnv("GOMEMLIMIT")
	if envLimit || prevLimit != math.MaxInt64 {
		// A limit chosen by the user: only a higher target under it.
		prev := debug.SetGCPercent(loadGCPercent)
		if prev < 0 || prev >= loadGCPercent {
			debug.SetGCPercent(prev) // already higher, or off: left alone
			return prev, prevLimit, false
		}
		return prev, prevLimit, true
	}
	prev := debug.SetGCPercent(-1)
	if prev < 0 {
		return prev, prevLimit, false // already off: left alone
	}
	debug.SetMemoryLimit(runtimeMemory() + loadGCHeadroom)
	return prev, prevLimit, true
}

// runtimeMemory returns the memory the Go runtime holds, as the memory
// limit counts it: everything it mapped less what it gave back.
func runtimeMemory() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	var total, released int64
	if sample[0].Value.Kind() == metrics.KindUint64 {
		total = int64(sample[0].Value.Uint64())
	}
	if sample[1].Value.Kind() == metrics.KindUint64 {
		released = int64(sample[1].Value.Uint64())
	}
	return max(0, total-released)
}
