// Command thund-conformance judges every query of Spark's SQL test corpus
// with Thund's Spark SQL parser and writes the figures: docs/conformance.md
// and the ratchet of known disagreements TestSample reads. `make
// conformance` runs it from the repository's root; the corpus is
// downloaded into the cache on first use.
//
//	thund-conformance [-version 4.1.3] [-doc docs/conformance.md]
//	                  [-known analysis/sparksql/conformance/testdata/known-disagreements.txt]
//	thund-conformance -only <name-part> | -list verdicts.tsv [-only <name-part>]
//
// -only and -list are scratch runs that write nothing in the tree: -only
// prints the verdicts of the golden files it names, -list runs the
// results part (on every file, or those -only names) and writes every
// verdict, one a line (id, class, cause, reason), into the file it
// names, for comparing two runs or counting causes.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
	"github.com/thund-dev/thund/analysis/sparksql/conformance/results"
)

// printResults writes the results part's totals.
func printResults(r *results.Report) {
	n := r.SelfContained()
	fmt.Printf("results: %d self-contained queries: %d equal (%s), %d refused, %d both error (%d same class), %d native errors, %d silent mismatches; %d skipped; %.1f s\n",
		n, r.Counts[results.Equal], pct(r.Counts[results.Equal], n), r.Counts[results.Refused], r.Counts[results.BothError], r.SameClass,
		r.Counts[results.NativeError], r.Counts[results.Mismatch], r.Counts[results.Skipped], r.Elapsed.Seconds())
	fe := r.AnalysisFalseErrors()
	fmt.Printf("  analysis errors of the semantic model on queries Spark runs: %d\n", len(fe))
	for _, v := range fe {
		fmt.Printf("    %s: %s\n", v.ID(), v.Reason)
	}
	for _, cl := range []results.Class{results.Mismatch, results.NativeError, results.Refused} {
		cs := r.Causes(cl)
		for i, c := range cs {
			if i == 15 {
				break
			}
			fmt.Printf("  %s %5d  %s\n", cl, c.N, c.Cause)
		}
	}
}

func main() {
	version := flag.String("version", conformance.DefaultVersion, "Spark version of the corpus (spark-sql_2.13's test jar)")
	doc := flag.String("doc", "docs/conformance.md", "where to write the report (empty: nowhere)")
	known := flag.String("known", "analysis/sparksql/conformance/testdata/known-disagreements.txt", "where to write the known disagreements (empty: nowhere)")
	passes := flag.Int("passes", 3, "throughput passes over the corpus (the best counts)")
	resultsKnown := flag.String("results-known", "analysis/sparksql/conformance/results/testdata/known-defects.txt", "where to write the known defects of the results part (empty: nowhere)")
	noResults := flag.Bool("parse-only", false, "only the parse agreement: do not run the queries natively")
	only := flag.String("only", "", "run the results part on the golden files whose name contains this only (and write nothing)")
	list := flag.String("list", "", "run the results part only, write nothing in the tree, and write every verdict into this file (id, class, cause, reason: tab-separated)")
	flag.Parse()
	if *list != "" {
		if err := listVerdicts(*version, *only, *list); err != nil {
			fmt.Fprintln(os.Stderr, "thund-conformance:", err)
			os.Exit(1)
		}
		return
	}
	if *only != "" {
		*doc, *known, *resultsKnown = "", "", ""
	}
	if err := run(*version, *doc, *known, *resultsKnown, *only, *passes, !*noResults); err != nil {
		fmt.Fprintln(os.Stderr, "thund-conformance:", err)
		os.Exit(1)
	}
}

func run(version, doc, known, resultsKnown, only string, passes int, withResults bool) error {
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	c, err := conformance.Ensure(ctx, version, logf)
	if err != nil {
		return err
	}
	cases, err := c.LoadCases()
	if err != nil {
		return err
	}
	var rr *results.Report
	if withResults {
		var keep func(string) bool
		if only != "" {
			keep = func(f string) bool { return strings.Contains(f, only) }
		}
		rr, err = results.Run(ctx, c, cases, keep, results.Options{})
		if err != nil {
			return err
		}
		printResults(rr)
		if only != "" {
			for _, cl := range []results.Class{results.Mismatch, results.NativeError, results.Refused, results.BothError} {
				for _, v := range rr.Of(cl) {
					fmt.Printf("%s\t%s\t%s\n", v.ID(), cl, v.Reason)
					if v.Detail != "" && os.Getenv("THUND_CONFORMANCE_DETAIL") != "" {
						fmt.Printf("%s\n----\n", v.Detail)
					}
				}
			}
			return nil
		}
	}
	r := conformance.Run(c.Version, cases, conformance.Thund, nil)
	mbps, bytes := conformance.Throughput(cases, conformance.Thund, passes)
	info := conformance.DocInfo{SHA1: c.SHA1, Date: time.Now(), MBps: mbps, Bytes: bytes, Passes: passes, Elapsed: time.Since(start)}
	if version == conformance.DefaultVersion {
		info.Note = "Thund pins pyspark 4.1.4, but Maven Central has no test jar for 4.1.4: " + version + " is the newest 4.1 release that has one."
	}
	if doc != "" {
		if err := writeFile(doc, func(f *os.File) error {
			if err := r.WriteMarkdown(f, info); err != nil {
				return err
			}
			if rr != nil {
				return rr.WriteMarkdown(f)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if known != "" {
		if err := writeFile(known, func(f *os.File) error { return conformance.WriteKnown(f, c.Version, r.Disagreements()) }); err != nil {
			return err
		}
	}
	if rr != nil && resultsKnown != "" {
		if err := writeFile(resultsKnown, func(f *os.File) error { return results.WriteKnown(f, c.Version, rr) }); err != nil {
			return err
		}
	}
	fmt.Printf("Spark %s corpus: %d queries (%d unique), %d agree (%s)\n", c.Version, r.Queries, r.Unique, r.Agree, pct(r.Agree, r.Queries))
	fmt.Printf("  Spark parses %d: %d false syntax errors (%s agree)\n", r.SparkParses, r.FalseErrors, pct(r.SparkParses-r.FalseErrors, r.SparkParses))
	fmt.Printf("  Spark rejects %d: %d missed errors (%s agree)\n", r.SparkRejects, r.MissedErrors, pct(r.SparkRejects-r.MissedErrors, r.SparkRejects))
	fmt.Printf("  parser panics: %d; throughput %.1f MB/s over %.2f MB; %.1f s in all\n", r.Panics, mbps, float64(bytes)/1e6, time.Since(start).Seconds())
	if doc != "" {
		fmt.Printf("wrote %s", doc)
		if known != "" {
			fmt.Printf(" and %s", known)
		}
		fmt.Println()
	}
	return nil
}

// listVerdicts runs the results part on the golden files whose name
// contains only (every file when empty), prints the totals and writes
// every verdict into path, one a line: id, class, cause and reason,
// tab-separated, sorted by id.
func listVerdicts(version, only, path string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	c, err := conformance.Ensure(ctx, version, logf)
	if err != nil {
		return err
	}
	cases, err := c.LoadCases()
	if err != nil {
		return err
	}
	var keep func(string) bool
	if only != "" {
		keep = func(f string) bool { return strings.Contains(f, only) }
	}
	rr, err := results.Run(ctx, c, cases, keep, results.Options{})
	if err != nil {
		return err
	}
	printResults(rr)
	var lines []string
	for _, f := range rr.Files {
		for _, v := range f.Verdicts {
			fields := []string{v.ID(), v.Class.String(), v.Cause, v.Reason}
			for i, s := range fields {
				fields[i] = strings.Join(strings.Fields(s), " ")
			}
			lines = append(lines, strings.Join(fields, "\t"))
		}
	}
	sort.Strings(lines)
	return writeFile(path, func(f *os.File) error {
		for _, l := range lines {
			if _, err := fmt.Fprintln(f, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeFile writes path through a temporary file beside it, so a failed
// run leaves the old file whole.
func writeFile(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// pct is part/whole in percent, rounded down as docs/conformance.md has
// it, so that 100.00% means no disagreement.
func pct(part, whole int) string {
	return fmt.Sprintf("%.2f%%", math.Floor(conformance.Percent(part, whole)*100)/100)
}
