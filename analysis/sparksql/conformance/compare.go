package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/textpos"
)

// Parser parses exactly one statement (Spark's singleStatement rule)
// under the given settings and returns its syntax errors; none means it
// parses.
type Parser func(src string, s Settings) []*ast.SyntaxError

// Case is one query of the corpus where it occurs: golden file and
// ordinal, the query and the settings it ran under.
type Case struct {
	// File is the golden file's name (its input's path under inputs/).
	File string
	Query
	Settings Settings
}

// ID names the case without its text: "nonansi/date.sql#3".
func (c Case) ID() string { return c.File + "#" + strconv.Itoa(c.Ordinal) }

// Verdict is Thund's reading of one case next to Spark's.
type Verdict struct {
	Case
	// Parsed is true when Thund's parser returned no error.
	Parsed bool
	// Err is Thund's first error, nil when it parsed.
	Err *ast.SyntaxError
	// ErrLine and ErrCol are where Err starts in the query's text
	// (1-based; columns in characters).
	ErrLine, ErrCol int
	// Panic is what the parser panicked with, "" if it did not.
	Panic string
	// Elapsed is the time the parse took.
	Elapsed time.Duration
}

// Agrees reports whether Thund and Spark agree on whether the statement
// parses. A panic never agrees.
func (v Verdict) Agrees() bool { return v.Panic == "" && v.Parsed == v.Spark.Parsed }

// Thund describes Thund's outcome briefly: "parses", or the error's
// position, class and message on one line.
func (v Verdict) Thund() string {
	switch {
	case v.Panic != "":
		return "panics: " + oneLine(v.Panic, 200)
	case v.Parsed:
		return "parses"
	}
	s := fmt.Sprintf("rejects at %d:%d", v.ErrLine, v.ErrCol)
	if v.Err.Class != "" {
		s += " (" + v.Err.Class + ")"
	}
	return s + ": " + oneLine(v.Err.Message, 200)
}

// oneLine folds s onto one line of at most max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// LoadCases reads every golden file of the corpus and returns its cases
// in order (files by name, queries by ordinal), each with the settings in
// force when it ran.
func (c *Corpus) LoadCases() ([]Case, error) {
	files, err := c.Files()
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, f := range files {
		golden, err := os.ReadFile(f.Golden)
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		qs, err := ParseGolden(string(golden))
		if err != nil {
			return nil, fmt.Errorf("conformance: %s: %w", f.Golden, err)
		}
		input, err := os.ReadFile(f.Input)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		initial := FileSettings(f.Name, string(input))
		s := initial
		for _, q := range qs {
			cases = append(cases, Case{File: f.Name, Query: q, Settings: s})
			s = s.After(q.Text, initial)
		}
	}
	return cases, nil
}

// Judge parses one case with p and compares with Spark.
func Judge(c Case, p Parser) (v Verdict) {
	v = Verdict{Case: c}
	defer func() {
		if r := recover(); r != nil {
			v.Parsed = false
			v.Err = nil
			v.Panic = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	start := time.Now()
	// Spark substitutes ${name} before it parses
	text := c.Settings.Substitute(c.Text)
	errs := p(text, c.Settings)
	v.Elapsed = time.Since(start)
	if len(errs) == 0 {
		v.Parsed = true
		return v
	}
	v.Err = errs[0]
	pos := textpos.New(text).Rune(v.Err.Start)
	v.ErrLine, v.ErrCol = pos.Line+1, pos.Column+1
	return v
}

// Every returns a sample that keeps every n-th query of each golden file
// (ordinals 1, n+1, 2n+1, ...): deterministic, and stable when another
// file changes.
func Every(n int) func(Case) bool {
	return func(c Case) bool { return (c.Ordinal-1)%n == 0 }
}

// Run judges the cases that keep accepts (all when keep is nil) and
// returns the tally.
func Run(version string, cases []Case, p Parser, keep func(Case) bool) *Report {
	r := &Report{Version: version}
	files := map[string]*FileResult{}
	unique := map[string]*uniqueCase{}
	for _, c := range cases {
		if keep != nil && !keep(c) {
			continue
		}
		v := Judge(c, p)
		f := files[c.File]
		if f == nil {
			f = &FileResult{File: c.File}
			files[c.File] = f
			r.Files = append(r.Files, f)
		}
		r.add(f, v)
		key := c.Settings.Key() + "\x00" + c.Text
		u := unique[key]
		if u == nil {
			u = &uniqueCase{agrees: true}
			unique[key] = u
			r.Unique++
		}
		if u.agrees && !v.Agrees() {
			u.agrees = false
			r.UniqueDisagree++
		}
	}
	return r
}

type uniqueCase struct{ agrees bool }

// Report is the tally of a run.
type Report struct {
	// Version is the Spark version of the corpus.
	Version string
	// Files are the golden files in name order.
	Files []*FileResult
	// Queries counts every occurrence; Agree those where both sides
	// agree.
	Queries, Agree int
	// SparkParses counts the queries Spark parses and FalseErrors those
	// of them that Thund rejects.
	SparkParses, FalseErrors int
	// SparkRejects counts the queries Spark rejects and MissedErrors those
	// of them that Thund parses.
	SparkRejects, MissedErrors int
	// SameClass counts the queries both reject with the same error class.
	SameClass int
	// Panics counts the queries the parser panicked on.
	Panics int
	// Unique counts distinct (settings, text) queries and UniqueDisagree
	// those with a disagreement in any occurrence.
	Unique, UniqueDisagree int
	// Bytes is the total size of the texts parsed; ParseTime the time the
	// parser took over them.
	Bytes     int64
	ParseTime time.Duration
}

// FileResult is the tally of one golden file.
type FileResult struct {
	File                      string
	Queries, Agree            int
	SparkRejects              int
	FalseErrors, MissedErrors int
	Unmodelled                []string
	Disagreements             []Verdict
	unmodelledSeen            map[string]bool
}

func (r *Report) add(f *FileResult, v Verdict) {
	r.Queries++
	f.Queries++
	r.Bytes += int64(len(v.Text))
	r.ParseTime += v.Elapsed
	for _, u := range v.Settings.Unmodelled {
		if f.unmodelledSeen == nil {
			f.unmodelledSeen = map[string]bool{}
		}
		if !f.unmodelledSeen[u] {
			f.unmodelledSeen[u] = true
			f.Unmodelled = append(f.Unmodelled, u)
		}
	}
	if v.Spark.Parsed {
		r.SparkParses++
	} else {
		r.SparkRejects++
		f.SparkRejects++
	}
	if v.Panic != "" {
		r.Panics++
	}
	if v.Agrees() {
		r.Agree++
		f.Agree++
		if !v.Parsed && v.Err != nil && v.Err.Class == v.Spark.Class {
			r.SameClass++
		}
		return
	}
	f.Disagreements = append(f.Disagreements, v)
	if v.Spark.Parsed {
		r.FalseErrors++
		f.FalseErrors++
	} else {
		r.MissedErrors++
		f.MissedErrors++
	}
}

// Disagreements returns every disagreement, by file and ordinal.
func (r *Report) Disagreements() []Verdict {
	var out []Verdict
	for _, f := range r.Files {
		out = append(out, f.Disagreements...)
	}
	return out
}

// Percent is part of whole in percent (100 when whole is 0).
func Percent(part, whole int) float64 {
	if whole == 0 {
		return 100
	}
	return 100 * float64(part) / float64(whole)
}

// Throughput parses every case's text passes times with p and returns the
// best pass's speed in MB/s (10^6 bytes per second) and the bytes per
// pass: the parser's speed alone, without the harness's bookkeeping.
func Throughput(cases []Case, p Parser, passes int) (mbps float64, bytes int64) {
	for _, c := range cases {
		bytes += int64(len(c.Text))
	}
	best := time.Duration(0)
	for i := 0; i < passes; i++ {
		start := time.Now()
		for _, c := range cases {
			func() {
				defer func() { _ = recover() }()
				p(c.Text, c.Settings)
			}()
		}
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	if best <= 0 {
		return 0, bytes
	}
	return float64(bytes) / 1e6 / best.Seconds(), bytes
}
