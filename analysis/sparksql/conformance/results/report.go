package results

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
)

// Report is the tally of a run.
type Report struct {
	Version string
	Files   []*FileResult
	// Counts are the queries per class (Skipped included).
	Counts [Mismatch + 1]int
	// SameClass counts the BothError queries whose error classes agree;
	// NamesDiffer the Equal ones with a generated column name of its own.
	SameClass, NamesDiffer int
	// SkipReasons counts the skipped queries by reason.
	SkipReasons map[string]int
	Elapsed     time.Duration
}

// FileResult is the tally of one golden file.
type FileResult struct {
	File     string
	Counts   [Mismatch + 1]int
	Verdicts []Verdict
}

// SelfContained is the number of queries compared (every class but
// Skipped).
func (r *Report) SelfContained() int {
	n := 0
	for c := Equal; c <= Mismatch; c++ {
		n += r.Counts[c]
	}
	return n
}

// SparkRows counts the compared queries (every class but Skipped) for
// which Spark's golden file records rows rather than an error, and how
// many of them are Equal.
func (r *Report) SparkRows() (rows, equal int) {
	for _, f := range r.Files {
		for _, v := range f.Verdicts {
			if v.Class == Skipped || v.Spark.Threw != "" {
				continue
			}
			rows++
			if v.Class == Equal {
				equal++
			}
		}
	}
	return rows, equal
}

// SelfContained is the file's number of queries compared.
func (f *FileResult) SelfContained() int {
	n := 0
	for c := Equal; c <= Mismatch; c++ {
		n += f.Counts[c]
	}
	return n
}

// Run replays every golden file whose name keep accepts (nil: all) and
// tallies the verdicts. cases are the corpus's cases (Corpus.LoadCases).
func Run(ctx context.Context, c *conformance.Corpus, cases []conformance.Case, keep func(file string) bool, opts Options) (*Report, error) {
	start := time.Now()
	files, err := c.Files()
	if err != nil {
		return nil, err
	}
	byFile := map[string][]conformance.Case{}
	for _, k := range cases {
		byFile[k.File] = append(byFile[k.File], k)
	}
	h, err := New(opts)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	r := &Report{Version: c.Version, SkipReasons: map[string]int{}}
	for _, f := range files {
		if keep != nil && !keep(f.Name) {
			continue
		}
		input, err := os.ReadFile(f.Input)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("results: %w", err)
		}
		vs, err := h.RunFile(ctx, f.Name, string(input), byFile[f.Name])
		if err != nil {
			return nil, err
		}
		fr := &FileResult{File: f.Name, Verdicts: vs}
		for _, v := range vs {
			fr.Counts[v.Class]++
			r.Counts[v.Class]++
			switch {
			case v.Class == Skipped:
				r.SkipReasons[skipGroup(v.Reason)]++
			case v.Class == BothError && v.SameClass:
				r.SameClass++
			case v.Class == Equal && v.NamesDiffer:
				r.NamesDiffer++
			}
		}
		r.Files = append(r.Files, fr)
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// skipGroup drops the particulars of a skip reason (which table, which
// setting), keeping its kind.
func skipGroup(reason string) string {
	switch {
	case strings.HasPrefix(reason, "reads table"):
		return "reads a table the file does not create as a temporary view"
	case strings.HasPrefix(reason, "reads view"):
		return "reads a temporary view whose query is skipped"
	case strings.HasPrefix(reason, "runs under"):
		return "runs under a setting the harness does not model"
	case strings.HasPrefix(reason, "calls ") && strings.HasSuffix(reason, "registers"):
		return "calls a user-defined function the test suite registers (udf, udaf)"
	case strings.HasPrefix(reason, "calls "):
		return "calls a function whose values cannot match (rand, uuid, the clock, the session)"
	}
	return reason
}

// Of returns the verdicts of the given class, by file and ordinal.
func (r *Report) Of(c Class) []Verdict {
	var out []Verdict
	for _, f := range r.Files {
		for _, v := range f.Verdicts {
			if v.Class == c {
				out = append(out, v)
			}
		}
	}
	return out
}

// Causes counts the verdicts of class c by cause, most frequent first.
func (r *Report) Causes(c Class) []CauseCount {
	m := map[string]int{}
	for _, v := range r.Of(c) {
		m[v.Cause]++
	}
	out := make([]CauseCount, 0, len(m))
	for k, n := range m {
		out = append(out, CauseCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Cause < out[j].Cause
	})
	return out
}

// CauseCount is a cause and how many queries it affects.
type CauseCount struct {
	Cause string
	N     int
}

// AnalysisFalseErrors returns the queries Spark runs (returning rows)
// that the native run rejects with a diagnostic of the semantic model
// (found before running, Verdict.Sema): false errors of the model, which
// must be none.
func (r *Report) AnalysisFalseErrors() []Verdict {
	var out []Verdict
	for _, v := range r.Of(NativeError) {
		if v.Sema {
			out = append(out, v)
		}
	}
	return out
}

// WriteKnown writes the ratchet of silent mismatches and native errors:
// "file#ordinal", the class and the cause, sorted. No query text.
func WriteKnown(w io.Writer, version string, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Known defects of the native run on the self-contained queries of Spark %s's SQL test corpus.\n", version)
	fmt.Fprintf(bw, "# One per line: golden file # ordinal, then mismatch (silent: other rows or types than Spark's)\n")
	fmt.Fprintf(bw, "# or native-error (an error where Spark returns rows). Regenerated by `make conformance`;\n")
	fmt.Fprintf(bw, "# TestResultsSample fails on a defect missing here and on a listed one that is now fixed.\n")
	var lines []string
	for _, c := range []Class{Mismatch, NativeError} {
		for _, v := range r.Of(c) {
			lines = append(lines, v.ID()+"\t"+c.String()+"\t"+strings.ReplaceAll(v.Cause, "\t", " "))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	return bw.Flush()
}

// ReadKnown reads a list WriteKnown wrote: id to class.
func ReadKnown(rd io.Reader) (map[string]string, error) {
	known := map[string]string{}
	sc := bufio.NewScanner(rd)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || !strings.Contains(f[0], "#") {
			return nil, fmt.Errorf("known defects: bad line %q", line)
		}
		known[f[0]] = f[1]
	}
	return known, sc.Err()
}
