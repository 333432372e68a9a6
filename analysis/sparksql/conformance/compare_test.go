package conformance

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// toyParser rejects a text containing "bad" at that word and panics on
// "boom"; everything else parses.
func toyParser(src string, s Settings) []*ast.SyntaxError {
	if strings.Contains(src, "boom") {
		panic("boom")
	}
	if i := strings.Index(src, "bad"); i >= 0 {
		return []*ast.SyntaxError{{Range: ast.Range{Start: i, End: i + 3}, Message: "Syntax error at or near 'bad'.\nFix it.", Class: "PARSE_SYNTAX_ERROR"}}
	}
	return nil
}

func toyCases() []Case {
	mk := func(file string, ord int, text string, spark Outcome) Case {
		return Case{File: file, Query: Query{Ordinal: ord, Line: 10 * ord, Text: text, Spark: spark}, Settings: Settings{ANSI: true}}
	}
	rejects := Outcome{Class: "PARSE_SYNTAX_ERROR"}
	return []Case{
		mk("a.sql", 1, "SELECT 1", Outcome{Parsed: true}),
		mk("a.sql", 2, "SELECT 'é',\n  bad", rejects),                       // agree, same class
		mk("a.sql", 3, "SELECT 'é',\n  bad", Outcome{Parsed: true}),         // false error at 2:3
		mk("b.sql", 1, "SELEKT 1", Outcome{Class: "OTHER"}),                 // missed error
		mk("b.sql", 2, "boom", Outcome{Parsed: true}),                       // panic
		mk("nonansi/b.sql", 1, "SELECT 'é',\n  bad", Outcome{Parsed: true}), // same text again
	}
}

func TestJudge(t *testing.T) {
	cs := toyCases()
	v := Judge(cs[2], toyParser)
	if v.Parsed || v.Agrees() || v.ErrLine != 2 || v.ErrCol != 3 || v.Line != 30 || v.Kind() != "false-error" {
		t.Errorf("false error: %+v", v)
	}
	if got, want := v.Thund(), "rejects at 2:3 (PARSE_SYNTAX_ERROR): Syntax error at or near 'bad'. Fix it."; got != want {
		t.Errorf("Thund() = %q, want %q", got, want)
	}
	v = Judge(cs[4], toyParser)
	if v.Agrees() || v.Panic == "" || v.Kind() != "panic" || !strings.HasPrefix(v.Thund(), "panics: boom") {
		t.Errorf("panic: %+v", v)
	}
	if v := Judge(cs[3], toyParser); v.Agrees() || v.Kind() != "missed-error" || v.Thund() != "parses" {
		t.Errorf("missed error: %+v", v)
	}
}

func TestRun(t *testing.T) {
	r := Run("9.9.9", toyCases(), toyParser, nil)
	if r.Queries != 6 || r.Agree != 2 || r.SparkParses != 4 || r.FalseErrors != 3 || r.SparkRejects != 2 || r.MissedErrors != 1 ||
		r.SameClass != 1 || r.Panics != 1 || r.Unique != 4 || r.UniqueDisagree != 3 {
		t.Errorf("report %+v", r)
	}
	var ids []string
	for _, v := range r.Disagreements() {
		ids = append(ids, v.ID())
	}
	if got := strings.Join(ids, " "); got != "a.sql#3 b.sql#1 b.sql#2 nonansi/b.sql#1" {
		t.Errorf("disagreements %s", got)
	}
	if len(r.Files) != 3 || r.Files[0].Agree != 2 || r.Files[1].SparkRejects != 1 {
		t.Errorf("files %+v", r.Files)
	}
	if s := Run("9.9.9", toyCases(), toyParser, Every(2)); s.Queries != 4 {
		t.Errorf("every 2nd: %d queries", s.Queries)
	}
}

func TestKnownRoundTrip(t *testing.T) {
	r := Run("9.9.9", toyCases(), toyParser, nil)
	var buf bytes.Buffer
	if err := WriteKnown(&buf, r.Version, r.Disagreements()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "b.sql#1\tmissed-error\tOTHER\n") || !strings.Contains(buf.String(), "a.sql#3\tfalse-error\t-\n") {
		t.Errorf("list:\n%s", buf.String())
	}
	known, err := ReadKnown(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 4 || !known["nonansi/b.sql#1"] {
		t.Errorf("read back %v", known)
	}
	if _, err := ReadKnown(strings.NewReader("a.sql 3\n")); err == nil {
		t.Error("a line without # was accepted")
	}
}

func TestMarkdownHasNoQueryText(t *testing.T) {
	r := Run("9.9.9", toyCases(), toyParser, nil)
	var buf bytes.Buffer
	if err := r.WriteMarkdown(&buf, DocInfo{SHA1: "abc", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), MBps: 12.5, Bytes: 2e6, Passes: 3}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"2026-01-02", "Spark 4.1", "| all occurrences | 6 | 2 | 33.33% |", "12.5 MB/s", "### nonansi/b.sql",
		"- `#3` (line 30 of the golden file): Spark parses; Thund rejects at 2:3 (PARSE\\_SYNTAX\\_ERROR)"} {
		if want == "Spark 4.1" {
			want = "Spark 9.9.9"
		}
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, c := range toyCases() {
		if c.Text != "boom" && strings.Contains(md, c.Text) {
			t.Errorf("markdown holds query text %q", c.Text)
		}
	}
	if strings.Contains(md, "SELEKT") {
		t.Error("markdown holds query text")
	}
}

func TestPercentRoundsDown(t *testing.T) {
	if got := pct(99999, 100000); got != "99.99%" {
		t.Errorf("pct = %s", got)
	}
	if got := pct(0, 0); got != "100.00%" {
		t.Errorf("pct of nothing = %s", got)
	}
}
