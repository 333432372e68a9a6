package translate

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// expr translates an expression and records its type.
func (t *tr) expr(x ast.Expr) frag {
	f := t.expr1(x)
	if f.typ == nil {
		f.typ = tUnknown
	}
	t.types[x] = f.typ
	return f
}

func (t *tr) expr1(x ast.Expr) frag {
	switch x := x.(type) {
	case *ast.Literal:
		return t.literal(x)
	case *ast.TypedLiteral:
		return t.typedLiteral(x)
	case *ast.Interval:
		return t.interval(x)
	case *ast.Column:
		return t.column(x)
	case *ast.Star:
		return t.star(x)
	case *ast.Unary:
		return t.unary(x)
	case *ast.Binary:
		return t.binary(x)
	case *ast.Between:
		not := ""
		if x.Not {
			not = "NOT "
		}
		a, lo, hi := t.expr(x.X), t.expr(x.Lo), t.expr(x.Hi)
		return at(x, tBool, cat("(", a, " "+not+"BETWEEN ", lo, " AND ", hi, ")"))
	case *ast.In:
		not := ""
		if x.Not {
			not = "NOT "
		}
		if row, ok := x.X.(*ast.Row); ok && x.Query != nil && len(row.Items) > 1 {
			return t.inRows(x, row)
		}
		a := t.expr(x.X)
		if x.Query != nil {
			if t.projecting {
				// In a SELECT list Spark's [NOT] IN (subquery) is never
				// NULL: it becomes an existence join, false where SQL's
				// three-valued IN is NULL (SELECT 1 IN (SELECT x FROM
				// VALUES (2), (NULL)) is false on Spark 4.1.4). In a
				// WHERE it keeps SQL's NULL (nested-not-in.sql).
				return at(x, tBool, cat("coalesce((", a, " "+not+"IN (", t.subquery(x.Query), ")), false)"))
			}
			return at(x, tBool, cat("(", a, " "+not+"IN (", t.subquery(x.Query), "))"))
		}
		items := make([]frag, len(x.List))
		bad := false
		names := []string{strings.ToUpper(a.typ.String())}
		for i, it := range x.List {
			items[i] = t.compatible(t.expr(it), a.typ)
			bad = bad || t.incomparable(a.typ, items[i].typ)
			names = append(names, strings.ToUpper(items[i].typ.String()))
		}
		if bad {
			t.typeError(x, "DATATYPE_MISMATCH.DATA_DIFF_TYPES", "Cannot resolve \"(%s)\" due to data type mismatch: Input to `in` should all be the same type, but it's [\"%s\"]. SQLSTATE: 42K09",
				t.text(x), strings.Join(names, "\", \""))
			return at(x, tBool, cat("NULL"))
		}
		return at(x, tBool, cat("(", a, " "+not+"IN (", items, "))"))
	case *ast.Like:
		return t.like(x)
	case *ast.Is:
		a := t.expr(x.X)
		not := ""
		if x.Not {
			not = "NOT "
		}
		switch x.What {
		case "DISTINCT FROM":
			return at(x, tBool, cat("(", a, " IS "+not+"DISTINCT FROM ", t.compatible(t.expr(x.Other), a.typ), ")"))
		case "UNKNOWN":
			return at(x, tBool, cat("(", a, " IS "+not+"NULL)"))
		}
		return at(x, tBool, cat("(", a, " IS "+not+x.What+")"))
	case *ast.Exists:
		return at(x, tBool, cat("EXISTS (", t.subquery(x.Query), ")"))
	case *ast.Subquery:
		q := t.subquery(x.Query)
		ty := tUnknown
		if out := t.model.Output(x.Query); out != nil && len(out.Columns) == 1 {
			ty = t.outputType(out.Columns[0])
		}
		return at(x, ty, cat("(", q, ")"))
	case *ast.Paren:
		a := t.expr(x.X)
		return at(x, a.typ, cat("(", a, ")"))
	case *ast.Row:
		items := make([]frag, len(x.Items))
		for i, it := range x.Items {
			items[i] = t.expr(it.X)
		}
		return at(x, tUnknown, cat("(", items, ")"))
	case *ast.Cast:
		return t.cast(x)
	case *ast.Case:
		return t.caseExpr(x)
	case *ast.Call:
		if x.Form == "UNIT" {
			if f, ok := t.unitCall(x); ok {
				return f
			}
		}
		return t.call(x)
	case *ast.Subscript:
		return t.subscript(x)
	case *ast.Field:
		a := t.expr(x.X)
		return at(x, fieldType(a.typ, x.Name.Name), cat("(", a, ")."+quoteIdent(x.Name.Name)))
	case *ast.Lambda:
		t.refuse(x, "a lambda only runs as the argument of a higher-order function")
	case *ast.Extract:
		t.refuse(x, "the semi-structured path x:path does not run natively; use get_json_object(x, '$.path')")
	case *ast.Collate:
		t.refuse(x, "COLLATE does not run natively")
	case *ast.Param:
		t.refuse(x, "parameter markers do not run natively")
	case *ast.NamedArg:
		t.refuse(x, "named arguments do not run natively here")
	case *ast.BadExpr:
		t.refuse(x, "this expression could not be read")
	default:
		t.refuse(x, "this expression does not run natively")
	}
	return at(x, tUnknown, cat("NULL"))
}

// inRows translates (a, b) [NOT] IN (subquery) with Spark's three-valued
// result: true when a row of the subquery equals the tuple, NULL when
// none does and one compares as NULL, false otherwise (DuckDB's row
// comparison gives NULL where a component is NULL and another differs,
// and it cannot correlate such an IN).
func (t *tr) inRows(x *ast.In, row *ast.Row) frag {
	items := make([]frag, len(row.Items))
	for i, it := range row.Items {
		items[i] = t.expr(it.X)
	}
	sub := t.subquery(x.Query)
	var subTypes []*Type
	if out := t.model.Output(x.Query); out != nil && len(out.Columns) == len(items) {
		for _, c := range out.Columns {
			subTypes = append(subTypes, t.outputType(c))
		}
	}
	cols := make([]string, len(items))
	conds := make([]frag, len(items))
	for i := range items {
		cols[i] = quoteIdent("__in_" + strconv.Itoa(i+1))
		other := frag{s: quoteIdent("__in") + "." + cols[i], typ: tUnknown}
		if subTypes != nil {
			other.typ = subTypes[i]
		}
		l, r := t.coerce(items[i], other)
		conds[i] = cat("(", l, " = ", r, ")")
	}
	eq := cat("(", join(conds, " AND "), ")")
	from := cat("(", sub, ") AS "+quoteIdent("__in")+"("+strings.Join(cols, ", ")+")")
	out := cat("CASE WHEN EXISTS (SELECT 1 FROM ", from, " WHERE ", eq, ") THEN true WHEN EXISTS (SELECT 1 FROM ", from, " WHERE ", eq, " IS NULL) THEN NULL ELSE false END")
	if x.Not {
		out = cat("(NOT ", out, ")")
	}
	return at(x, tBool, cat("(", out, ")"))
}

// likeEscapeError reports a LIKE pattern Spark refuses: its escape
// character followed by a character other than _, % or itself
// (ESC_IN_THE_MIDDLE), or last (ESC_AT_THE_END).
func likeEscapeError(pattern string, esc rune) (string, bool) {
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		if rs[i] != esc {
			continue
		}
		if i+1 == len(rs) {
			return "ESC_AT_THE_END", true
		}
		if n := rs[i+1]; n != '_' && n != '%' && n != esc {
			return "ESC_IN_THE_MIDDLE", true
		}
		i++
	}
	return "", false
}

// fieldType is the type of field name of a struct type.
func fieldType(ty *Type, name string) *Type {
	if ty.is(Struct) {
		for _, f := range ty.Fields {
			if strings.EqualFold(f.Name, name) {
				return f.Type
			}
		}
	}
	return tUnknown
}

func (t *tr) literal(l *ast.Literal) frag {
	switch l.Kind {
	case ast.LitNull:
		return at(l, tNull, cat("NULL"))
	case ast.LitTrue:
		return at(l, tBool, cat("true"))
	case ast.LitFalse:
		return at(l, tBool, cat("false"))
	case ast.LitString:
		return at(l, tString, cat(quoteString(l.Str.Value)))
	}
	text := strings.TrimRight(l.Text, "LlSsYyDdFfBb")
	switch l.Kind {
	case ast.LitInteger:
		n, ok := new(big.Int).SetString(text, 10)
		switch {
		case ok && n.IsInt64() && n.Int64() >= -1<<31 && n.Int64() < 1<<31:
			return at(l, tInt, cat(text))
		case ok && n.IsInt64():
			return at(l, tBigInt, cat("CAST("+text+" AS BIGINT)"))
		default:
			if len(text) > 38 {
				t.refuse(l, "the number %s has more than 38 digits", text)
			}
			return at(l, decimalOf(len(text), 0), cat(fmt.Sprintf("CAST(%s AS DECIMAL(%d, 0))", text, min(len(text), 38))))
		}
	case ast.LitBigInt:
		return at(l, tBigInt, cat("CAST("+text+" AS BIGINT)"))
	case ast.LitSmallInt:
		return at(l, &Type{Kind: SmallInt}, cat("CAST("+text+" AS SMALLINT)"))
	case ast.LitTinyInt:
		return at(l, &Type{Kind: TinyInt}, cat("CAST("+text+" AS TINYINT)"))
	case ast.LitDecimal, ast.LitBigDecimal:
		if strings.ContainsAny(text, "eE") {
			// 123.0E-28BD: Spark's BigDecimal of the text, scale 29.
			p, s, ok := exponentDigits(text)
			if !ok || p > 38 {
				t.refuse(l, "the number %s does not fit a DECIMAL of 38 digits", l.Text)
				return at(l, tUnknown, cat("NULL"))
			}
			return at(l, decimalOf(p, s), cat(fmt.Sprintf("CAST('%s' AS DECIMAL(%d, %d))", plainDecimal(text, s), p, s)))
		}
		p, s := decimalDigits(text)
		if p > 38 {
			t.refuse(l, "the number %s has more than 38 digits", text)
			p = 38
		}
		return at(l, decimalOf(p, s), cat(fmt.Sprintf("CAST(%s AS DECIMAL(%d, %d))", text, p, s)))
	case ast.LitExponent, ast.LitDouble:
		// Through a string: DuckDB reads 0.9999999999999999 as a DECIMAL
		// and its cast to DOUBLE rounds the digits twice (to 1.0), where
		// Java's parse (and DuckDB's of a string) gives the nearest double.
		return at(l, tDouble, cat("CAST('"+text+"' AS DOUBLE)"))
	case ast.LitFloat:
		return at(l, &Type{Kind: Float}, cat("CAST('"+text+"' AS FLOAT)"))
	}
	t.refuse(l, "this literal does not run natively")
	return at(l, tUnknown, cat("NULL"))
}

// exponentDigits is the precision and scale Spark gives a decimal
// literal with an exponent (Java's BigDecimal of the text: 123.0E-28 has
// the digits 1230 at scale 29; a negative scale becomes 0, the digits
// growing by it).
func exponentDigits(text string) (int, int, bool) {
	mant, exp, _ := strings.Cut(strings.ToUpper(text), "E")
	e, err := strconv.Atoi(exp)
	if err != nil {
		return 0, 0, false
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	n := max(len(digits), 1)
	scale := len(frac) - e
	if scale < 0 {
		return n - scale, 0, true
	}
	return max(n, scale), scale, true
}

// plainDecimal writes a number with an exponent (123.0E-28) in plain
// notation with scale digits after the point, which DuckDB's cast to
// DECIMAL reads (it refuses the exponent form at a large scale).
func plainDecimal(text string, scale int) string {
	mant, exp, _ := strings.Cut(strings.ToUpper(text), "E")
	e, _ := strconv.Atoi(exp)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimLeft(mant, "+-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	// the value is digits × 10^(e - len(frac)); as unscaled at scale:
	shift := e - len(frac) + scale
	if shift >= 0 {
		digits += strings.Repeat("0", shift)
	} else {
		digits = digits[:max(0, len(digits)+shift)]
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	out := digits
	if scale > 0 {
		out = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// decimalDigits is the precision and scale Spark gives a decimal literal.
func decimalDigits(text string) (int, int) {
	intPart, frac, _ := strings.Cut(text, ".")
	intPart = strings.TrimLeft(intPart, "0")
	s := len(frac)
	p := len(intPart) + s
	if p == 0 {
		p = 1
	}
	return max(p, s), s
}

// sparkDate and sparkTimestamp match the partial forms Spark's
// stringToDate and stringToTimestamp read and DuckDB's cast does not:
// yyyy, yyyy-[m]m, yyyy-[m]m-[d]d (a date may go on after a space or T),
// and a time of [h]h:[m]m[:[s]s[.fraction]].
var (
	sparkDate      = regexp.MustCompile(`^([+-]?\d{4,6})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?$`)
	sparkTimestamp = regexp.MustCompile(`^([+-]?\d{4,6})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(\.\d{1,6})?)?)?)?)?$`)
)

// sparkDateText writes the text of a DATE (date true) or TIMESTAMP typed
// literal in the full form DuckDB's cast reads, as Spark reads it:
// surrounding white space and control characters dropped (Spark's
// trimAll: TIMESTAMP '2019-01-01\t'), missing months and days 01, one-digit
// fields padded, a year's sign and up to six digits kept (a plus
// dropped). Any other text (a zone) is left as it is.
func sparkDateText(v string, date bool) string {
	s := strings.TrimFunc(v, func(r rune) bool { return r <= ' ' })
	re := sparkTimestamp
	if date {
		re = sparkDate
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	pad := func(x, def string) string {
		if x == "" {
			return def
		}
		if len(x) == 1 {
			return "0" + x
		}
		return x
	}
	// A year of Spark's signed, up-to-six-digit form (-000001, +99999):
	// DuckDB reads the minus, not the plus.
	out := strings.TrimPrefix(m[1], "+") + "-" + pad(m[2], "01") + "-" + pad(m[3], "01")
	if !date && m[4] != "" {
		out += " " + pad(m[4], "00") + ":" + pad(m[5], "00") + ":" + pad(m[6], "00") + m[7]
	}
	return out
}

func (t *tr) typedLiteral(l *ast.TypedLiteral) frag {
	v := l.Value.Value
	switch strings.ToUpper(l.Type) {
	case "DATE":
		return at(l, tDate, cat("CAST("+quoteString(sparkDateText(v, true))+" AS DATE)"))
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		v = sparkDateText(v, false)
		if hasZone(v) {
			if f, ok := t.zonedTimestampLiteral(l, v); ok {
				return f
			}
			if !t.zoned(l, "a TIMESTAMP literal with a zone") {
				return at(l, tUnknown, cat("NULL"))
			}
			return at(l, tTS, t.utcToLocal(cat("CAST(timezone('UTC', CAST("+quoteString(v)+" AS TIMESTAMPTZ)) AS TIMESTAMP)")))
		}
		if moved, ok := t.skippedWallClock(v); ok {
			v = moved
		}
		return at(l, tTS, cat("CAST("+quoteString(v)+" AS TIMESTAMP)"))
	case "TIMESTAMP_NTZ":
		return at(l, &Type{Kind: TimestampNTZ}, cat("CAST("+quoteString(sparkDateText(v, false))+" AS TIMESTAMP)"))
	case "X":
		return at(l, tBinary, cat("from_hex("+quoteString(v)+")"))
	case "TIME":
		return t.timeLiteral(l)
	}
	t.refuse(l, "%s literals do not run natively", l.Type)
	return at(l, tUnknown, cat("NULL"))
}

// hasZone reports a timestamp text with a zone (Z, +02:00, an offset or a
// region name after the time).
func hasZone(v string) bool {
	v = strings.TrimSpace(v)
	if strings.HasSuffix(v, "Z") || strings.Contains(v, "UTC") {
		return true
	}
	if i := strings.LastIndexAny(v, "+-"); i > 10 {
		return true
	}
	return strings.Contains(v, "/")
}

// intervalUnits maps Spark's interval units to DuckDB's.
var intervalUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH", "WEEK": "WEEK", "WEEKS": "WEEK",
	"DAY": "DAY", "DAYS": "DAY", "HOUR": "HOUR", "HOURS": "HOUR", "MINUTE": "MINUTE", "MINUTES": "MINUTE",
	"SECOND": "SECOND", "SECONDS": "SECOND", "MILLISECOND": "MILLISECOND", "MILLISECONDS": "MILLISECOND",
	"MICROSECOND": "MICROSECOND", "MICROSECONDS": "MICROSECOND",
}

// interval translates an INTERVAL literal (interval.go).
func (t *tr) interval(iv *ast.Interval) frag { return t.intervalLiteral(iv) }

// lateralOuter reports whether c, resolved by ref to a relation outside a
// LATERAL subquery, is read from a subquery expression inside that LATERAL
// subquery: Spark does not resolve it there (join-lateral.sql: LATERAL
// (SELECT c1, (SELECT SUM(c2) FROM t2 WHERE c1 = t1.c1)) fails with
// UNRESOLVED_COLUMN, while a FROM subquery inside the LATERAL one may
// read t1).
func (t *tr) lateralOuter(c *ast.Column, ref *sema.ColumnRef) bool {
	if ref.Source.Rel == nil || ref.Source.Rel.Node == nil {
		return false
	}
	if t.laterals == nil {
		t.laterals = []ast.Range{}
		ast.Inspect(t.root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SubqueryRel:
				if n.Lateral {
					t.laterals = append(t.laterals, n.Span())
				}
			case *ast.Join:
				if n.Lateral && n.R != nil {
					t.laterals = append(t.laterals, n.R.Span())
				}
			case *ast.Subquery, *ast.Exists:
				t.subqueries = append(t.subqueries, n.Span())
			case *ast.In:
				if n.Query != nil {
					t.subqueries = append(t.subqueries, n.Query.Span())
				}
			}
			return true
		})
	}
	rel, at := ref.Source.Rel.Node.Span(), c.Span()
	for _, l := range t.laterals {
		if !contains(l, at) || contains(l, rel) {
			continue
		}
		for _, sq := range t.subqueries {
			if contains(l, sq) && contains(sq, at) && !contains(sq, rel) {
				return true
			}
		}
	}
	return false
}

// column translates a column reference through the semantic model.
func (t *tr) column(c *ast.Column) frag {
	ref := t.model.Column(c)
	quoted := func(ids []*ast.Ident) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = quoteIdent(id.Name)
		}
		return strings.Join(s, ".")
	}
	for _, id := range c.Parts {
		if id.Expr != nil {
			t.refuse(id, "IDENTIFIER(expr) does not run natively")
		}
	}
	if ref == nil {
		return at(c, tUnknown, cat(quoted(c.Parts)))
	}
	if f, ok := t.virtualColumn(c); ok && ref.Kind == sema.RefVirtual {
		return f
	}
	if ref.Kind == sema.RefColumn && ref.Outer >= 1 && t.lateralOuter(c, ref) {
		t.typeError(c, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "A column, variable, or function parameter with name %s cannot be resolved: a subquery inside a LATERAL subquery cannot read the columns before LATERAL on Spark. SQLSTATE: 42703", "`"+strings.ReplaceAll(t.text(c), ".", "`.`")+"`")
	}
	if sh, ok := t.shadow[strings.ToLower(c.Parts[0].Name)]; ok && len(c.Parts) == 1 && (ref.Kind == sema.RefAlias || ref.Kind == sema.RefColumn && ref.Outer == 0) {
		if sh.sql == "" {
			t.refuse(c, "%s names two columns of the SELECT, so Spark reads it as the input column here and DuckDB as one of the outputs; qualify it (t.%s) or rename the outputs", c.Parts[0].Name, c.Parts[0].Name)
			return at(c, tUnknown, cat("NULL"))
		}
		return at(c, sh.typ, cat(sh.sql))
	}
	switch ref.Kind {
	case sema.RefLambda:
		if p, ok := t.lambdas[ref.Param]; ok {
			s := p.render
			if s == "" {
				s = quoteIdent(ref.Param.Name)
			}
			ty := p.typ
			for _, f := range c.Parts[1:] {
				s += "." + quoteIdent(f.Name)
				ty = fieldType(ty, f.Name)
			}
			return at(c, ty, cat(s))
		}
	case sema.RefColumn:
		n := ref.NameParts
		if n <= 0 || n > len(c.Parts) {
			n = len(c.Parts)
		}
		name := c.Parts[:n]
		if len(name) > 2 {
			name = name[len(name)-2:]
		}
		ty := tUnknown
		if col := ref.Source.Column(); col != nil {
			ty = t.outputType(col)
		}
		if ref.Source.Rel != nil {
			// A set operation's columns have the types both sides
			// widen to, not the first side's.
			if ts, ok := t.setOpTypes(ref.Source.Rel.Node); ok && ref.Source.Index >= 0 && ref.Source.Index < len(ts) && ts[ref.Source.Index].known() {
				ty = ts[ref.Source.Index]
			}
		}
		if !ty.known() && ref.Source.Rel != nil {
			if ts, ok := t.relTypes(ref.Source.Rel.Node); ok && ref.Source.Index >= 0 && ref.Source.Index < len(ts) {
				ty = ts[ref.Source.Index]
			}
		}
		s := quoted(name)
		for _, f := range c.Parts[n:] {
			s = "(" + s + ")." + quoteIdent(f.Name)
			ty = fieldType(ty, f.Name)
		}
		return at(c, ty, cat(s))
	case sema.RefAlias:
		ty := tUnknown
		if ref.Alias != nil {
			if tt, ok := t.types[ref.Alias.X]; ok {
				ty = tt
			}
		}
		return at(c, ty, cat(quoted(c.Parts)))
	}
	return at(c, tUnknown, cat(quoted(c.Parts)))
}

// outputType is the type of an output column of a relation or query.
// relTypes gives the column types recorded for a relation, looking
// through parentheses and a subquery that is only a VALUES list
// ((VALUES ...) AS t(x) is a subquery around the VALUES node).
func (t *tr) relTypes(n ast.Node) ([]*Type, bool) {
	for n != nil {
		if ts, ok := t.relCols[n]; ok {
			return ts, true
		}
		switch r := n.(type) {
		case *ast.SubqueryRel:
			if r.Query == nil || r.Query.With != nil {
				return nil, false
			}
			n = r.Query.Body
		case *ast.ParenRel:
			n = r.Rel
		case *ast.ParenQuery:
			if r.Query == nil || r.Query.With != nil {
				return nil, false
			}
			n = r.Query.Body
		default:
			return nil, false
		}
	}
	return nil, false
}

// setOpTypes gives the column types of a relation that is a set
// operation (in parentheses or a subquery), as translated.
func (t *tr) setOpTypes(n ast.Node) ([]*Type, bool) {
	for n != nil {
		switch r := n.(type) {
		case *ast.SetOp:
			ts, ok := t.bodyTypes[r]
			return ts, ok
		case *ast.SubqueryRel:
			if r.Query == nil {
				return nil, false
			}
			n = r.Query.Body
		case *ast.ParenRel:
			n = r.Rel
		case *ast.ParenQuery:
			if r.Query == nil {
				return nil, false
			}
			n = r.Query.Body
		default:
			return nil, false
		}
	}
	return nil, false
}

func (t *tr) outputType(col *sema.OutputColumn) *Type {
	if col.Type != "" {
		return ParseSparkType(col.Type)
	}
	if col.Expr != nil {
		if ty, ok := t.types[col.Expr]; ok {
			return ty
		}
	}
	if col.Source != nil && col.Source.Column() != nil && col.Source.Column() != col {
		if ty := t.outputType(col.Source.Column()); ty.known() {
			return ty
		}
	}
	if col.Source != nil && col.Source.Rel != nil {
		if ts, ok := t.setOpTypes(col.Source.Rel.Node); ok && col.Source.Index >= 0 && col.Source.Index < len(ts) && ts[col.Source.Index].known() {
			return ts[col.Source.Index]
		}
	}
	if col.Source != nil && col.Source.Rel != nil {
		// a column passed on by * from a relation whose types were
		// recorded (VALUES, a table function)
		if ts, ok := t.relTypes(col.Source.Rel.Node); ok && col.Source.Index >= 0 && col.Source.Index < len(ts) {
			return ts[col.Source.Index]
		}
	}
	return tUnknown
}

func (t *tr) unary(u *ast.Unary) frag {
	if l, ok := u.X.(*ast.Literal); ok && u.Op == "-" && l.Kind == ast.LitInteger && l.Range.Start == u.Range.Start+1 {
		// Spark reads -2147483648 as one INT literal (its golden files:
		// SELECT -2147483648 is an int), not the negation of a BIGINT.
		if n, ok := new(big.Int).SetString("-"+l.Text, 10); ok && n.IsInt64() {
			switch v := n.Int64(); {
			case v >= -1<<31:
				t.types[l] = tInt
				return at(u, tInt, cat("CAST(-"+l.Text+" AS INTEGER)"))
			default:
				t.types[l] = tBigInt
				return at(u, tBigInt, cat("CAST(-"+l.Text+" AS BIGINT)"))
			}
		}
	}
	if l, ok := u.X.(*ast.Literal); ok && u.Op == "-" && l.Kind == ast.LitBigInt && l.Range.Start == u.Range.Start+1 {
		// -9223372036854775808L is one BIGINT literal on Spark too.
		text := strings.TrimRight(l.Text, "Ll")
		if n, ok := new(big.Int).SetString("-"+text, 10); ok && n.IsInt64() {
			t.types[l] = tBigInt
			return at(u, tBigInt, cat("CAST(-"+text+" AS BIGINT)"))
		}
	}
	if l, ok := u.X.(*ast.Literal); ok && u.Op == "-" && (l.Kind == ast.LitTinyInt || l.Kind == ast.LitSmallInt) && l.Range.Start == u.Range.Start+1 {
		// -128Y and -32768S are one literal on Spark too.
		ty, bits := &Type{Kind: TinyInt}, 8
		if l.Kind == ast.LitSmallInt {
			ty, bits = &Type{Kind: SmallInt}, 16
		}
		text := strings.TrimRight(l.Text, "SsYy")
		if n, err := strconv.ParseInt("-"+text, 10, bits); err == nil {
			t.types[l] = ty
			return at(u, ty, cat("CAST("+strconv.FormatInt(n, 10)+" AS "+ty.duck()+")"))
		}
	}
	if strings.EqualFold(u.Op, "NOT") || u.Op == "!" {
		x := u.X
		for {
			p, ok := x.(*ast.Paren)
			if !ok {
				break
			}
			x = p.X
		}
		if in, ok := x.(*ast.In); ok && in.Query != nil && t.projecting {
			if _, rows := in.X.(*ast.Row); !rows {
				// Spark reads NOT (a IN (subquery)) as a NOT IN
				// (subquery), false where SQL's is NULL.
				neg := *in
				neg.Not = !in.Not
				f := t.expr(&neg)
				return at(u, tBool, f)
			}
		}
	}
	a := t.expr(u.X)
	switch u.Op {
	case "-":
		if a.typ.is(String) {
			// Spark reads the string as a DOUBLE.
			d := t.cast(&ast.Cast{Range: u.X.Span(), Form: "CAST", X: u.X, Type: &ast.DataType{Range: u.X.Span(), Name: "DOUBLE"}})
			return at(u, tDouble, cat("(-", d, ")"))
		}
		if !t.ansi() && a.typ.integral() {
			return at(u, a.typ, wrapInt(cat("(-CAST(", a, " AS HUGEINT))"), a.typ))
		}
		return at(u, a.typ, cat("(-", a, ")"))
	case "+":
		if a.typ.known() && !a.typ.numeric() && !a.typ.is(IntervalKind) && !a.typ.is(Null) && !a.typ.is(String) {
			// Spark's golden files (literals.sql): +DATE '1999-01-01',
			// +array(1, 2), +X'1' fail.
			t.typeError(u, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"(+ %s)\" due to data type mismatch: The first parameter requires the (\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\" or \"INTERVAL\") type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
				t.text(u.X), t.text(u.X), strings.ToUpper(a.typ.String()))
		}
		if a.typ.is(String) {
			// Spark reads the string as a DOUBLE (+ '1' is 1.0D).
			return t.cast(&ast.Cast{Range: u.X.Span(), Form: "CAST", X: u.X, Type: &ast.DataType{Range: u.X.Span(), Name: "DOUBLE"}})
		}
		return at(u, a.typ, a)
	case "~":
		return at(u, a.typ, cat("(~", a, ")"))
	case "NOT", "!":
		return at(u, tBool, cat("(NOT ", a, ")"))
	}
	t.refuse(u, "the operator %s does not run natively", u.Op)
	return at(u, tUnknown, cat("NULL"))
}

// subquery translates the query of a subquery expression (IN, EXISTS,
// scalar). A LIMIT without ORDER BY in an uncorrelated one keeps rows of
// no defined choice on either engine; it is not refused (most such
// subqueries agree). In a correlated one a LIMIT is refused where the two
// engines keep other rows: without ORDER BY (Spark keeps the rows its plan
// meets first, in-limit.sql), and where the correlation is a condition on
// the outer columns alone (Spark's rewrite then skips the NULL that sorts
// first: scalar-subquery-predicate.sql, WHERE t1b < t1d ORDER BY t2c
// LIMIT 1).
func (t *tr) subquery(q *ast.Query) frag {
	saved := t.projecting
	t.projecting = false
	defer func() { t.projecting = saved }()
	if q.Limit != nil || q.Offset != nil {
		at := ast.Node(q.Limit)
		if at == nil {
			at = q.Offset
		}
		switch {
		case !t.correlated(q, q):
		case len(q.OrderBy) == 0 && t.inequality(q):
			t.refuse(at, "a LIMIT or OFFSET without ORDER BY in a subquery correlated by an inequality does not run natively: which rows it keeps for each outer row is not defined, and Spark's rewrite into a join keeps other rows than DuckDB")
		case len(q.OrderBy) > 0 && t.outerOnly(q):
			t.refuse(at, "a LIMIT in a correlated subquery whose correlation is a condition on outer columns alone does not run natively: Spark's rewrite into a join keeps other rows than evaluating the subquery for each outer row")
		}
	}
	return t.query(q)
}

// correlated reports whether x, in subquery q, reads a column of a query
// around q.
func (t *tr) correlated(q *ast.Query, x ast.Node) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if found {
			return false
		}
		if c, ok := n.(*ast.Column); ok && t.outer(q, c) {
			found = true
		}
		return true
	})
	return found
}

// outer reports whether column c, in subquery q, is one of a query around q.
func (t *tr) outer(q *ast.Query, c *ast.Column) bool {
	ref := t.model.Column(c)
	return ref != nil && ref.Source.Rel != nil && ref.Source.Rel.Node != nil && !contains(q.Span(), ref.Source.Rel.Node.Span())
}

// inequality reports whether a condition of q's WHERE compares an outer
// column otherwise than by = (in-limit.sql: WHERE t2b <= t1d).
func (t *tr) inequality(q *ast.Query) bool {
	found := false
	for _, x := range t.conditions(q) {
		if b, ok := x.(*ast.Binary); ok && (b.Op == "=" || b.Op == "==" || b.Op == "<=>") {
			continue
		}
		if t.correlated(q, x) {
			found = true
		}
	}
	return found
}

// conditions returns the conjuncts of the WHERE of q's SELECT.
func (t *tr) conditions(q *ast.Query) []ast.Expr {
	s, ok := q.Body.(*ast.Select)
	if !ok || s.Where == nil {
		return nil
	}
	var conds []ast.Expr
	var split func(x ast.Expr)
	split = func(x ast.Expr) {
		if b, ok := x.(*ast.Binary); ok && strings.EqualFold(b.Op, "AND") {
			split(b.L)
			split(b.R)
			return
		}
		if p, ok := x.(*ast.Paren); ok {
			split(p.X)
			return
		}
		conds = append(conds, x)
	}
	split(s.Where)
	return conds
}

// outerOnly reports whether a condition of q's WHERE reads outer columns
// and none of q's own.
func (t *tr) outerOnly(q *ast.Query) bool {
	for _, x := range t.conditions(q) {
		outer, inner := false, false
		ast.Inspect(x, func(n ast.Node) bool {
			if c, ok := n.(*ast.Column); ok {
				if t.outer(q, c) {
					outer = true
				} else {
					inner = true
				}
			}
			return true
		})
		if outer && !inner {
			return true
		}
	}
	return false
}

// wrapInt wraps x, a HUGEINT, into the integer type ty as two's
// complement arithmetic does (Spark without ANSI: 2147483647 + 1 is
// -2147483648).
func wrapInt(x frag, ty *Type) frag {
	bits := map[Kind]int{TinyInt: 8, SmallInt: 16, Int: 32, BigInt: 64}[ty.Kind]
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	h := new(big.Int).Rsh(m, 1)
	ms, hs := "CAST('"+m.String()+"' AS HUGEINT)", "CAST('"+h.String()+"' AS HUGEINT)"
	return cat("CAST(((((", x, ") + "+hs+") % "+ms+" + "+ms+") % "+ms+" - "+hs+") AS "+ty.duck()+")")
}

// intLit makes a bare integer literal operand a typed INTEGER, so DuckDB
// does not widen it as it folds constants (Spark's 2147483647 + 1
// overflows).
func intLit(x ast.Expr, f frag) frag {
	if l, ok := x.(*ast.Literal); ok && l.Kind == ast.LitInteger && f.typ.is(Int) {
		return at(l, tInt, cat("CAST(", f, " AS INTEGER)"))
	}
	return f
}

func (t *tr) binary(b *ast.Binary) frag {
	return t.binaryOf(b, t.expr(b.L), t.expr(b.R), false)
}

// binaryOf translates b from its translated operands. With try (the
// try_add, try_subtract and try_multiply functions) an integer result
// that overflows is NULL, while an error in an operand stays one (Spark's
// try_add(1, 2147483647 + 1) fails).
func (t *tr) binaryOf(b *ast.Binary, l, r frag, try bool) frag {
	switch b.Op {
	case "AND", "OR":
		return at(b, tBool, cat("(", l, " "+b.Op+" ", r, ")"))
	}
	if f, ok := t.stringInterval(b, l, r, try); ok {
		return f
	}
	if f, ok := t.timeArith(b, l, r, try); ok {
		return f
	}
	if t.operandTypes(b, l.typ, r.typ) {
		return at(b, tUnknown, cat("NULL"))
	}
	if f, ok := t.intervalBinary(b, l, r, try); ok {
		return f
	}
	if f, ok := t.datedInterval(b, l, r); ok {
		return f
	}
	switch b.Op {
	case "+", "-", "*", "/", "%":
		l, r = t.stringOperand(b, l, r)
		l, r = t.floatOperands(l, r)
	}
	switch b.Op {
	case "+", "-", "*":
		l, r = intLit(b.L, l), intLit(b.R, r)
		ty := arithType(b.Op, l.typ, r.typ)
		if exact := func(x *Type) bool { return x.integral() || x.is(Decimal) }; (l.typ.is(Decimal) || r.typ.is(Decimal)) && exact(l.typ) && exact(r.typ) {
			// An integer literal beside a decimal counts as its own
			// digits (Spark: 1 + 1.0 / 0.0 is a DECIMAL(9,6), not
			// DECIMAL(17,6)).
			ty = arithType(b.Op, asDecimalLit(b, true, l.typ), asDecimalLit(b, false, r.typ))
		}
		if f, ok := t.decimalSum(b, l, r, ty, try); ok {
			return f
		}
		if f, ok := t.decimalProduct(b, l, r, ty, try); ok {
			return f
		}
		out := cat("(", l, " "+b.Op+" ", r, ")")
		if !try && !t.ansi() && ty.integral() && l.typ.integral() && r.typ.integral() {
			// Without ANSI an integer result that overflows wraps
			// around, as Java's arithmetic does.
			return at(b, ty, wrapInt(cat("(CAST(", l, " AS HUGEINT) "+b.Op+" CAST(", r, " AS HUGEINT))"), ty))
		}
		if try && ty.integral() && l.typ.integral() && r.typ.integral() {
			// Computed as HUGEINT (a BIGINT product fits), then NULL where
			// it leaves the result type.
			return at(b, ty, cat("TRY_CAST((CAST(", l, " AS HUGEINT) "+b.Op+" CAST(", r, " AS HUGEINT)) AS "+ty.duck()+")"))
		}
		if !try && ty.integral() && l.typ.integral() && r.typ.integral() && b.Op != "*" {
			// add/subtract rather than + and -: DuckDB's optimizer
			// rewrites sum(x + 1) as sum(x) + count(x), which no longer
			// overflows where Spark's x + 1 does (ARITHMETIC_OVERFLOW).
			fn := "add("
			if b.Op == "-" {
				fn = "subtract("
			}
			return at(b, ty, cat(fn, l, ", ", r, ")"))
		}
		if ty.is(Decimal) && (l.typ.is(Decimal) || r.typ.is(Decimal)) {
			if try {
				out = cat("TRY_CAST(", out, " AS "+ty.duck()+")")
			} else {
				out = cat("CAST(", out, " AS "+ty.duck()+")")
			}
		}
		if (l.typ.is(Date) && dayInterval(b.R)) || (r.typ.is(Date) && dayInterval(b.L)) {
			// DuckDB gives a TIMESTAMP, Spark a DATE.
			return at(b, tDate, cat("CAST(", out, " AS DATE)"))
		}
		if f, ok := t.datedNullOrString(b, l, r); ok {
			return f
		}
		if b.Op == "-" && l.typ.is(Date) && r.typ.is(Date) {
			t.refuse(b, "date - date gives an interval of days on Spark and a number natively; use datediff(end, start)")
		}
		if t.datedOther(b.Op, l.typ, r.typ) || t.datedOther(b.Op, r.typ, l.typ) {
			// Spark's DATE - NULL and '2001-10-01' - DATE are intervals of
			// days, DATE + NULL a TIMESTAMP, TIMESTAMP - NULL an interval
			// of seconds; DuckDB types each otherwise.
			t.refuse(b, "a date or timestamp %s a NULL or a string has another type on Spark (an interval or a timestamp) than natively; cast the operand to the type you mean", b.Op)
			return at(b, tUnknown, cat("NULL"))
		}
		if dated := func(x *Type) bool { return x.is(Timestamp) || x.is(Date) || x.is(TimestampNTZ) }; b.Op == "-" && dated(l.typ) && dated(r.typ) && (l.typ.is(TimestampNTZ) || r.typ.is(TimestampNTZ)) {
			// With a TIMESTAMP_NTZ: the difference of the wall-clock
			// times as they are (a DATE at its midnight; a TIMESTAMP's
			// wall-clock time in the session zone, an NTZ's as written,
			// even one the zone skips: checked on Spark 4.1.4,
			// TIMESTAMP_NTZ '2021-03-14 02:30:00' - TIMESTAMP '2021-03-14
			// 01:00:00' is 01:30:00 in America/Los_Angeles).
			return at(b, intervalOf(FieldDay, FieldSecond), cat("(CAST(", l, " AS TIMESTAMP) - CAST(", r, " AS TIMESTAMP))"))
		}
		if b.Op == "-" && (l.typ.is(Timestamp) || l.typ.is(Date)) && (r.typ.is(Timestamp) || r.typ.is(Date)) {
			// Spark: an INTERVAL DAY TO SECOND, the microseconds between
			// the two wall-clock times in the session zone
			// (DateTimeUtils.subtractTimestamps: across a daylight saving
			// change it differs from the time between the instants).
			// Native runs hold a TIMESTAMP as that wall-clock time; DuckDB's
			// INTERVAL of days and microseconds holds the difference, days
			// counting as 24 hours.
			return at(b, intervalOf(FieldDay, FieldSecond), out)
		}
		return at(b, ty, out)
	case "/":
		return t.divide(b, l, r, false)
	case "%":
		if ty, ok := remainderDecimal(b, l.typ, r.typ); ok {
			return at(b, ty, cat("CAST((", l, " % ", t.remainder(b.R, r), ") AS "+ty.duck()+")"))
		}
		ty := widen(l.typ, r.typ)
		if ty.integral() && l.typ.integral() && r.typ.integral() && positiveLiteral(b.R) {
			// By a positive constant (x % 1000): never by zero, never the
			// least integer % -1, so DuckDB's remainder (whose sign is the
			// dividend's, as Java's) is Spark's, without the checks.
			return at(b, ty, cat("CAST((", l, " % ", r, ") AS "+ty.duck()+")"))
		}
		if ty.integral() && l.typ.integral() && r.typ.integral() {
			// As HUGEINT: the least integer % -1 is 0 on Spark (Java's
			// remainder), an overflow on DuckDB.
			return at(b, ty, cat("CAST((CAST(", l, " AS HUGEINT) % CAST(", t.remainder(b.R, r), " AS HUGEINT)) AS "+ty.duck()+")"))
		}
		return at(b, ty, cat("(", l, " % ", t.remainder(b.R, r), ")"))
	case "DIV":
		if !(l.typ.integral() || l.typ.is(Decimal)) || !(r.typ.integral() || r.typ.is(Decimal)) {
			if !l.typ.known() || !r.typ.known() {
				t.refuse(b, "DIV needs integer or decimal operands, and the operands' types are not known here")
			} else {
				t.refuse(b, "DIV needs integer or decimal operands, not %s and %s", l.typ, r.typ)
			}
		}
		if l.typ.integral() && r.typ.integral() {
			return at(b, tBigInt, cat("CAST((CAST(", l, " AS BIGINT) // ", t.divisor(b.R, r, false), ") AS BIGINT)"))
		}
		if (l.typ.integral() || l.typ.is(Decimal) && l.typ.S == 0) && (r.typ.integral() || r.typ.is(Decimal) && r.typ.S == 0) {
			// Whole decimals divide exactly as HUGEINTs (a DECIMAL(38, 10)
			// quotient would round 0.999... up to 1).
			return at(b, tBigInt, cat("CAST((CAST(", l, " AS HUGEINT) // CAST(", t.divisor(b.R, r, false), " AS HUGEINT)) AS BIGINT)"))
		}
		return at(b, tBigInt, cat("CAST(trunc(CAST(", l, " AS DECIMAL(38, 10)) / ", t.divisor(b.R, r, false), ") AS BIGINT)"))
	case "||":
		if l.typ.is(Array) || r.typ.is(Array) {
			return at(b, widen(l.typ, r.typ), cat("CASE WHEN ", l, " IS NULL OR ", r, " IS NULL THEN NULL ELSE list_concat(", l, ", ", r, ") END"))
		}
		return at(b, tString, cat("(", t.asString(l), " || ", t.asString(r), ")"))
	case "=", "==", "<>", "!=", "<", "<=", ">", ">=":
		op := b.Op
		if op == "==" {
			op = "="
		}
		if op == "!=" {
			op = "<>"
		}
		l, r = t.compareString(b, l, r)
		l, r = t.coerce(l, r)
		return at(b, tBool, cat("(", l, " "+op+" ", r, ")"))
	case "<=>":
		l, r = t.coerce(l, r)
		return at(b, tBool, cat("(", l, " IS NOT DISTINCT FROM ", r, ")"))
	case "&", "|":
		return at(b, widen(l.typ, r.typ), cat("(", l, " "+b.Op+" ", r, ")"))
	case "^":
		return at(b, widen(l.typ, r.typ), cat("xor(", l, ", ", r, ")"))
	case "<<", ">>":
		return at(b, l.typ, cat("(", l, " "+b.Op+" ", r, ")"))
	}
	t.refuse(b, "the operator %s does not run natively", b.Op)
	return at(b, tUnknown, cat("NULL"))
}

// operandTypes checks the operand types of a binary operator as Spark's
// analyzer does, recording Spark's error when it rejects them, and
// refuses interval operands other than a date or timestamp plus or minus
// an interval (Spark's ANSI interval types compare and print differently
// from DuckDB's INTERVAL). It reports whether the operator was rejected.
// Checked on Spark 4.1.4: in ANSI mode a BOOLEAN meets no number (true =
// 1, true + 1: DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES; without ANSI
// true = 1 compares); in either mode a DATE or TIMESTAMP is compared with
// no number.
func (t *tr) operandTypes(b *ast.Binary, l, r *Type) bool {
	switch b.Op {
	case "=", "==", "<>", "!=", "<", "<=", ">", ">=", "<=>", "+", "-", "*", "/", "%", "DIV":
	default:
		return false
	}
	cmp := b.Op != "+" && b.Op != "-" && b.Op != "*" && b.Op != "/" && b.Op != "%" && b.Op != "DIV"
	bad := false
	switch {
	case (l.is(Boolean) && r.numeric()) || (r.is(Boolean) && l.numeric()):
		bad = t.ansi() || !cmp
	case cmp:
		bad = t.incomparable(l, r)
	}
	if bad {
		op := b.Op
		t.typeError(b, "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "Cannot resolve \"(%s)\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"%s\" and \"%s\"). SQLSTATE: 42K09",
			t.text(b.L)+" "+op+" "+t.text(b.R), strings.ToUpper(l.String()), strings.ToUpper(r.String()))
		return true
	}
	if (b.Op == "+" || b.Op == "-") && (l.is(Timestamp) && r.is(IntervalKind) || r.is(Timestamp) && l.is(IntervalKind)) && !zoneSafeInterval(b.L, l) && !zoneSafeInterval(b.R, r) && !t.zoned(b, "a timestamp plus or minus hours, minutes or seconds (across a daylight saving change)") {
		return true
	}
	if !cmp && (l.is(Time) || r.is(Time)) {
		t.refuse(b, "arithmetic on a TIME does not run natively (TIME - TIME is an INTERVAL HOUR TO SECOND on Spark, TIME + interval a TIME)")
		return true
	}
	if t.mixedIntervals(b, b, l, r) {
		return true
	}
	if (l.is(IntervalKind) && r.is(Null) || r.is(IntervalKind) && l.is(Null)) && (b.Op == "*" || b.Op == "/" || b.Op == "DIV") && !intervalOp(b.Op, l, r) {
		if t.intervalOperandError(b, l, r) {
			return true
		}
		t.refuse(b, "an interval %s NULL is an interval on Spark and a number natively", b.Op)
		return true
	}
	if (l.is(IntervalKind) || r.is(IntervalKind)) && l.known() && r.known() && !l.is(Null) && !r.is(Null) {
		dated := func(x *Type) bool { return x.is(Date) || x.is(Timestamp) || x.is(TimestampNTZ) }
		if !((b.Op == "+" || b.Op == "-") && (dated(l) || dated(r) || l.is(IntervalKind) && r.is(IntervalKind))) && !intervalOp(b.Op, l, r) {
			if t.intervalOperandError(b, l, r) {
				return true
			}
			t.refuse(b, "this operation on an interval does not run natively: Spark's ANSI interval types (INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH) compare, multiply and print differently from DuckDB's INTERVAL; only date or timestamp plus or minus an interval does")
			return true
		}
	}
	return false
}

// remainderDecimal is Spark's type of a % b (and pmod) with a DECIMAL
// operand: DECIMAL(min(p1-s1, p2-s2) + max(s1, s2), max(s1, s2)), an
// integer literal counting as its digits (checked on Spark 4.1.4:
// CAST(7 AS DECIMAL(5,2)) % CAST(3 AS DECIMAL(3,1)) is DECIMAL(4,2),
// 7 % CAST(3 AS DECIMAL(3,1)) DECIMAL(2,1)).
func remainderDecimal(b *ast.Binary, l, r *Type) (*Type, bool) {
	if !(l.is(Decimal) || r.is(Decimal)) || !(l.integral() || l.is(Decimal)) || !(r.integral() || r.is(Decimal)) {
		return nil, false
	}
	a, c := asDecimalLit(b, true, l), asDecimalLit(b, false, r)
	s := max(a.S, c.S)
	return adjustedDecimal(min(a.P-a.S, c.P-c.S)+s, s), true
}

// stringOperand casts a STRING operand of arithmetic with a number as
// Spark's type coercion does (checked on Spark 4.1.4): in ANSI mode to
// BIGINT beside an integer and to DOUBLE beside a fractional or decimal
// number ('1' + CAST(1 AS TINYINT) is a BIGINT, '1' + 1.5D and
// '7' % CAST(3 AS DECIMAL(3,0)) DOUBLEs); without ANSI to DOUBLE always.
// The other operand is then DOUBLE too when the string became one.
func (t *tr) stringOperand(b *ast.Binary, l, r frag) (frag, frag) {
	conv := func(x ast.Expr, other *Type) (frag, *Type) {
		to, name := tDouble, "DOUBLE"
		if t.ansi() && other.integral() {
			to, name = tBigInt, "BIGINT"
		}
		return t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: name}}), to
	}
	switch {
	case l.typ.is(String) && r.typ.numeric():
		var to *Type
		l, to = conv(b.L, r.typ)
		if to.is(Double) {
			r = t.castTo(r, tDouble)
		}
	case r.typ.is(String) && l.typ.numeric():
		var to *Type
		r, to = conv(b.R, l.typ)
		if to.is(Double) {
			l = t.castTo(l, tDouble)
		}
	}
	return l, r
}

// compareString casts a STRING compared with an integer to BIGINT as
// Spark's ANSI mode does, failing on a malformed value (checked on Spark
// 4.1.4: 2 < '1.0' fails with CAST_INVALID_INPUT for BIGINT); without
// ANSI both sides are compared as DOUBLE (2 < '1.0' is false).
func (t *tr) compareString(b *ast.Binary, l, r frag) (frag, frag) {
	conv := func(x ast.Expr, name string) frag {
		return t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: name}})
	}
	switch {
	case l.typ.is(String) && r.typ.integral():
		if t.ansi() {
			return conv(b.L, "BIGINT"), r
		}
		return conv(b.L, "DOUBLE"), t.castTo(r, tDouble)
	case r.typ.is(String) && l.typ.integral():
		if t.ansi() {
			return l, conv(b.R, "BIGINT")
		}
		return t.castTo(l, tDouble), conv(b.R, "DOUBLE")
	}
	return l, r
}

// incomparable reports two types Spark's analyzer does not compare
// (checked on Spark 4.1.4): in ANSI mode a BOOLEAN and a number
// (true = 1, true IN (1, 2)); in either mode a DATE or TIMESTAMP and a
// number.
func (t *tr) incomparable(a, b *Type) bool {
	dated := func(x *Type) bool { return x.is(Date) || x.is(Timestamp) }
	switch {
	case (a.is(Boolean) && b.numeric()) || (b.is(Boolean) && a.numeric()):
		return t.ansi()
	case dated(a) && b.numeric(), dated(b) && a.numeric():
		return true
	case a.is(Binary) && b.known() && !b.is(Binary) && !b.is(String) && !b.is(Null),
		b.is(Binary) && a.known() && !a.is(Binary) && !a.is(String) && !a.is(Null):
		// Spark's golden files (typeCoercion/native/inConversion.sql):
		// a BINARY meets no number, boolean, date or timestamp.
		return true
	}
	return false
}

// floatOperands casts a FLOAT operand of arithmetic to DOUBLE where Spark
// computes in DOUBLE: with a DECIMAL always, with an integer in ANSI mode
// (checked on Spark 4.1.4: CAST(1.1 AS FLOAT) + 1 is the DOUBLE
// 2.100000023841858; without ANSI it is a FLOAT).
func (t *tr) floatOperands(l, r frag) (frag, frag) {
	other := func(x *Type) bool { return x.is(Decimal) || (t.ansi() && x.integral()) }
	switch {
	case l.typ.is(Float) && other(r.typ):
		l = t.castTo(l, tDouble)
	case r.typ.is(Float) && other(l.typ):
		r = t.castTo(r, tDouble)
	}
	return l, r
}

// coerce casts a string compared with a number, date or timestamp to the
// other side's type, as Spark does (DuckDB refuses to compare them).
func (t *tr) coerce(l, r frag) (frag, frag) {
	switch {
	case l.typ.is(String) && r.typ.is(Binary):
		// Spark compares a string with a binary as bytes (its UTF-8).
		return frag{s: "encode(" + l.s + ")", m: shift(l.m, len("encode(")), typ: tBinary}, r
	case r.typ.is(String) && l.typ.is(Binary):
		return l, frag{s: "encode(" + r.s + ")", m: shift(r.m, len("encode(")), typ: tBinary}
	case l.typ.is(String) && r.typ.is(Decimal), r.typ.is(String) && l.typ.is(Decimal):
		// Spark compares a string with a decimal as DOUBLEs (its golden
		// files, predicate-functions.sql: 1.5 = '1.51' is false, where
		// the string as a DECIMAL(2, 1) would be 1.5).
		return t.castTo(l, tDouble), t.castTo(r, tDouble)
	case l.typ.is(String) && (r.typ.numeric() || r.typ.is(Date) || r.typ.is(Timestamp) || r.typ.is(Boolean)):
		l = t.castTo(l, r.typ)
	case r.typ.is(String) && (l.typ.numeric() || l.typ.is(Date) || l.typ.is(Timestamp) || l.typ.is(Boolean)):
		r = t.castTo(r, l.typ)
	}
	return l, r
}

// compatible casts an IN-list item or comparison operand to the type of
// the other side when one is a string and the other is not.
func (t *tr) compatible(f frag, other *Type) frag {
	_, g := t.coerce(cat(frag{typ: other}), f)
	g.typ = f.typ
	return g
}

// castTo casts f to ty (a plain CAST; the caller knows it is safe).
func (t *tr) castTo(f frag, ty *Type) frag {
	d := ty.duck()
	if d == "" || (f.typ != nil && f.typ.duck() == d) {
		return f
	}
	return frag{s: "CAST(" + f.s + " AS " + d + ")", m: shift(f.m, len("CAST(")), typ: ty}
}

// shift moves mappings by n bytes.
func shift(m []Mapping, n int) []Mapping {
	out := make([]Mapping, len(m))
	for i, x := range m {
		out[i] = Mapping{Gen: ast.Range{Start: x.Gen.Start + n, End: x.Gen.End + n}, Src: x.Src}
	}
	return out
}

// asString casts a non-string operand of || or concat to a string.
func (t *tr) asString(f frag) frag {
	if f.typ.is(String) {
		return f
	}
	if f.typ.fractional() {
		return frag{s: "thund_double_text(" + f.s + ")", m: shift(f.m, len("thund_double_text(")), typ: tString}
	}
	return frag{s: "CAST(" + f.s + " AS VARCHAR)", m: shift(f.m, len("CAST(")), typ: tString}
}

// arithType is the Spark type of l op r for + - *.
func arithType(op string, l, r *Type) *Type {
	if l.is(Decimal) || r.is(Decimal) {
		if l.fractional() || r.fractional() {
			return tDouble
		}
		if !l.known() || !r.known() {
			return tUnknown
		}
		a, b := asDecimal(l), asDecimal(r)
		switch op {
		case "*":
			return adjustedDecimal(a.P+b.P+1, a.S+b.S)
		default:
			s := max(a.S, b.S)
			return adjustedDecimal(max(a.P-a.S, b.P-b.S)+s+1, s)
		}
	}
	if l.is(Date) || l.is(Timestamp) || l.is(TimestampNTZ) {
		return l
	}
	if l.is(IntervalKind) && (r.is(Date) || r.is(Timestamp) || r.is(TimestampNTZ)) {
		return r
	}
	return widen(l, r)
}

// datedOther reports a DATE or TIMESTAMP d meeting a NULL or a STRING o
// in d op o (either order) where Spark's result type is not DuckDB's:
// DATE +/- NULL (a TIMESTAMP, an INTERVAL DAY), TIMESTAMP - NULL and
// DATE or TIMESTAMP - STRING (intervals). TIMESTAMP + NULL is a TIMESTAMP
// on both; DATE + STRING fails on both.
func (t *tr) datedOther(op string, d, o *Type) bool {
	switch {
	case d.is(Date) && o.is(Null):
		return op == "+" || op == "-"
	case (d.is(Timestamp) || d.is(TimestampNTZ)) && o.is(Null):
		return op == "-"
	case (d.is(Date) || d.is(Timestamp) || d.is(TimestampNTZ)) && o.is(String):
		return op == "-"
	}
	return false
}

// dayInterval reports an INTERVAL literal of whole days, months or years.
func dayInterval(x ast.Expr) bool {
	iv, ok := x.(*ast.Interval)
	if !ok || iv.Value != nil || iv.To != "" {
		return false
	}
	for _, u := range iv.Units {
		switch intervalUnits[u.Unit] {
		case "YEAR", "MONTH", "WEEK", "DAY":
		default:
			return false
		}
	}
	return true
}

// divide translates l / r: a DOUBLE unless an operand is a DECIMAL (then
// Spark's decimal result type), failing on a zero divisor in ANSI mode
// (NULL with try).
func (t *tr) divide(n ast.Node, l, r frag, try bool) frag {
	rx, _ := n.(*ast.Binary)
	var rnode ast.Node = n
	if rx != nil {
		rnode = rx.R
	}
	d := t.divisor(rnode, r, try)
	if (l.typ.is(Decimal) || r.typ.is(Decimal)) && !l.typ.fractional() && !r.typ.fractional() && l.typ.known() && r.typ.known() {
		a, b := asDecimalLit(rx, true, l.typ), asDecimalLit(rx, false, r.typ)
		s := max(6, a.S+b.P+1)
		p := a.P - a.S + b.S + s
		ty := adjustedDecimal(p, s)
		return at(n, ty, t.decimalQuotient(n, l, d, a, b, ty, try))
	}
	if !l.typ.known() || !r.typ.known() {
		// DuckDB divides as DOUBLE too; a decimal operand of unknown
		// type gives a DOUBLE where Spark gives a DECIMAL of the same
		// value.
		return at(n, tDouble, cat("(CAST(", l, " AS DOUBLE) / ", d, ")"))
	}
	return at(n, tDouble, cat("(CAST(", l, " AS DOUBLE) / ", d, ")"))
}

// decimalQuotient computes l / d exactly as Spark divides decimals: the
// quotient of the unscaled values, as HUGEINTs, rounded half up to the
// result's scale (DuckDB divides decimals as DOUBLEs, which loses digits
// past the 16th). a and b are the operands' decimal types, ty the
// result's. A numerator past 38 digits fails with an overflow; a result
// past ty's precision is NULL with try or without ANSI, as on Spark.
func (t *tr) decimalQuotient(n0 ast.Node, l, d frag, a, b, ty *Type, try bool) frag {
	n := unscaled(l, a)
	m := unscaled(d, b)
	// l / d = (L / 10^sa) / (D / 10^sb) = L * 10^(sb - sa) / D, wanted
	// at scale s: Q = L * 10^(s - sa + sb) / D.
	k := ty.S - a.S + b.S
	if k >= 0 {
		n = cat("(", n, " * CAST('"+pow10(k)+"' AS HUGEINT))")
	} else {
		m = cat("(", m, " * CAST('"+pow10(-k)+"' AS HUGEINT))")
	}
	q := cat("thund_div_round(", n, ", ", m, ")")
	var v frag
	if ty.S == 0 {
		v = cat("CAST(", q, " AS DECIMAL(38, 0))")
	} else {
		v = cat("(CAST(", q, " AS DECIMAL(38, 0)) * CAST('0."+strings.Repeat("0", ty.S-1)+"1' AS DECIMAL(38, "+strconv.Itoa(ty.S)+")))")
	}
	// A quotient that is far out of the result's range is known from
	// doubles first: its exact numerator may not fit 128 bits (Spark:
	// 1e35BD / 0.1 is NUMERIC_VALUE_OUT_OF_RANGE, NULL without ANSI).
	far := cat("abs(CAST(", l, " AS DOUBLE) / CAST(", d, " AS DOUBLE)) >= 1.01e"+strconv.Itoa(ty.P-ty.S))
	if try || !t.ansi() {
		return cat("CASE WHEN ", far, " THEN NULL ELSE TRY_CAST(CASE WHEN abs(", q, ") < CAST('"+pow10(ty.P)+"' AS HUGEINT) THEN ", v, " END AS "+ty.duck()+") END")
	}
	msg := "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  The quotient cannot be represented as Decimal(" + strconv.Itoa(ty.P) + ", " + strconv.Itoa(ty.S) + "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003" + markOpen + strconv.Itoa(t.check(n0)) + markClose
	return cat("CASE WHEN ", far, " THEN CAST(error("+quoteString(msg)+") AS "+ty.duck()+") ELSE CAST(", v, " AS "+ty.duck()+") END")
}

// pow10 writes 10^n.
func pow10(n int) string { return "1" + strings.Repeat("0", n) }

// unscaled is the unscaled value of f, a number of decimal type ty (an
// integer taken as the decimal ty), as a HUGEINT: 1.50 as DECIMAL(3, 2)
// is 150.
func unscaled(f frag, ty *Type) frag {
	x := cat("CAST(", f, " AS "+ty.duck()+")")
	if ty.S == 0 {
		return cat("CAST(", x, " AS HUGEINT)")
	}
	if ty.P+ty.S <= 38 {
		// Multiplied as DECIMAL(38, s), which DuckDB computes in 128
		// bits (a narrower operand would be multiplied in 64).
		return cat("CAST(CAST(", f, " AS DECIMAL(38, "+strconv.Itoa(ty.S)+")) * CAST('"+pow10(ty.S)+"' AS DECIMAL("+strconv.Itoa(ty.S+1)+", 0)) AS HUGEINT)")
	}
	// Past 38 digits the product would overflow: read the digits of
	// the text, which DuckDB writes with all ty.S of them.
	return cat("CAST(replace(CAST(", x, " AS VARCHAR), '.', '') AS HUGEINT)")
}

// asDecimalLit is the decimal type an operand takes in a decimal
// division: an integer literal its own digits, other integers their
// type's.
func asDecimalLit(b *ast.Binary, left bool, ty *Type) *Type {
	if b != nil {
		x := b.R
		if left {
			x = b.L
		}
		if l, ok := x.(*ast.Literal); ok && (l.Kind == ast.LitInteger || l.Kind == ast.LitBigInt || l.Kind == ast.LitSmallInt || l.Kind == ast.LitTinyInt) {
			return decimalOf(len(strings.TrimLeft(strings.TrimRight(l.Text, "LlSsYy"), "-")), 0)
		}
	}
	return asDecimal(ty)
}

// divisor wraps a divisor so that zero fails as Spark's DIVIDE_BY_ZERO
// (ANSI mode) or gives NULL (try_divide, or ANSI off).
func (t *tr) divisor(n ast.Node, r frag, try bool) frag {
	if try || !t.ansi() {
		return cat("nullif(", r, ", 0)")
	}
	id := t.check(n)
	return cat("thund_divisor(", r, ", "+strconv.Itoa(id)+")")
}

// positiveLiteral reports an integer literal greater than zero (a
// negative number is a unary minus over one).
func positiveLiteral(x ast.Expr) bool {
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	l, ok := x.(*ast.Literal)
	if !ok {
		return false
	}
	switch l.Kind {
	case ast.LitInteger, ast.LitBigInt, ast.LitSmallInt, ast.LitTinyInt:
	default:
		return false
	}
	n, ok := new(big.Int).SetString(strings.TrimRight(l.Text, "LlSsYy"), 10)
	return ok && n.Sign() > 0
}

// remainder wraps the divisor of % so that zero fails as Spark's
// REMAINDER_BY_ZERO (ANSI mode) or gives NULL.
func (t *tr) remainder(n ast.Node, r frag) frag {
	if !t.ansi() {
		return cat("nullif(", r, ", 0)")
	}
	return cat("thund_remainder(", r, ", "+strconv.Itoa(t.check(n))+")")
}

// check registers a run-time check at n and returns its number.
func (t *tr) check(n ast.Node) int {
	key := ast.Format(n)
	if id, ok := t.checkIDs[key]; ok {
		return id // an equal expression: errors are reported at its first place
	}
	t.res.checks = append(t.res.checks, n.Span())
	if t.checkIDs == nil {
		t.checkIDs = map[string]int{}
	}
	t.checkIDs[key] = len(t.res.checks) - 1
	return len(t.res.checks) - 1
}

func (t *tr) like(l *ast.Like) frag {
	a := t.likeOperand(l.X)
	switch l.Op {
	case "RLIKE", "REGEXP":
		if len(l.Patterns) != 1 || l.Quantifier != "" {
			t.refuse(l, "%s takes one pattern", l.Op)
			return at(l, tBool, cat("NULL"))
		}
		p := t.regex(l.Patterns[0])
		out := cat("regexp_matches(", a, ", ", p, ")")
		if l.Not {
			out = cat("(NOT ", out, ")")
		}
		return at(l, tBool, out)
	}
	esc := `'\'`
	if l.Escape != nil {
		esc = quoteString(l.Escape.Value)
	}
	escChar := '\\'
	if l.Escape != nil {
		if rs := []rune(l.Escape.Value); len(rs) == 1 {
			escChar = rs[0]
		}
	}
	one := func(p ast.Expr) frag {
		if lit, ok := p.(*ast.Literal); ok && lit.Kind == ast.LitString {
			if class, ok := likeEscapeError(lit.Str.Value, escChar); ok {
				// Spark's golden files (postgreSQL/strings.sql): 'maca'
				// LIKE 'm%aca' ESCAPE '%' fails.
				t.typeError(p, "INVALID_FORMAT."+class, "The format is invalid: '%s'. The escape character is not allowed to precede %s. SQLSTATE: 42601", lit.Str.Value, "a character other than _, % or itself")
			}
		}
		return cat("(", a, " "+l.Op+" ", t.likeOperand(p), " ESCAPE "+esc+")")
	}
	if l.Quantifier == "" {
		out := one(l.Patterns[0])
		if l.Not {
			out = cat("(NOT ", out, ")")
		}
		return at(l, tBool, out)
	}
	var fs []frag
	for _, p := range l.Patterns {
		f := one(p)
		if l.Not {
			f = cat("(NOT ", f, ")")
		}
		fs = append(fs, f)
	}
	sep := " OR "
	if l.Quantifier == "ALL" {
		sep = " AND "
	}
	return at(l, tBool, cat("(", join(fs, sep), ")"))
}

// likeOperand translates an operand of LIKE or ILIKE: Spark casts a
// number, date, timestamp or boolean to its text.
func (t *tr) likeOperand(x ast.Expr) frag {
	f := t.expr(x)
	switch ty := f.typ; {
	case ty.is(Binary):
		t.refuse(x, "LIKE of a BINARY value does not run natively")
	case ty.numeric(), ty.is(Date), ty.is(Timestamp), ty.is(Boolean):
		return t.asString(f)
	}
	return f
}

func (t *tr) caseExpr(c *ast.Case) frag {
	parts := []any{"CASE"}
	var op frag
	if c.Operand != nil {
		op = t.expr(c.Operand)
		parts = append(parts, " ", op)
	}
	conds := make([]frag, len(c.Whens))
	results := make([]frag, 0, len(c.Whens)+1)
	for i, w := range c.Whens {
		conds[i] = t.expr(w.Cond)
		if c.Operand != nil {
			conds[i] = t.compatible(conds[i], op.typ)
		}
		results = append(results, t.expr(w.Result))
	}
	if c.Else != nil {
		results = append(results, t.expr(c.Else))
	}
	xs := make([]ast.Expr, 0, len(results))
	for _, w := range c.Whens {
		xs = append(xs, w.Result)
	}
	if c.Else != nil {
		xs = append(xs, c.Else)
	}
	ty := t.unify(c, "casewhen", results, xs)
	for i, w := range c.Whens {
		parts = append(parts, at(w, nil, cat(" WHEN ", conds[i], " THEN ", results[i])))
	}
	if c.Else != nil {
		parts = append(parts, " ELSE ", results[len(results)-1])
	}
	parts = append(parts, " END")
	return at(c, ty, cat(parts...))
}

// unify is the common type of the branches of a CASE (Spark's type
// coercion: in ANSI mode a FLOAT meets an integer or decimal as DOUBLE),
// and casts each number branch of another type to it, so DuckDB computes
// the result in Spark's type.
func (t *tr) unify(n ast.Node, fn string, fs []frag, xs []ast.Expr) *Type {
	ty := tNull
	float, exact, boolean, number := false, false, false, false
	for _, f := range fs {
		ty = t.setOpType(ty, f.typ)
		float = float || f.typ.is(Float)
		exact = exact || f.typ.integral() || f.typ.is(Decimal)
		boolean = boolean || f.typ.is(Boolean)
		number = number || f.typ.numeric()
	}
	if boolean && number {
		// Checked on Spark 4.1.4, with and without ANSI: CASE WHEN true
		// THEN 1 ELSE false END and coalesce(1, false) fail.
		names := make([]string, len(fs))
		for i, f := range fs {
			names[i] = strings.ToUpper(f.typ.String())
		}
		t.typeError(n, "DATATYPE_MISMATCH.DATA_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: Input to `%s` should all be the same type, but it's [\"%s\"]. SQLSTATE: 42K09",
			t.text(n), fn, strings.Join(names, "\", \""))
		return tUnknown
	}
	if ty.is(Float) && float && exact && t.ansi() {
		ty = tDouble
	}
	if ty.numeric() {
		for i, f := range fs {
			if f.typ.numeric() && f.typ.duck() != ty.duck() {
				fs[i] = t.castTo(f, ty)
			}
		}
	}
	// A string beside another type becomes it (ANSI mode: CASE of a
	// TINYINT and a STRING is a BIGINT), read as Spark's CAST reads it;
	// without ANSI the others become strings.
	if name := castName[ty.Kind]; name != "" && len(xs) == len(fs) {
		for i, f := range fs {
			if f.typ.is(String) {
				fs[i] = t.cast(&ast.Cast{Range: xs[i].Span(), Form: "CAST", X: xs[i], Type: &ast.DataType{Range: xs[i].Span(), Name: name}})
			}
		}
	}
	if ty.is(String) {
		for i, f := range fs {
			if k := f.typ; k.numeric() || k.is(Boolean) || k.is(Date) || k.is(Timestamp) {
				fs[i] = t.asString(f)
			}
		}
	}
	return ty
}

// castName spells the types a string is coerced to in a CASE or
// coalesce as a Spark type name.
var castName = map[Kind]string{BigInt: "BIGINT", Double: "DOUBLE", Boolean: "BOOLEAN", Binary: "BINARY", Date: "DATE", Timestamp: "TIMESTAMP"}

// subscript translates x[i]: Spark's arrays count from 0, DuckDB's lists
// from 1; a map looks the key up.
func (t *tr) subscript(s *ast.Subscript) frag {
	a := t.expr(s.X)
	i := t.expr(s.Index)
	switch {
	case a.typ.is(Array):
		if t.ansi() {
			id := t.check(s)
			return at(s, a.typ.Elem, cat("thund_array_at(", a, ", ", i, ", "+strconv.Itoa(id)+")"))
		}
		return at(s, a.typ.Elem, cat("(", a, ")[", i, " + 1]"))
	case a.typ.is(Map):
		return at(s, a.typ.Val, cat("(", a, ")[", t.compatible(i, a.typ.Key), "]"))
	case a.typ.is(Struct):
		if l, ok := s.Index.(*ast.Literal); ok && l.Kind == ast.LitString {
			return at(s, fieldType(a.typ, l.Str.Value), cat("(", a, ")[", i, "]"))
		}
	}
	t.refuse(s, "x[i] counts from 0 for an array and looks a key up for a map; the type of %s is not known here, so it cannot be translated", t.text(s.X))
	return at(s, tUnknown, cat("NULL"))
}

// cast translates CAST, TRY_CAST and ::.
func (t *tr) cast(c *ast.Cast) frag {
	a := t.expr(c.X)
	to, ok := typeOfAST(c.Type)
	if !ok || to.duck() == "" {
		t.refuse(c.Type, "the type %s does not run natively", t.text(c.Type))
		return at(c, tUnknown, cat("NULL"))
	}
	try := c.Form == "TRY_CAST" || !t.ansi()
	kw := "CAST"
	if try {
		kw = "TRY_CAST"
	}
	from := a.typ
	d := to.duck()
	if f, ok := t.intervalCast(c, a, to); ok {
		return f
	}
	if from.is(IntervalKind) || to.is(IntervalKind) {
		t.refuse(c, "a cast from or to an interval does not run natively: Spark's ANSI interval types print as INTERVAL '3-1' YEAR TO MONTH and read their own literal forms, DuckDB's INTERVAL does neither")
		return at(c, tUnknown, cat("NULL"))
	}
	if to.is(Time) {
		return t.castToTime(c, a, try)
	}
	if from.is(Time) {
		if f, ok := t.castFromTime(c, a, to, try); ok {
			return f
		}
		t.refuse(c, "a cast of a TIME to %s does not run natively", to)
		return at(c, tUnknown, cat("NULL"))
	}
	if (to.is(Timestamp) && from.numeric() || from.is(Timestamp) && to.numeric()) && t.zoneDependent(c, "a cast between TIMESTAMP and a number") {
		return at(c, tUnknown, cat("NULL"))
	}
	if to.is(Binary) && from.integral() && c.Form == "TRY_CAST" {
		// TRY_CAST: rejected with no suggestion, in either ANSI mode
		// (checked on Spark 4.1.4).
		t.typeError(c, "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION", "Cannot resolve \"%s\" due to data type mismatch: cannot cast \"%s\" to \"BINARY\". SQLSTATE: 42K09", t.text(c), strings.ToUpper(from.String()))
		return at(c, tUnknown, cat("NULL"))
	}
	if to.is(Binary) && from.integral() && !t.ansi() {
		// Without ANSI mode Spark writes the integer's bytes, big-endian,
		// as many as its type has (CAST(-123S AS BINARY) is X'FF85'); in
		// ANSI mode it rejects the cast.
		n := map[Kind]int{TinyInt: 1, SmallInt: 2, Int: 4, BigInt: 8}[from.Kind]
		return at(c, to, cat("unhex(right(lpad(to_hex(CAST(", a, " AS BIGINT)), 16, '0'), "+strconv.Itoa(2*n)+"))"))
	}
	if to.is(Binary) && from.integral() {
		// ANSI mode: Spark's analyzer rejects the cast (checked on Spark
		// 4.1.4; its golden cast.sql: CAST(CAST(123 AS TINYINT) AS BINARY)).
		ft := strings.ToUpper(from.String())
		t.typeError(c, "DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION", "Cannot resolve \"%s\" due to data type mismatch: cannot cast \"%s\" to \"BINARY\" with ANSI mode on. If you have to cast \"%s\" to \"BINARY\", you can set \"spark.sql.ansi.enabled\" as 'false'. SQLSTATE: 42K09",
			t.text(c), ft, ft)
		return at(c, tUnknown, cat("NULL"))
	}
	if to.is(Binary) && from.known() && !from.is(String) && !from.is(Binary) && !from.is(Null) {
		t.refuse(c, "a cast of a %s to BINARY does not run natively: Spark writes the value's bytes (big-endian), DuckDB has no such cast", from)
		return at(c, tUnknown, cat("NULL"))
	}
	switch {
	case from.is(Null):
		return at(c, to, cat("CAST(", a, " AS "+d+")"))
	case to.integral() && from.integral() && !t.ansi() && c.Form != "TRY_CAST" && to.Kind < from.Kind:
		// Without ANSI a narrowing cast keeps the low bits (Spark:
		// CAST(2147483648L AS INT) is -2147483648).
		return at(c, to, wrapInt(cat("CAST(", a, " AS HUGEINT)"), to))
	case to.is(Decimal) && from.fractional():
		// Spark: NaN and the infinities are no decimal, a NULL whatever
		// the ANSI mode (BigDecimal's NumberFormatException is caught).
		return at(c, to, cat("list_transform([", a, "], lambda x: CASE WHEN isnan(x) OR isinf(x) THEN NULL ELSE "+kw+"(x AS "+d+") END)[1]"))
	case to.integral() && from.fractional() && !t.ansi() && c.Form != "TRY_CAST":
		// Without ANSI Spark casts as Java does (checked on Spark 4.1.4):
		// NaN is 0, a double past the int's or long's range the nearest
		// end (CAST(1e20D AS INT) is 2147483647), and a SMALLINT or
		// TINYINT keeps the int's low bits (CAST(1e10D AS SMALLINT) is -1).
		lo, hi := "-2147483648", "2147483647"
		if to.is(BigInt) {
			lo, hi = "-9223372036854775808", "9223372036854775807"
		}
		v := cat("list_transform([CAST(", a, " AS DOUBLE)], lambda x: CASE WHEN isnan(x) THEN CAST(0 AS HUGEINT) WHEN x >= "+hi+" THEN CAST("+hi+" AS HUGEINT) WHEN x <= "+lo+" THEN CAST("+lo+" AS HUGEINT) ELSE CAST(trunc(x) AS HUGEINT) END)[1]")
		if to.is(SmallInt) || to.is(TinyInt) {
			return at(c, to, wrapInt(v, to))
		}
		return at(c, to, cat("CAST(", v, " AS "+d+")"))
	case to.integral() && from.is(Decimal) && !t.ansi() && c.Form != "TRY_CAST":
		// Without ANSI Spark keeps the low bits of the whole part
		// (Decimal.toLong, then toInt, toShort, toByte; checked on Spark
		// 4.1.4: CAST(3000000000BD AS INT) is -1294967296).
		return at(c, to, wrapInt(cat("CAST(trunc(", a, ") AS HUGEINT)"), to))
	case to.is(BigInt) && from.fractional():
		// Spark truncates a fraction; DuckDB rounds it. 2^63, which is
		// Long.MaxValue as a double, is in range on Spark
		// (DoubleExactNumeric.toLong compares in doubles) and becomes
		// Long.MaxValue: bigint(double('9223372036854775807')) in its
		// golden postgreSQL/float8.sql.
		return at(c, to, cat("list_transform([trunc(CAST(", a, " AS DOUBLE))], lambda x: CASE WHEN x = 9223372036854775808.0 THEN CAST(9223372036854775807 AS BIGINT) ELSE "+kw+"(x AS BIGINT) END)[1]"))
	case to.integral() && (from.fractional() || from.is(Decimal)):
		// Spark truncates a fraction; DuckDB rounds it.
		return at(c, to, cat(kw+"(trunc(", a, ") AS "+d+")"))
	case to.integral() && from.is(String):
		id := t.check(c)
		fn := "thund_int_text"
		switch {
		case !t.ansi():
			// Without ANSI Spark drops a fraction: CAST('1.23' AS INT)
			// is 1 (checked on Spark 4.1.4).
			fn = "thund_legacy_int_text"
		case try:
			fn = "thund_try_int_text"
		}
		return at(c, to, cat(kw+"("+fn+"(", a, ", "+quoteString(to.String())+", "+strconv.Itoa(id)+") AS "+d+")"))
	case to.integral() && from.is(Timestamp):
		return at(c, to, cat(kw+"(floor(epoch(", a, ")) AS "+d+")"))
	case to.is(Timestamp) && from.numeric():
		return at(c, to, cat("make_timestamp(", kw+"(round(CAST(", a, " AS DOUBLE) * 1000000) AS BIGINT))"))
	case (to.numeric() && from.is(Date)) || (to.is(Date) && from.numeric()):
		t.refuse(c, "Spark cannot cast %s to %s", from, to)
	case to.is(String) && (from.is(Struct) || from.is(Map)):
		t.refuse(c, "Spark prints a %s as text in its own format ({1, a}); the native text differs", from)
	case to.is(String) && from.fractional():
		return at(c, to, cat("thund_double_text(", a, ")"))
	case to.is(String) && (from.is(Date) || from.is(Timestamp) || from.is(TimestampNTZ)):
		// DuckDB writes a year before 1 as 1970-12-31 (BC) and one past
		// 9999 bare; Spark (Java's formatter) writes -1969-12-31 and
		// +99999-03-18.
		rest := "strftime(x, '-%m-%d')"
		if !from.is(Date) {
			rest = "strftime(x, '-%m-%d ') || CAST(CAST(x AS TIME) AS VARCHAR)"
		}
		return at(c, to, cat("list_transform([", a, "], lambda x: CASE WHEN year(x) BETWEEN 1 AND 9999 THEN CAST(x AS VARCHAR) WHEN year(x) > 9999 THEN '+' || CAST(year(x) AS VARCHAR) || "+rest+" ELSE '-' || lpad(CAST(abs(year(x)) AS VARCHAR), 4, '0') || "+rest+" END)[1]"))
	case to.is(Binary) && from.is(String):
		// Spark takes the string's UTF-8 bytes; DuckDB's cast reads \x
		// escapes in it.
		return at(c, to, cat("encode(", a, ")"))
	case to.is(Boolean) && from.is(String):
		id := t.check(c)
		fn := "thund_bool_text"
		if try {
			fn = "thund_try_bool_text"
		}
		return at(c, to, cat(fn+"(", a, ", "+strconv.Itoa(id)+")"))
	case !from.known() && (to.integral() || to.is(Timestamp) || to.is(Boolean)):
		t.refuse(c, "CAST to %s depends on the type of %s (a fraction truncates, a string is checked), which is not known here", to, t.text(c.X))
	}
	return at(c, to, cat(kw+"(", a, " AS "+d+")"))
}

// scaleArg reads the scale argument of round, bround, ceil or floor: an
// integer literal, signed. ok is false for anything else.
func (t *tr) scaleArg(x ast.Expr) (int, bool) {
	l, ok := x.(*ast.Literal)
	if u, neg := x.(*ast.Unary); neg && u.Op == "-" {
		l, ok = u.X.(*ast.Literal)
	}
	if !ok || l.Kind != ast.LitInteger {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(t.text(x)))
	return n, err == nil
}

// roundLegacyFn is round or bround (fn: "round" or "round_even"): with a
// negative scale of an integer outside ANSI mode the result is rounded
// exactly and wraps into the integer's type as Spark's does (round(127y,
// -1) is -126); everything else is roundFn's.
func roundLegacyFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	rest := roundFn(fn)
	return func(t *tr, c *ast.Call, a []frag) frag {
		if len(a) != 2 || t.ansi() || !a[0].typ.integral() {
			return rest(t, c, a)
		}
		n, ok := t.scaleArg(c.Args[1])
		if !ok || n >= 0 {
			return rest(t, c, a)
		}
		x, e := a[0], -n
		if e > 19 {
			// Every BIGINT is below half of 10^20.
			return at(c, x.typ, cat("CAST(0 AS "+x.typ.duck()+")"))
		}
		m := "CAST('" + pow10(e) + "' AS HUGEINT)"
		h := cat("CAST(", x, " AS HUGEINT)")
		away := cat("abs(", h, " % "+m+") * 2 >= "+m)
		if fn != "round" {
			away = cat("(abs(", h, " % "+m+") * 2 > "+m+" OR abs(", h, " % "+m+") * 2 = "+m+" AND abs(", h, " // "+m+") % 2 = 1)")
		}
		v := cat("((", h, " // "+m+") + CASE WHEN ", away, " THEN sign(", h, ") ELSE 0 END) * "+m)
		return at(c, x.typ, wrapInt(v, x.typ))
	}
}

// ceilFloorScaledFn is ceil or floor: with a scale (an integer literal)
// of a decimal or an integer, Spark's RoundCeil and RoundFloor: a DECIMAL
// of max(p - s + 1, 1 - scale) digits and none after the point for a
// negative scale, of p - s + 1 + min(s, scale) digits and min(s, scale)
// after it otherwise (an integer counts as DECIMAL(3, 0), (5, 0), (10,
// 0) or (20, 0)), computed exactly on the unscaled value. Without a
// scale it is ceilFloor's.
func ceilFloorScaledFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	rest := ceilFloor(fn)
	return func(t *tr, c *ast.Call, a []frag) frag {
		if len(a) != 2 {
			return rest(t, c, a)
		}
		d, ok := t.scaleArg(c.Args[1])
		if !ok {
			t.refuse(c.Args[1], "the scale of %s must be an integer literal natively", c.Name.String())
			return null(c)
		}
		x := a[0]
		p, s := x.typ.P, x.typ.S
		switch {
		case x.typ.is(Decimal):
		case x.typ.integral():
			p, s = map[Kind]int{TinyInt: 3, SmallInt: 5, Int: 10, BigInt: 20}[x.typ.Kind], 0
		default:
			t.refuse(c, "%s with a scale of a %s does not run natively (it runs for decimals and integers)", fn, x.typ)
			return null(c)
		}
		var ty *Type
		if d < 0 {
			ty = decimalOf(min(38, max(p-s+1, 1-d)), 0)
		} else {
			ty = decimalOf(min(38, p-s+1+min(s, d)), min(s, d))
		}
		if d >= s {
			return at(c, ty, cat("CAST(", x, " AS "+ty.duck()+")"))
		}
		if s-d > 38 {
			t.refuse(c.Args[1], "%s to %d digits does not run natively", fn, d)
			return null(c)
		}
		// u: the unscaled value; q: u divided by 10^(s - d), rounded
		// toward +inf (ceil) or -inf (floor); DuckDB's // truncates.
		u := cat("CAST(", x, " AS HUGEINT)")
		if s > 0 {
			u = cat("CAST(CAST(", x, " AS DECIMAL(38, "+strconv.Itoa(s)+")) * CAST('"+pow10(s)+"' AS HUGEINT) AS HUGEINT)")
		}
		m := "CAST('" + pow10(s-d) + "' AS HUGEINT)"
		adj := "CASE WHEN u % " + m + " > 0 THEN 1 ELSE 0 END"
		if fn == "floor" {
			adj = "CASE WHEN u % " + m + " < 0 THEN -1 ELSE 0 END"
		}
		q := "(u // " + m + " + " + adj + ")"
		var out string
		switch {
		case d < 0:
			out = "CAST(" + q + " * CAST('" + pow10(-d) + "' AS HUGEINT) AS " + ty.duck() + ")"
		case d == 0:
			out = "CAST(" + q + " AS " + ty.duck() + ")"
		default:
			out = "CAST(CAST(" + q + " AS DECIMAL(38, 0)) * CAST('0." + strings.Repeat("0", d-1) + "1' AS DECIMAL(" + strconv.Itoa(d+1) + ", " + strconv.Itoa(d) + ")) AS " + ty.duck() + ")"
		}
		return at(c, ty, cat("list_transform([", u, "], lambda u: "+out+")[1]"))
	}
}

// datedNullOrString translates what Spark's type coercion makes of a DATE
// or TIMESTAMP beside a NULL or a STRING, and of DATE - DATE (Spark 4,
// not the legacy intervals): DATE - DATE is an INTERVAL DAY (the days
// between them); DATE - NULL and NULL - DATE an INTERVAL DAY,
// TIMESTAMP - NULL and NULL - TIMESTAMP an INTERVAL DAY TO SECOND, DATE +
// NULL (either order) a TIMESTAMP, all NULL; a STRING minus a DATE or
// TIMESTAMP (or the other way) is the string cast to the other side's
// type, then subtracted (in ANSI mode; without it STRING - DATE only).
// ok is false for anything else.
func (t *tr) datedNullOrString(b *ast.Binary, l, r frag) (frag, bool) {
	if t.opts.LegacyInterval || b.Op != "+" && b.Op != "-" {
		return frag{}, false
	}
	dated := func(x *Type) bool { return x.is(Date) || x.is(Timestamp) }
	switch {
	case b.Op == "+" && (l.typ.is(Date) && r.typ.is(Null) || l.typ.is(Null) && r.typ.is(Date)):
		return at(b, tTS, cat("CAST(NULL AS TIMESTAMP)")), true
	case b.Op == "-" && (dated(l.typ) && r.typ.is(Null) || l.typ.is(Null) && dated(r.typ)):
		ty := intervalOf(FieldDay, FieldSecond)
		if l.typ.is(Date) || r.typ.is(Date) {
			ty = intervalOf(FieldDay, FieldDay)
		}
		return at(b, ty, cat("CAST(NULL AS INTERVAL)")), true
	case b.Op == "-" && l.typ.is(Date) && r.typ.is(Date):
		return at(b, intervalOf(FieldDay, FieldDay), cat("to_microseconds(CAST((", l, " - ", r, ") AS BIGINT) * 86400000000)")), true
	case b.Op == "-" && (dated(l.typ) && r.typ.is(String) || l.typ.is(String) && dated(r.typ)) && (t.ansi() || l.typ.is(String) && r.typ.is(Date)):
		// The string is cast as CAST(s AS DATE) or CAST(s AS TIMESTAMP)
		// is (ANSI mode: a malformed one fails). Without ANSI only
		// STRING - DATE is one (Spark 4.1.4 golden files: DATE - STRING
		// is a date_sub of a DOUBLE, TIMESTAMP - STRING fails).
		x, other := b.R, l.typ
		if l.typ.is(String) {
			x, other = b.L, r.typ
		}
		name := "DATE"
		if other.is(Timestamp) {
			name = "TIMESTAMP"
		}
		c := t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: name}})
		nb := &ast.Binary{Range: b.Range, Op: b.Op, L: b.L, R: b.R}
		if l.typ.is(String) {
			return t.binaryOf(nb, c, r, false), true
		}
		return t.binaryOf(nb, l, c, false), true
	}
	return frag{}, false
}

// stringInterval translates a STRING plus or minus a day-time interval
// (or the interval plus the string) as Spark's type coercion does: the
// string cast to a TIMESTAMP (in ANSI mode a malformed one fails, without
// it is NULL), moved by the interval, and cast back to a STRING. ok is
// false for anything else (a year-month interval beside a string fails
// on Spark).
func (t *tr) stringInterval(b *ast.Binary, l, r frag, try bool) (frag, bool) {
	if try || t.opts.LegacyInterval {
		return frag{}, false
	}
	var x ast.Expr
	switch {
	case (b.Op == "+" || b.Op == "-") && l.typ.is(String) && r.typ.DayTime():
		x = b.L
	case b.Op == "+" && l.typ.DayTime() && r.typ.is(String):
		x = b.R
	default:
		return frag{}, false
	}
	ts := t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: "TIMESTAMP"}})
	nb := &ast.Binary{Range: b.Range, Op: b.Op, L: b.L, R: b.R}
	var moved frag
	if x == b.L {
		moved = t.binaryOf(nb, ts, r, false)
	} else {
		moved = t.binaryOf(nb, l, ts, false)
	}
	if !moved.typ.is(Timestamp) {
		return moved, true
	}
	return at(b, tString, t.castTo(moved, tString)), true
}
