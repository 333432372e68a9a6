package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/analysis/schema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/report"
	"github.com/thund-dev/thund/watch"
)

// runOnce runs the pipeline once and prints what happened. Ctrl-C cancels
// the running query and closes DuckDB cleanly. Output that cannot be
// written (or encoded) is an error that says so, with exit status 2.
func runOnce(o options, snap *analysis.Snapshot, out *bufio.Writer, stderr io.Writer) int {
	var writeErr error
	code := runOnceTo(o, snap, out, stderr, func(err error) {
		if err != nil && writeErr == nil {
			writeErr = err
		}
	})
	if err := out.Flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "thund-watch: write output: %v\n", writeErr)
		return 2
	}
	return code
}

// runOnceTo is runOnce; failed reports each failure to write output.
func runOnceTo(o options, snap *analysis.Snapshot, out *bufio.Writer, stderr io.Writer, failed func(error)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := snap.Pipeline.Graph().TopoOrder(); err != nil {
		report.Text(out, snap)
		out.Flush()
		fmt.Fprintf(stderr, "thund-watch: cannot run: %v; fix the cycle first\n", err)
		return 1
	}
	for _, name := range o.previews {
		if snap.Pipeline.Dataset(name) == nil {
			fmt.Fprintf(stderr, "thund-watch: --preview %s: no such dataset%s\n", name, suggestDataset(snap.Pipeline, name))
			return 2
		}
	}
	sess, err := engine.Open(snap.Root, onceEngineOptions(o, snap.Project.Config))
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", err)
		return 2
	}
	defer sess.Close()
	if o.state != "" {
		rep, err := sess.Restore(ctx, snap.Pipeline)
		if err != nil {
			fmt.Fprintf(stderr, "thund-watch: restore state from %s: %v\n", o.state, err)
			return 1
		}
		for _, n := range rep.Notes {
			fmt.Fprintf(stderr, "thund-watch: state: %s\n", n)
		}
		for _, d := range rep.Datasets {
			if d.Message != "" {
				fmt.Fprintf(stderr, "thund-watch: state: %s: %s (%s)\n", d.Name, d.Message, d.Status)
			}
		}
	}
	// Column checks: every dataset described over the samples, so an
	// unknown column is reported where it is written, before running.
	var colDiags []ir.Diagnostic
	if desc, err := schema.Describe(ctx, sess, snap); err == nil {
		colDiags = desc.Diagnostics
	} else {
		fmt.Fprintf(stderr, "thund-watch: column checks skipped: %v\n", err)
	}
	diags := append(append([]ir.Diagnostic(nil), snap.Diagnostics...), colDiags...)
	ir.SortDiagnostics(diags)
	sum := report.Summarize(snap, colDiags...)
	if o.json {
		if err := report.JSONDiagnostics(out, snap, diags); err != nil {
			fmt.Fprintf(stderr, "thund-watch: %v\n", err)
			return 2
		}
	} else if len(diags) > 0 {
		report.TextDiagnostics(out, snap, diags)
		report.HintLines(out, sum)
		fmt.Fprintln(out)
	}
	color := !o.json && isTerminal(os.Stdout)
	enc := json.NewEncoder(out)
	res, runErr := sess.Run(ctx, snap.Pipeline, engine.RunOptions{Blocked: snap.Broken(), OnEvent: func(e engine.Event) {
		if o.json {
			failed(enc.Encode(report.EventJSON(e)))
			return
		}
		if line := report.EventText(e, color); line != "" {
			fmt.Fprintln(out, line)
			out.Flush()
		}
	}})
	if runErr != nil && res == nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", runErr)
		return 1
	}
	sparkOK, sparkErrors := true, 0
	if o.spark != "" && runErr == nil && !res.Failed() {
		sparkOK, sparkErrors = sparkPush(ctx, snap, o.spark, o.dryRun, o.json, out)
	}
	var pages []*preview.Page
	names := o.previews
	if o.limit == 0 {
		names = nil // --limit 0: no preview at all
	} else if len(names) == 0 {
		for _, k := range res.Order {
			names = append(names, res.Datasets[k].Name)
		}
	}
	for _, name := range names {
		d := res.Datasets[ir.NameKey(name)]
		if d == nil || d.Phase != engine.Completed {
			continue
		}
		p, err := preview.Dataset(ctx, sess, d.Name, 0, o.limit) // as defined, not as typed
		if err != nil {
			fmt.Fprintf(stderr, "thund-watch: %v\n", err)
			continue
		}
		pages = append(pages, p)
	}
	rs := report.SummarizeRun(res, sum)
	rs.Errors += sparkErrors
	rs.Warnings += len(res.SampleWarnings)
	if o.json {
		for _, w := range res.SampleWarnings {
			failed(enc.Encode(report.SampleWarningJSON(w)))
		}
		failed(report.RunJSON(out, res, pages, rs))
	} else {
		if lines := report.SampleWarningLines(res.SampleWarnings); len(lines) > 0 {
			fmt.Fprintf(out, "\n%s\n", strings.Join(lines, "\n"))
		}
		report.RunText(out, res)
		width := 0
		if !o.json && isTerminal(os.Stdout) {
			width = termWidth(os.Stdout)
		}
		for _, p := range pages {
			fmt.Fprintf(out, "\n%s\n", p.Dataset)
			failed(report.WriteFitted(out, p, width, color))
		}
		fmt.Fprintf(out, "\n%s: %d completed, %d failed, %d skipped in %d ms; %s, %s\n",
			plural(rs.Datasets, "dataset"), rs.Completed, rs.Failed, rs.Skipped, rs.ElapsedMS, plural(rs.Errors, "error"), plural(rs.Warnings, "warning"))
	}
	if runErr != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "thund-watch: interrupted: %d of %d datasets completed (marked ✓); the others did not run or were stopped, and nothing of theirs was committed\n", rs.Completed, len(snap.Pipeline.Datasets))
		} else {
			fmt.Fprintf(stderr, "thund-watch: %v\n", runErr)
		}
		return 1
	}
	failedExpectation := false
	for _, e := range res.Expectations {
		failedExpectation = failedExpectation || e.Failed
	}
	if res.Failed() || failedExpectation || sum.Errors > 0 || !sparkOK {
		return 1
	}
	return 0
}

// onceEngineOptions are the engine options of --once: --state, and the
// limits of --query-timeout, else thund.yaml, else (for the query time)
// watch.DefaultQueryTimeout, as in watch mode.
func onceEngineOptions(o options, cfg project.Config) engine.Options {
	opts := watch.Limits(engine.Options{StateDir: o.state, QueryTimeout: o.queryTimeout}, cfg)
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = watch.DefaultQueryTimeout
	}
	return opts
}

func suggestDataset(p *ir.Pipeline, name string) string {
	names := make([]string, len(p.Datasets))
	for i, d := range p.Datasets {
		names[i] = d.Name
	}
	if best := analysis.Nearest(name, names); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}

// termWidth is the width of the terminal f is, in characters: $COLUMNS
// when set, else what the terminal says, else 0 (no limit).
func termWidth(f *os.File) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
