package sqlfront

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// This file answers, from the Spark tree, the question pgReads asks
// PostgreSQL's parser: does PostgreSQL's grammar read the query as one
// statement? It answers only "yes", and only for a conservative subset of
// Spark SQL whose text PostgreSQL's grammar certainly reads: plain SELECT
// blocks, CTEs, set operations, joins with ON or USING, subqueries, and
// expressions made of names, numbers, plain strings, the usual operators,
// CASE, CAST to simple types, ordinary calls with windows and FILTER.
// Anything else (and any text with a backslash, a double quote, a dollar
// sign or a non-ASCII byte) is "don't know", and pgReads asks the parser
// as before. The value therefore never differs from pgReads';
// TestPgFastImpliesPostgres checks that over every testdata pipeline and
// Spark's SQL test corpus.
//
// The keyword classes are PostgreSQL 17's (pg_query_go v6, kwlist.h):
// a reserved word is never a name, a type-or-function word is a function
// or type name only, a column-name word names a column but not a
// function; unreserved words are names anywhere.

// pgReserved are PostgreSQL's reserved keywords.
var pgReserved = wordSet("all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral leading limit localtime localtimestamp not null offset on only or order placing primary references returning select session_user some symmetric system_user table then to trailing true union unique user using variadic when where window with")

// pgTypeFunc are PostgreSQL's type-or-function-name keywords.
var pgTypeFunc = wordSet("authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull join left like natural notnull outer overlaps right similar tablesample verbose")

// pgColName are PostgreSQL's column-name keywords.
var pgColName = wordSet("between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping inout int integer interval json json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar json_serialize json_table json_value least merge_action national nchar none normalize nullif numeric out overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable")

// pgAsLabel are the keywords PostgreSQL reads as a column alias only
// after AS.
var pgAsLabel = wordSet("array as char character create day except fetch filter for from grant group having hour intersect into isnull limit minute month notnull offset on order over overlaps precision returning second to union varying where window with within without year")

// pgCastTypes are the Spark type names a CAST may name for PostgreSQL's
// grammar to read it (as its own type or as a generic type name), with
// whether the type takes parameters there.
var pgCastTypes = map[string]bool{
	"STRING": false, "INT": false, "INTEGER": false, "BIGINT": false, "SMALLINT": false,
	"TINYINT": false, "BYTE": false, "SHORT": false, "LONG": false, "DOUBLE": false,
	"FLOAT": false, "REAL": false, "BOOLEAN": false, "DATE": false, "TIMESTAMP": false,
	"TIMESTAMP_NTZ": false, "TIMESTAMP_LTZ": false, "BINARY": false,
	"DECIMAL": true, "DEC": true, "NUMERIC": true, "CHAR": true, "VARCHAR": true,
}

// Keyword classes in pgClass.
const (
	pgIsReserved uint8 = 1 << iota
	pgIsTypeFunc
	pgIsColName
	pgIsAsLabel
)

// pgClass maps each keyword of the sets above to its classes, so a name
// is looked up once.
var pgClass = func() map[string]uint8 {
	m := map[string]uint8{}
	for bit, set := range map[uint8]map[string]bool{pgIsReserved: pgReserved, pgIsTypeFunc: pgTypeFunc, pgIsColName: pgColName, pgIsAsLabel: pgAsLabel} {
		for w := range set {
			m[w] |= bit
		}
	}
	return m
}()

// class returns the keyword classes of word w (as written, any case).
func class(w string) uint8 {
	var buf [24]byte
	if len(w) > len(buf) {
		return 0 // longer than any keyword
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return pgClass[string(buf[:len(w)])]
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// pgReadsTree reports whether PostgreSQL's grammar certainly reads the
// query text[sp], whose Spark tree is q and whose parser input (text[sp]
// normalized) is input, as one statement. False means "not known".
func pgReadsTree(text, input string, sp Span, q *ast.Query) bool {
	if q == nil || sp.Start < 0 || sp.End > len(text) || len(input) != sp.End-sp.Start {
		return false
	}
	for i := sp.Start; i < sp.End; i++ {
		c := text[i]
		if c >= 0x80 || (c < ' ' && c != '\t' && c != '\n' && c != '\r') || c == '\\' || c == '"' || c == '$' || c == 0x7f {
			return false
		}
		if c == '!' && (i+1 >= sp.End || text[i+1] != '=') {
			return false // Spark's ! for NOT (x ! IN (...), x IS ! NULL)
		}
	}
	r := pgReader{text: text, input: input, base: sp.Start}
	return r.query(q)
}

// pgReader walks a Spark tree for pgReadsTree; every method reports
// whether its node is inside the subset.
type pgReader struct {
	text, input string
	// base is the file offset of input's first byte.
	base int
}

func (r *pgReader) query(q *ast.Query) bool {
	if q == nil || len(q.SortBy) > 0 || len(q.ClusterBy) > 0 || len(q.DistributeBy) > 0 || len(q.Windows) > 0 {
		return false
	}
	if w := q.With; w != nil {
		for _, c := range w.CTEs {
			if c.MaxRecursion != nil || !r.colID(c.Name) || !r.colIDs(c.Columns) || !r.cteAs(c) || !r.query(c.Query) {
				return false
			}
		}
	}
	if !r.body(q.Body) || !r.sorts(q.OrderBy) {
		return false
	}
	return (q.Limit == nil || r.expr(q.Limit, ctxTop)) && (q.Offset == nil || r.expr(q.Offset, ctxTop))
}

// cteAs reports whether a CTE is written name [(columns)] AS (query):
// Spark lets AS out, PostgreSQL does not.
func (r *pgReader) cteAs(c *ast.CTE) bool {
	if c.Name == nil || c.Query == nil {
		return false
	}
	from := c.Name.End
	if n := len(c.Columns); n > 0 {
		from = c.Columns[n-1].End
	}
	to := c.Query.Start
	if from > to || to > len(r.text) {
		return false
	}
	gap := strings.TrimSpace(r.text[from:to])
	if len(c.Columns) > 0 {
		if !strings.HasPrefix(gap, ")") {
			return false
		}
		gap = gap[1:]
	}
	gap = strings.TrimSuffix(gap, "(")
	return isWords(gap, "AS")
}

func (r *pgReader) body(b ast.QueryExpr) bool {
	switch x := b.(type) {
	case *ast.Select:
		return r.sel(x)
	case *ast.SetOp:
		if x.OpRange.End <= x.OpRange.Start || x.OpRange.End > len(r.text) {
			return false
		}
		if op := r.text[x.OpRange.Start:x.OpRange.End]; !strings.EqualFold(op, "UNION") && !strings.EqualFold(op, "INTERSECT") && !strings.EqualFold(op, "EXCEPT") {
			return false
		}
		if x.Quantifier != "" && x.Quantifier != "ALL" && x.Quantifier != "DISTINCT" {
			return false
		}
		return r.body(x.L) && r.body(x.R)
	case *ast.ParenQuery:
		return r.query(x.Query)
	}
	return false
}

func (r *pgReader) sel(s *ast.Select) bool {
	if s.FromFirst || s.Transform != nil || s.Organization != nil || s.Qualify != nil || len(s.LateralViews) > 0 || len(s.Items) == 0 {
		return false
	}
	if s.Quantifier != "" && s.Quantifier != "ALL" && s.Quantifier != "DISTINCT" {
		return false
	}
	for _, it := range s.Items {
		if !r.item(it) {
			return false
		}
	}
	if f := s.From; f != nil {
		if len(f.LateralViews) > 0 || f.Pivot != nil || f.Unpivot != nil || len(f.Relations) == 0 {
			return false
		}
		for _, rel := range f.Relations {
			if !r.relation(rel) {
				return false
			}
		}
	}
	if s.Where != nil && !r.expr(s.Where, ctxTop) {
		return false
	}
	if g := s.GroupBy; g != nil {
		if g.With != "" || len(g.GroupingSets) > 0 || len(g.Items) == 0 || !r.groupItems(g.Items, false) {
			return false
		}
	}
	if s.Having != nil && !r.expr(s.Having, ctxTop) {
		return false
	}
	for _, w := range s.Windows {
		if w.Window == nil || w.Window.Ref != nil || !r.colID(w.Name) || !r.window(w.Window) {
			return false
		}
	}
	return true
}

// item reads a select item: an expression or star, with an alias that
// follows AS (any label) or stands bare (a name PostgreSQL allows there).
func (r *pgReader) item(it *ast.SelectItem) bool {
	if st, ok := it.X.(*ast.Star); ok {
		return it.Alias == nil && len(it.Aliases) == 0 && st.Except == nil &&
			(st.Qualifier == nil || len(st.Qualifier.Parts) <= 3 && r.qualified(st.Qualifier.Parts))
	}
	if it.X == nil || len(it.Aliases) > 0 || !r.expr(it.X, ctxTop) {
		return false
	}
	a := it.Alias
	if a == nil {
		return true
	}
	xEnd := it.X.Span().End
	if a.Start < xEnd || a.Start > len(r.text) {
		return false
	}
	switch gap := r.text[xEnd:a.Start]; {
	case isWords(gap, "AS"):
		return r.label(a)
	case isWords(gap):
		w, ok := r.word(a)
		return ok && (w == "" || class(w) == 0)
	}
	return false
}

// groupItems reads GROUP BY items; inSets is set inside GROUPING SETS,
// where an empty set () is allowed.
func (r *pgReader) groupItems(items []*ast.GroupItem, inSets bool) bool {
	for _, g := range items {
		switch g.Kind {
		case "":
			if g.X == nil || !r.expr(g.X, ctxTop) {
				return false
			}
		case "SET":
			if len(g.Items) == 0 && !inSets {
				return false
			}
			for _, e := range g.Items {
				if e.Kind != "" || e.X == nil || !r.expr(e.X, ctxTop) {
					return false
				}
			}
		case "ROLLUP", "CUBE":
			if len(g.Items) == 0 {
				return false
			}
			for _, e := range g.Items {
				if e.Kind != "" && e.Kind != "SET" || !r.groupItems([]*ast.GroupItem{e}, false) {
					return false
				}
			}
		case "GROUPING SETS":
			if len(g.Items) == 0 || !r.groupItems(g.Items, true) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func (r *pgReader) relation(rel ast.Relation) bool {
	switch x := rel.(type) {
	case *ast.Table:
		if x.Temporal != nil || x.Sample != nil || x.Watermark != nil || len(x.Options) > 0 || x.Name == nil || len(x.Name.Parts) > 3 {
			return false
		}
		if x.Stream && !r.streamBlanked(x) {
			return false
		}
		return r.qualified(x.Name.Parts) && r.alias(x.Alias)
	case *ast.SubqueryRel:
		return !x.Lateral && x.Sample == nil && x.Watermark == nil && r.query(x.Query) && r.alias(x.Alias)
	case *ast.ParenRel:
		j, ok := x.Rel.(*ast.Join)
		return ok && x.Alias == nil && x.Sample == nil && x.Watermark == nil && r.relation(j)
	case *ast.Join:
		if x.Lateral || !r.relation(x.L) || !r.relation(x.R) {
			return false
		}
		cond := x.On != nil || len(x.Using) > 0
		switch x.Kind {
		case "CROSS":
			if x.Natural || cond {
				return false
			}
		case "INNER", "LEFT", "RIGHT", "FULL":
			if x.Natural == cond {
				return false
			}
		default:
			return false
		}
		return (x.On == nil || r.expr(x.On, ctxTop)) && r.colIDs(x.Using)
	}
	return false
}

// streamBlanked reports whether normalize took a STREAM read's keyword
// (and the parentheses of STREAM(x)) out of the input, as it does when
// it recognises one.
func (r *pgReader) streamBlanked(t *ast.Table) bool {
	name := t.Name.Span()
	s, e := t.StreamRange.Start-r.base, name.Start-r.base
	if s < 0 || e > len(r.input) || s >= e || strings.TrimSpace(r.input[s:e]) != "" {
		return false
	}
	if !t.StreamParen {
		return true
	}
	j := name.End
	for j < len(r.text) && isSpace(r.text[j]) {
		j++
	}
	return j < len(r.text) && r.text[j] == ')' && j-r.base < len(r.input) && r.input[j-r.base] == ' '
}

func (r *pgReader) alias(a *ast.TableAlias) bool {
	return a == nil || r.colID(a.Name) && r.colIDs(a.Columns)
}

// exprCtx is where an expression stands, for PostgreSQL's precedences:
// its comparison, IS, LIKE, BETWEEN and IN operators do not chain, and
// BETWEEN's bounds and the operands of arithmetic take no predicate.
type exprCtx uint8

const (
	ctxTop     exprCtx = iota // a whole expression (a clause, an argument)
	ctxBool                   // an operand of AND, OR or NOT
	ctxOperand                // an operand of a comparison, arithmetic or predicate
)

// predicate reports whether x is a comparison, a boolean operator or a
// predicate, which PostgreSQL reads as an operand only in parentheses.
func predicate(x ast.Expr) bool {
	switch e := x.(type) {
	case *ast.Binary:
		switch e.Op {
		case "+", "-", "*", "/", "%", "||":
			return false
		}
		return true
	case *ast.Unary:
		return e.Op != "-" && e.Op != "+"
	case *ast.Is, *ast.Like, *ast.Between, *ast.In:
		return true
	}
	return false
}

func (r *pgReader) exprs(xs []ast.Expr) bool {
	for _, x := range xs {
		if !r.expr(x, ctxTop) {
			return false
		}
	}
	return true
}

func (r *pgReader) expr(x ast.Expr, ctx exprCtx) bool {
	if ctx == ctxOperand && predicate(x) {
		return false
	}
	switch e := x.(type) {
	case *ast.Literal:
		return r.literal(e)
	case *ast.TypedLiteral:
		if e.TypeRange.End <= e.TypeRange.Start || e.TypeRange.End > len(r.text) || e.Value == nil {
			return false
		}
		tn := r.text[e.TypeRange.Start:e.TypeRange.End]
		return (strings.EqualFold(tn, "date") || strings.EqualFold(tn, "timestamp")) && r.str(e.Value)
	case *ast.Column:
		return len(e.Parts) > 0 && r.qualified(e.Parts)
	case *ast.Unary:
		if e.OpRange.End <= e.OpRange.Start || e.OpRange.End > len(r.text) {
			return false
		}
		switch op := r.text[e.OpRange.Start:e.OpRange.End]; {
		case op == "-" || op == "+":
			return r.expr(e.X, ctxOperand)
		case strings.EqualFold(op, "NOT"):
			return r.expr(e.X, ctxBool)
		}
		return false
	case *ast.Binary:
		if e.OpRange.End <= e.OpRange.Start || e.OpRange.End > len(r.text) {
			return false
		}
		switch op := r.text[e.OpRange.Start:e.OpRange.End]; op {
		case "=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||":
			return r.expr(e.L, ctxOperand) && r.expr(e.R, ctxOperand)
		default:
			if strings.EqualFold(op, "AND") || strings.EqualFold(op, "OR") {
				return r.expr(e.L, ctxBool) && r.expr(e.R, ctxBool)
			}
		}
		return false
	case *ast.Between:
		return r.expr(e.X, ctxOperand) && r.expr(e.Lo, ctxOperand) && r.expr(e.Hi, ctxOperand)
	case *ast.In:
		if !r.expr(e.X, ctxOperand) {
			return false
		}
		if e.Query != nil {
			return len(e.List) == 0 && r.query(e.Query)
		}
		return len(e.List) > 0 && r.exprs(e.List)
	case *ast.Like:
		return (e.Op == "LIKE" || e.Op == "ILIKE") && e.Quantifier == "" && e.Escape == nil && len(e.Patterns) == 1 &&
			r.expr(e.X, ctxOperand) && r.expr(e.Patterns[0], ctxOperand)
	case *ast.Is:
		switch e.What {
		case "NULL", "TRUE", "FALSE", "UNKNOWN":
			return e.Other == nil && r.expr(e.X, ctxOperand)
		case "DISTINCT FROM":
			return e.Other != nil && r.expr(e.X, ctxOperand) && r.expr(e.Other, ctxOperand)
		}
		return false
	case *ast.Exists:
		return r.query(e.Query)
	case *ast.Subquery:
		return r.query(e.Query)
	case *ast.Paren:
		return r.expr(e.X, ctxTop)
	case *ast.Cast:
		return e.Form == "CAST" && r.castType(e.Type) && r.expr(e.X, ctxTop)
	case *ast.Case:
		if len(e.Whens) == 0 || e.Operand != nil && !r.expr(e.Operand, ctxTop) || e.Else != nil && !r.expr(e.Else, ctxTop) {
			return false
		}
		for _, w := range e.Whens {
			if !r.expr(w.Cond, ctxTop) || !r.expr(w.Result, ctxTop) {
				return false
			}
		}
		return true
	case *ast.Call:
		return r.call(e)
	}
	return false
}

func (r *pgReader) literal(l *ast.Literal) bool {
	if l.End > len(r.text) || l.Start >= l.End {
		return false
	}
	switch l.Kind {
	case ast.LitNull, ast.LitTrue, ast.LitFalse:
		return true
	case ast.LitString:
		return l.Str != nil && r.str(l.Str)
	case ast.LitInteger, ast.LitDecimal, ast.LitExponent:
	default:
		return false
	}
	// digits, one point, an exponent: PostgreSQL's numeric forms, with no
	// letter or digit glued on (PostgreSQL 17 refuses trailing junk)
	s := r.text[l.Start:l.End]
	i, digits := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == exp {
			return false
		}
	}
	return i == len(s) && !r.gluedAfter(l.End)
}

// str reads a string literal: one single-quoted literal with no prefix
// (r'...', or a word PostgreSQL would read as one: E'...', X'...').
func (r *pgReader) str(s *ast.StringLit) bool {
	if s.DoubleQuoted || len(s.Parts) > 1 || s.Start < r.base || s.End > len(r.text) || s.End-s.Start < 2 {
		return false
	}
	if r.text[s.Start] != '\'' || r.text[s.End-1] != '\'' {
		return false
	}
	return !(s.Start > 0 && isWordByte(r.text[s.Start-1])) && !r.gluedAfter(s.End)
}

// gluedAfter reports whether a word or number byte follows off directly.
func (r *pgReader) gluedAfter(off int) bool {
	return off < len(r.text) && (isWordByte(r.text[off]) || r.text[off] == '\'')
}

func (r *pgReader) castType(t *ast.DataType) bool {
	if t == nil || t.Qualifier != "" || t.Elem != nil || t.Key != nil || t.Value != nil || len(t.Fields) > 0 {
		return false
	}
	params, ok := pgCastTypes[t.Name]
	if !ok || t.End > len(r.text) || t.Start >= t.End {
		return false
	}
	// the type as written must be the name itself (not a synonym Spark
	// folds into it)
	written := r.text[t.Start:t.End]
	if i := strings.IndexByte(written, '('); i >= 0 {
		written = written[:i]
	}
	if !strings.EqualFold(strings.TrimSpace(written), t.Name) {
		return false
	}
	switch {
	case len(t.Params) == 0:
		return true
	case !params:
		return false
	case t.Name == "CHAR" || t.Name == "VARCHAR":
		return len(t.Params) == 1
	}
	return len(t.Params) <= 2
}

func (r *pgReader) call(c *ast.Call) bool {
	if c.Form != "" || c.Unit != nil || c.TrimSide != "" || c.NoParens || c.Nulls != "" || c.Name == nil || len(c.Name.Parts) != 1 {
		return false
	}
	if c.Quantifier != "" && c.Quantifier != "DISTINCT" && c.Quantifier != "ALL" {
		return false
	}
	if c.Quantifier != "" && len(c.WithinGroup) > 0 {
		return false // PostgreSQL: no DISTINCT with WITHIN GROUP
	}
	name := c.Name.Parts[0]
	w, ok := r.word(name)
	if !ok {
		return false
	}
	cl := uint8(0)
	if w != "" {
		cl = class(w)
	}
	switch {
	case cl&pgIsReserved != 0:
		return false
	case cl&pgIsColName != 0:
		// coalesce, greatest, least and nullif have grammar rules of
		// their own: plain arguments only
		plain := c.Quantifier == "" && c.Filter == nil && c.Over == nil && len(c.WithinGroup) == 0
		switch {
		case strings.EqualFold(w, "coalesce"), strings.EqualFold(w, "greatest"), strings.EqualFold(w, "least"):
			return plain && len(c.Args) > 0 && r.exprs(c.Args)
		case strings.EqualFold(w, "nullif"):
			return plain && len(c.Args) == 2 && r.exprs(c.Args)
		}
		return false
	}
	if !r.args(c) {
		return false
	}
	if !r.sorts(c.WithinGroup) || c.Filter != nil && !r.expr(c.Filter, ctxTop) {
		return false
	}
	if c.Over != nil {
		if c.Over.Ref != nil {
			return len(c.Over.PartitionBy) == 0 && len(c.Over.OrderBy) == 0 && c.Over.Frame == nil && r.colID(c.Over.Ref)
		}
		return r.window(c.Over)
	}
	return true
}

// args reads a call's arguments: expressions, or a lone * (f(*), which
// PostgreSQL's rule takes with no DISTINCT and no qualifier).
func (r *pgReader) args(c *ast.Call) bool {
	if len(c.Args) == 1 {
		if st, ok := c.Args[0].(*ast.Star); ok {
			return st.Qualifier == nil && st.Except == nil && c.Quantifier == ""
		}
	}
	return r.exprs(c.Args)
}

// window reads a window definition in parentheses: PARTITION BY, ORDER
// BY (Spark's DISTRIBUTE, CLUSTER and SORT BY are refused by their words)
// and a frame PostgreSQL's grammar accepts.
func (r *pgReader) window(w *ast.Window) bool {
	if w.Ref != nil || w.End > len(r.text) || w.Start >= w.End || r.text[w.Start] != '(' {
		return false
	}
	at := w.Start + 1
	if len(w.PartitionBy) > 0 {
		if !r.words(at, w.PartitionBy[0].Span().Start, "PARTITION", "BY") || !r.exprs(w.PartitionBy) {
			return false
		}
		at = w.PartitionBy[len(w.PartitionBy)-1].Span().End
	}
	if len(w.OrderBy) > 0 {
		if !r.words(at, w.OrderBy[0].Start, "ORDER", "BY") || !r.sorts(w.OrderBy) {
			return false
		}
	}
	f := w.Frame
	if f == nil {
		return true
	}
	if f.Unit != "ROWS" && f.Unit != "RANGE" {
		return false
	}
	start, ok := r.bound(f.Start)
	if !ok || start > boundCurrent {
		return false
	}
	if f.End == nil {
		return true
	}
	end, ok := r.bound(f.End)
	return ok && end >= start && end != boundUnboundedPreceding
}

// Frame bounds in the order PostgreSQL requires them.
const (
	boundUnboundedPreceding = iota
	boundPreceding
	boundCurrent
	boundFollowing
	boundUnboundedFollowing
)

func (r *pgReader) bound(b *ast.FrameBound) (int, bool) {
	if b == nil {
		return 0, false
	}
	switch b.Kind {
	case "UNBOUNDED PRECEDING":
		return boundUnboundedPreceding, true
	case "UNBOUNDED FOLLOWING":
		return boundUnboundedFollowing, true
	case "CURRENT ROW":
		return boundCurrent, true
	}
	l, ok := b.Offset.(*ast.Literal)
	if !ok || l.Kind != ast.LitInteger || !r.literal(l) {
		return 0, false
	}
	switch b.Kind {
	case "PRECEDING":
		return boundPreceding, true
	case "FOLLOWING":
		return boundFollowing, true
	}
	return 0, false
}

// words reports whether text[from:to] is exactly the words given,
// separated by white space only.
func (r *pgReader) words(from, to int, want ...string) bool {
	if from < 0 || to > len(r.text) || from > to {
		return false
	}
	return isWords(r.text[from:to], want...)
}

// isWords reports whether s is the words given (in any case), with
// white space around and between them and nothing else.
func isWords(s string, want ...string) bool {
	i := 0
	for _, w := range want {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if len(s)-i < len(w) || !strings.EqualFold(s[i:i+len(w)], w) {
			return false
		}
		i += len(w)
		if i < len(s) && !isSpace(s[i]) {
			return false
		}
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i == len(s)
}

func (r *pgReader) sorts(items []*ast.SortItem) bool {
	for _, s := range items {
		if s.X == nil || !r.expr(s.X, ctxTop) {
			return false
		}
		if s.Dir != "" && s.Dir != "ASC" && s.Dir != "DESC" || s.Nulls != "" && s.Nulls != "FIRST" && s.Nulls != "LAST" {
			return false
		}
	}
	return true
}

// word returns the text of an unquoted identifier as written, "" for a
// `quoted` one (a double-quoted name for PostgreSQL once normalized),
// and false when the identifier is neither a plain word nor a non-empty
// quoted name.
func (r *pgReader) word(id *ast.Ident) (string, bool) {
	if id == nil || id.Expr != nil || id.Start < r.base || id.End > len(r.text) || id.Start >= id.End {
		return "", false
	}
	s := r.text[id.Start:id.End]
	if s[0] == '`' {
		// normalized into "...", which the text has none of
		return "", len(s) > 2 && s[len(s)-1] == '`'
	}
	if !isWordStart(s[0]) {
		return "", false
	}
	for i := 1; i < len(s); i++ {
		if !isWordStart(s[i]) && !isDigit(s[i]) {
			return "", false
		}
	}
	return s, true
}

// in reports whether word w, lower-cased, is in set m, without
// allocating for an ASCII word of up to 32 bytes.
func in(m map[string]bool, w string) bool {
	var buf [32]byte
	if len(w) > len(buf) {
		return m[strings.ToLower(w)]
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return m[strings.ToLower(w)] // Unicode case mapping, as before
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return m[string(buf[:len(w)])]
}

// inUpper is in for a set of upper-case words.
func inUpper(m map[string]bool, w string) bool {
	var buf [32]byte
	if len(w) > len(buf) {
		return m[strings.ToUpper(w)]
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return m[strings.ToUpper(w)] // Unicode case mapping, as before
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	return m[string(buf[:len(w)])]
}

// colID reads a name PostgreSQL takes as a column, table, alias or CTE
// name: not one of its reserved, type-or-function or column-name words.
func (r *pgReader) colID(id *ast.Ident) bool {
	w, ok := r.word(id)
	return ok && (w == "" || class(w)&(pgIsReserved|pgIsTypeFunc|pgIsColName) == 0)
}

func (r *pgReader) colIDs(ids []*ast.Ident) bool {
	for _, id := range ids {
		if !r.colID(id) {
			return false
		}
	}
	return true
}

// label reads a name after AS or after a dot, where PostgreSQL takes any
// word.
func (r *pgReader) label(id *ast.Ident) bool {
	_, ok := r.word(id)
	return ok
}

// qualified reads a dotted name: a column or table name first, labels
// after it.
func (r *pgReader) qualified(parts []*ast.Ident) bool {
	if len(parts) == 0 || !r.colID(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if !r.label(p) {
			return false
		}
	}
	return true
}
