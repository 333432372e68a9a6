// Command thund-watch analyses a pipeline folder and runs it on embedded
// DuckDB over its sample data.
//
// Modes: --check analyses only; --once runs the pipeline once and prints
// events, expectation results and previews; without either, it watches
// the folder and re-runs what each save changed (package watch).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/analysis/schema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/typecheck"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/report"
	"github.com/thund-dev/thund/watch"
)

const usage = `thund-watch: check and run SQL pipelines (Spark Declarative Pipelines format).

Usage:
  thund-watch --check [--json] [--backend NAME,...] [--graph] [--columns [--query-timeout D]] [--lineage DATASET.COLUMN] [--spec FILE | DIR]
  thund-watch --once [--preview NAME,...] [--limit N] [--json] [--state DIR] [--query-timeout D] [--spark sc://HOST:PORT [--dry-run]] [--spec FILE | DIR]
  thund-watch [--debounce D] [--preview NAME,...] [--limit N] [--json] [--state DIR] [--query-timeout D] [--backend NAME,...] [--spark sc://HOST:PORT [--dry-run]] [--spec FILE | DIR]
  thund-watch --version

DIR is the pipeline folder, or any file or folder inside it (default: .).
The pipeline root is the nearest folder upward holding spark-pipeline.yml
(or .yaml), else thund.yaml, else DIR itself. --spec FILE names the spec
whatever its name (spark-pipelines.yaml, say), as spark-pipelines run
--spec does: the folder holding it is then the root.

Flags:
`

const footer = `
Output of --check: one line per diagnostic,
  path:line:column: severity: message [code]
with path relative to the pipeline root, line and column 1-based and the
column counted in characters (in --json too); then a summary line. With
--json, one JSON object per line: {"type":"diagnostic",...} for each
diagnostic, then {"type":"summary",...}. Every code is explained in
docs/diagnostics.md.

Output of --once: the diagnostics, one line per dataset as it completes,
fails or is skipped, expectation results, streaming increments, then a
table of the first --limit rows of each previewed dataset. With --json:
{"type":"diagnostic"}, {"type":"event"}, {"type":"expectation"},
{"type":"increment"} and {"type":"preview"} objects, then {"type":"summary"}.
A NaN or infinite value is the string "NaN", "Infinity" or "-Infinity".
On a terminal, tables are fitted to its width; --limit 0 prints none.

Watch mode (neither --check nor --once) runs every dataset, then watches
the folder: after each batch of saves it prints the diagnostics that
appeared or went away, re-runs only the datasets whose SQL, settings or
input data changed plus everything downstream of them, and prints one
status line per run and the --preview tables of what re-ran. A save that
changes nothing semantic (a comment, whitespace) re-runs nothing; a save
during a run cancels it and starts one covering both. With --json, the
objects of --once (diagnostics carry "change": "added" or "removed"), then
{"type":"run","changed":[...],"reran":[...],"elapsed_ms":N,...} per batch.
Ctrl-C stops cleanly with status 0.

Without spark-pipeline.yml or backends: in thund.yaml, what only Spark
cannot run is a warning (docs/format.md, section 6).

Exit status: 0 when there is no error, 1 when there is any error (or, with
--once, a failed dataset or a FAIL expectation), 2 for a usage error, a
folder with no pipeline, or output that could not be written.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	check    bool
	json     bool
	graph    bool
	columns  bool
	lineage  string
	spark    string
	dryRun   bool
	once     bool
	previews []string
	limit    int
	state    string
	backends []ir.Backend
	dir      string
	// spec is --spec FILE, the pipeline's spec under any name ("": found
	// by name from dir).
	spec     string
	debounce time.Duration
	// queryTimeout is --query-timeout; 0 when not given (thund.yaml's
	// limits.query_timeout, else watch.DefaultQueryTimeout).
	queryTimeout time.Duration
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

// parseFlags is parseArgs with help and version written to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	return parseArgs(args, stderr, stderr)
}

// parseArgs reads the command line; --help and --version write to
// stdout, mistakes to stderr (errUsage).
func parseArgs(args []string, stdout, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("thund-watch", flag.ContinueOnError)
	// The flag package's own messages name flags with one dash and print
	// the whole help after a mistake; usageError says it in one line.
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.check, "check", false, "analyse only: print every diagnostic and exit (1 if any error)")
	fs.BoolVar(&o.json, "json", false, "print NDJSON objects instead of text")
	fs.BoolVar(&o.graph, "graph", false, "with --check, also print the datasets in dependency order (with --json, one {\"type\":\"graph\"} object)")
	fs.StringVar(&o.lineage, "lineage", "", "with --check, also print the column lineage of DATASET.COLUMN as trees: the columns it is computed from and the columns computed from it (see lineage.go)")
	fs.BoolVar(&o.columns, "columns", false, "with --check, also describe every dataset on embedded DuckDB over the samples: unknown columns and type errors (--once and watch mode always do)")
	fs.BoolVar(&o.once, "once", false, "run the pipeline once on its sample data (embedded DuckDB) and exit (1 on a failure or FAIL expectation)")
	previews := fs.String("preview", "", "with --once, comma-separated datasets to preview (default: every dataset); in watch mode, datasets to preview when they re-run (default: none)")
	fs.IntVar(&o.limit, "limit", 20, fmt.Sprintf("with --once or in watch mode, rows shown per previewed dataset (at most %d; 0 prints no preview)", project.PreviewMaxRows))
	fs.DurationVar(&o.queryTimeout, "query-timeout", 0, fmt.Sprintf("the longest one statement may run, overriding limits.query_timeout of thund.yaml (default: thund.yaml's, else %s with --once and in watch mode, %s for --columns)", shortDuration(watch.DefaultQueryTimeout), shortDuration(engine.DefaultQueryTimeout)))
	fs.DurationVar(&o.debounce, "debounce", watch.DefaultDebounce, "in watch mode, how long the folder must stay quiet before a batch of saves is applied")
	fs.StringVar(&o.spark, "spark", "", "with --once or in watch mode, after each successful local run, push the pipeline to this Spark Connect server (sc://HOST:PORT) and print Spark's events and errors")
	fs.BoolVar(&o.dryRun, "dry-run", false, "with --spark, only analyse the pipeline on Spark (a dry run) instead of running it")
	fs.StringVar(&o.state, "state", "", "with --once or in watch mode, keep the DuckDB database and durable outputs in this folder (default: in memory)")
	fs.StringVar(&o.spec, "spec", "", "the pipeline's spec `FILE`, whatever its name (as spark-pipelines run --spec takes it); its folder is the pipeline root")
	backends := fs.String("backend", "", "comma-separated backends to check, overriding thund.yaml: native, spark-4.1, spark-4.2, spark-4.3, databricks")
	version := fs.Bool("version", false, "print the version of thund-watch, of its DuckDB and the Spark versions it checks and pushes to, and exit")
	// Flags may follow the folder too (thund-watch --once DIR --limit 5),
	// as in most command lines: the flag package stops at the first
	// argument that is not a flag, so parsing goes on after each.
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(stdout, fs)
				return o, err
			}
			fmt.Fprintf(stderr, "thund-watch: %s\n", flagMessage(err))
			return o, errUsage
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"; consumed {
			// after --, everything is an argument
			positional = append(positional, rest...)
			break
		}
		positional, rest = append(positional, rest[0]), rest[1:]
	}
	if *version {
		fmt.Fprintln(stdout, report.VersionLine("thund-watch"))
		return o, errVersion
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["backend"] && strings.TrimSpace(*backends) == "" {
		fmt.Fprintln(stderr, "thund-watch: --backend \"\": name at least one backend: native, spark-4.1, spark-4.2, spark-4.3 or databricks")
		return o, errUsage
	}
	if *backends != "" {
		for _, name := range strings.Split(*backends, ",") {
			name = strings.TrimSpace(name)
			b, ok := ir.ParseBackend(name)
			if !ok {
				fmt.Fprintf(stderr, "thund-watch: unknown backend %q in --backend; use native, spark-4.1, spark-4.2, spark-4.3 or databricks\n", name)
				return o, errUsage
			}
			o.backends = append(o.backends, b)
		}
	}
	if *previews != "" {
		for _, name := range strings.Split(*previews, ",") {
			if name = strings.TrimSpace(name); name != "" {
				o.previews = append(o.previews, name)
			}
		}
	}
	if o.limit < 0 {
		fmt.Fprintf(stderr, "thund-watch: --limit %d: give a number of rows, 0 or more\n", o.limit)
		return o, errUsage
	}
	if o.limit > project.PreviewMaxRows {
		fmt.Fprintf(stderr, "thund-watch: --limit %d: a preview shows at most %d rows per dataset; showing the first %d\n", o.limit, project.PreviewMaxRows, project.PreviewMaxRows)
		o.limit = project.PreviewMaxRows
	}
	if o.queryTimeout < 0 {
		fmt.Fprintf(stderr, "thund-watch: --query-timeout %s: give a positive duration, such as 30s or 10m\n", o.queryTimeout)
		return o, errUsage
	}
	if o.debounce <= 0 {
		fmt.Fprintf(stderr, "thund-watch: --debounce %s: give a positive duration, such as 50ms\n", o.debounce)
		return o, errUsage
	}
	if o.dryRun && o.spark == "" {
		fmt.Fprintln(stderr, "thund-watch: --dry-run needs --spark sc://HOST:PORT")
		return o, errUsage
	}
	if o.spark != "" && !strings.HasPrefix(o.spark, "sc://") {
		fmt.Fprintf(stderr, "thund-watch: --spark %q: give a Spark Connect URL such as sc://127.0.0.1:15002\n", o.spark)
		return o, errUsage
	}
	if o.check && o.once {
		fmt.Fprintln(stderr, "thund-watch: --check and --once exclude each other: --check only analyses, --once also runs")
		return o, errUsage
	}
	if (o.graph || o.columns) && !o.check {
		fmt.Fprintln(stderr, "thund-watch: --graph and --columns go with --check (without it, thund-watch starts watching)")
		return o, errUsage
	}
	if msg := lineageMisuse(o); msg != "" {
		fmt.Fprintln(stderr, msg)
		return o, errUsage
	}
	if err := modeFlags(o, set); err != "" {
		fmt.Fprintf(stderr, "thund-watch: %s\n", err)
		return o, errUsage
	}
	switch len(positional) {
	case 0:
		o.dir = "."
	case 1:
		o.dir = positional[0]
	default:
		fmt.Fprintf(stderr, "thund-watch: expected one pipeline folder, got %d arguments: %s\n", len(positional), strings.Join(positional, " "))
		return o, errUsage
	}
	if set["spec"] {
		if msg := specFlag(&o, len(positional) == 1); msg != "" {
			fmt.Fprintf(stderr, "thund-watch: %s\n", msg)
			return o, errUsage
		}
	}
	return o, nil
}

// specFlag checks --spec FILE and makes its folder the pipeline folder;
// withDir is set when a folder was given too, which must then be the
// spec's own. It returns the message of a mistake, or "".
func specFlag(o *options, withDir bool) string {
	if strings.TrimSpace(o.spec) == "" {
		return "--spec \"\": give the path of the pipeline's spec file"
	}
	fi, err := os.Stat(o.spec)
	switch {
	case err != nil || fi.IsDir():
		what := "does not exist"
		if err == nil {
			what = "is a folder"
		}
		return fmt.Sprintf("--spec %s %s: give the path of the pipeline's spec file (spark-pipelines refuses it too: PIPELINE_SPEC_FILE_DOES_NOT_EXIST)", o.spec, what)
	case !project.IsBundleFile(strings.ToLower(o.spec)):
		return fmt.Sprintf("--spec %s: Thund reads a spec named *.yml or *.yaml; rename the file", o.spec)
	}
	specDir, _ := filepath.Abs(filepath.Dir(o.spec))
	if withDir {
		dir, _ := filepath.Abs(o.dir)
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			dir = filepath.Dir(dir)
		}
		if filepath.Clean(dir) != filepath.Clean(specDir) {
			return fmt.Sprintf("--spec %s and the folder %s name two pipelines: the spec's folder is the pipeline's root (as spark-pipelines takes it); give --spec alone", o.spec, o.dir)
		}
	}
	o.dir = specDir
	return ""
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errVersion) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "see thund-watch --help")
		return 2
	}
	if !o.check && !o.once && o.spark == "" {
		return runWatch(o, stdout, stderr)
	}
	snap, err := analysis.Load(o.dir, analysis.Options{Backends: o.backends, Spec: o.spec})
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", err)
		return 2
	}
	if msg := sparkLeftOut(o, snap); msg != "" {
		fmt.Fprintf(stderr, "thund-watch: %s\n", msg)
		return 2
	}
	if !o.check && !o.once {
		return runWatch(o, stdout, stderr)
	}
	if notAPipeline(snap) {
		fmt.Fprintf(stderr, "thund-watch: %s holds no pipeline: no spark-pipeline.yml, no thund.yaml and no .sql file%s; give the pipeline's folder\n", o.dir, project.NoPipelineHint(snap.Project, snap.Files))
		return 2
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	if o.once {
		return runOnce(o, snap, out, stderr)
	}
	diags := snap.Diagnostics
	var extra []ir.Diagnostic
	if o.columns {
		extra, err = columnChecks(o, snap)
		if err != nil {
			fmt.Fprintf(stderr, "thund-watch: --columns: %v\n", err)
			return 2
		}
	} else {
		// Without --columns, the type errors the translation is sure of
		// without DuckDB (--columns binds on DuckDB and finds them too).
		extra = typecheck.Check(snap)
	}
	if len(extra) > 0 {
		diags = append(append([]ir.Diagnostic(nil), diags...), extra...)
		ir.SortDiagnostics(diags)
	}
	if !lineageResolves(o, snap, stderr) {
		return 2
	}
	sum := report.Summarize(snap, extra...)
	if o.json {
		if o.graph {
			err = json.NewEncoder(out).Encode(report.GraphJSONOf(snap))
		}
		if err == nil && o.lineage != "" {
			err = printLineage(out, snap, o.lineage, true)
		}
		if err == nil {
			err = report.JSONDiagnostics(out, snap, diags)
		}
		if err == nil {
			err = json.NewEncoder(out).Encode(sum)
		}
	} else {
		if o.graph {
			err = report.Graph(out, snap)
		}
		if err == nil && o.lineage != "" {
			err = printLineage(out, snap, o.lineage, false)
		}
		if err == nil {
			err = report.TextDiagnostics(out, snap, diags)
		}
		if err == nil {
			err = report.HintLines(out, sum)
		}
		if err == nil {
			_, err = fmt.Fprintln(out, report.SummaryLine(sum))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "thund-watch: write output: %v\n", err)
		return 2
	}
	if sum.Errors > 0 {
		return 1
	}
	return 0
}

// columnChecks describes every dataset on embedded DuckDB over the samples
// and returns the unknown-column and binder diagnostics. A description is
// cheap (LIMIT 0), so its statements keep the engine's default time limit
// unless --query-timeout or thund.yaml sets one.
func columnChecks(o options, snap *analysis.Snapshot) ([]ir.Diagnostic, error) {
	sess, err := engine.Open(snap.Root, watch.Limits(engine.Options{QueryTimeout: o.queryTimeout}, snap.Project.Config))
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	res, err := schema.Describe(context.Background(), sess, snap)
	if err != nil {
		return nil, err
	}
	return res.Diagnostics, nil
}

// shortDuration prints 10m0s as 10m and 1h0m0s as 1h.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// notAPipeline reports whether a folder has nothing of a pipeline: no
// spec, no thund.yaml, no .sql file (a mistyped or wrong folder, which
// would otherwise pass as an empty pipeline).
func notAPipeline(snap *analysis.Snapshot) bool {
	if snap.Project.HasSpec || snap.Project.ConfigFile != "" || snap.Project.Bundle != nil || len(snap.Libraries) > 0 {
		// A folder of Python libraries alone is a pipeline when the
		// backends read them (--backend databricks): analysis listed
		// them.
		return false
	}
	for _, f := range snap.Files {
		if strings.HasSuffix(strings.ToLower(f), ".sql") {
			return false
		}
	}
	return true
}

// errVersion ends parseFlags after --version printed the version
// (exit status 0).
var errVersion = errors.New("version printed")

// modeFlags refuses flags the chosen mode would ignore, so a flag given
// never does nothing; it returns the message, or "".
func modeFlags(o options, set map[string]bool) string {
	var unused []string
	var why string
	switch {
	case o.check:
		for _, name := range []string{"spark", "preview", "limit", "state", "debounce"} {
			if set[name] {
				unused = append(unused, "--"+name)
			}
		}
		if set["query-timeout"] && !o.columns {
			unused = append(unused, "--query-timeout")
		}
		why = "--check only analyses: previews, --state and --spark go with --once or watch mode, --debounce with watch mode, --query-timeout with --columns"
		return refusal("--check", unused, why)
	case o.once:
		if set["debounce"] {
			unused = append(unused, "--debounce")
		}
		why = "--once runs the pipeline once and exits; --debounce is for watch mode"
		return refusal("--once", unused, why)
	}
	return ""
}

func refusal(mode string, unused []string, why string) string {
	if len(unused) == 0 {
		return ""
	}
	return fmt.Sprintf("%s does not use %s: %s", mode, strings.Join(unused, ", "), why)
}

// flagMessage rewrites an error of the flag package for people: flags
// named with two dashes, as the help writes them.
func flagMessage(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("unknown flag --%s", strings.TrimLeft(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("flag --%s needs a value", strings.TrimLeft(name, "-"))
	}
	// invalid value "soon" for flag -debounce: parse error
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		msg = msg[:i] + " for flag --" + msg[i+len(" for flag -"):]
	}
	return msg
}

// printHelp writes the usage, every flag with two dashes, and the notes
// on output and exit status.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.VisitAll(func(f *flag.Flag) {
		name, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" {
			text += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "        %s\n", text)
	})
	fmt.Fprint(w, footer)
}

// sparkLeftOut refuses --spark when the backends checked (thund.yaml's
// `backends:`, or --backend) leave out the Spark version it would push
// to: the pipeline's Spark findings would otherwise come back only as
// Spark's refusal. It returns the message, or "".
func sparkLeftOut(o options, snap *analysis.Snapshot) string {
	if o.spark == "" {
		return ""
	}
	want := sparkBackend(snap)
	_, named := snap.Project.Config.SparkBackend()
	checked := snap.Backends()
	for _, b := range checked {
		// Unnamed, the push lowers for the server's version: any Spark
		// backend checked will do.
		if b == want || !named && b != ir.Native {
			return ""
		}
	}
	names := make([]string, len(checked))
	for i, b := range checked {
		names[i] = string(b)
	}
	if len(o.backends) > 0 {
		return fmt.Sprintf("--spark pushes to %s, which --backend %s leaves out: add %s to --backend, or drop --spark", want, strings.Join(names, ","), want)
	}
	return fmt.Sprintf("--spark pushes to %s, which thund.yaml leaves out (backends: [%s]): add %s to `backends:` in thund.yaml to check and push this pipeline, or drop --spark", want, strings.Join(names, ", "), want)
}

// sparkBackend is the backend --spark pushes to as thund.yaml says
// (spark.version, else the newest Spark its backends list), else the
// default's (spark-4.1); sparkPush then lowers for the server's own
// version when thund.yaml says none.
func sparkBackend(snap *analysis.Snapshot) ir.Backend {
	if b, ok := snap.Project.Config.SparkBackend(); ok {
		return b
	}
	return ir.Spark41
}
