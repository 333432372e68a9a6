package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Stats are the timings of one side of a comparison.
type Stats struct {
	Samples []time.Duration
	// CPU is the user plus system time of each run's process and the
	// children it waited for, when known (a whole command, not an LSP
	// edit). A Spark Connect server's own work is in neither side's CPU.
	CPU []time.Duration
}

// CPUMedian is the median CPU time, 0 when unknown.
func (s Stats) CPUMedian() time.Duration {
	if len(s.CPU) == 0 {
		return 0
	}
	return Stats{Samples: s.CPU}.Median()
}

// Median is the middle sample (the mean of the two middle ones for an even
// count).
func (s Stats) Median() time.Duration {
	d := s.sorted()
	if len(d) == 0 {
		return 0
	}
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// Min is the fastest sample.
func (s Stats) Min() time.Duration { return s.sorted()[0] }

// Max is the slowest sample.
func (s Stats) Max() time.Duration { d := s.sorted(); return d[len(d)-1] }

func (s Stats) sorted() []time.Duration {
	d := append([]time.Duration(nil), s.Samples...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d
}

// String is "median (min to max), n runs".
func (s Stats) String() string {
	if len(s.Samples) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s to %s)", human(s.Median()), human(s.Min()), human(s.Max()))
}

// human prints a duration with three significant digits.
func human(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
	default:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
}

// command is one process a measurement starts.
type command struct {
	Dir  string
	Env  []string // added to the driver's environment
	Args []string
	// Prepare runs before each timed run, untimed (removing a target
	// folder, touching a file).
	Prepare func(run int) error
}

// runOnce runs c and returns how long it took; a non-zero exit is an
// error carrying the tail of its output.
func (c command) runOnce(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	d, _, err := c.run(ctx, timeout)
	return d, err
}

// run runs c and returns its wall time and CPU time.
func (c command) run(ctx context.Context, timeout time.Duration) (time.Duration, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		return took, 0, fmt.Errorf("%s: no answer within %s", strings.Join(c.Args, " "), timeout)
	}
	if err != nil {
		return took, 0, fmt.Errorf("%s (in %s): %w\n%s", strings.Join(c.Args, " "), c.Dir, err, tail(out.String(), 30))
	}
	return took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// measure runs c up to runs times and returns the timings. When the first
// run takes longer than slow, it stops after min(runs, 3) runs, so that the
// largest peer sizes stay within minutes.
func measure(ctx context.Context, c command, runs int, slow time.Duration) (Stats, error) {
	var s Stats
	for i := 0; i < runs; i++ {
		if c.Prepare != nil {
			if err := c.Prepare(i); err != nil {
				return s, err
			}
		}
		d, cpu, err := c.run(ctx, 30*time.Minute)
		if err != nil {
			return s, err
		}
		s.Samples = append(s.Samples, d)
		s.CPU = append(s.CPU, cpu)
		logf("    %s: run %d: %s (CPU %s)", c.Args[0], i+1, human(d), human(cpu))
		if i == 0 && d > slow && runs > 3 {
			runs = 3
		}
	}
	return s, nil
}
