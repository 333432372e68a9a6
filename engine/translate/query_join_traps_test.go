//go:build duckdb_arrow

package translate_test

// joinTraps are the traps of outer joins on subqueries, NATURAL joins
// and grouping ids; TestTraps checks them on DuckDB, TestSparkTraps on
// Spark 4.1.4.
var joinTraps = []trap{
	// A subquery term of a RIGHT or FULL join's ON reading one input is
	// computed as a column of that input: the pairs are the same, the
	// star leaves the column out.
	{name: "right join on an exists of the preserved side", query: xyz + `SELECT * FROM x RIGHT JOIN y ON x1 = y1 AND EXISTS (SELECT * FROM z WHERE z2 = y2)`,
		types: []string{"int", "int", "int", "int"},
		rows:  [][]string{{"NULL", "NULL", "0", "2"}, {"1", "1", "1", "4"}, {"NULL", "NULL", "4", "11"}, {"1", "1", "1", "5"}, {"NULL", "NULL", "1", "NULL"}}},
	{name: "full join on a not in of the left side", query: xyz + `SELECT * FROM x FULL JOIN y ON x1 = y1 AND x2 NOT IN (SELECT z1 FROM z WHERE z1 IS NOT NULL)`,
		types: []string{"int", "int", "int", "int"},
		rows: [][]string{{"2", "1", "NULL", "NULL"}, {"1", "1", "1", "4"}, {"1", "1", "1", "5"}, {"1", "1", "1", "NULL"}, {"3", "4", "NULL", "NULL"},
			{"NULL", "7", "NULL", "NULL"}, {"NULL", "NULL", "0", "2"}, {"NULL", "NULL", "4", "11"}}},
	{name: "right join on an in, qualified star", query: xyz + `SELECT b.*, a.x1 FROM x AS a RIGHT JOIN (SELECT * FROM y) AS b ON a.x1 = b.y1 AND b.y2 IN (SELECT z2 FROM z)`,
		types: []string{"int", "int", "int"},
		rows:  [][]string{{"0", "2", "NULL"}, {"1", "4", "1"}, {"4", "11", "NULL"}, {"1", "5", "1"}, {"1", "NULL", "NULL"}}},
	// An outer join whose ON reads an outer query's column: the term is
	// a column of the input it reads (DuckDB does not decorrelate it).
	{name: "left join correlated in a scalar subquery", query: xyz + `SELECT x1, x2, (SELECT count(z1) FROM y LEFT JOIN z ON z1 = y2 AND z2 = x2 + 1) AS n FROM x`,
		types: []string{"int", "int", "bigint"}, rows: [][]string{{"2", "1", "1"}, {"1", "1", "1"}, {"3", "4", "1"}, {"NULL", "7", "0"}}},
	{name: "left join correlated in a lateral subquery", query: xyz + `SELECT s.* FROM x, LATERAL (SELECT * FROM y LEFT JOIN z ON z1 = y2 AND z2 = x2 + 1) AS s WHERE x1 = 1`,
		types: []string{"int", "int", "int", "int"},
		rows:  [][]string{{"0", "2", "NULL", "NULL"}, {"1", "4", "4", "2"}, {"4", "11", "NULL", "NULL"}, {"1", "5", "NULL", "NULL"}, {"1", "NULL", "NULL", "NULL"}}},
	// A semi join whose left side is correlated, written as EXISTS.
	{name: "semi join correlated on its left side", query: `SELECT * FROM VALUES (1), (2) AS t1(a), LATERAL (SELECT count(*) AS n FROM (SELECT * FROM VALUES (1), (2), (3) AS t2(b) WHERE b <= t1.a) AS l LEFT SEMI JOIN VALUES (2), (3) AS t4(c) ON l.b = t4.c)`,
		types: []string{"int", "bigint"}, rows: [][]string{{"1", "0"}, {"2", "1"}}},
	// GROUP BY an alias two items share groups by the first's expression.
	{name: "group by an alias two items share", query: `SELECT count(*) AS n FROM (SELECT col1 AS a, col2 AS a FROM VALUES ('a', 'b'), ('a', 'c'), ('a', 'c') GROUP BY col2, a)`,
		types: []string{"bigint"}, rows: [][]string{{"2"}}},
	// NATURAL JOIN of inputs without a common column joins on nothing.
	{name: "natural join without common columns", query: `SELECT * FROM VALUES (1), (2) AS a(p) NATURAL JOIN VALUES ('x') AS b(q)`,
		types: []string{"int", "string"}, rows: [][]string{{"1", "x"}, {"2", "x"}}},
	{name: "natural left join without common columns", query: `SELECT * FROM VALUES (1) AS a(p) NATURAL LEFT JOIN (SELECT 'x' AS q WHERE false) AS b`,
		types: []string{"int", "string"}, rows: [][]string{{"1", "NULL"}}},
	// grouping__id: a bit per grouping expression (in the order first
	// written), the first the highest, set where the grouping set
	// leaves it out.
	{name: "grouping__id in select, having and order by", query: `SELECT k1, k2, grouping__id AS g, sum(v) AS s FROM VALUES (1, 1, 10), (1, 2, 20) AS t(k1, k2, v) GROUP BY CUBE(k1, k2) HAVING grouping__id < 3 ORDER BY grouping__id, k1, k2`,
		types: []string{"int", "int", "bigint", "bigint"},
		rows:  [][]string{{"1", "1", "0", "10"}, {"1", "2", "0", "20"}, {"1", "NULL", "1", "30"}, {"NULL", "1", "2", "10"}, {"NULL", "2", "2", "20"}}},
	{name: "grouping_id of the grouping sets' columns", query: `SELECT grouping_id() AS a, grouping_id(k2, k1) AS b, count(*) AS n FROM VALUES (1, 1), (2, 2) AS t(k1, k2) GROUP BY GROUPING SETS ((k2), (k1, k2))`,
		types: []string{"bigint", "bigint", "bigint"},
		rows:  [][]string{{"1", "1", "1"}, {"1", "1", "1"}, {"0", "0", "1"}, {"0", "0", "1"}}},
	{name: "grouping_id of other columns", query: `SELECT grouping_id(k2, k1) AS b FROM VALUES (1, 1) AS t(k1, k2) GROUP BY CUBE(k1, k2)`,
		finding: "grouping expressions", spark: "fails [GROUPING_ID_COLUMN_MISMATCH]"},
	{name: "grouping in order by", query: `SELECT k1, sum(v) AS s FROM VALUES (1, 10), (2, 20) AS t(k1, v) GROUP BY ROLLUP(k1) ORDER BY grouping(k1) DESC, k1`,
		types: []string{"int", "bigint"}, rows: [][]string{{"NULL", "30"}, {"1", "10"}, {"2", "20"}}},
	// GROUP BY a, b GROUPING SETS (a): b is NULL outside aggregates.
	{name: "a column of the grouping list in no set", query: `SELECT course, year, sum(earnings) AS s FROM ` + csValues + ` GROUP BY course, year GROUPING SETS (course)`,
		types: []string{"string", "int", "bigint"}, rows: [][]string{{"dotNET", "NULL", "63000"}, {"Java", "NULL", "50000"}, {"NULL", "NULL", "1"}}},
	{name: "an expression of the grouping list in no set", query: `SELECT k1 + k2 AS s, k2, count(*) AS n FROM VALUES (1, 1), (2, 1) AS t(k1, k2) GROUP BY k1 + k2, k2 GROUPING SETS (k2)`,
		types: []string{"int", "int", "bigint"}, rows: [][]string{{"NULL", "1", "2"}}},
	// Spark takes 1 + k as the grouping expression k + 1.
	{name: "having of a grouping expression written otherwise", query: `SELECT sum(v) AS s FROM VALUES (1, 10), (1, 20), (2, 5) AS t(k, v) GROUP BY k + 1 HAVING 1 + k > 2`,
		types: []string{"bigint"}, rows: [][]string{{"5"}}},
	{name: "order by a grouping expression written otherwise", query: `SELECT sum(v) AS s FROM VALUES (1, 10), (1, 20), (2, 5) AS t(k, v) GROUP BY k + 1 ORDER BY 1 + k DESC`,
		types: []string{"bigint"}, rows: [][]string{{"5"}, {"30"}}},
	// t.* in a LATERAL subquery may name a FROM item before LATERAL.
	{name: "lateral star of the left side", query: `SELECT s.* FROM VALUES (0, 1) AS t1(c1, c2), LATERAL (SELECT t1.*, t2.* FROM VALUES (5) AS t2(d)) AS s`,
		types: []string{"int", "int", "int"}, rows: [][]string{{"0", "1", "5"}}},
	// HAVING reads a name an alias shares with a grouped input column
	// as the input column, qualified by the VALUES' alias.
	{name: "having of a grouped column of VALUES an alias shadows", query: `SELECT 'a' AS col1 FROM VALUES (ARRAY(1)), (ARRAY(0)) t (col1) GROUP BY col1 HAVING col1[0] > 0`,
		types: []string{"string"}, rows: [][]string{{"a"}}},
	// * EXCEPT of a struct field rebuilds the struct without it, field
	// by field: a NULL struct becomes a struct of NULLs.
	{name: "star except a nested struct field", query: `SELECT k, d.a AS a, d.s.c AS c, d.s IS NULL AS sn, d IS NULL AS dn FROM (SELECT * EXCEPT (d.s.b) FROM VALUES (1, named_struct('a', 1, 's', named_struct('b', 2, 'c', 3))), (2, named_struct('a', 2, 's', CAST(NULL AS STRUCT<b: INT, c: INT>))), (3, CAST(NULL AS STRUCT<a: INT, s: STRUCT<b: INT, c: INT>>)) AS t(k, d))`,
		types: []string{"int", "int", "int", "boolean", "boolean"},
		rows:  [][]string{{"1", "1", "3", "false", "false"}, {"2", "2", "NULL", "false", "false"}, {"3", "NULL", "NULL", "false", "false"}}},
	// s.* of a struct column: a column per field.
	{name: "struct star except a nested field", query: `SELECT a, s.c AS c, s IS NULL AS sn FROM (SELECT d.* EXCEPT (s.b) FROM VALUES (named_struct('a', 1, 's', named_struct('b', 2, 'c', 3))), (CAST(NULL AS STRUCT<a: INT, s: STRUCT<b: INT, c: INT>>)) AS t(d))`,
		types: []string{"int", "int", "boolean"}, rows: [][]string{{"1", "3", "false"}, {"NULL", "NULL", "false"}}},
	// An outer column IN (a query of a CTE) inside a correlated
	// subquery: DuckDB binds it only with the CTE's query in place.
	{name: "outer column in a cte inside a correlated subquery", query: `WITH c AS (SELECT 1 AS v) SELECT * FROM VALUES (1), (2) AS t(a) WHERE EXISTS (SELECT 1 FROM VALUES (1), (2) AS u(b) WHERE u.b = t.a AND t.a IN (SELECT v FROM c))`,
		types: []string{"int"}, rows: [][]string{{"1"}}},
	// |> JOIN of the pipe's table with itself.
	{name: "pipe join of a table with itself", query: `WITH j AS (SELECT * FROM VALUES (1), (2) AS v(a)) TABLE j |> JOIN j USING (a)`,
		types: []string{"int"}, rows: [][]string{{"1"}, {"2"}}},
	// stack(n, ...): n rows, NULL where the values run out.
	{name: "stack in FROM", query: `SELECT * FROM stack(2, 1, 1.1, 'a', 2, NULL, 'b') AS t(a, b, c)`,
		types: []string{"int", "decimal(2,1)", "string"}, rows: [][]string{{"1", "1.1", "a"}, {"2", "NULL", "b"}}},
	{name: "stack lateral", query: `SELECT t.k, s.* FROM VALUES (1, 2) AS t(k, v), LATERAL stack(2, 'x', k, 'y', v) AS s`,
		types: []string{"int", "string", "int"}, rows: [][]string{{"1", "x", "1"}, {"1", "y", "2"}}},
	{name: "stack of values of two types", query: `SELECT * FROM stack(2, 1, 2L)`,
		finding: "STACK_COLUMN_DIFF_TYPES", spark: "fails [DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES]"},
}

func init() { traps = append(traps, joinTraps...) }
