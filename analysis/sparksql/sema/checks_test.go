package sema

import (
	"strings"
	"testing"
)

func TestOrderAfterWindowedAggregate(t *testing.T) {
	// an aggregate in ORDER BY with a window function in the select list
	analyze(t, "SELECT a, sum(b) AS s, rank() OVER (ORDER BY a) FROM t GROUP BY a, b ORDER BY sum(b)").
		wantDiags("UNSUPPORTED_EXPR_FOR_OPERATOR sum(b)")
	analyze(t, "SELECT a, sum(b) AS s, rank() OVER (ORDER BY a) FROM t GROUP BY a ORDER BY sum(b)").
		wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "SELECT a, count(*) AS n, sum(count(*)) OVER () FROM t GROUP BY a, b ORDER BY count(*), a").
		wantDiags("UNSUPPORTED_EXPR_FOR_OPERATOR count(*)")
	// a column that is neither an output nor a plain GROUP BY column
	analyze(t, "SELECT a, max(b) AS m, rank() OVER (ORDER BY max(b)) FROM t GROUP BY a ORDER BY max(b), a").
		wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "SELECT a, b + 1 AS c, sum(a) OVER () FROM t GROUP BY a, b + 1 ORDER BY b + 1").
		wantDiags("UNRESOLVED_COLUMN b")
	// fine: the alias, an output column, a grouped column, no window
	analyze(t, "SELECT a, sum(b) AS s, rank() OVER (ORDER BY a) FROM t GROUP BY a ORDER BY s, a").noDiags()
	analyze(t, "SELECT sum(b) AS s, rank() OVER (ORDER BY sum(b)) FROM t GROUP BY a, c ORDER BY a, c").noDiags()
	analyze(t, "SELECT a, sum(b) AS s FROM t GROUP BY a ORDER BY sum(b), max(c)").noDiags()
	// not modelled: ordinals, GROUP BY ALL, ROLLUP, unknown columns
	analyze(t, "SELECT a, sum(b), rank() OVER (ORDER BY a) FROM t GROUP BY 1 ORDER BY sum(b)").noDiags()
	analyze(t, "SELECT a, sum(b), rank() OVER (ORDER BY a) FROM t GROUP BY ALL ORDER BY sum(b)").noDiags()
	analyze(t, "SELECT a, sum(b), rank() OVER (ORDER BY a) FROM t GROUP BY ROLLUP (a) ORDER BY sum(b)").noDiags()
	analyze(t, "SELECT x, sum(y), rank() OVER (ORDER BY x) FROM unknown GROUP BY x ORDER BY sum(y)").noDiags()
}

func TestOrderAfterNaturalJoinAggregate(t *testing.T) {
	cat := fakeCat{"v1": cols("col1 int", "col2 int"), "v2": cols("col1 int", "col2 int")}
	check := func(sql string, want ...string) {
		t.Helper()
		analyzeWith(t, sql, cat, Options{}).wantDiags(want...)
	}
	// with HAVING: an aggregate in ORDER BY is not computed below
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY col1 HAVING MAX(col1) > 5 ORDER BY MAX(col1)",
		"UNSUPPORTED_EXPR_FOR_OPERATOR MAX(col1)")
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY col1 HAVING MAX(col2) > 5 ORDER BY MAX(col2)",
		"UNRESOLVED_COLUMN col2")
	// the right side's copy of a NATURAL column is another column
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY v1.col1 HAVING MAX(v1.col1) > 5 ORDER BY MAX(v2.col1)",
		"UNRESOLVED_COLUMN v2.col1")
	// without HAVING, ORDER BY may aggregate, but a bare column must be
	// grouped
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY col1 ORDER BY MAX(col2)")
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY v1.col1 ORDER BY v2.col1", "UNRESOLVED_COLUMN v2.col1")
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY col1 HAVING col1 > 5 ORDER BY col1")
	// GROUP BY expressions without HAVING: Spark matches ORDER BY to
	// them, which is not modelled
	check("SELECT SUM(col2) FROM v1 NATURAL JOIN v2 GROUP BY col1 + 1, col2 + 2 ORDER BY 1 + col1, 2 + col2")
	// an inner join is not restricted
	check("SELECT SUM(v1.col2) FROM v1 JOIN v2 USING (col1) GROUP BY col1 HAVING MAX(col1) > 5 ORDER BY MAX(v1.col2)")
}

func TestGroupByAllHaving(t *testing.T) {
	analyze(t, "SELECT sum(a) s FROM t GROUP BY ALL HAVING b > 2").wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "SELECT a, count(*) FROM t GROUP BY ALL HAVING a > 1 AND max(b) > 0").noDiags()
	analyze(t, "SELECT a + 1, count(*) FROM t GROUP BY ALL HAVING a > 1").noDiags()
	// a column named all: GROUP BY all groups by it
	cat := fakeCat{"v2": cols("x int", "y int", "all int"), "v1": cols("a int", "b int", "k int")}
	analyzeWith(t, "SELECT x FROM v2 GROUP BY all", cat, Options{}).wantDiags("MISSING_AGGREGATION x")
	analyzeWith(t, "SELECT a AS all, b FROM v1 GROUP BY all", cat, Options{}).wantDiags("MISSING_AGGREGATION b")
	// an outer column named all does not count
	analyzeWith(t, "SELECT * FROM v2 WHERE EXISTS (SELECT a, b FROM v1 GROUP BY all)", cat, Options{}).noDiags()
}

func TestAmbiguousAliasInHaving(t *testing.T) {
	analyze(t, "SELECT 1 AS x, 2 AS x FROM t GROUP BY a HAVING x > 1").wantDiags("AMBIGUOUS_REFERENCE x")
	analyze(t, "SELECT 2 AS a, 3 AS a FROM t GROUP BY ALL HAVING a > 50").wantDiags("AMBIGUOUS_REFERENCE a")
	// the FROM column is grouped: it is meant
	analyze(t, "SELECT a AS c, 2 AS a, 3 AS a FROM t GROUP BY ALL HAVING a > 50").noDiags()
	analyze(t, "SELECT 1 AS x FROM t GROUP BY a HAVING x > 1").noDiags()
	// GROUP BY takes the first of two aliases
	analyze(t, "SELECT a AS x, b AS x FROM t GROUP BY b, x").noDiags()
}

func TestLateralAliasInGroupBy(t *testing.T) {
	analyze(t, "SELECT a AS l, l + 1 AS c FROM t GROUP BY ALL").
		wantDiags("UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY l")
	analyze(t, "SELECT a AS l, l + 1 AS z FROM t GROUP BY a, z").
		wantDiags("UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY l")
	analyze(t, "SELECT a AS l, l + 1 AS c FROM t GROUP BY l").noDiags()
	analyze(t, "SELECT a AS l, sum(l) AS c FROM t GROUP BY ALL").noDiags()
	analyzeWith(t, "SELECT a AS l, l + 1 AS c FROM t GROUP BY ALL", testCat, Options{NoLateralAliases: true}).
		wantDiags("UNRESOLVED_COLUMN l")
}

func TestOrderByOrdinals(t *testing.T) {
	analyze(t, "SELECT * FROM u ORDER BY 0").wantDiags("ORDER_BY_POS_OUT_OF_RANGE 0")
	analyze(t, "SELECT * FROM u ORDER BY -1").wantDiags("ORDER_BY_POS_OUT_OF_RANGE -1")
	analyze(t, "SELECT * FROM u ORDER BY 1, 3").wantDiags("ORDER_BY_POS_OUT_OF_RANGE 3")
	analyze(t, "SELECT a FROM u UNION SELECT d FROM u ORDER BY 2").wantDiags("ORDER_BY_POS_OUT_OF_RANGE 2")
	analyze(t, "SELECT * FROM u ORDER BY 2 DESC, 1").noDiags()
	// a column ORDER BY names may widen the sort's input: not checked
	analyze(t, "SELECT a FROM u ORDER BY 2, d").noDiags()
	// unknown columns, expressions, spark.sql.orderByOrdinal=false
	analyze(t, "SELECT * FROM unknown ORDER BY 5").noDiags()
	analyze(t, "SELECT * FROM u ORDER BY 1 + 5").noDiags()
	analyzeWith(t, "SELECT * FROM u ORDER BY 0", testCat, Options{NoOrderByOrdinal: true}).noDiags()
}

func TestStarGroupByPos(t *testing.T) {
	analyze(t, "SELECT * FROM u GROUP BY a, d, 1").wantDiags("STAR_GROUP_BY_POS 1")
	analyze(t, "SELECT a, * FROM u GROUP BY 1, a, d").noDiags()
	analyzeWith(t, "SELECT * FROM u GROUP BY a, d, 1", testCat, Options{NoGroupByOrdinal: true}).noDiags()
}

func TestAliasArity(t *testing.T) {
	analyze(t, "SELECT * FROM u AS x(p)").wantDiags("ASSIGNMENT_ARITY_MISMATCH p")
	analyze(t, "SELECT * FROM u AS x(p, q, r)").wantDiags("ASSIGNMENT_ARITY_MISMATCH p, q, r")
	analyze(t, "SELECT p FROM u AS x(p, q)").noDiags()
	analyze(t, "SELECT * FROM unknown AS x(p)").noDiags()
	analyze(t, "WITH c AS (SELECT 1, 2) SELECT * FROM c AS x(p)").wantDiags("ASSIGNMENT_ARITY_MISMATCH p")
}

func TestRecursiveUnion(t *testing.T) {
	analyze(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r").
		wantDiags("UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE UNION")
	analyze(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r").noDiags()
	// no recursive step: an ordinary UNION
	analyze(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT 2) SELECT * FROM r").noDiags()
	analyze(t, "WITH r(n) AS (SELECT 1 UNION SELECT a FROM t) SELECT * FROM r").noDiags()
}

func TestCallSyntax(t *testing.T) {
	analyze(t, "SELECT percentile(a, 0.5) WITHIN GROUP (ORDER BY a) FROM t").
		wantDiags("INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX percentile(a, 0.5) WITHIN GROUP (ORDER BY a)")
	analyze(t, "SELECT round(a, 0) WITHIN GROUP (ORDER BY a) FROM t").
		wantDiags("INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX round(a, 0) WITHIN GROUP (ORDER BY a)")
	analyze(t, "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a), mode() WITHIN GROUP (ORDER BY b) FROM t").noDiags()
	// a function Thund does not know may take it
	analyze(t, "SELECT my_agg(a) WITHIN GROUP (ORDER BY a) FROM t").noDiags()

	analyze(t, "SELECT median(a) OVER (PARTITION BY b ORDER BY a) FROM t").
		wantDiags("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC median(a) OVER (PARTITION BY b ORDER BY a)")
	analyze(t, "SELECT median(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM t").
		wantDiags("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC median(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)")
	analyze(t, "SELECT median(a) OVER w FROM t WINDOW w AS (PARTITION BY b ORDER BY a)").
		wantDiags("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC median(a) OVER w")
	analyze(t, "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) OVER (PARTITION BY b ORDER BY a) FROM t").
		wantDiags("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC percentile_cont(0.5) WITHIN GROUP (ORDER BY a) OVER (PARTITION BY b ORDER BY a)")
	analyze(t, "SELECT median(a) OVER (PARTITION BY b), sum(a) OVER (ORDER BY b) FROM t").noDiags()
	analyze(t, "SELECT median(a) OVER w FROM t WINDOW w AS (PARTITION BY b)").noDiags()
}

func TestNameCodes(t *testing.T) {
	for _, c := range []string{CodeUnresolvedColumn, CodeAmbiguous, CodeMissingAggregation, CodeMissingGroupBy, CodeFieldNotFound} {
		if !NameCodes[c] {
			t.Errorf("%s is a name code", c)
		}
	}
	for _, c := range []string{CodeUnsupportedExpr, CodeOrderByPos, CodeArityMismatch} {
		if NameCodes[c] || strings.ToUpper(c) != c {
			t.Errorf("%s is not a name code", c)
		}
	}
}

func TestLateralDepth(t *testing.T) {
	analyze(t, "SELECT * FROM t, LATERAL (SELECT * FROM u, LATERAL (SELECT t.a + u.d))").wantDiags("UNRESOLVED_COLUMN t.a")
	analyze(t, "SELECT * FROM t, LATERAL (SELECT a, (SELECT sum(d) FROM u WHERE d = t.b))").wantDiags("UNRESOLVED_COLUMN t.b")
	// the LATERAL subquery's own query sees them; so does a plain
	// correlated subquery two levels down
	analyze(t, "SELECT * FROM t, LATERAL (SELECT t.a + d FROM u WHERE u.a = t.b)").noDiags()
	analyze(t, "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS (SELECT 1 FROM orders WHERE id = t.a))").noDiags()
}

func TestSubqueryChecks(t *testing.T) {
	// an aggregate mixing the subquery's columns with outer ones
	analyze(t, "SELECT a FROM t GROUP BY a HAVING EXISTS (SELECT d FROM u GROUP BY d HAVING d < min(t.a + u.d))").
		wantDiags("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES min(t.a + u.d)")
	analyze(t, "SELECT a FROM t WHERE b > (SELECT max(d) + t.a FROM u)").noDiags()
	// IN and EXISTS subqueries and correlated scalar subqueries in ORDER BY
	analyze(t, "SELECT a, b FROM t ORDER BY a, b IN (SELECT d FROM u)").
		wantDiags("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY b IN (SELECT d FROM u)")
	analyze(t, "SELECT a FROM t ORDER BY EXISTS (SELECT d FROM u)").
		wantDiags("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY EXISTS (SELECT d FROM u)")
	analyze(t, "SELECT a FROM t ORDER BY (SELECT max(d) FROM u WHERE u.a = t.b)").
		wantDiags("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY (SELECT max(d) FROM u WHERE u.a = t.b)")
	analyze(t, "SELECT a FROM t ORDER BY (SELECT max(d) FROM u)").noDiags()
	// written as the select list has it, or grouped: that column
	analyze(t, "SELECT a IN (SELECT d FROM u) FROM t ORDER BY a IN (SELECT d FROM u)").noDiags()
	analyze(t, "SELECT a FROM t GROUP BY a IN (SELECT d FROM u), a ORDER BY a IN (SELECT d FROM u)").noDiags()
	// GROUP BY an outer column in a subquery
	analyze(t, "SELECT * FROM t WHERE (SELECT count(*) FROM u WHERE d = t.a GROUP BY t.a) = 1").
		wantDiags("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE t.a")
	analyze(t, "SELECT * FROM t WHERE (SELECT count(*) FROM u WHERE d = t.a GROUP BY d) = 1").noDiags()
	// IN's arity
	analyze(t, "SELECT 1 FROM t WHERE (a, b) NOT IN (SELECT (a, d) FROM u)").
		wantDiags("DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH (a, b) NOT IN (SELECT (a, d) FROM u)")
	analyze(t, "SELECT 1 FROM t WHERE a IN (SELECT a, d FROM u)").
		wantDiags("DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH a IN (SELECT a, d FROM u)")
	analyze(t, "SELECT 1 FROM t WHERE (a, b) IN (SELECT a, d FROM u)").noDiags()
	analyze(t, "SELECT 1 FROM t WHERE a IN (SELECT * FROM unknown)").noDiags()
}

func TestRangeArguments(t *testing.T) {
	analyze(t, "SELECT * FROM range(0, (SELECT 1))").wantDiags("NON_FOLDABLE_ARGUMENT (SELECT 1)")
	analyze(t, "SELECT * FROM VALUES (0, 1) v(c1, c2), LATERAL range(0, c2)").wantDiags("NON_FOLDABLE_ARGUMENT c2")
	analyze(t, "SELECT * FROM range(6 + cos(3))").noDiags()
	analyze(t, "SELECT * FROM range(0, 10, 2)").noDiags()
	analyze(t, "SELECT * FROM t, LATERAL explode(arr)").noDiags()
}

func TestOrderByDuplicateNames(t *testing.T) {
	analyze(t, "SELECT 2 AS a, 3 AS a FROM t GROUP BY ALL ORDER BY a").wantDiags("UNRESOLVED_COLUMN a")
	analyze(t, "SELECT 'x', 'x' FROM t GROUP BY ALL ORDER BY x").wantDiags("UNRESOLVED_COLUMN x")
	// a grouped FROM column of the name, one alias, no GROUP BY ALL
	analyze(t, "SELECT a AS c, 2 AS a, 3 AS a FROM t GROUP BY ALL ORDER BY a").noDiags()
	analyze(t, "SELECT a, 2 AS a FROM t GROUP BY ALL ORDER BY a").noDiags()
	analyze(t, "SELECT 2 AS a FROM t GROUP BY ALL ORDER BY a").noDiags()
	analyze(t, "SELECT 2 AS a, 3 AS a FROM t ORDER BY a").noDiags()
}

func TestTypeChecks(t *testing.T) {
	// + and - of a STRING
	analyze(t, "SELECT timestamp'2011-11-11 11:11:11' + '1'").
		wantDiags("DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE timestamp'2011-11-11 11:11:11' + '1'")
	analyze(t, "SELECT '1' + ts FROM orders").wantDiags("DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE '1' + ts")
	analyze(t, "SELECT cast(1 AS boolean) - '1'").wantDiags("DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE cast(1 AS boolean) - '1'")
	analyze(t, "SELECT DATE'2011-11-11' + '1'").wantDiags("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE DATE'2011-11-11' + '1'")
	analyze(t, "SELECT '1' + 1, amount - '2', ts - '2011-11-11 11:11:10', status + 1 FROM orders").noDiags()
	// IN over values of two families
	analyze(t, "SELECT cast('2017-12-12' AS date) IN (cast('2017-12-12' AS date), cast(1 AS boolean))").
		wantDiags("DATATYPE_MISMATCH.DATA_DIFF_TYPES cast('2017-12-12' AS date) IN (cast('2017-12-12' AS date), cast(1 AS boolean))")
	analyze(t, "SELECT id IN (ts) FROM orders").wantDiags("DATATYPE_MISMATCH.DATA_DIFF_TYPES id IN (ts)")
	analyze(t, "SELECT id IN (1, 2.5, '3', NULL), ts IN (DATE'2024-01-01'), status IN ('a', 1) FROM orders").noDiags()
	analyze(t, "SELECT x IN (1, true) FROM unknown").noDiags()
	// function arguments
	analyze(t, "SELECT sort_array(array('b', 'd'), '1')").wantDiags("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE '1'")
	analyze(t, "SELECT sort_array(array('b', 'd'), false), sort_array(arr) FROM t").noDiags()
	analyze(t, "SELECT array_size(map('a', 1))").wantDiags("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE map('a', 1)")
	analyze(t, "SELECT array_size(m) FROM t").wantDiags("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE m")
	analyze(t, "SELECT array_size(arr), array_size(array(1)) FROM t").noDiags()
	analyze(t, "SELECT date_add('2011-11-11', '1.2')").wantDiags("CAST_INVALID_INPUT '1.2'")
	analyze(t, "SELECT date_sub(DATE'2011-11-11', 'x')").wantDiags("CAST_INVALID_INPUT 'x'")
	analyze(t, "SELECT date_add('2011-11-11', '1'), date_add('2011-11-11', ' -3 '), date_add(ts, a) FROM orders, t").noDiags()
}

func TestStructsAndRange(t *testing.T) {
	analyze(t, "SELECT inline(array(struct(a, 'a'), struct(b, 'b'))) FROM t").
		wantDiags("DATATYPE_MISMATCH.DATA_DIFF_TYPES array(struct(a, 'a'), struct(b, 'b'))")
	analyze(t, "SELECT array(struct(a, 'a'), struct(t.a, 'b')), array(struct(1, 2), struct(3, 4)) FROM t").noDiags()
	analyze(t, "SELECT array(named_struct('x', a), named_struct('y', b)) FROM t").noDiags()
	analyze(t, "SELECT * FROM range(1, null)").wantDiags("UNEXPECTED_INPUT_TYPE null")
	analyze(t, "SELECT * FROM range(1, 'x')").wantDiags("UNEXPECTED_INPUT_TYPE 'x'")
	analyze(t, "SELECT * FROM range(1, 10)").noDiags()
}
