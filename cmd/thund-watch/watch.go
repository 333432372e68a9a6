package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/watch"
)

// runWatch is watch mode: it runs until Ctrl-C (or SIGTERM), which cancels
// the running query, closes DuckDB and exits 0.
func runWatch(o options, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return watchUntil(ctx, o, stdout, stderr)
}

// watchUntil runs watch mode until ctx is done; tests call it directly.
func watchUntil(ctx context.Context, o options, stdout, stderr io.Writer) int {
	tty, width := false, 0
	if f, ok := stdout.(*os.File); ok {
		tty = !o.json && isTerminal(f)
		if tty {
			width = termWidth(f)
		}
	}
	color := tty && os.Getenv("NO_COLOR") == ""
	var afterRun func(context.Context, *analysis.Snapshot, io.Writer)
	if o.spark != "" {
		afterRun = func(ctx context.Context, snap *analysis.Snapshot, out io.Writer) {
			sparkPush(ctx, snap, o.spark, o.dryRun, o.json, out)
		}
	}
	err := watch.Run(ctx, watch.Options{
		AfterRun: afterRun,
		Dir:      o.dir,
		Analysis: analysis.Options{Backends: o.backends, Spec: o.spec},
		Engine:   engine.Options{StateDir: o.state, QueryTimeout: o.queryTimeout},
		Debounce: o.debounce,
		Previews: o.previews,
		Limit:    o.limit,
		JSON:     o.json,
		Color:    color,
		Progress: tty,
		Width:    width,
		Out:      stdout,
		Warn:     stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", err)
		return 2
	}
	return 0
}
