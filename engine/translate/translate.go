// Package translate turns a Spark SQL query, as the syntax tree of package
// analysis/sparksql/ast, into DuckDB SQL that computes what Spark computes
// (Spark 4 defaults: ANSI mode on, the session time zone UTC), so that the
// native engine's preview tells the truth about a Spark run.
//
// The translation walks the tree; it never patches text. Every construct
// either becomes DuckDB SQL with Spark's meaning, or is refused with a
// [Finding] (code not-portable) at its range that says what differs. The
// result carries a source map from ranges of the generated SQL to ranges
// of the user's Spark SQL, so that an error DuckDB raises while running the
// translation is reported at the user's own expression ([Result.Locate],
// [Result.Explain]).
//
// Types drive many translations (integer division, sum of INT, CAST of a
// fraction, arr[i] against map[k]): the translator infers Spark types from
// literals, casts and functions, and takes the types of the tables a query
// reads from the [Options.Catalog], resolving names with package
// analysis/sparksql/sema. Where a type that matters is unknown, the
// construct is refused rather than guessed.
//
// [Functions] lists the functions the translator maps, with their DuckDB
// form; docs/spark-compat.md renders it (go test ./engine/translate
// -update regenerates the table).
package translate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// CodeNotPortable is the code of a finding: a construct the native engine
// cannot run with Spark's meaning.
const CodeNotPortable = "not-portable"

// CodeDuckDBOnly is the code of a finding at a call of a function Spark
// does not have but DuckDB does ([Options.DuckDBOnly]): the query was
// written for DuckDB, not Spark, so a caller may run it as DuckDB SQL.
const CodeDuckDBOnly = "duckdb-only"

// CodeTypeError is the code of a finding at an expression Spark's
// analyzer rejects for its operands' types (DATATYPE_MISMATCH.*): the
// query fails on Spark as well, before running. The message is Spark's,
// with its error class in brackets.
const CodeTypeError = "type-error"

// Options are the Spark settings the translation follows and what it
// knows of the tables a query reads. The zero value is Spark 4's default
// (ANSI mode, session time zone UTC) with no table known.
type Options struct {
	// Version is the Spark grammar TranslateText parses with (zero:
	// Spark 4.1's); a tree given to Translate was parsed already.
	Version parser.Version
	// TimeType is spark.sql.timeType.enabled: Spark reads the TIME type
	// (literals, casts, to_time, make_time, ...) only with it set, and
	// otherwise fails with UNSUPPORTED_TIME_TYPE (checked on 4.1.4).
	TimeType bool
	// LegacyInterval is spark.sql.legacy.interval.enabled: interval
	// literals are Spark's legacy CalendarInterval, which does not run
	// natively (the ANSI interval types do).
	LegacyInterval bool
	// NoANSI is spark.sql.ansi.enabled=false: overflow, division by zero
	// and invalid casts give NULL instead of failing.
	NoANSI bool
	// TimeZone is spark.sql.session.timeZone; "" is UTC. Native runs hold
	// a TIMESTAMP as its wall-clock time in UTC: under another zone the
	// constructs whose value depends on the zone (epoch conversions,
	// timestamp plus hours across a daylight saving change, zone
	// conversions) are findings, the rest translates as under UTC.
	TimeZone string
	// Catalog gives the columns of the tables the query reads, with their
	// Spark types (see [SparkType] for DuckDB's); nil knows none.
	Catalog sema.Catalog
	// Relation names, for a table as written (its parts), the DuckDB
	// relation that holds it; nil uses the last part, quoted.
	Relation func(parts []string) string
	// Macros are the functions the session defines as macros with
	// Spark's meaning (engine/compat.go): a call to one the translator
	// does not map itself is passed through to the macro.
	Macros map[string]bool
	// DuckDBOnly reports a function (lower case, with its argument
	// count) that Spark lacks and DuckDB has; a call to one is a
	// CodeDuckDBOnly finding rather than a not-portable one.
	DuckDBOnly func(name string, args int) bool
	// Vars are the pipeline's parameters, substituted for ${key} as Spark
	// does before TranslateText parses (parser.Options.Vars).
	Vars map[string]string
	// TypedColumns says the caller names the output columns' types from
	// [Result.Columns] where DuckDB's type cannot tell Spark's apart: a
	// TIMESTAMP_NTZ column is a TIMESTAMP on DuckDB (its values, a
	// wall-clock time, are the same), a column of NULL alone (Spark's
	// VOID) an INTEGER of NULLs. Such an output column then translates,
	// when the translation infers every output column's type; without
	// it, or when a type is not inferred, it is refused.
	TypedColumns bool
	// VoidColumns, with TypedColumns, says the output is a query's result
	// rather than a table: a VOID column is carried too. Without it a
	// VOID output column is refused (a table cannot store one on Spark),
	// so a pipeline run sets TypedColumns alone.
	VoidColumns bool
}

// Finding is a construct the translation refuses.
type Finding struct {
	ast.Range
	Code    string
	Message string
}

// Mapping ties a range of the generated SQL to the range of the Spark SQL
// it came from.
type Mapping struct {
	Gen ast.Range
	Src ast.Range
}

// Result is a translation.
type Result struct {
	// SQL is the DuckDB query; meaningful only when Findings is empty.
	SQL string
	// Map holds the mappings, ordered by Gen.Start (outer before inner).
	Map []Mapping
	// Findings are the constructs refused, in text order.
	Findings []Finding
	// Columns are the Spark types of the query's output columns, as the
	// translation inferred them (nil when it could not infer them all).
	// DuckDB's own column types do not tell Spark's interval types apart
	// (INTERVAL YEAR TO MONTH and INTERVAL DAY are both INTERVAL there).
	Columns []*Type
	// checks are the ranges of the run-time checks the translation
	// added, by the number their error message carries.
	checks []ast.Range
}

// Locate returns the range of the Spark SQL that produced the innermost
// generated range containing offset off of SQL.
func (r *Result) Locate(off int) (ast.Range, bool) {
	best := -1
	for i, m := range r.Map {
		if m.Gen.Start <= off && off < m.Gen.End {
			if best < 0 || m.Gen.End-m.Gen.Start <= r.Map[best].Gen.End-r.Map[best].Gen.Start {
				best = i
			}
		}
	}
	if best < 0 {
		return ast.Range{}, false
	}
	return r.Map[best].Src, true
}

// TranslateText parses text (one Spark SQL query) and translates it.
// Ranges are offsets into text. A syntax error is a finding.
func TranslateText(text string, opts Options) *Result {
	st, errs := parser.ParseStatement(text, parser.Options{Vars: opts.Vars, Version: opts.Version})
	if len(errs) > 0 {
		return &Result{Findings: []Finding{{Range: errs[0].Range, Code: "syntax-error", Message: errs[0].Message}}}
	}
	q := queryOf(st)
	if q == nil {
		return &Result{Findings: []Finding{{Range: st.Span(), Code: CodeNotPortable, Message: "only a query can be translated"}}}
	}
	return Translate(q, text, opts)
}

// queryOf returns the query a statement holds.
func queryOf(st ast.Stmt) *ast.Query {
	switch st := st.(type) {
	case *ast.QueryStmt:
		return st.Query
	case *ast.Create:
		return st.Query
	case *ast.Insert:
		if st.With == nil {
			return st.Query
		}
	}
	return nil
}

// Translate translates q. src is the text q's ranges point into (used for
// generated column names, as Spark names a computed column by its text).
func Translate(q *ast.Query, src string, opts Options) (res *Result) {
	t := &tr{opts: opts, src: src, types: map[ast.Node]*Type{}, lambdas: map[*ast.Ident]lamParam{}, relCols: map[ast.Node][]*Type{}, bodyTypes: map[ast.Node][]*Type{}, shadows: map[*ast.Select]map[string]shadowed{}}
	t.model = sema.Analyze(q, opts.Catalog, sema.Options{Source: src})
	res = &Result{}
	t.res = res
	t.root = q
	if opts.TimeZone != "" && !strings.EqualFold(opts.TimeZone, "UTC") && opts.TimeZone != "Etc/UTC" && opts.TimeZone != "+00:00" {
		t.zone = opts.TimeZone
	}
	defer func() {
		if p := recover(); p != nil {
			// A translation bug must not take the engine down: refuse
			// the query, saying so.
			res.Findings = append(res.Findings, Finding{Range: q.Range, Code: CodeNotPortable, Message: fmt.Sprintf("internal error of the translator: %v", p)})
		}
	}()
	// The name errors Spark's analyzer raises (unresolved, ambiguous,
	// missing from GROUP BY), as sema finds them.
	for _, d := range t.model.Diagnostics {
		t.res.Findings = append(t.res.Findings, Finding{Range: d.Range, Code: CodeTypeError, Message: "[" + d.Code + "] " + d.Message})
	}
	f := t.query(q)
	if v, ok := q.Body.(*ast.Values); ok {
		for _, ty := range t.relCols[v] {
			if ty.has(Null) && t.opts.TypedColumns && t.opts.VoidColumns {
				t.carried = append(t.carried, carried{n: v, ty: ty})
			} else if ty.has(Null) {
				t.refuse(v, "a column of VALUES holding NULL alone has Spark's type VOID, which the native engine cannot give (it types it INTEGER); give it a type: CAST(NULL AS INT)")
				break
			}
		}
	}
	res.SQL = f.s
	res.Map = f.m
	res.Columns = t.bodyTypes[q.Body]
	if len(t.carried) > 0 && !allKnown(res.Columns) {
		// The caller cannot name these columns' type.
		for _, c := range t.carried {
			switch {
			case c.why != "":
				t.refuse(c.n, "%s", c.why)
			case c.ty.has(Null):
				t.refuse(c.n, voidRefusal)
			default:
				t.refuse(c.n, ntzRefusal)
			}
		}
	}
	sort.SliceStable(res.Map, func(i, j int) bool { return res.Map[i].Gen.Start < res.Map[j].Gen.Start })
	sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Start < res.Findings[j].Start })
	return res
}

// allKnown reports types that are there and all inferred.
func allKnown(ts []*Type) bool {
	for _, ty := range ts {
		if !ty.known() {
			return false
		}
	}
	return len(ts) > 0
}

// tr is one translation.
type tr struct {
	opts  Options
	src   string
	model *sema.Model
	res   *Result
	// checkIDs gives each checked expression's text one check id, so
	// that the same expression written twice (v % 7 in the select list
	// and in GROUP BY) translates to the same DuckDB text.
	checkIDs map[string]int
	// types are the inferred types of the expressions translated so far.
	types map[ast.Node]*Type
	// lambdas are the lambda parameters in scope, by their declaring
	// identifier.
	lambdas map[*ast.Ident]lamParam
	// relCols are the column types of the relations whose columns sema
	// cannot type (VALUES, generators), by their node.
	relCols map[ast.Node][]*Type
	// genTypes are the column types of the last generator translated.
	genTypes []*Type
	// zone is the session time zone when it is not UTC: the constructs
	// whose value depends on it are refused (zoneDependent).
	zone string
	// bodyTypes are the column types of the SELECTs and set operations
	// translated so far, where every column's is inferred.
	bodyTypes map[ast.Node][]*Type
	// setDepth counts the set operations whose sides are being
	// translated; there a column of NULL alone is VOID only if the
	// operation's column is (voidDeferred, settled by setVoids).
	setDepth     int
	voidDeferred []ast.Expr
	// shadow, while a HAVING or ORDER BY is translated, holds the names
	// two or more of its SELECT's output columns share: Spark resolves
	// such a name to the input column, DuckDB to one of the outputs.
	shadow map[string]shadowed
	// shadows are the shadowed names of each SELECT translated.
	shadows map[*ast.Select]map[string]shadowed
	// groupCanon, while a GROUP BY is translated, holds its grouping
	// expressions by their canonical text (canonical).
	groupCanon map[string]ast.Expr
	// projecting is set while a SELECT item is translated (outside any
	// subquery in it): Spark computes an IN (subquery) there as an
	// existence join.
	projecting bool
	// root is the query translated; laterals and subqueries are the
	// ranges of its LATERAL subqueries and subquery expressions
	// (lateralOuter), found when first needed.
	root                 *ast.Query
	laterals, subqueries []ast.Range
	// pipeFrom, while a pipe's SELECT or EXTEND is translated, is the
	// relation it reads (the operators before it); selectQ takes it.
	pipeFrom *pipeInput
	// pipeLeft, while a pipe's JOIN is translated, is its left side.
	pipeLeft *frag
	// pipeLeftName is the name the pipe's JOIN reads its left side by.
	pipeLeftName string
	// timeWindow, while a SELECT grouping by window(...) is translated,
	// is that call's translation: the window column Spark adds.
	timeWindow *frag
	// windowSelect is set while a SELECT grouping by window(...) is
	// translated (its items, GROUP BY and HAVING), where window(...) may
	// be called.
	windowSelect bool
	// analytic is set while the items, WHERE and HAVING of a SELECT
	// grouping by ROLLUP, CUBE or GROUPING SETS are translated.
	analytic bool
	// groupingSelect is the SELECT whose items, HAVING or ORDER BY are
	// translated, where grouping__id means its grouping set's id.
	groupingSelect *ast.Select
	// onFlags are the conjuncts of outer joins' ON conditions computed
	// as columns of a join input, joinFlags them by join (flaggedJoin);
	// the stars over those joins leave them out.
	onFlags   []onFlag
	joinFlags map[*ast.Join][]onFlag
	// orderKeys are the ORDER BY items of the queries whose body is
	// the SELECT (dependentGroups).
	orderKeys map[*ast.Select][]*ast.SortItem
	// setlessItems, while a SELECT's items are translated, are the
	// expressions of its GROUP BY list that no grouping set holds
	// (setlessExprs).
	setlessItems map[string]bool
	// pivoting is set while the FROM items of a PIVOT or UNPIVOT are
	// translated, whose columns all count.
	pivoting bool
	// carried are the select items of type TIMESTAMP_NTZ or VOID (or
	// holding one) translated under Options.TypedColumns: refused when
	// the output's types are not all inferred.
	carried []carried
}

// shadowed is an input column a shared output name resolves to: its
// qualified DuckDB name and type ("" when it cannot be qualified).
type shadowed struct {
	sql string
	typ *Type
}

// zoneFunctions are the functions whose value depends on the session time
// zone, and which are refused under a zone other than UTC: conversions
// between a TIMESTAMP (an instant Spark shows in the session zone) and
// epoch numbers or zone names (zone.go translates the others in the
// session zone). Native runs hold a
// TIMESTAMP as its wall-clock time in UTC, so the rest (literals,
// extracting fields, formatting, date arithmetic) agrees in any zone.
var zoneFunctions = map[string]bool{
	"unix_timestamp": true, "to_unix_timestamp": true, "from_unixtime": true,
	"from_utc_timestamp": true, "to_utc_timestamp": true, "convert_timezone": true,
	"to_timestamp_ltz": true, "window": true, "session_window": true,
}

// zoneDependent refuses n when the session time zone is not UTC.
func (t *tr) zoneDependent(n ast.Node, what string) bool {
	if t.zone == "" {
		return false
	}
	t.refuse(n, "%s depends on the session time zone, which is %s; the native engine runs timestamps in UTC only (spark.sql.session.timeZone)", what, t.zone)
	return true
}

// lamParam is a lambda parameter: its type and, when the DuckDB lambda
// numbers from 1 where Spark numbers from 0, the adjustment to print.
type lamParam struct {
	typ    *Type
	render string
}

func (t *tr) ansi() bool { return !t.opts.NoANSI }

// duckOnly records a CodeDuckDBOnly finding at a call of name, and
// reports whether name is DuckDB-only.
func (t *tr) duckOnly(n ast.Node, name string, args int) bool {
	if t.opts.DuckDBOnly == nil || !t.opts.DuckDBOnly(name, args) {
		return false
	}
	t.res.Findings = append(t.res.Findings, Finding{Range: n.Span(), Code: CodeDuckDBOnly, Message: fmt.Sprintf("%s is a DuckDB function that Spark does not have", name)})
	return true
}

// refuse records a finding at n.
func (t *tr) refuse(n ast.Node, format string, args ...any) {
	r := n.Span()
	for _, f := range t.res.Findings {
		if f.Range == r {
			return
		}
	}
	t.res.Findings = append(t.res.Findings, Finding{Range: r, Code: CodeNotPortable, Message: fmt.Sprintf(format, args...)})
}

// typeError records a CodeTypeError finding at n: Spark's error class
// and message.
func (t *tr) typeError(n ast.Node, class, format string, args ...any) {
	r := n.Span()
	for _, f := range t.res.Findings {
		if f.Range == r {
			return
		}
	}
	t.res.Findings = append(t.res.Findings, Finding{Range: r, Code: CodeTypeError, Message: "[" + class + "] " + fmt.Sprintf(format, args...)})
}

// frag is a piece of generated SQL with its mappings (relative to the
// piece) and, for an expression, its Spark type.
type frag struct {
	s   string
	m   []Mapping
	typ *Type
}

// cat concatenates strings and frags into one frag (with no type).
func cat(parts ...any) frag {
	var b strings.Builder
	var m []Mapping
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case frag:
			off := b.Len()
			for _, x := range p.m {
				m = append(m, Mapping{Gen: ast.Range{Start: x.Gen.Start + off, End: x.Gen.End + off}, Src: x.Src})
			}
			b.WriteString(p.s)
		case []frag:
			for i, x := range p {
				if i > 0 {
					b.WriteString(", ")
				}
				off := b.Len()
				for _, y := range x.m {
					m = append(m, Mapping{Gen: ast.Range{Start: y.Gen.Start + off, End: y.Gen.End + off}, Src: y.Src})
				}
				b.WriteString(x.s)
			}
		default:
			panic(fmt.Sprintf("cat: %T", p))
		}
	}
	return frag{s: b.String(), m: m}
}

// at maps the whole of f to n's range and gives it type ty.
func at(n ast.Node, ty *Type, f frag) frag {
	f.m = append([]Mapping{{Gen: ast.Range{Start: 0, End: len(f.s)}, Src: n.Span()}}, f.m...)
	f.typ = ty
	return f
}

// join joins frags with sep.
func join(fs []frag, sep string) frag {
	parts := make([]any, 0, 2*len(fs))
	for i, f := range fs {
		if i > 0 {
			parts = append(parts, sep)
		}
		parts = append(parts, f)
	}
	return cat(parts...)
}

// quoteIdent quotes a DuckDB identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a DuckDB string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// text returns the source text of n, when known.
func (t *tr) text(n ast.Node) string {
	r := n.Span()
	if r.Start >= 0 && r.End <= len(t.src) && r.Start <= r.End {
		return t.src[r.Start:r.End]
	}
	return ast.Format(n)
}
