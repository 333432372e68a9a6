package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// An editor keeps its language server running for hours, mostly idle, so
// the server's resident memory is what it holds between requests. After a
// burst of work (the first load of a large pipeline, a storm of edits)
// the heap has grown to twice what is live (GOGC's 100%), and Go returns
// the freed pages to the operating system only slowly, down to that
// goal. releaseIdle gives them back as soon as the server is idle: when
// the heap holds idleFreeBytes more than was live at the last collection
// (garbage and free pages) and almost nothing was allocated since the
// previous look, it collects and releases the free pages
// (debug.FreeOSMemory). A busy server is never interrupted, and an idle
// one pays one collection per burst.

const (
	// idleTick is how often the server looks.
	idleTick = 250 * time.Millisecond
	// idleAllocBytes is the allocation between two looks below which the
	// server counts as idle.
	idleAllocBytes = 256 << 10
	// idleFreeBytes is the garbage and free heap worth giving back.
	idleFreeBytes = 32 << 20
)

// releaseIdle runs forever, releasing free heap pages while the server is
// idle (see above). It is started once, by main.
func releaseIdle() {
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, // live and garbage not yet collected
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, // free, not yet released
		{Name: "/gc/heap/live:bytes"},             // live at the last collection
	}
	var last uint64
	for range time.Tick(idleTick) {
		metrics.Read(samples)
		var v [5]uint64
		for i, s := range samples {
			if s.Value.Kind() != metrics.KindUint64 {
				return // metrics this Go does not have: leave it to the runtime
			}
			v[i] = s.Value.Uint64()
		}
		idle := v[0]-last < idleAllocBytes
		last = v[0]
		if held := v[1] + v[2] + v[3]; idle && held > v[4]+idleFreeBytes {
			debug.FreeOSMemory()
			metrics.Read(samples[:1])
			last = samples[0].Value.Uint64()
		}
	}
}
