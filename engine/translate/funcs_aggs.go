package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// modeFn is Spark's mode: the most frequent non-NULL value. Which of
// tied values mode(x) and mode(x, false) return depends on Spark's hash
// order, so only the deterministic forms run natively: mode(x, true) and
// mode() WITHIN GROUP (ORDER BY x) take the lowest of the tied values,
// WITHIN GROUP (ORDER BY x DESC) the highest (as Spark 4.1's golden
// files, mode.sql, record; Spark names the columns the other way round).
func modeFn(t *tr, c *ast.Call, a []frag) frag {
	if c.Quantifier == "DISTINCT" {
		t.typeError(c, "INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED", "Invalid function `mode` with WITHIN GROUP. The function does not support DISTINCT with WITHIN GROUP. SQLSTATE: 42K0K")
		return null(c)
	}
	if c.Over != nil {
		t.refuse(c, "mode over a window does not run natively")
		return null(c)
	}
	var x frag
	lowest := true
	switch {
	case len(c.WithinGroup) == 1 && len(a) == 0:
		x = t.expr(c.WithinGroup[0].X)
		lowest = !strings.EqualFold(c.WithinGroup[0].Dir, "DESC")
	case len(c.WithinGroup) == 0 && len(a) == 2:
		l, ok := c.Args[1].(*ast.Literal)
		if !ok || (l.Kind != ast.LitTrue && l.Kind != ast.LitFalse) {
			t.refuse(c.Args[1], "mode's second argument runs natively as the literal true or false only")
			return null(c)
		}
		if l.Kind == ast.LitFalse {
			t.refuse(c, "mode(x, false) does not run natively: which of tied values Spark returns depends on its hash order; write mode(x, true) for the lowest")
			return null(c)
		}
		x = a[0]
	case len(c.WithinGroup) == 0 && len(a) == 1:
		t.refuse(c, "mode(x) does not run natively: which of tied values Spark returns depends on its hash order; write mode(x, true) for the lowest")
		return null(c)
	default:
		t.refuse(c, "mode takes a column and an optional true or false, or WITHIN GROUP (ORDER BY x)")
		return null(c)
	}
	ty := x.typ
	if !ty.known() || ty.is(Map) || ty.is(Array) || ty.is(Struct) || ty.is(IntervalKind) || ty.is(Null) {
		t.refuse(c, "mode of a %s does not run natively", ty)
		return null(c)
	}
	filter := cat(x, " IS NOT NULL")
	if c.Filter != nil {
		filter = cat(filter, " AND (", t.expr(c.Filter), ")")
	}
	h := cat("histogram(", x, ") FILTER (WHERE ", filter, ")")
	better := "e.key < a.key"
	if !lowest {
		better = "e.key > a.key"
	}
	return at(c, ty, cat("CASE WHEN ", h, " IS NULL OR cardinality(", h, ") = 0 THEN NULL ELSE CAST(list_reduce(map_entries(", h,
		"), lambda a, e: CASE WHEN e.value > a.value OR (e.value = a.value AND "+better+") THEN e ELSE a END).key AS "+ty.duck()+") END"))
}

// percentileOrderedFn is percentile_cont(p) and percentile_disc(p)
// WITHIN GROUP (ORDER BY x [DESC]) as Spark 4.1's Percentile computes
// them over the sorted non-NULL values v (n of them, in the order asked
// for), in doubles: percentile_disc is v at ceil(n * p) (counting from
// 1, at least 1); percentile_cont interpolates at pos = (n - 1) * p
// between lo = floor(pos) and hi = ceil(pos) as (hi - pos) * v[lo] +
// (pos - lo) * v[hi], or is v[lo] where lo = hi or v[lo] = v[hi]. DuckDB's
// own functions of these names differ (percentile_disc(0) WITHIN GROUP
// (ORDER BY x DESC) is the smallest value there, the largest on Spark).
func percentileOrderedFn(kind string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := "percentile_" + kind
		if len(c.WithinGroup) != 1 || len(a) != 1 {
			t.refuse(c, "%s takes one percentage and WITHIN GROUP (ORDER BY x) here", name)
			return null(c)
		}
		if c.Over != nil {
			t.refuse(c, "%s over a window does not run natively", name)
			return null(c)
		}
		if c.Quantifier == "DISTINCT" {
			t.refuse(c, "%s(DISTINCT ...) does not run natively", name)
			return null(c)
		}
		l, ok := c.Args[0].(*ast.Literal)
		if !ok || (l.Kind != ast.LitInteger && l.Kind != ast.LitDecimal && l.Kind != ast.LitDouble && l.Kind != ast.LitExponent) {
			t.refuse(c.Args[0], "%s's percentage runs natively as a number literal only", name)
			return null(c)
		}
		p, err := strconv.ParseFloat(strings.TrimRight(strings.ToUpper(l.Text), "BDLSY"), 64)
		if err != nil || p < 0 || p > 1 {
			t.refuse(c.Args[0], "%s's percentage must be between 0 and 1", name)
			return null(c)
		}
		it := c.WithinGroup[0]
		x := t.expr(it.X)
		if !x.typ.numeric() {
			t.refuse(it.X, "%s of a %s does not run natively", name, x.typ)
			return null(c)
		}
		dir := "'ASC'"
		if strings.EqualFold(it.Dir, "DESC") {
			dir = "'DESC'"
		}
		filter := cat(x, " IS NOT NULL")
		if c.Filter != nil {
			filter = cat(filter, " AND (", t.expr(c.Filter), ")")
		}
		vals := cat("list_sort(list(", x, ") FILTER (WHERE ", filter, "), "+dir+")")
		pct := "CAST(" + strconv.FormatFloat(p, 'g', -1, 64) + " AS DOUBLE)"
		var body string
		if kind == "disc" {
			body = "CASE WHEN len(v) = 0 THEN NULL ELSE CAST(v[greatest(CAST(ceil(len(v) * " + pct + ") AS BIGINT), 1)] AS DOUBLE) END"
		} else {
			pos := "((len(v) - 1) * " + pct + ")"
			lo, hi := "v[CAST(floor("+pos+") AS BIGINT) + 1]", "v[CAST(ceil("+pos+") AS BIGINT) + 1]"
			body = "CASE WHEN len(v) = 0 THEN NULL WHEN floor(" + pos + ") = ceil(" + pos + ") OR " + lo + " = " + hi + " THEN CAST(" + lo + " AS DOUBLE)" +
				" ELSE (ceil(" + pos + ") - " + pos + ") * CAST(" + lo + " AS DOUBLE) + (" + pos + " - floor(" + pos + ")) * CAST(" + hi + " AS DOUBLE) END"
		}
		return at(c, tDouble, cat("list_transform([", vals, "], lambda v: "+body+")[1]"))
	}
}

// firstLastFn is first/first_value and last/last_value(x[, ignoreNulls])
// [IGNORE NULLS]. Which row comes first is defined on Spark only by an
// order: over a window it is the window's order, and rows tied in it
// may come in any order; in a group without a window no order is
// defined at all. So the value runs natively only where it cannot
// depend on that choice: over a window, x a constant, a PARTITION BY
// expression or an ORDER BY expression (not a floating-point one, whose
// -0.0 and 0.0 tie), and otherwise when the rows tied in the order (the
// whole partition without ORDER BY) hold the same x, which is checked
// row by row and fails as not portable where it does not hold; in a
// group, when the group's values (its non-NULL ones with ignoreNulls)
// are all the same, checked as well.
func firstLastFn(last bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := strings.ToLower(c.Name.String())
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if c.Quantifier == "DISTINCT" {
			t.refuse(c, "%s(DISTINCT ...) does not run natively", name)
			return null(c)
		}
		ignore := c.Nulls == "IGNORE"
		if len(c.Args) == 2 {
			l, ok := unparenExpr(c.Args[1]).(*ast.Literal)
			if !ok || (l.Kind != ast.LitTrue && l.Kind != ast.LitFalse) {
				t.refuse(c.Args[1], "%s's second argument runs natively as the literal true or false only", name)
				return null(c)
			}
			ignore = ignore || l.Kind == ast.LitTrue
		}
		x := a[0]
		if !x.typ.known() {
			t.refuse(c.Args[0], "%s keeps the type of its argument, and the type of %s is not known here", name, t.text(c.Args[0]))
			return null(c)
		}
		// key is x as the check compares it: a floating-point value as
		// its text, so -0.0 and 0.0 (and NaNs) count as different.
		key := x
		if x.typ.fractional() {
			key = cat("CAST(", x, " AS VARCHAR)")
		}
		why := "'not-portable: " + name + " of ' || " + quoteString(t.text(c.Args[0])) + " || ': rows that tie in the order Spark reads them in hold different values, so which one comes " + map[bool]string{false: "first", true: "last"}[last] + " is not defined'"
		if c.Over == nil {
			fn := "any_value("
			cond := cat("count(DISTINCT ", key, ")", t.filterSuffix(c), " > 1")
			if !ignore {
				cond = cat(cond, " OR (count(DISTINCT ", key, ")", t.filterSuffix(c), " = 1 AND count(", x, ")", t.filterSuffix(c), " < count(*)", t.filterSuffix(c), ")")
			}
			v := cat(fn, x, ")", t.filterSuffix(c))
			return at(c, x.typ, cat("CASE WHEN ", cond, " THEN CAST(error(", why, ") AS ", x.typ.duck(), ") ELSE ", v, " END"))
		}
		w, ok := t.resolveWindow(c)
		if !ok {
			t.refuse(c, "%s over this window does not run natively (a named window defined from another, or one not found)", name)
			return null(c)
		}
		t.windowCallChecks(c)
		fn := "first_value("
		if last {
			fn = "last_value("
		}
		nulls := ""
		if ignore {
			nulls = " IGNORE NULLS"
		}
		over := cat(" OVER (", t.windowBody(c.Over), ")")
		if c.Over.Ref != nil {
			over = cat(" OVER " + quoteIdent(c.Over.Ref.Name))
		}
		v := cat(fn, x, nulls, ")", over)
		c.Over = nil
		if foldable(c.Args[0]) || sameAsAny(c.Args[0], w.PartitionBy) {
			return at(c, x.typ, v)
		}
		var keys []frag
		for _, o := range w.OrderBy {
			if canonical(o.X) == canonical(c.Args[0]) && !x.typ.fractional() {
				return at(c, x.typ, v)
			}
			keys = append(keys, t.expr(o.X))
		}
		part := cat("")
		if len(w.PartitionBy) > 0 {
			ps := make([]frag, len(w.PartitionBy))
			for i, p := range w.PartitionBy {
				ps[i] = t.expr(p)
			}
			part = cat("PARTITION BY ", ps)
		}
		var cond frag
		if len(keys) == 0 {
			cond = cat("count(DISTINCT row(", key, ")) OVER (", part, ") > 1")
		} else {
			cond = cat("count(DISTINCT row(", keys, ", ", key, ")) OVER (", part, ") <> count(DISTINCT row(", keys, ")) OVER (", part, ")")
		}
		return at(c, x.typ, cat("CASE WHEN ", cond, " THEN CAST(error(", why, ") AS ", x.typ.duck(), ") ELSE ", v, " END"))
	}
}

// filterSuffix is a call's FILTER (WHERE ...) clause, or nothing.
func (t *tr) filterSuffix(c *ast.Call) frag {
	if c.Filter == nil {
		return cat("")
	}
	return cat(" FILTER (WHERE ", t.expr(c.Filter), ")")
}

// sameAsAny reports whether x is written as one of xs (canonical text).
func sameAsAny(x ast.Expr, xs []ast.Expr) bool {
	k := canonical(x)
	for _, y := range xs {
		if canonical(y) == k {
			return true
		}
	}
	return false
}

// resolveWindow returns the window a call is computed over: its OVER
// clause, or the definition of the named window it refers to (found in
// the WINDOW clause of the innermost SELECT or query holding the call).
// A named window refined in the OVER clause, or defined from another
// named window, is not resolved.
func (t *tr) resolveWindow(c *ast.Call) (*ast.Window, bool) {
	w := c.Over
	if w.Ref == nil {
		return w, true
	}
	if len(w.PartitionBy) > 0 || len(w.OrderBy) > 0 || w.Frame != nil || t.root == nil {
		return nil, false
	}
	var def *ast.Window
	span := c.Span()
	look := func(r ast.Range, ws []*ast.NamedWindow) {
		if r.Start > span.Start || r.End < span.End {
			return
		}
		for _, nw := range ws {
			if nw.Name != nil && strings.EqualFold(nw.Name.Name, w.Ref.Name) {
				def = nw.Window
			}
		}
	}
	ast.Inspect(t.root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Select:
			look(n.Range, n.Windows)
		case *ast.Query:
			look(n.Range, n.Windows)
		case *ast.PipeOp:
			if n.Select != nil {
				look(n.Range, n.Select.Windows)
			}
		}
		return true
	})
	if def == nil || def.Ref != nil {
		return nil, false
	}
	return def, true
}

// regrFn is regr_count, regr_avgx, regr_avgy, regr_sxx, regr_syy,
// regr_sxy, regr_slope, regr_intercept and regr_r2(y, x) in a group,
// over the rows where neither y nor x is NULL, as Spark computes them:
// the count (BIGINT); the average of x or y (of integers here, as
// DOUBLE); the sum of the squared deviations of x or y from their mean
// (Spark's second central moment, NULL for no rows), as thund_moments2
// computes it for var_pop; the others from the two-pass co-moments
// (thund_comoments2), as comomentsOf says. Over a window they are
// refused.
func regrFn(kind string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := "regr_" + kind
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if c.Over != nil {
			t.refuse(c, "%s over a window does not run natively", name)
			return null(c)
		}
		if c.Quantifier == "DISTINCT" {
			t.refuse(c, "%s(DISTINCT ...) does not run natively", name)
			return null(c)
		}
		y, x := a[0], a[1]
		for i, v := range a {
			if !v.typ.numeric() && !v.typ.is(Null) {
				t.refuse(c.Args[i], "%s runs natively over numbers only, and the type of %s is %s here", name, t.text(c.Args[i]), v.typ)
				return null(c)
			}
		}
		cond := cat(y, " IS NOT NULL AND ", x, " IS NOT NULL")
		if c.Filter != nil {
			cond = cat("(", cond, ") AND (", t.expr(c.Filter), ")")
			c.Filter = nil
		}
		of := x
		switch kind {
		case "count":
			return at(c, tBigInt, cat("count(*) FILTER (WHERE ", cond, ")"))
		case "avgy", "syy":
			of = y
		}
		if m, ok := comomentsOf(kind); ok {
			pairs := cat("thund_comoments2(list({'x': CAST(", x, " AS DOUBLE), 'y': CAST(", y, " AS DOUBLE)}) FILTER (WHERE ", cond, "))")
			return at(c, tDouble, cat("list_transform([", pairs, "], lambda s: CASE WHEN s.n = 0 THEN NULL ELSE "+m+" END)[1]"))
		}
		if strings.HasPrefix(kind, "avg") {
			if !of.typ.integral() && !of.typ.is(Null) {
				t.refuse(c, "%s runs natively over integers only (the average of decimals and doubles is another computation)", name)
				return null(c)
			}
			return at(c, tDouble, cat("CAST(avg(", of, ") FILTER (WHERE ", cond, ") AS DOUBLE)"))
		}
		return at(c, tDouble, cat("list_transform([thund_moments2(list(CAST(", of, " AS DOUBLE)) FILTER (WHERE ", cond, "))], lambda s: CASE WHEN s.n = 0 THEN NULL ELSE s.m2 END)[1]"))
	}
}

// comomentsOf is the SQL, over s (thund_comoments2 of the pairs, at
// least one), of the regr_ functions Spark computes from its
// Covariance, VariancePop and PearsonCorrelation buffers: regr_sxy is
// ck; regr_slope is covar_pop / var_pop of x, (ck / n) / (xm2 / n), NULL
// where var_pop is 0; regr_intercept is avg(y) - slope * avg(x), NULL
// there too; regr_r2 is NULL where x does not vary, 1 where y does not,
// else corr * corr with corr = ck / sqrt(xm2 * ym2).
func comomentsOf(kind string) (string, bool) {
	slope := "(s.ck / s.n) / (s.xm2 / s.n)"
	switch kind {
	case "sxy":
		return "s.ck", true
	case "slope":
		return "CASE WHEN s.xm2 / s.n = 0 THEN NULL ELSE " + slope + " END", true
	case "intercept":
		return "CASE WHEN s.xm2 / s.n = 0 THEN NULL ELSE s.my - " + slope + " * s.mx END", true
	case "r2":
		return "CASE WHEN s.xm2 = 0 THEN NULL WHEN s.ym2 = 0 THEN CAST(1 AS DOUBLE) ELSE (s.ck / sqrt(s.xm2 * s.ym2)) * (s.ck / sqrt(s.xm2 * s.ym2)) END", true
	}
	return "", false
}

// covarFn is corr, covar_pop and covar_samp(x, y) in a group, over the
// rows where neither is NULL, from the two-pass co-moments
// (thund_comoments2), as Spark's Covariance and PearsonCorrelation
// buffers give them: covar_pop is ck / n (NULL for no rows), covar_samp
// ck / (n - 1) (NULL for fewer than two), corr ck / sqrt(xm2 * ym2), NULL
// for fewer than two rows, a division by zero where a side does not
// vary. Over a window DuckDB's aggregate of the same name runs.
func covarFn(kind string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		for i, v := range a {
			if !v.typ.numeric() && !v.typ.is(Null) {
				t.refuse(c.Args[i], "%s runs natively over numbers only, and the type of %s is %s here", kind, t.text(c.Args[i]), v.typ)
				return null(c)
			}
		}
		if c.Over != nil || c.Quantifier == "DISTINCT" {
			return at(c, tDouble, cat(kind+"(", t.distinct(c), a[0], ", ", a[1], ")"))
		}
		x, y := a[0], a[1]
		cond := cat(x, " IS NOT NULL AND ", y, " IS NOT NULL")
		if c.Filter != nil {
			cond = cat("(", cond, ") AND (", t.expr(c.Filter), ")")
			c.Filter = nil
		}
		var m string
		switch kind {
		case "covar_pop":
			m = "CASE WHEN s.n = 0 THEN NULL ELSE s.ck / s.n END"
		case "covar_samp":
			m = "CASE WHEN s.n <= 1 THEN NULL ELSE s.ck / (s.n - 1) END"
		default:
			// A side that does not vary divides by zero: Spark 4.1.4
			// fails in ANSI mode (DIVIDE_BY_ZERO) and gives NULL
			// otherwise.
			zero := "NULL"
			if t.ansi() {
				zero = "error('[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22012" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
			}
			m = "CASE WHEN s.n <= 1 THEN NULL WHEN s.xm2 = 0 OR s.ym2 = 0 THEN " + zero + " ELSE s.ck / sqrt(s.xm2 * s.ym2) END"
		}
		pairs := cat("thund_comoments2(list({'x': CAST(", x, " AS DOUBLE), 'y': CAST(", y, " AS DOUBLE)}) FILTER (WHERE ", cond, "))")
		return at(c, tDouble, cat("list_transform([", pairs, "], lambda s: "+m+")[1]"))
	}
}

// wideDecimalTrySum is try_sum of a DECIMAL(p, s) with p + 10 > 38, whose
// sum Spark keeps in a DECIMAL(38, s): DuckDB's sum of such values can
// overflow its 128 bits (an error) before Spark's limit of 38 digits is
// reached. The unscaled values are summed in two limbs of 19 digits
// each, which cannot overflow, and the exact total is NULL at 10^38 or
// more, as Spark's try_sum gives; where the total fits but the sum of the
// magnitudes does not (Spark may have overflowed on the way, depending on
// the order it adds in), the result fails as not portable.
func (t *tr) wideDecimalTrySum(c *ast.Call, x frag, ty *Type) frag {
	const p19 = "CAST('10000000000000000000' AS HUGEINT)"
	u := unscaled(x, x.typ)
	au := cat("abs(", u, ")")
	limb := func(v frag, op string) frag {
		return t.filterInto(c, cat("sum((", v, ") "+op+" "+p19+")"))
	}
	sums := cat("{'a': ", limb(u, "//"), ", 'b': ", limb(u, "%"), ", 'sa': ", limb(au, "//"), ", 'sb': ", limb(au, "%"), ", 'n': ", t.filterInto(c, cat("count(", x, ")")), "}")
	// Each total as a high limb (normalised) and a low one.
	hi := func(a, b string) string { return "(e." + a + " + e." + b + " // " + p19 + ")" }
	lo := func(b string) string { return "(e." + b + " % " + p19 + ")" }
	// hi * 10^19 + lo (|lo| < 10^19) is below 10^38 in magnitude when
	// |hi| < 10^19, or |hi| = 10^19 and lo of the other sign: no
	// product that could overflow is formed.
	fits := func(a, b string) string {
		return "(abs(" + hi(a, b) + ") < " + p19 + " OR (abs(" + hi(a, b) + ") = " + p19 + " AND " + lo(b) + " <> 0 AND sign(" + lo(b) + ") <> sign(" + hi(a, b) + ")))"
	}
	total := hi("a", "b") + " * " + p19 + " + " + lo("b")
	text := "CAST(abs(" + total + ") AS VARCHAR)"
	value := "CAST((" + total + ") AS DECIMAL(38, 0))"
	if ty.S > 0 {
		sc := strconv.Itoa(ty.S)
		digits := "lpad(" + text + ", " + sc + " + 1, '0')"
		value = "CAST((CASE WHEN (" + total + ") < 0 THEN '-' ELSE '' END) || left(" + digits + ", length(" + digits + ") - " + sc + ") || '.' || right(" + digits + ", " + sc + ") AS " + ty.duck() + ")"
	}
	unsure := "CAST(error('not-portable: try_sum of these decimals: their total fits in 38 digits but a partial sum may not, and where Spark overflows depends on the order it adds in" + markOpen + strconv.Itoa(t.check(c)) + markClose + "') AS " + ty.duck() + ")"
	body := "CASE WHEN e.n = 0 THEN NULL WHEN " + fits("sa", "sb") + " THEN " + value + " WHEN NOT " + fits("a", "b") + " THEN NULL ELSE " + unsure + " END"
	c.Filter = nil
	return cat("list_transform([", sums, "], lambda e: "+body+")[1]")
}
