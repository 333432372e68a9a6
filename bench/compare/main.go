// Command compare measures Thund side by side with the tools users would
// pick instead, in one run on one machine, and writes docs/benchmarks.md
// (`make bench` runs it after the Go benchmarks):
//
//   - cold project load: thund-watch --check against dbt parse (partial
//     parsing off, fresh target folder);
//   - a full run on the samples: thund-watch --once against dbt run on
//     DuckDB (dbt-duckdb);
//   - one file edited to fresh diagnostics: thund-lsp over the protocol
//     against dbt parse with partial parsing;
//   - Spark: thund's push with a dry run against spark-pipelines dry-run,
//     on the same generated SDP project and the same Spark Connect server;
//   - preview overhead against raw DuckDB, from the Go benchmark
//     BenchmarkPreviewOverhead in the Go benchmark output.
//
// Every project comes from bench/gen (the Thund, dbt and SDP flavours of
// one configuration). dbt is installed by scripts/bench-dbt.sh, pyspark and
// the server by scripts/spark.sh; a peer that cannot be installed or
// started is skipped, and the document says why. Each side runs several
// times; the tables give the median with min and max, and the ratio of the
// medians (peer / Thund).
//
// "compare push [-remote URL] DIR" is the thund side of the push-only
// figure: load the folder, lower it for Spark 4.1 and push it with a dry
// run, in a fresh process, as spark-pipelines does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/bench/gen"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sdplower"
	"github.com/thund-dev/thund/sparkconnect"
)

// sizes are the project sizes of one run.
type sizes struct {
	Parse      []int // models, cold load
	Run        []int // models, full run
	RunRows    int   // rows per source sample in the full run
	Edit       int   // models, edit to diagnostics
	Edits      int   // edits timed per side
	Push       int   // datasets, Spark dry run
	PushRows   int   // rows per source (VALUES) in the SDP project
	ParseWidth int
	RunWidth   int
}

var presets = map[string]sizes{
	"full":  {Parse: []int{1000, 10000}, Run: []int{100, 1000}, RunRows: 10000, Edit: 1000, Edits: 20, Push: 500, PushRows: 20, ParseWidth: 100, RunWidth: 50},
	"quick": {Parse: []int{100, 1000}, Run: []int{20, 100}, RunRows: 1000, Edit: 100, Edits: 5, Push: 50, PushRows: 5, ParseWidth: 50, RunWidth: 10},
}

var verbose = true

func logf(format string, args ...any) {
	if verbose {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "push" {
		os.Exit(pushMain(os.Args[2:]))
	}
	os.Exit(compareMain(os.Args[1:]))
}

type config struct {
	size      string
	runs      int
	only      map[string]bool
	repo      string
	work      string
	keep      bool
	goOut     string
	doc       string
	watchBin  string
	lspBin    string
	remote    string
	sizes     sizes
	thundBins string
}

func compareMain(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.size, "size", "full", "project sizes: full (the issue's sizes) or quick (small, for iterating)")
	fs.IntVar(&c.runs, "runs", 5, "runs per side and size (3 when a first run takes over 30 s)")
	only := fs.String("only", "", "comma-separated comparisons to run: parse, run, edit, push (default: all)")
	fs.StringVar(&c.repo, "repo", ".", "the Thund repository (for scripts/ and bin/)")
	fs.StringVar(&c.work, "work", "", "folder for the generated projects (default: a temporary folder, removed afterwards)")
	fs.BoolVar(&c.keep, "keep", false, "keep the generated projects")
	fs.StringVar(&c.goOut, "go-out", "bench/out.txt", "Go benchmark output (benchstat form) to fold into the document; empty: none")
	fs.StringVar(&c.doc, "doc", "docs/benchmarks.md", "the document to write; empty: print the tables only")
	fs.StringVar(&c.remote, "spark", "sc://127.0.0.1:15002", "Spark Connect server for the push comparison")
	results := fs.String("results", "bench/compare.json", "where to save the measurements (JSON); empty: nowhere")
	render := fs.String("render", "", "measure nothing: write the document from measurements saved by -results")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, ok := presets[c.size]
	if !ok {
		fmt.Fprintf(os.Stderr, "compare: -size %q: use full or quick\n", c.size)
		return 2
	}
	c.sizes = s
	if *render != "" {
		goOut := ""
		if c.goOut != "" {
			goOut = inRepo(c.repo, c.goOut)
		}
		return renderSaved(inRepo(c.repo, *render), goOut, inRepo(c.repo, c.doc))
	}
	if c.runs < 1 {
		fmt.Fprintln(os.Stderr, "compare: -runs must be at least 1")
		return 2
	}
	c.only = map[string]bool{}
	for _, o := range strings.Split(*only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.only[o] = true
		}
	}
	repo, err := filepath.Abs(c.repo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 2
	}
	c.repo = repo
	c.watchBin = filepath.Join(repo, "bin", "thund-watch")
	c.lspBin = filepath.Join(repo, "bin", "thund-lsp")
	for _, b := range []string{c.watchBin, c.lspBin} {
		if _, err := os.Stat(b); err != nil {
			fmt.Fprintf(os.Stderr, "compare: %s is missing: run make build first\n", b)
			return 2
		}
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "thund-bench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 2
		}
		c.work = dir
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	ctx := context.Background()
	rep := &report{Size: c.size, Runs: c.runs, Start: time.Now(), LoadStart: loadAvg(), Sizes: c.sizes}
	rep.Machine = machine(ctx, c.repo)
	want := func(name string) bool { return len(c.only) == 0 || c.only[name] }

	dbt, dbtErr := installDBT(ctx, c.repo)
	if dbtErr != nil {
		logf("dbt: %v", dbtErr)
	} else {
		rep.Machine.DBT = dbtVersion(ctx, c.repo)
	}
	if want("parse") {
		rep.Rows = append(rep.Rows, c.parse(ctx, dbt, dbtErr)...)
	}
	if want("run") {
		rep.Rows = append(rep.Rows, c.fullRun(ctx, dbt, dbtErr)...)
	}
	if want("edit") {
		rep.Rows = append(rep.Rows, c.edit(ctx, dbt, dbtErr)...)
	}
	if want("push") {
		rep.Rows = append(rep.Rows, c.push(ctx, rep)...)
	}
	if c.goOut != "" {
		if text, err := os.ReadFile(inRepo(c.repo, c.goOut)); err == nil {
			rep.Go = parseGoBench(string(text))
			if fi, err := os.Stat(inRepo(c.repo, c.goOut)); err == nil {
				rep.GoTime = fi.ModTime()
			}
		} else {
			logf("no Go benchmark output at %s: %v", c.goOut, err)
		}
	}
	rep.End = time.Now()
	rep.LoadEnd = loadAvg()
	if len(c.only) > 0 && *results != "" {
		rep.Rows = keepSaved(inRepo(c.repo, *results), rep, c.only)
	}
	if *results != "" {
		if b, err := json.MarshalIndent(rep, "", " "); err == nil {
			if err := os.WriteFile(inRepo(c.repo, *results), b, 0o644); err != nil {
				logf("save results: %v", err)
			}
		}
	}
	fmt.Print(rep.tables())
	if c.doc != "" {
		if err := os.WriteFile(inRepo(c.repo, c.doc), []byte(rep.markdown()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 1
		}
		logf("wrote %s", c.doc)
	}
	return 0
}

// keepSaved returns the rows of a run limited by -only, with the saved
// rows of the comparisons it did not run kept in their place (each marked
// with when and at which commit it was measured), so that re-measuring
// one comparison does not drop the others from the document.
func keepSaved(results string, rep *report, only map[string]bool) []Row {
	rows := rep.Rows
	b, err := os.ReadFile(results)
	if err != nil {
		return rows
	}
	var saved report
	if err := json.Unmarshal(b, &saved); err != nil {
		logf("%s: %v; the comparisons not run this time are left out", results, err)
		return rows
	}
	var out []Row
	for _, g := range []string{"parse", "run", "edit", "push"} {
		if only[g] {
			for _, r := range rows {
				if r.Group == g {
					out = append(out, r)
				}
			}
			continue
		}
		for _, r := range saved.Rows {
			if r.Group != g {
				continue
			}
			if r.Measured.IsZero() {
				r.Measured, r.Commit = saved.Start, saved.Machine.Commit
			}
			if g == "push" && !only["push"] {
				rep.Machine.PySpark = saved.Machine.PySpark // the kept rows' Spark
			}
			out = append(out, r)
		}
	}
	return out
}

// inRepo resolves a path relative to the repository (an absolute path
// stays as it is).
func inRepo(repo, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(repo, p)
}

// renderSaved writes the document from saved measurements, with the Go
// benchmark output read afresh from goOut when given.
func renderSaved(results, goOut, doc string) int {
	b, err := os.ReadFile(results)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		fmt.Fprintf(os.Stderr, "compare: %s: %v\n", results, err)
		return 1
	}
	if goOut != "" {
		if text, err := os.ReadFile(goOut); err == nil {
			rep.Go = parseGoBench(string(text))
			if fi, err := os.Stat(goOut); err == nil {
				rep.GoTime = fi.ModTime()
			}
		}
	}
	fmt.Print(rep.tables())
	if err := os.WriteFile(doc, []byte(rep.markdown()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	return 0
}

// dbtEnv keeps dbt off the network and its output plain.
var dbtEnv = []string{"DBT_SEND_ANONYMOUS_USAGE_STATS=False", "DO_NOT_TRACK=1", "DBT_USE_COLORS=False", "DBT_PRINTER_WIDTH=80"}

func installDBT(ctx context.Context, repo string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(repo, "scripts", "bench-dbt.sh")).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("scripts/bench-dbt.sh failed: %s", strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("scripts/bench-dbt.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func dbtVersion(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, filepath.Join(repo, "scripts", "bench-dbt.sh"), "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// generate writes the three flavours of one configuration under the work
// folder.
func (c *config) generate(name string, g gen.Config) (gen.Projects, error) {
	root := filepath.Join(c.work, name)
	os.RemoveAll(root)
	logf("generate %s: %d datasets, width %d, %d sample rows", name, g.Datasets, g.Width, g.SampleRows)
	p, err := gen.WriteAll(root, g)
	if err != nil {
		return p, err
	}
	return p, nil
}

// Row is one comparison at one size.
type Row struct {
	Group    string // parse, run, edit, push, preview
	What     string // what Thund does
	Size     string
	Thund    Stats
	PeerName string
	Peer     Stats
	// Target is the ratio (peer / Thund) the issue asks for; 0: none.
	Target float64
	// Skipped says why the row has no figures.
	Skipped string
	// Note is shown under the table.
	Note string
	// Measured is when the row was measured, when that differs from the
	// report's run (a row kept from an earlier run by -only).
	Measured time.Time `json:",omitempty"`
	// Commit is the commit the row was measured at, in that case.
	Commit string `json:",omitempty"`
}

// Ratio is the peer's median over Thund's.
func (r Row) Ratio() float64 {
	if len(r.Thund.Samples) == 0 || len(r.Peer.Samples) == 0 {
		return 0
	}
	return r.Peer.Median().Seconds() / r.Thund.Median().Seconds()
}

// CPURatio is the peer's median CPU time over Thund's, 0 when unknown.
func (r Row) CPURatio() float64 {
	t, p := r.Thund.CPUMedian(), r.Peer.CPUMedian()
	if t == 0 || p == 0 {
		return 0
	}
	return p.Seconds() / t.Seconds()
}

// RatioRange is the least and greatest ratio the samples allow.
func (r Row) RatioRange() (lo, hi float64) {
	return r.Peer.Min().Seconds() / r.Thund.Max().Seconds(), r.Peer.Max().Seconds() / r.Thund.Min().Seconds()
}

func (c *config) parse(ctx context.Context, dbt string, dbtErr error) []Row {
	var rows []Row
	for _, n := range c.sizes.Parse {
		row := Row{Group: "parse", What: "thund-watch --check", Size: fmt.Sprintf("%d models", n), PeerName: "dbt parse (no partial parse, fresh target/)"}
		if n == 10000 || n == c.sizes.Parse[len(c.sizes.Parse)-1] {
			row.Target = 20
		}
		p, err := c.generate(fmt.Sprintf("parse-%d", n), gen.Config{Datasets: n, Width: c.sizes.ParseWidth, SampleRows: 100, Seed: 1})
		if err != nil {
			row.Skipped = err.Error()
			rows = append(rows, row)
			continue
		}
		logf("parse, %d models: thund", n)
		row.Thund, err = measure(ctx, command{Dir: p.Thund, Args: []string{c.watchBin, "--check", p.Thund}}, c.runs, 30*time.Second)
		if err != nil {
			row.Skipped = "thund failed: " + err.Error()
			rows = append(rows, row)
			continue
		}
		if dbtErr != nil {
			row.Skipped = "dbt not installed: " + dbtErr.Error()
		} else {
			logf("parse, %d models: dbt", n)
			row.Peer, err = measure(ctx, command{
				Dir: p.DBT, Env: dbtEnv,
				Args:    []string{dbt, "parse", "--no-partial-parse", "--profiles-dir", p.DBT, "--project-dir", p.DBT},
				Prepare: func(int) error { return os.RemoveAll(filepath.Join(p.DBT, "target")) },
			}, c.runs, 30*time.Second)
			if err != nil {
				row.Skipped = "dbt failed: " + err.Error()
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func (c *config) fullRun(ctx context.Context, dbt string, dbtErr error) []Row {
	var rows []Row
	for _, n := range c.sizes.Run {
		row := Row{Group: "run", What: "thund-watch --once (embedded DuckDB)", Size: fmt.Sprintf("%d models, %d rows per source", n, c.sizes.RunRows), PeerName: "dbt run (dbt-duckdb, 4 threads)"}
		if n == c.sizes.Run[len(c.sizes.Run)-1] {
			row.Target = 3
		}
		p, err := c.generate(fmt.Sprintf("run-%d", n), gen.Config{Datasets: n, Width: c.sizes.RunWidth, SampleRows: c.sizes.RunRows, Seed: 2})
		if err != nil {
			row.Skipped = err.Error()
			rows = append(rows, row)
			continue
		}
		logf("full run, %d models: thund", n)
		row.Thund, err = measure(ctx, command{Dir: p.Thund, Args: []string{c.watchBin, "--once", "--preview", gen.Name(0), "--limit", "0", p.Thund}}, c.runs, 30*time.Second)
		if err != nil {
			row.Skipped = "thund failed: " + err.Error()
			rows = append(rows, row)
			continue
		}
		if dbtErr != nil {
			row.Skipped = "dbt not installed: " + dbtErr.Error()
			rows = append(rows, row)
			continue
		}
		// One parse first, so every timed run finds dbt's partial-parse
		// state as a user's second run would; the database starts empty
		// each time, as Thund's in-memory one does.
		base := []string{"--profiles-dir", p.DBT, "--project-dir", p.DBT}
		if _, err := (command{Dir: p.DBT, Env: dbtEnv, Args: append([]string{dbt, "parse"}, base...)}).runOnce(ctx, 30*time.Minute); err != nil {
			row.Skipped = "dbt failed: " + err.Error()
			rows = append(rows, row)
			continue
		}
		logf("full run, %d models: dbt", n)
		row.Peer, err = measure(ctx, command{
			Dir: p.DBT, Env: dbtEnv,
			Args: append([]string{dbt, "run"}, base...),
			Prepare: func(int) error {
				for _, f := range []string{"generated.duckdb", "generated.duckdb.wal"} {
					if err := os.Remove(filepath.Join(p.DBT, "target", f)); err != nil && !os.IsNotExist(err) {
						return err
					}
				}
				return nil
			},
		}, c.runs, 30*time.Second)
		if err != nil {
			row.Skipped = "dbt failed: " + err.Error()
		}
		rows = append(rows, row)
	}
	return rows
}

func (c *config) edit(ctx context.Context, dbt string, dbtErr error) []Row {
	n := c.sizes.Edit
	row := Row{Group: "edit", What: "thund-lsp: didChange to publishDiagnostics (30 ms debounce included)", Size: fmt.Sprintf("%d models", n), PeerName: "dbt parse with partial parsing, one model changed"}
	p, err := c.generate(fmt.Sprintf("edit-%d", n), gen.Config{Datasets: n, Width: c.sizes.ParseWidth, SampleRows: 100, Seed: 3})
	if err != nil {
		row.Skipped = err.Error()
		return []Row{row}
	}
	// A dataset of the last layer that joins (its text reads "FROM ds_").
	target := n - 1
	for target%5 != 0 {
		target--
	}
	logf("edit, %d models: thund-lsp", n)
	row.Thund, err = lspEdits(ctx, c.lspBin, p.Thund, filepath.Join(p.Thund, filepath.FromSlash(gen.File(target))), c.sizes.Edits, 600*time.Millisecond)
	if err != nil {
		row.Skipped = "thund-lsp failed: " + err.Error()
		return []Row{row}
	}
	if dbtErr != nil {
		row.Skipped = "dbt not installed: " + dbtErr.Error()
		return []Row{row}
	}
	base := []string{"--profiles-dir", p.DBT, "--project-dir", p.DBT}
	if _, err := (command{Dir: p.DBT, Env: dbtEnv, Args: append([]string{dbt, "parse"}, base...)}).runOnce(ctx, 30*time.Minute); err != nil {
		row.Skipped = "dbt failed: " + err.Error()
		return []Row{row}
	}
	model := filepath.Join(p.DBT, filepath.FromSlash(gen.File(target)))
	orig, err := os.ReadFile(model)
	if err != nil {
		row.Skipped = err.Error()
		return []Row{row}
	}
	logf("edit, %d models: dbt", n)
	row.Peer, err = measure(ctx, command{
		Dir: p.DBT, Env: dbtEnv,
		Args: append([]string{dbt, "parse"}, base...),
		Prepare: func(run int) error {
			return os.WriteFile(model, []byte(fmt.Sprintf("%s-- edit %d\n", orig, run)), 0o644)
		},
	}, c.runs, 30*time.Second)
	if err != nil {
		row.Skipped = "dbt failed: " + err.Error()
	}
	return []Row{row}
}

// sparkPipelines returns the spark-pipelines executable of the pyspark
// venv that scripts/spark.sh installs, and the environment it needs (the
// venv's bin first on PATH, since the script looks for python there).
func (c *config) sparkPipelines(ctx context.Context) (string, []string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(c.repo, "scripts", "spark.sh"), "python").Output()
	if err != nil {
		return "", nil, fmt.Errorf("scripts/spark.sh python: %w", err)
	}
	bin := filepath.Dir(strings.TrimSpace(string(out)))
	exe := filepath.Join(bin, "spark-pipelines")
	if _, err := os.Stat(exe); err != nil {
		return "", nil, fmt.Errorf("no spark-pipelines in %s: %w", bin, err)
	}
	return exe, []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}, nil
}

func (c *config) push(ctx context.Context, rep *report) []Row {
	n := c.sizes.Push
	size := fmt.Sprintf("%d datasets", n)
	peer := "spark-pipelines dry-run --remote"
	full := Row{Group: "push", What: "thund-watch --once --spark --dry-run (local run on DuckDB, then define and dry run)", Size: size, PeerName: peer}
	only := Row{Group: "push", What: "thund push: load, lower, define, dry run (bench/compare push)", Size: size, PeerName: peer, Target: 2}
	skip := func(why string) []Row {
		full.Skipped, only.Skipped = why, why
		return []Row{only, full}
	}
	exe, env, err := c.sparkPipelines(ctx)
	if err != nil {
		return skip("pyspark not installed: " + err.Error())
	}
	if out, err := exec.CommandContext(ctx, filepath.Join(c.repo, "scripts", "spark.sh"), "start").CombinedOutput(); err != nil {
		return skip("no Spark Connect server: " + strings.TrimSpace(string(out)))
	}
	if out, err := exec.CommandContext(ctx, filepath.Join(filepath.Dir(exe), "python"), "-c", "import pyspark; print(pyspark.__version__)").Output(); err == nil {
		rep.Machine.PySpark = strings.TrimSpace(string(out))
	}
	p, err := c.generate(fmt.Sprintf("push-%d", n), gen.Config{Datasets: n, Width: 50, SampleRows: c.sizes.PushRows, Seed: 4})
	if err != nil {
		return skip(err.Error())
	}
	self, err := os.Executable()
	if err != nil {
		return skip(err.Error())
	}
	logf("push, %d datasets: thund push", n)
	if only.Thund, err = measure(ctx, command{Dir: p.SDP, Args: []string{self, "push", "-remote", c.remote, p.SDP}}, c.runs, 60*time.Second); err != nil {
		only.Skipped = "thund failed: " + err.Error()
	}
	logf("push, %d datasets: thund-watch --once --spark --dry-run", n)
	if full.Thund, err = measure(ctx, command{Dir: p.SDP, Args: []string{c.watchBin, "--once", "--spark", c.remote, "--dry-run", "--preview", gen.Name(0), "--limit", "0", p.SDP}}, c.runs, 60*time.Second); err != nil {
		full.Skipped = "thund failed: " + err.Error()
	}
	logf("push, %d datasets: spark-pipelines dry-run", n)
	peerStats, err := measure(ctx, command{Dir: p.SDP, Env: env, Args: []string{exe, "dry-run", "--remote", c.remote, "--spec", filepath.Join(p.SDP, "spark-pipeline.yml")}}, c.runs, 60*time.Second)
	if err != nil {
		return skip("spark-pipelines failed: " + err.Error())
	}
	only.Peer, full.Peer = peerStats, peerStats
	return []Row{only, full}
}

// pushMain is "compare push": the thund side of the push-only figure.
func pushMain(args []string) int {
	fs := flag.NewFlagSet("compare push", flag.ContinueOnError)
	remote := fs.String("remote", "sc://127.0.0.1:15002", "Spark Connect server")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: compare push [-remote sc://HOST:PORT] DIR")
		return 2
	}
	if err := push(context.Background(), fs.Arg(0), *remote); err != nil {
		fmt.Fprintln(os.Stderr, "compare push:", err)
		return 1
	}
	return 0
}

// push loads dir, lowers it for Spark 4.1 (files in SDP form sent as
// written) and pushes it with a dry run; any error diagnostic, refusal or
// Spark failure is an error.
func push(ctx context.Context, dir, remote string) error {
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		return err
	}
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error {
			return fmt.Errorf("%s: %s", d.Loc.File, d.Message)
		}
	}
	texts := map[string]string{}
	for _, l := range snap.Libraries {
		if t, ok := snap.Text(l); ok {
			texts[l] = t
		}
	}
	g, diags := sdplower.LowerWith(snap.Pipeline, ir.Spark41, sdplower.Options{Texts: texts})
	if g == nil {
		return fmt.Errorf("lowering refused: %d diagnostic(s), first: %s", len(diags), diags[0].Message)
	}
	client, err := sparkconnect.Dial(ctx, remote, sparkconnect.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	res, err := sdplower.Push(ctx, client, g, sdplower.Run{Dry: true}, nil)
	if err != nil {
		return err
	}
	if len(res.Failures) > 0 {
		return fmt.Errorf("%d flow(s) failed on Spark, first: %s: %s", len(res.Failures), res.Failures[0].Dataset, res.Failures[0].Message)
	}
	fmt.Printf("%d datasets: define %d ms, dry run %d ms\n", len(snap.Pipeline.Datasets), res.Define.Milliseconds(), res.RunTime.Milliseconds())
	return nil
}
