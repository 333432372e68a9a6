package bench

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMain writes the machine's load average before and after a
// benchmark run, as comment lines in the output that bench/compare puts
// in docs/benchmarks.md: on a shared machine the figures mean little
// without it.
func TestMain(m *testing.M) {
	flag.Parse()
	bench := flag.Lookup("test.bench")
	running := bench != nil && bench.Value.String() != ""
	if running {
		printLoad("start")
	}
	code := m.Run()
	if running {
		printLoad("end")
	}
	os.Exit(code)
}

// printLoad prints "# load average at WHEN: 1-min 5-min 15-min" from
// /proc/loadavg (nothing where there is none).
func printLoad(when string) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return
	}
	fmt.Printf("# load average at %s: %s %s %s\n", when, f[0], f[1], f[2])
}
