// Package bench holds Thund's benchmarks. Run them with `make bench`; the
// output is in the format benchstat reads, and docs/benchmarks.md records
// a run with its machine.
package bench

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/bench/gen"
	"github.com/thund-dev/thund/lsp"
)

// TestGeneratedPipelineIsClean guards the benchmarks: a generated pipeline
// must analyse without errors, or the benchmarks would measure error paths.
func TestGeneratedPipelineIsClean(t *testing.T) {
	root := t.TempDir()
	if err := gen.Write(root, gen.Config{Datasets: 200, Width: 20, SampleRows: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pipeline.Datasets) != 200 {
		t.Fatalf("%d datasets, want 200", len(s.Pipeline.Datasets))
	}
	for _, d := range s.Diagnostics {
		t.Errorf("unexpected diagnostic: %s %s %s", d.Loc.File, d.Code, d.Message)
	}
	order, err := s.Pipeline.Graph().TopoOrder()
	if err != nil || len(order) != 200 {
		t.Fatalf("topological order: %d datasets, %v", len(order), err)
	}
}

// BenchmarkColdAnalysis measures loading a pipeline from disk: discovery,
// reading, parsing every file and assembling the diagnostics. Beside the
// time it reports the CPU time per load and live-MB, the heap a loaded
// snapshot keeps once the collector has run (what an editor holding the
// snapshot keeps; its process's RSS is about twice that, see
// BenchmarkLSPMemory10k).
func BenchmarkColdAnalysis(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := b.TempDir()
			if err := gen.Write(root, gen.Config{Datasets: n, Width: 100, SampleRows: 10, Seed: 1}); err != nil {
				b.Fatal(err)
			}
			before := liveHeap()
			b.ResetTimer()
			cpu := cpuTime()
			machine, machineOK := machineBusy()
			start := time.Now()
			var s *analysis.Snapshot
			for i := 0; i < b.N; i++ {
				s = nil // the previous load is garbage before the next one
				var err error
				s, err = analysis.Load(root, analysis.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Pipeline.Datasets) != n {
					b.Fatalf("%d datasets", len(s.Pipeline.Datasets))
				}
			}
			own := cpuTime() - cpu
			b.ReportMetric(float64(own)/float64(b.N)/1e6, "cpu-ms/op")
			if after, ok := machineBusy(); ok && machineOK {
				// What the rest of the machine ran meanwhile, in cores:
				// near 0 the wall time is the quiet machine's.
				b.ReportMetric(max(0, float64(after-machine-own)/float64(time.Since(start))), "others-cores")
			}
			b.StopTimer()
			b.ReportMetric(float64(liveHeap()-before)/(1<<20), "live-MB")
			runtime.KeepAlive(s)
		})
	}
}

// liveHeap returns the bytes of heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkIncrementalUpdate measures re-analysis after one file changes in
// a 2,000-file pipeline, edits back to back; it reports the median and p99
// of the updates.
func BenchmarkIncrementalUpdate(b *testing.B) { benchUpdates(b, 0) }

// BenchmarkIncrementalUpdateAfterIdle is the same with the language
// server's debounce (30 ms) of idle time before each edit, as in an
// editor: the caches have gone cold by then, which makes the same update
// two to three times slower than back to back.
func BenchmarkIncrementalUpdateAfterIdle(b *testing.B) { benchUpdates(b, lsp.Debounce) }

func benchUpdates(b *testing.B, idle time.Duration) {
	const n = 2000
	root := b.TempDir()
	if err := gen.Write(root, gen.Config{Datasets: n, Width: 100, SampleRows: 10, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	s, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	samples := b.N
	if idle > 0 {
		samples = max(b.N, minSamples)
	}
	durations := make([]time.Duration, 0, samples)
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < samples; i++ {
		k := (i * 7919) % n
		text := fmt.Sprintf("-- edit %d\nSELECT id, customer_id, amount, region FROM %s WHERE amount > %d\n", i, gen.Name(k/2), i%100)
		if k < 100 {
			text = fmt.Sprintf("SELECT id, customer_id, amount, region FROM orders WHERE amount > %d\n", i%100)
		}
		if idle > 0 {
			b.StopTimer()
			time.Sleep(idle)
			b.StartTimer()
		}
		start := time.Now()
		s = s.Update([]analysis.Change{{Path: gen.File(k), Text: &text}})
		durations = append(durations, time.Since(start))
		if len(s.Pipeline.Datasets) != n {
			b.Fatalf("%d datasets", len(s.Pipeline.Datasets))
		}
	}
	b.StopTimer()
	if samples > 0 {
		b.ReportMetric(float64(cpuTime()-cpu)/float64(samples)/1e6, "cpu-ms/op")
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	if len(durations) > 0 {
		b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// cpuTime returns the CPU time (user and system) the process has used,
// in nanoseconds: on a shared machine it says more about the work done
// than the wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy returns the CPU time every CPU of the machine has spent
// busy (not idle, not waiting for I/O; guest time is already in user
// time) since boot, from /proc/stat, and
// false where there is no /proc/stat. Its unit is the kernel's clock tick,
// taken to be 100 Hz, the value on Linux for every architecture Go
// supports.
func machineBusy() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, false
	}
	var busy int64
	for i, f := range fields[1:] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		switch i {
		case 3, 4, 8, 9: // idle, iowait, guest, guest_nice
		default:
			busy += n
		}
	}
	return time.Duration(busy) * 10 * time.Millisecond, true
}
