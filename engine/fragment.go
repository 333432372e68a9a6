package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
	sparkparser "github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// A fragment is an SQL expression of a flow that is not its query: an
// expectation's condition (CONSTRAINT c EXPECT (cond), `-- @expect.name:`,
// @dlt.expect), a CDC flow's APPLY AS DELETE WHEN or APPLY AS TRUNCATE
// WHEN predicate, `@cdc deletes=`. Each is Spark SQL, so it runs through
// the translator with Spark's meaning ("DELETE" is a string, amount / qty
// divides as doubles, size and array_contains are Spark's), over the
// relation the engine evaluates it on (the staged rows, the changes of a
// trigger). The translator has no expression-level entry point, so the
// fragment is wrapped as SELECT <fragment> AS thund_fragment FROM <rel>,
// translated, and the translation of the fragment itself is taken from
// the result's source map.
type fragment struct {
	// what names it in messages: "expectation valid_id", "APPLY AS
	// DELETE WHEN predicate".
	what string
	// spark is the fragment as Spark reads it, "" when the engine could
	// not recover the text written (legacy is then pasted as DuckDB
	// renders it, as before the translation).
	spark string
	// loc is the fragment's range in its file; exact says spark is the
	// file's text there byte for byte, so inner ranges map one to one.
	loc   ir.Loc
	exact bool
	// legacy is the text the IR holds for DuckDB (ir.Expectation.SQL,
	// ir.CDC.Deletes, ir.CDC.TruncateWhen).
	legacy string
}

// fragmentPrefix is what a fragment is wrapped in before translation; the
// fragment starts at offset len(fragmentPrefix) of the wrapped text.
const fragmentPrefix = "SELECT "

// fragmentAlias and fragmentInput are the names of the wrapping query.
const (
	fragmentAlias = "thund_fragment"
	fragmentInput = "thund_fragment_input"
)

// translatedFragment is a fragment's DuckDB expression.
type translatedFragment struct {
	expr string
	res  *translate.Result
	// gen is where expr starts in res.SQL.
	gen int
	fr  fragment
}

// fileText reads a pipeline file (relative to the root, or absolute).
func (st *runState) fileText(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil && !filepath.IsAbs(path) {
		b, err = os.ReadFile(filepath.Join(st.s.Root, path))
	}
	if err != nil {
		return "", false
	}
	return string(b), true
}

// at returns text[loc] when loc lies inside text.
func at(text string, loc ir.Loc) (string, bool) {
	if loc.Start < 0 || loc.End > len(text) || loc.Start >= loc.End {
		return "", false
	}
	return text[loc.Start:loc.End], true
}

// translatable reports whether f's fragments run translated: its query is
// Spark SQL and the engine translates (NativeSQLEnv).
func translatable(f *ir.Flow) bool {
	return translating() && f.Dialect != "duckdb"
}

// expectationFragment is the fragment of expectation e of f.
func (st *runState) expectationFragment(f *ir.Flow, e ir.Expectation) fragment {
	fr := fragment{what: "expectation " + e.Name, legacy: e.SQL, loc: e.SQLLoc}
	if !translatable(f) {
		return fr
	}
	text, ok := st.fileText(e.SQLLoc.File)
	written, inFile := "", false
	if ok {
		written, inFile = at(text, e.SQLLoc)
	}
	if e.InSQL && !strings.HasSuffix(strings.ToLower(e.SQLLoc.File), ".py") {
		// CONSTRAINT c EXPECT (cond): the IR holds the condition as
		// DuckDB reads it; Spark's reading is the file's text.
		if inFile && sameWords(written, e.SQL) && parses(written) {
			fr.spark, fr.exact = written, true
		}
		return fr
	}
	// A pragma's value and a Python string hold the condition as Spark
	// reads it.
	fr.spark = e.SQL
	fr.exact = inFile && written == e.SQL
	return fr
}

// cdcFragments are the DELETE WHEN and TRUNCATE WHEN fragments of f's CDC
// clause (either "" when it has none).
func (st *runState) cdcFragment(f *ir.Flow, truncate bool) fragment {
	c := f.CDC
	fr := fragment{what: "APPLY AS DELETE WHEN predicate", legacy: strings.TrimSpace(c.Deletes), loc: c.Loc}
	kw := "DELETE"
	if truncate {
		fr.what, fr.legacy, kw = "APPLY AS TRUNCATE WHEN predicate", strings.TrimSpace(c.TruncateWhen), "TRUNCATE"
	}
	if fr.legacy == "" || !translatable(f) {
		return fr
	}
	if c.SparkText || c.StartAt == "" && !truncate {
		// `@cdc deletes=` and Python's apply_as_deletes (and
		// apply_as_truncates) hold the predicate as Spark reads it.
		if !truncate {
			fr.what = "cdc deletes predicate"
		}
		fr.spark = fr.legacy
		if text, ok := st.fileText(c.Loc.File); ok {
			if in, ok := at(text, c.Loc); ok {
				if i := strings.Index(in, fr.legacy); i >= 0 {
					fr.loc = ir.Loc{File: c.Loc.File, Start: c.Loc.Start + i, End: c.Loc.Start + i + len(fr.legacy)}
					fr.exact = true
				}
			}
		}
		return fr
	}
	// APPLY CHANGES INTO / AUTO CDC: the IR holds the predicate as DuckDB
	// reads it; Spark's reading is the statement's text.
	text, ok := st.fileText(c.Loc.File)
	if !ok {
		return fr
	}
	if loc, ok := clauseExpr(text, c.Loc.Start, kw); ok {
		written := text[loc.Start:loc.End]
		if sameWords(written, fr.legacy) && parses(written) {
			fr.spark, fr.exact = written, true
			fr.loc = ir.Loc{File: c.Loc.File, Start: loc.Start, End: loc.End}
		}
	}
	return fr
}

// cdcClauseEnds are the words that start the clause after an APPLY AS
// ... WHEN predicate.
var cdcClauseEnds = map[string]bool{"SEQUENCE": true, "COLUMNS": true, "STORED": true, "TRACK": true, "APPLY": true, "IGNORE": true, "KEYS": true, "WHERE": true}

// clauseExpr finds the predicate of APPLY AS <kw> WHEN in the statement
// of text starting at from: from the token after WHEN to the next clause
// at the statement's top level.
func clauseExpr(text string, from int, kw string) (ast.Range, bool) {
	if from < 0 || from > len(text) {
		return ast.Range{}, false
	}
	var toks []lex.Token
	for _, t := range lex.Lex(text[from:]) {
		if t.Kind != lex.LineComment && t.Kind != lex.BlockComment {
			toks = append(toks, t)
		}
	}
	word := func(i int, w string) bool {
		return i < len(toks) && toks[i].Kind == lex.Ident && strings.EqualFold(toks[i].Text, w)
	}
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Kind {
		case lex.LeftParen:
			depth++
			continue
		case lex.RightParen:
			depth--
			continue
		case lex.Semicolon:
			if depth == 0 {
				return ast.Range{}, false
			}
		}
		if depth != 0 || !word(i, "APPLY") || !word(i+1, "AS") || !word(i+2, kw) || !word(i+3, "WHEN") || i+4 >= len(toks) {
			continue
		}
		start, end := toks[i+4].Start, toks[i+4].End
		d := 0
		for j := i + 4; j < len(toks); j++ {
			u := toks[j]
			if d == 0 && (u.Kind == lex.Semicolon || (u.Kind == lex.Ident && cdcClauseEnds[strings.ToUpper(u.Text)])) {
				break
			}
			switch u.Kind {
			case lex.LeftParen:
				d++
			case lex.RightParen:
				d--
			}
			end = u.End
		}
		return ast.Range{Start: from + start, End: from + end}, true
	}
	return ast.Range{}, false
}

// parses reports whether s is one Spark SQL expression.
func parses(s string) bool {
	x, errs := sparkparser.ParseExpression(s, sparkparser.Options{})
	return x != nil && len(errs) == 0
}

// sameWords reports whether the Spark text s and the DuckDB reading d the
// analysis made of it (quotes, escapes and RLIKE rewritten) hold the same
// words: the check that the file still holds the text analysed.
func sameWords(s, d string) bool {
	words := func(t string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
		}) {
			switch w {
			case "rlike", "regexp", "regexp_matches":
				continue
			}
			out = append(out, w)
		}
		sort.Strings(out)
		return out
	}
	a, b := words(s), words(d)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fragmentCatalog describes the one relation a fragment is evaluated on.
type fragmentCatalog struct {
	ctx  context.Context
	conn *sql.Conn
	rel  string
}

// Table implements sema.Catalog.
func (c fragmentCatalog) Table(name []string) ([]sema.Column, bool) {
	if len(name) != 1 || !strings.EqualFold(name[0], fragmentInput) {
		return nil, false
	}
	rows, err := c.conn.QueryContext(c.ctx, "DESCRIBE SELECT * FROM "+c.rel)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	var cols []sema.Column
	for rows.Next() {
		var n, t string
		var rest [4]sql.NullString
		if err := rows.Scan(&n, &t, &rest[0], &rest[1], &rest[2], &rest[3]); err != nil {
			return nil, false
		}
		if strings.HasPrefix(n, "__thund") {
			continue // the engine's bookkeeping, not the user's
		}
		cols = append(cols, sema.Column{Name: n, Type: translate.SparkType(t)})
	}
	return cols, rows.Err() == nil
}

// fragmentSQL returns the DuckDB expression fragment fr computes over
// rel (a quoted relation the run's connection reads): its translation,
// or for a fragment whose Spark text is not known, DuckDB's rendering of
// the text the IR holds (checked by check).
func (st *runState) fragmentSQL(ctx context.Context, f *ir.Flow, fr fragment, rel string) (*translatedFragment, error) {
	if fr.spark == "" {
		return &translatedFragment{expr: st.expr(strings.TrimSpace(fr.legacy)), fr: fr}, nil
	}
	key := fr.what + "\x00" + fr.spark + "\x00" + rel
	st.mu.Lock()
	tf, ok := st.fragments[key]
	st.mu.Unlock()
	if ok {
		return tf, nil
	}
	spark := strings.TrimRight(fr.spark, " \t\r\n")
	lead := len(spark) - len(strings.TrimLeft(spark, " \t\r\n"))
	spark = spark[lead:]
	if fr.exact {
		fr.loc.Start += lead
		fr.loc.End = fr.loc.Start + len(spark)
	}
	fr.spark = spark
	tf = &translatedFragment{fr: fr}
	res, g, x, ok := translateFragment(ctx, st.conn, rel, spark, st.p.Configuration)
	tf.res = res
	if x != nil {
		return nil, &flowError{f.Name, fmt.Errorf("%s: %s: %s: %s [%s]", tf.where(st, x.Range), f.Name, fr.what, sparkWords(x.Message), x.Code)}
	}
	if !ok {
		return nil, &flowError{f.Name, fmt.Errorf("%s: %s: %s: the native engine cannot evaluate it on its own; write one boolean expression over the dataset's columns [%s]", tf.where(st, ast.Range{}), f.Name, fr.what, translate.CodeNotPortable)}
	}
	tf.expr, tf.gen = res.SQL[g.Start:g.End], g.Start
	// The translation is ours, but it holds the user's literals: it must
	// still be exactly one expression calling no refused function.
	if _, err := renderedExpr(ctx, tf.expr); err != nil {
		return nil, &flowError{f.Name, fmt.Errorf("%s: %s: %s: %w", tf.where(st, ast.Range{}), f.Name, fr.what, err)}
	}
	st.mu.Lock()
	if st.fragments == nil {
		st.fragments = map[string]*translatedFragment{}
	}
	st.fragments[key] = tf
	st.mu.Unlock()
	return tf, nil
}

// translateFragment translates spark, one Spark SQL expression over the
// columns of rel, a relation conn reads. It returns the translation of
// the wrapping query and where the fragment's own translation lies in
// it; or the finding that refuses it (a type or name error, a construct
// not portable, a syntax error), at a range of the wrapped text; or ok
// false when the translation cannot be taken apart.
func translateFragment(ctx context.Context, conn *sql.Conn, rel, spark string, vars map[string]string) (res *translate.Result, gen ast.Range, refused *translate.Finding, ok bool) {
	wrapped := fragmentPrefix + spark + "\n AS " + fragmentAlias + " FROM " + fragmentInput
	res = translate.TranslateText(wrapped, translate.Options{
		Version:    sparkparser.Spark43, // as a run translates a flow (compat.go)
		Catalog:    fragmentCatalog{ctx: ctx, conn: conn, rel: rel},
		Macros:     compatNames,
		Relation:   func([]string) string { return rel },
		DuckDBOnly: duckDBOnly,
		Vars:       vars,
		TimeType:   strings.EqualFold(vars["spark.sql.timeType.enabled"], "true"),
	})
	if len(res.Findings) > 0 {
		x := res.Findings[0]
		for _, y := range res.Findings {
			if y.Code == translate.CodeTypeError {
				x = y
				break
			}
		}
		return res, ast.Range{}, &x, false
	}
	src := ast.Range{Start: len(fragmentPrefix), End: len(fragmentPrefix) + len(spark)}
	best := -1
	for i, m := range res.Map {
		if m.Src == src && (best < 0 || m.Gen.End-m.Gen.Start < res.Map[best].Gen.End-res.Map[best].Gen.Start) {
			best = i
		}
	}
	if best < 0 || !strings.HasPrefix(res.SQL, fragmentPrefix) || !strings.HasPrefix(res.SQL[res.Map[best].Gen.End:], " AS ") {
		return res, ast.Range{}, nil, false
	}
	return res, res.Map[best].Gen, nil, true
}

// where is file:line:col of r, a range of the wrapped fragment, or of
// the fragment's start when r is not inside it or the text is not exact.
func (tf *translatedFragment) where(st *runState, r ast.Range) string {
	loc := tf.fr.loc
	off := loc.Start
	if tf.fr.exact && r.Start >= len(fragmentPrefix) && r.Start-len(fragmentPrefix) <= len(tf.fr.spark) {
		off += r.Start - len(fragmentPrefix)
	}
	text, ok := st.fileText(loc.File)
	if !ok || off < 0 || off > len(text) {
		return loc.File
	}
	pos := textpos.New(text).Rune(off)
	return fmt.Sprintf("%s:%d:%d", loc.File, pos.Line+1, pos.Column+1)
}

// explain maps err, raised by stmt, which holds the fragment's
// expression at byte offset pos, to the user's fragment in Spark's terms.
func (tf *translatedFragment) explain(st *runState, f *ir.Flow, err error, stmt string, pos int) error {
	if tf == nil || tf.res == nil || explain(err) != err {
		return &flowError{f.Name, fmt.Errorf("%s (%s): %w", tf.fr.what, tf.fr.legacy, explain(err))}
	}
	msg, rng, ok := tf.res.ExplainIn(err.Error(), stmt, pos-tf.gen)
	if !ok {
		rng = ast.Range{}
	}
	return &flowError{f.Name, fmt.Errorf("%s: %s: %s: %s", tf.where(st, rng), f.Name, tf.fr.what, sparkWords(msg))}
}
