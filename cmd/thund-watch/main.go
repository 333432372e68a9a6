// Command thund-watch analyses a pipeline folder and reports what is wrong
// with it, file by file, at exact positions.
//
// This build implements the analysis mode (--check, with --graph to print
// the dataset graph). Running pipelines (--once, and watching for saves)
// needs the native engine, which is not built yet: those modes exit with
// status 2 and say so.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/report"
)

const usage = `thund-watch: check and run SQL pipelines (Spark Declarative Pipelines format).

Usage:
  thund-watch --check [--json] [--backend NAME,...] [--graph] [DIR]

DIR is the pipeline folder, or any file or folder inside it (default: .).
The pipeline root is the nearest folder upward holding spark-pipeline.yml,
else thund.yaml, else DIR itself.

Flags:
`

const footer = `
Output of --check: one line per diagnostic,
  path:line:column: severity: message [code]
with path relative to the pipeline root, line and column 1-based and the
column counted in characters; then a summary line. With --json, one JSON
object per line: {"type":"diagnostic",...} for each diagnostic, then
{"type":"summary",...}. Every code is explained in docs/diagnostics.md.

Exit status: 0 when there is no error, 1 when there is any error, 2 for a
usage error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	check    bool
	json     bool
	graph    bool
	once     bool
	backends []ir.Backend
	dir      string
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("thund-watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.check, "check", false, "analyse only: print every diagnostic and exit (1 if any error)")
	fs.BoolVar(&o.json, "json", false, "print NDJSON objects instead of text")
	fs.BoolVar(&o.graph, "graph", false, "with --check, also print the datasets in dependency order")
	fs.BoolVar(&o.once, "once", false, "run the pipeline once on its samples (needs the native engine: not in this build)")
	backends := fs.String("backend", "", "comma-separated backends to check, overriding thund.yaml: native, spark-4.1, spark-4.2")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, footer)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage
	}
	if *backends != "" {
		for _, name := range strings.Split(*backends, ",") {
			name = strings.TrimSpace(name)
			b, ok := ir.ParseBackend(name)
			if !ok {
				fmt.Fprintf(stderr, "thund-watch: unknown backend %q in --backend; use native, spark-4.1 or spark-4.2\n", name)
				return o, errUsage
			}
			o.backends = append(o.backends, b)
		}
	}
	switch fs.NArg() {
	case 0:
		o.dir = "."
	case 1:
		o.dir = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "thund-watch: expected one pipeline folder, got %d arguments: %s\n", fs.NArg(), strings.Join(fs.Args(), " "))
		return o, errUsage
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "Run thund-watch --help for usage.")
		return 2
	}
	if !o.check {
		fmt.Fprintln(stderr, "thund-watch: running pipelines (--once, watch mode) needs the native engine, which this build does not have yet; use --check to analyse the pipeline")
		return 2
	}
	snap, err := analysis.Load(o.dir, analysis.Options{Backends: o.backends})
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", err)
		return 2
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	if o.json {
		err = report.JSON(out, snap)
	} else {
		if o.graph {
			err = report.Graph(out, snap)
		}
		if err == nil {
			err = report.Text(out, snap)
		}
		if err == nil {
			_, err = fmt.Fprintln(out, report.SummaryLine(report.Summarize(snap)))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: write output: %v\n", err)
		return 2
	}
	if report.Summarize(snap).Errors > 0 {
		return 1
	}
	return 0
}
