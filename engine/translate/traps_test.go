//go:build duckdb_arrow

package translate_test

import (
	"database/sql"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/engine/translate"
)

// trap is one Spark construct whose DuckDB meaning differs. Spark records
// what a real Spark 4.1.4 server (Spark Connect, ANSI mode and UTC, the
// defaults) returned for the query: its schema (Spark's type names) and
// rows, or its error class. The translated query must give the same on
// DuckDB, or the translation must refuse it (finding).
type trap struct {
	name, query string
	// types and rows are Spark's result: the columns' Spark types and
	// each row's values (NULL, numbers as Spark prints them, strings
	// unquoted, arrays as [a, b], dates yyyy-MM-dd, timestamps
	// yyyy-MM-dd HH:mm:ss).
	types []string
	rows  [][]string
	// errClass is the error class Spark raised (no rows then).
	errClass string
	// finding, when set, is a word of the finding the translation must
	// raise; spark then notes what Spark does differently.
	finding string
	spark   string
}

// The facts below were read from a Spark 4.1.4 Connect server
// (scripts/spark.sh) with spark.sql("...").collect() on 2026-12-02;
// TestSparkTraps (traps_spark_test.go) checks them on the server again.
var traps = []trap{
	{name: "double-quoted string", query: `SELECT "DELETE" AS s`, types: []string{"string"}, rows: [][]string{{"DELETE"}}},
	{name: "double-quoted string compared", query: `SELECT count(*) AS n FROM VALUES ('DELETE'), ('x') t(s) WHERE s != "DELETE"`, types: []string{"bigint"}, rows: [][]string{{"1"}}},
	{name: "typed literals", query: `SELECT DATE '2024-02-28' + 1 AS d, TIMESTAMP '2024-01-01 10:00:00' AS ts, 100L AS l, 1.5D AS dd, 2Y AS y, 1.5BD AS bd, typeof(1.5) AS t15, typeof(100L) AS tl`,
		types: []string{"date", "timestamp", "bigint", "double", "tinyint", "decimal(2,1)", "string", "string"},
		rows:  [][]string{{"2024-02-29", "2024-01-01 10:00:00", "100", "1.5", "2", "1.5", "decimal(2,1)", "bigint"}}},
	{name: "double literals keep every digit", query: `SELECT 0.9999999999999999D = 1D AS a, 0.9999999999999999D AS b, 9.999999999999999E-1 = 1D AS c, 0.1D + 0.2D AS d, .5D AS e, 1.D AS f, 1.1F AS g`,
		types: []string{"boolean", "double", "boolean", "double", "double", "double", "float"}, rows: [][]string{{"false", "0.9999999999999999", "false", "0.30000000000000004", "0.5", "1", "1.1"}}},
	{name: "NULL in one side of a UNION takes the other's type", query: `SELECT 1 AS a, NULL AS c UNION ALL SELECT 2, 'x' ORDER BY a`,
		types: []string{"int", "string"}, rows: [][]string{{"1", "NULL"}, {"2", "x"}}},
	{name: "NULL in every side of a UNION is VOID", query: `SELECT NULL AS c UNION ALL SELECT NULL`, finding: "VOID", spark: "struct<c:void>"},
	{name: "binary literal and day interval", query: `SELECT hex(X'1F') AS h, INTERVAL 2 DAYS + DATE '2024-01-01' AS d`, types: []string{"string", "date"}, rows: [][]string{{"1F", "2024-01-03"}}},
	{name: "a remainder by a positive constant", query: `SELECT -7 % 3 AS a, CAST(-7 AS BIGINT) % 3 AS b, 7 % 3L AS c, v % 1000 AS d, typeof(-7 % 3) AS t FROM VALUES (-2147483648) t(v)`,
		types: []string{"int", "bigint", "bigint", "int", "string"}, rows: [][]string{{"-1", "-1", "1", "-648", "int"}}},
	{name: "a remainder by zero", query: `SELECT 7 % 0 AS a`, errClass: "REMAINDER_BY_ZERO"},
	{name: "a remainder grouped by", query: `SELECT v % 3 AS b, count(*) AS n FROM VALUES (1), (4), (5) t(v) GROUP BY v % 3`,
		types: []string{"int", "bigint"}, rows: [][]string{{"1", "2"}, {"2", "1"}}},
	{name: "a division grouped by", query: `SELECT v / 4 AS q, count(*) AS n FROM VALUES (2), (2), (6) t(v) GROUP BY v / 4`,
		types: []string{"double", "bigint"}, rows: [][]string{{"0.5", "2"}, {"1.5", "1"}}},
	{name: "arr[i] counts from 0", query: `SELECT array(10, 20, 30)[0] AS a, array(10, 20, 30)[2] AS b`, types: []string{"int", "int"}, rows: [][]string{{"10", "30"}}},
	{name: "arr[i] out of bounds", query: `SELECT array(1, 2, 3)[5] AS a`, errClass: "INVALID_ARRAY_INDEX"},
	{name: "element_at counts from 1", query: `SELECT element_at(array(1, 2, 3), 1) AS a, element_at(array(1, 2, 3), -1) AS b, try_element_at(array(1, 2, 3), 5) AS c`, types: []string{"int", "int", "int"}, rows: [][]string{{"1", "3", "NULL"}}},
	{name: "element_at out of bounds", query: `SELECT element_at(array(1, 2, 3), 5) AS a`, errClass: "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"},
	{name: "element_at 0", query: `SELECT element_at(array(1, 2, 3), 0) AS a`, errClass: "INVALID_INDEX_OF_ZERO"},
	{name: "map lookups", query: `SELECT element_at(map('a', 1), 'b') AS a, map('a', 1)['a'] AS b, map('a', 1)['z'] AS c`, types: []string{"int", "int", "int"}, rows: [][]string{{"NULL", "1", "NULL"}}},
	{name: "NULLs first ascending", query: `SELECT x FROM VALUES (2), (NULL), (1) t(x) ORDER BY x`, types: []string{"int"}, rows: [][]string{{"NULL"}, {"1"}, {"2"}}},
	{name: "NULLs last descending", query: `SELECT x FROM VALUES (2), (NULL), (1) t(x) ORDER BY x DESC`, types: []string{"int"}, rows: [][]string{{"2"}, {"1"}, {"NULL"}}},
	{name: "CAST truncates", query: `SELECT CAST(1.5 AS INT) AS a, CAST(-1.5 AS INT) AS b, CAST(2.7D AS BIGINT) AS c, CAST(' 12 ' AS INT) AS d`, types: []string{"int", "int", "bigint", "int"}, rows: [][]string{{"1", "-1", "2", "12"}}},
	{name: "CAST of a fraction string", query: `SELECT CAST('1.5' AS INT) AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "CAST of a bad string", query: `SELECT CAST('abc' AS INT) AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "CAST of an exponent string", query: `SELECT CAST('1e2' AS INT) AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "TRY_CAST", query: `SELECT TRY_CAST('abc' AS INT) AS a, TRY_CAST('1.5' AS INT) AS b`, types: []string{"int", "int"}, rows: [][]string{{"NULL", "NULL"}}},
	{name: "CAST overflow", query: `SELECT CAST(3000000000 AS INT) AS a`, errClass: "CAST_OVERFLOW"},
	{name: "division and DIV", query: `SELECT 7 / 2 AS a, 7 DIV 2 AS b, -7 DIV 2 AS c, CAST(14.50 AS DECIMAL(4,2)) / 3 AS d, typeof(7 / 2) AS ta, typeof(7 DIV 2) AS tb, typeof(CAST(14.50 AS DECIMAL(4,2)) / 3) AS td`,
		types: []string{"double", "bigint", "bigint", "decimal(8,6)", "string", "string", "string"},
		rows:  [][]string{{"3.5", "3", "-3", "4.833333", "double", "bigint", "decimal(8,6)"}}},
	{name: "divide by zero", query: `SELECT 1 / 0 AS a`, errClass: "DIVIDE_BY_ZERO"},
	{name: "try_divide by zero", query: `SELECT try_divide(1, 0) AS a`, types: []string{"double"}, rows: [][]string{{"NULL"}}},
	{name: "double divide by zero", query: `SELECT 1.0D / 0 AS a`, errClass: "DIVIDE_BY_ZERO"},
	{name: "remainder by zero", query: `SELECT 7 % 0 AS a`, errClass: "REMAINDER_BY_ZERO"},
	{name: "DIV by zero", query: `SELECT 7 DIV 0 AS a`, errClass: "DIVIDE_BY_ZERO"},
	{name: "sum of INT is BIGINT", query: `SELECT sum(x) AS s, typeof(sum(x)) AS ts, avg(x) AS a, typeof(avg(x)) AS ta FROM VALUES (1), (2) t(x)`,
		types: []string{"bigint", "string", "double", "string"}, rows: [][]string{{"3", "bigint", "1.5", "double"}}},
	{name: "sum and avg of decimals", query: `SELECT sum(d) AS s, typeof(sum(d)) AS ts, avg(d) AS a, typeof(avg(d)) AS ta FROM (SELECT CAST(x AS DECIMAL(10,2)) AS d FROM VALUES (1.25), (2.5) t(x))`,
		types: []string{"decimal(20,2)", "string", "decimal(14,6)", "string"}, rows: [][]string{{"3.75", "decimal(20,2)", "1.875000", "decimal(14,6)"}}},
	{name: "integer overflow", query: `SELECT 2147483647 + 1 AS a`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "try_add overflow", query: `SELECT try_add(2147483647, 1) AS a`, types: []string{"int"}, rows: [][]string{{"NULL"}}},
	{name: "substring position 0", query: `SELECT substring('hello', 0, 2) AS a, substring('hello', 1, 2) AS b, substring('hello', -3, 2) AS c, substring('hello', 2) AS d, substring('hello', 2, -1) AS e, substr('hello', 0) AS f`,
		types: []string{"string", "string", "string", "string", "string", "string"}, rows: [][]string{{"he", "he", "ll", "ello", "", "hello"}}},
	{name: "split takes a regex", query: `SELECT split('a,b,,c,', ',') AS a, split('a1b22c', '[0-9]+') AS b, split('abc', '') AS c`,
		types: []string{"array<string>", "array<string>", "array<string>"}, rows: [][]string{{"[a, b, , c, ]", "[a, b, c]", "[a, b, c]"}}},
	{name: "regexp functions", query: `SELECT regexp_extract('ab12', '([a-z]+)([0-9]+)', 2) AS a, regexp_extract('x', '([0-9]+)', 1) AS b, regexp_replace('a-b-c', '-', '+') AS c, regexp_replace('ab12', '([a-z]+)([0-9]+)', '$2$1') AS d, 'abc' RLIKE 'b' AS e, regexp_extract('ab12', '([a-z]+)([0-9]+)') AS f`,
		types: []string{"string", "string", "string", "string", "boolean", "string"}, rows: [][]string{{"12", "", "a+b+c", "12ab", "true", "ab"}}},
	{name: "Java lookaround refused", query: `SELECT split('a1b', '(?=b)') AS a`, finding: "lookaround", spark: "[a1, b]"},
	{name: "Java datetime patterns", query: `SELECT date_format(TIMESTAMP '2024-03-05 07:08:09', 'yyyy-MM-dd HH:mm:ss') AS a, date_format(TIMESTAMP '2024-03-05 07:08:09', 'dd/MM/yy') AS b, date_format(TIMESTAMP '2024-03-05 17:08:09', 'EEE, MMM d h:mm a') AS c, to_date('05/03/2024', 'dd/MM/yyyy') AS d, to_timestamp('2024-03-05 07:08', 'yyyy-MM-dd HH:mm') AS e, to_date('2024-03-05') AS f`,
		types: []string{"string", "string", "string", "date", "timestamp", "date"}, rows: [][]string{{"2024-03-05 07:08:09", "05/03/24", "Tue, Mar 5 5:08 PM", "2024-03-05", "2024-03-05 07:08:00", "2024-03-05"}}},
	{name: "datetime pattern letter refused", query: `SELECT date_format(DATE '2024-03-05', 'QQQ') AS q`, finding: "QQQ", spark: "Q1"},
	{name: "to_date of a bad string", query: `SELECT to_date('not-a-date') AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "size of NULL", query: `SELECT size(CAST(NULL AS ARRAY<INT>)) AS a, size(array(1, 2)) AS b, size(map('a', 1)) AS c`, types: []string{"int", "int", "int"}, rows: [][]string{{"NULL", "2", "1"}}},
	{name: "concat and concat_ws NULLs", query: `SELECT concat('a', NULL) AS a, concat('a', 'b', 1) AS b, concat_ws('-', 'a', NULL, 'b') AS c, concat_ws('-', array('a', NULL, 'b'), 'c') AS d, concat(array(1), array(2)) AS e`,
		types: []string{"string", "string", "string", "string", "array<int>"}, rows: [][]string{{"NULL", "ab1", "a-b", "a-b-c", "[1, 2]"}}},
	{name: "round HALF_UP and bround HALF_EVEN", query: `SELECT round(2.5) AS a, round(-2.5) AS b, round(2.345, 2) AS c, bround(2.5) AS d, bround(3.5) AS e, round(2.5D) AS f, bround(2.5D) AS g, round(-0.5D) AS h`,
		types: []string{"decimal(2,0)", "decimal(2,0)", "decimal(4,2)", "decimal(2,0)", "decimal(2,0)", "double", "double", "double"},
		rows:  [][]string{{"3", "-3", "2.35", "2", "4", "3", "2", "-1"}}},
	{name: "pmod and % with negatives", query: `SELECT pmod(-7, 3) AS a, -7 % 3 AS b, 7 % -3 AS c, pmod(7, -3) AS d, mod(-7, 3) AS e`,
		types: []string{"int", "int", "int", "int", "int"}, rows: [][]string{{"2", "-1", "1", "1", "-1"}}},
	{name: "lpad with a negative length, locate from NULL", query: `SELECT lpad('hi', -1, 'x') AS a, locate('l', 'hello', NULL) AS b`, types: []string{"string", "int"}, rows: [][]string{{"", "0"}}},
	{name: "string functions", query: `SELECT instr('hello', 'l') AS a, locate('l', 'hello') AS b, locate('l', 'hello', 4) AS c, locate('l', 'hello', 0) AS d, lpad('hi', 5, 'x') AS e, lpad('hello', 3, 'x') AS f, lpad('hi', 5) AS g, lpad('hi', 5, '') AS h, rpad('hi', 5, 'xy') AS i, translate('abcde', 'bd', 'x') AS j, initcap('hELLO wORLD  x') AS k`,
		types: []string{"int", "int", "int", "int", "string", "string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"3", "3", "4", "0", "xxxhi", "hel", "   hi", "hi", "hixyx", "axce", "Hello World  X"}}},
	{name: "explode", query: `SELECT explode(array(1, 2)) AS x`, types: []string{"int"}, rows: [][]string{{"1"}, {"2"}}},
	{name: "posexplode", query: `SELECT posexplode(array('a', 'b'))`, types: []string{"int", "string"}, rows: [][]string{{"0", "a"}, {"1", "b"}}},
	{name: "inline", query: `SELECT inline(array(named_struct('a', 1, 'b', 'x'), named_struct('a', 2, 'b', 'y')))`, types: []string{"int", "string"}, rows: [][]string{{"1", "x"}, {"2", "y"}}},
	{name: "LATERAL VIEW", query: `SELECT id, x FROM VALUES (1, array(1, 2)), (2, array()) t(id, arr) LATERAL VIEW explode(arr) v AS x`, types: []string{"int", "int"}, rows: [][]string{{"1", "1"}, {"1", "2"}}},
	{name: "LATERAL VIEW OUTER", query: `SELECT id, x FROM VALUES (1, array(1, 2)), (2, array()) t(id, arr) LATERAL VIEW OUTER explode(arr) v AS x`, types: []string{"int", "int"}, rows: [][]string{{"1", "1"}, {"1", "2"}, {"2", "NULL"}}},
	{name: "explode a map", query: `SELECT explode(map('a', 1, 'b', 2))`, types: []string{"string", "int"}, rows: [][]string{{"a", "1"}, {"b", "2"}}},
	{name: "higher-order functions", query: `SELECT transform(array(1, 2, 3), x -> x * 10) AS a, transform(array(1, 2, 3), (x, i) -> x + i) AS b, filter(array(1, 2, 3, 4), x -> x % 2 = 0) AS c, exists(array(1, 2), x -> x > 1) AS d, exists(array(1, NULL), x -> x > 1) AS e, forall(array(1, 2), x -> x > 0) AS f, aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x) AS g, aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10) AS h`,
		types: []string{"array<int>", "array<int>", "array<int>", "boolean", "boolean", "boolean", "int", "int"},
		rows:  [][]string{{"[10, 20, 30]", "[1, 3, 5]", "[2, 4]", "true", "NULL", "true", "6", "60"}}},
	{name: "named_struct, struct and maps", query: `SELECT named_struct('a', 1, 'b', 'x').b AS a, map('a', 1, 'b', 2)['b'] AS b, map_keys(map('a', 1)) AS c, struct(1 AS a, 'x' AS b).a AS d`,
		types: []string{"string", "int", "array<string>", "int"}, rows: [][]string{{"x", "2", "[a]", "1"}}},
	{name: "collect_list and collect_set skip NULLs", query: `SELECT g, sort_array(collect_list(x)) AS l, sort_array(collect_set(x)) AS s FROM VALUES (1, 2), (1, NULL), (1, 1), (1, 2), (2, NULL) t(g, x) GROUP BY g ORDER BY g`,
		types: []string{"int", "array<int>", "array<int>"}, rows: [][]string{{"1", "[1, 2, 2]", "[1, 2]"}, {"2", "[]", "[]"}}},
	{name: "count(DISTINCT a, b)", query: `SELECT count(DISTINCT a, b) AS n FROM VALUES (1, 1), (1, 1), (1, NULL), (2, 1) t(a, b)`, types: []string{"bigint"}, rows: [][]string{{"2"}}},
	{name: "FLOAT meets an integer or decimal as DOUBLE", query: `SELECT CAST(1.1 AS FLOAT) + 1 AS a, CAST(1 AS FLOAT) * CAST(1 AS DECIMAL(3,0)) AS b, CASE WHEN true THEN CAST(1 AS TINYINT) ELSE CAST(2 AS FLOAT) END AS c, CAST(1 AS FLOAT) + CAST(1 AS FLOAT) AS d`,
		types: []string{"double", "double", "double", "float"}, rows: [][]string{{"2.100000023841858", "1", "1", "2"}}},
	{name: "a string in arithmetic", query: `SELECT '1' + CAST(1 AS TINYINT) AS a, '1' + 1.5D AS b, '2' * 3 AS c, typeof('1' + CAST(1 AS TINYINT)) AS ta, typeof('7' % CAST(3 AS DECIMAL(3,0))) AS tb`,
		types: []string{"bigint", "double", "bigint", "string", "string"}, rows: [][]string{{"2", "2.5", "6", "bigint", "double"}}},
	{name: "decimal remainder type", query: `SELECT CAST(7 AS DECIMAL(5,2)) % CAST(3 AS DECIMAL(3,1)) AS a, 7 % CAST(3 AS DECIMAL(3,1)) AS b, pmod(CAST(7 AS DECIMAL(5,2)), 3) AS c`,
		types: []string{"decimal(4,2)", "decimal(2,1)", "decimal(3,2)"}, rows: [][]string{{"1.00", "1.0", "1.00"}}},
	{name: "BOOLEAN compared with a number", query: `SELECT true = CAST(1 AS TINYINT) AS a`, finding: "BINARY_OP_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] (BOOLEAN and TINYINT)"},
	{name: "BOOLEAN plus a number", query: `SELECT true + 1 AS a`, finding: "BINARY_OP_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] (BOOLEAN and INT)"},
	{name: "DATE compared with a number", query: `SELECT DATE '2020-01-01' = 1 AS a`, finding: "BINARY_OP_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] (DATE and INT)"},
	{name: "BOOLEAN IN numbers", query: `SELECT true IN (1, 2) AS a`, finding: "DATA_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.DATA_DIFF_TYPES]"},
	{name: "float() is CAST AS FLOAT", query: `SELECT float(1) AS a, int('7') AS b`, types: []string{"float", "int"}, rows: [][]string{{"1", "7"}}},
	{name: "CASE of a BOOLEAN and a number", query: `SELECT CASE WHEN true THEN 1 ELSE false END AS a`, finding: "DATA_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] casewhen [INT, BOOLEAN]"},
	{name: "coalesce of a BOOLEAN and a number", query: `SELECT coalesce(1, false) AS a`, finding: "DATA_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] coalesce"},
	{name: "UNION of a BOOLEAN and a number", query: `SELECT 1 AS a UNION SELECT false`, finding: "INCOMPATIBLE_COLUMN_TYPE", spark: "[INCOMPATIBLE_COLUMN_TYPE] BOOLEAN is not compatible with INT"},
	{name: "a string compared with an integer is a BIGINT", query: `SELECT 2 < '1.0' AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "a string compared with an integer", query: `SELECT 2 < '1' AS a, 2 = ' 2 ' AS b`, types: []string{"boolean", "boolean"}, rows: [][]string{{"false", "true"}}},
	// From Spark 4.1.3's golden files (sql-tests results/try_arithmetic.sql.out,
	// inline-table.sql.out, datetime-parsing.sql.out), not the server.
	{name: "a negative INT literal", query: `SELECT -2147483648 AS a, typeof(-2147483648) AS t`, types: []string{"int", "string"}, rows: [][]string{{"-2147483648", "int"}}},
	{name: "a column of NULL is VOID", query: `SELECT NULL AS a`, finding: "VOID", spark: "struct<a:void>"},
	{name: "a parse pattern without a year", query: `SELECT to_timestamp('01-09', 'MM-dd') AS a`, types: []string{"timestamp"}, rows: [][]string{{"1970-01-09 00:00:00"}}},
	{name: "a two-letter year", query: `SELECT to_timestamp('99', 'yy') AS a`, finding: "2000", spark: "2099-01-01 00:00:00"},
	{name: "set operation types", query: `SELECT CAST(1 AS INT) AS a UNION ALL SELECT '2' UNION ALL SELECT 3`, types: []string{"bigint"}, rows: [][]string{{"1"}, {"2"}, {"3"}}},
	{name: "set operation of FLOAT and INT", query: `SELECT CAST(1.5 AS FLOAT) AS a UNION ALL SELECT CAST(2 AS INT)`, types: []string{"double"}, rows: [][]string{{"1.5"}, {"2"}}},
	{name: "date_add takes an INT", query: `SELECT date_add('2011-11-11', 1L) AS a`, finding: "UNEXPECTED_INPUT_TYPE", spark: "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] requires INT, SMALLINT or TINYINT"},
	{name: "unary plus of a date", query: `SELECT +DATE '1999-01-01' AS a`, finding: "UNEXPECTED_INPUT_TYPE", spark: "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE]"},
	{name: "regexp_extract past the groups", query: `SELECT regexp_extract('1a 2b 14m', '\d+') AS a`, finding: "REGEX_GROUP_INDEX", spark: "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX]"},
	{name: "generator aliases", query: `SELECT posexplode(array(1, 2)) AS elem`, finding: "UDTF_ALIAS_NUMBER_MISMATCH", spark: "[UDTF_ALIAS_NUMBER_MISMATCH] Expected 2 aliases, but got 1"},
	{name: "LIKE escape before a letter", query: `SELECT 'maca' LIKE 'm%aca' ESCAPE '%' AS a`, finding: "ESC_IN_THE_MIDDLE", spark: "[INVALID_FORMAT.ESC_IN_THE_MIDDLE]"},
	{name: "BINARY IN numbers", query: `SELECT CAST('1' AS BINARY) IN (CAST('1' AS BINARY), 1) AS a`, finding: "DATA_DIFF_TYPES", spark: "[DATATYPE_MISMATCH.DATA_DIFF_TYPES]"},
	{name: "sort_array with a NULL order", query: `SELECT sort_array(array('b', 'd'), CAST(NULL AS BOOLEAN)) AS a`, types: []string{"array<string>"}, rows: [][]string{{"NULL"}}},
	{name: "listagg without a separator", query: `SELECT listagg(x) WITHIN GROUP (ORDER BY x) AS a FROM VALUES ('a'), ('b') t(x)`, types: []string{"string"}, rows: [][]string{{"ab"}}},
	{name: "DIV of whole decimals", query: `SELECT div(CAST(999999999999999999999 AS DECIMAL(38, 0)), 1000000000000000000000) AS a, -9999999999999999999999 DIV 1000000000000000000000 AS b`, types: []string{"bigint", "bigint"}, rows: [][]string{{"0", "-9"}}},
	{name: "timestamps in the session time zone (UTC)", query: `SELECT CAST(TIMESTAMP '2024-01-01 10:00:00' AS BIGINT) AS a, CAST(1704103200 AS TIMESTAMP) AS b, hour(TIMESTAMP '2024-01-01 23:59:59') AS c, to_timestamp('2024-01-01 10:00:00') AS d, date_format(TIMESTAMP '2024-01-01 10:00:00', 'HH:mm') AS e`,
		types: []string{"bigint", "timestamp", "int", "timestamp", "string"}, rows: [][]string{{"1704103200", "2024-01-01 10:00:00", "23", "2024-01-01 10:00:00", "10:00"}}},
	{name: "a string compared with a decimal", query: `SELECT 1.5 = '1.51' AS a, 1.5 = '1.5' AS b`, types: []string{"boolean", "boolean"}, rows: [][]string{{"false", "true"}}},
	{name: "length and rank are INT", query: `SELECT length('abc') AS a, rank() OVER (ORDER BY x) AS b FROM VALUES (1) t(x)`, types: []string{"int", "int"}, rows: [][]string{{"3", "1"}}},
	{name: "try_add keeps an operand's overflow", query: `SELECT try_add(1, 2147483647 + 1) AS a`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "try_add of BIGINTs", query: `SELECT try_add(9223372036854775807L, 1) AS a, try_multiply(3000000000L, 4000000000L) AS b, try_subtract(-9223372036854775808L, 0) AS c`, types: []string{"bigint", "bigint", "bigint"}, rows: [][]string{{"NULL", "NULL", "-9223372036854775808"}}},
	{name: "left of NULL", query: `SELECT left(CAST(NULL AS STRING), -2) AS a, left('abc', -2) AS b`, types: []string{"string", "string"}, rows: [][]string{{"NULL", ""}}},
	{name: "var_pop over a shrinking frame", query: `SELECT v FROM (SELECT i, var_pop(n) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS v, stddev_pop(n) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM VALUES (1, 600), (2, 470), (3, 170), (4, 430), (5, 300) t(i, n)) WHERE i <= 3 ORDER BY i`,
		types: []string{"double"}, rows: [][]string{{"21703.999999999996"}, {"13868.750000000002"}, {"11266.666666666666"}}},
	{name: "stddev_samp of one row and of none", query: `SELECT stddev_samp(x) AS a, var_samp(x) AS b, stddev(x) FILTER (WHERE x > 5) AS d FROM VALUES (3.0D) t(x)`,
		types: []string{"double", "double", "double"}, rows: [][]string{{"NULL", "NULL", "NULL"}}},
	{name: "sum of an overflowing x + 1", query: `SELECT sum(x + 1L) AS s FROM VALUES (9223372036854775807L), (1L) t(x)`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "try_sum keeps its operand's overflow", query: `SELECT try_sum(x - 1) AS s FROM VALUES (-2147483648), (1) t(x)`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "IN (subquery) in a SELECT list is never NULL", query: `SELECT 1 IN (SELECT x FROM VALUES (2), (NULL) t(x)) AS a, 1 NOT IN (SELECT x FROM VALUES (2), (NULL) t(x)) AS b, NOT (1 IN (SELECT x FROM VALUES (2), (NULL) t(x))) AS c`,
		types: []string{"boolean", "boolean", "boolean"}, rows: [][]string{{"false", "false", "false"}}},
	{name: "IN (subquery) in a WHERE keeps NULL", query: `SELECT count(*) AS n FROM VALUES (1) s(a) WHERE NOT (a > 5 OR a IN (SELECT x FROM VALUES (2), (NULL) t(x)))`,
		types: []string{"bigint"}, rows: [][]string{{"0"}}},
	{name: "grouping sets a + b and b + a are one", query: `SELECT a + b AS s, b, sum(c) AS n FROM VALUES (1, 1, 1), (2, 2, 2) t(a, b, c) GROUP BY GROUPING SETS ((a + b), (b + a), (b))`,
		types: []string{"int", "int", "bigint"}, rows: [][]string{{"2", "NULL", "1"}, {"2", "NULL", "1"}, {"4", "NULL", "2"}, {"4", "NULL", "2"}, {"NULL", "1", "1"}, {"NULL", "2", "2"}}},
	{name: "ORDER BY ALL in a subquery beside an outer column named all", query: `SELECT (SELECT b FROM VALUES (1), (2) v1(b) ORDER BY all LIMIT 1) AS r FROM VALUES (1, 2) v2(x, all)`,
		types: []string{"int"}, rows: [][]string{{"1"}}},
	{name: "mask", query: `SELECT mask('AbCD123-@$#') AS a, mask('AbCD123-@$#', NULL, 'q', 'd', 'o') AS b, mask(CAST(NULL AS STRING)) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"XxXXnnn-@$#", "AqCDdddoooo", "NULL"}}},
	{name: "mask of a two-character replacement", query: `SELECT mask('ab', 'QQ') AS a`, errClass: "DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE", finding: "INPUT_SIZE_NOT_ONE", spark: "DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE"},
	{name: "exp as Java's StrictMath", query: `SELECT exp(1D) AS a, exp(2D) AS b, exp(0.5D) AS c, exp(-1D) AS d, exp(10D) AS e`,
		types: []string{"double", "double", "double", "double", "double"}, rows: [][]string{{"2.7182818284590455", "7.38905609893065", "1.6487212707001282", "0.36787944117144233", "22026.465794806718"}}},
	{name: "round and bround to tens", query: `SELECT round(525, -1) AS a, bround(525, -1) AS b, round(-525L, -2) AS c, bround(25Y, -1) AS d, round(-15, -1) AS e, bround(-15, -1) AS f`,
		types: []string{"int", "int", "bigint", "tinyint", "int", "int"}, rows: [][]string{{"530", "520", "-500", "20", "-20", "-20"}}},
	{name: "round to tens overflows", query: `SELECT round(127Y, -1) AS a`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "partial date and timestamp literals", query: `SELECT DATE '2019' AS a, DATE '2019-1-2 extra' AS b, TIMESTAMP '2019-01-01\t' AS c, TIMESTAMP '2019-1-2 3:4' AS d, DATE ' 2020-02-29 ' AS e`,
		types: []string{"date", "date", "timestamp", "timestamp", "date"}, rows: [][]string{{"2019-01-01", "2019-01-02", "2019-01-01 00:00:00", "2019-01-02 03:04:00", "2020-02-29"}}},
	{name: "to_timestamp of a year alone", query: `SELECT to_timestamp('009999', 'y') AS a, to_timestamp('1', 'y') AS b`,
		types: []string{"timestamp", "timestamp"}, rows: [][]string{{"9999-01-01 00:00:00", "0001-01-01 00:00:00"}}},
	{name: "var_pop of a group", query: `SELECT var_pop(CAST(x AS DOUBLE)) AS v FROM VALUES (100000003), (100000004), (100000006), (100000007) t(x)`,
		types: []string{"double"}, rows: [][]string{{"2.5"}}},
	{name: "TIME values", query: `SELECT TIME '01:02:03 PM' AS a, to_time('23-59-59.999999', 'HH-mm-ss.SSSSSS') AS b, make_time(1, 18, 19.87) AS c, time_trunc('MILLISECOND', TIME '12:34:56.123456') AS d, time_diff('HOUR', TIME '12:34:56', TIME '01:02:03') AS e, extract(SECOND FROM TIME '23:59:58.987654') AS f, hour(TIME '23:00:00') AS g, CAST(' 0:0:0.1234567 ' AS TIME) AS h`,
		types: []string{"time(6)", "time(6)", "time(6)", "time(6)", "bigint", "decimal(8,6)", "int", "time(6)"}, rows: [][]string{{"13:02:03", "23:59:59.999999", "01:18:19.87", "12:34:56.123", "-11", "58.987654", "23", "00:00:00.123456"}}},
	{name: "make_time out of range", query: `SELECT make_time(-1, 18, 19.87) AS a`, errClass: "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION"},
	{name: "time_trunc of an unknown unit", query: `SELECT time_trunc('MS', TIME '12:34:56') AS a`, errClass: "INVALID_PARAMETER_VALUE.TIME_UNIT"},
	{name: "TIME - TIME refused", query: `SELECT TIME '12:30:41' - TIME '10:00' AS a`, finding: "arithmetic on a TIME", spark: "0 02:30:41.000000000 (an INTERVAL HOUR TO SECOND)"},
	{name: "pipe operators", query: `VALUES (0), (1), (2) tab(col) |> SELECT col * 2 AS result |> WHERE result > 0 |> EXTEND result + 1 AS r2 |> DROP result |> ORDER BY r2 DESC |> LIMIT 1`,
		types: []string{"int"}, rows: [][]string{{"5"}}},
	{name: "pipe join", query: `VALUES (0), (1) lhs(a) |> INNER JOIN VALUES (1), (2) rhs(a) ON lhs.a = rhs.a |> SELECT lhs.a + rhs.a AS z`,
		types: []string{"int"}, rows: [][]string{{"2"}}},
	{name: "an aggregate in a pipe SELECT", query: `VALUES (1) t(x) |> SELECT sum(x) AS s`, finding: "PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION", spark: "the analysis error [PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION]"},
	{name: "row_number over an unordered window", query: `SELECT row_number() OVER (PARTITION BY x) AS r FROM VALUES (1) t(x)`, finding: "_LEGACY_ERROR_TEMP_1037", spark: "the analysis error [_LEGACY_ERROR_TEMP_1037] (its message has no class)"},
	{name: "bit_count, elt, width_bucket", query: `SELECT bit_count(-1L) AS a, bit_count(true) AS b, bit_count(CAST(3 AS TINYINT)) AS c, elt(1, '123', null) AS d, width_bucket(5.35, 0.024, 10.06, 5) AS e, width_bucket(5.35, 0.024, null, -5) AS f`,
		types: []string{"int", "int", "int", "string", "bigint", "bigint"}, rows: [][]string{{"64", "1", "2", "123", "3", "NULL"}}},
	{name: "elt out of range", query: `SELECT elt(4, '123', '456') AS a`, errClass: "INVALID_ARRAY_INDEX"},
	{name: "to_binary", query: `SELECT hex(try_to_binary('737472696E67')) AS a, try_to_binary('GG') AS b, try_to_binary('abc', 'invalidFormat') AS c, hex(to_binary('大千世界', 'utf8')) AS d, hex(to_binary('123')) AS e`,
		types: []string{"string", "binary", "binary", "string", "string"}, rows: [][]string{{"737472696E67", "NULL", "NULL", "E5A4A7E58D83E4B896E7958C", "0123"}}},
	{name: "to_binary of malformed hex", query: `SELECT to_binary('GG') AS a`, errClass: "CONVERSION_INVALID_INPUT"},
	{name: "grouping with ROLLUP", query: `SELECT a, grouping(a) AS g, sum(b) AS s FROM VALUES (1, 10), (2, 20) t(a, b) GROUP BY ROLLUP(a) ORDER BY a`,
		types: []string{"int", "tinyint", "bigint"}, rows: [][]string{{"NULL", "1", "30"}, {"1", "0", "10"}, {"2", "0", "20"}}},
	{name: "grouping without ROLLUP refused", query: `SELECT a, grouping(a) AS g FROM VALUES (1) t(a) GROUP BY a`, finding: "ROLLUP", spark: "the analysis error [UNSUPPORTED_GROUPING_EXPRESSION]"},
	{name: "hash refused", query: `SELECT hash('a') AS h`, finding: "Murmur3", spark: "1485273170"},
	{name: "rand refused", query: `SELECT rand(1) AS r`, finding: "random", spark: "0.6363787615254752 (Spark's XORShift generator seeded with 1)"},
}

func openDuck(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, m := range translate.Macros() {
		if _, err := db.Exec(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return db
}

func TestTraps(t *testing.T) {
	db := openDuck(t)
	for _, tc := range traps {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, translate.Options{TimeType: true}) // Spark with spark.sql.timeType.enabled, as TestSparkTraps sets it
			if tc.finding != "" {
				if len(r.Findings) == 0 {
					t.Fatalf("no finding; Spark gives %s, the translation %s", tc.spark, r.SQL)
				}
				if !strings.Contains(r.Findings[0].Message, tc.finding) {
					t.Fatalf("finding %q does not mention %q", r.Findings[0].Message, tc.finding)
				}
				return
			}
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s at %q", r.Findings[0].Message, tc.query[r.Findings[0].Start:r.Findings[0].End])
			}
			types, rows, err := query(db, r.SQL)
			if tc.errClass != "" {
				if err == nil {
					t.Fatalf("no error, Spark raises %s; got %v (SQL %s)", tc.errClass, rows, r.SQL)
				}
				msg, _, _ := r.Explain(err.Error())
				if !strings.HasPrefix(msg, "["+tc.errClass+"]") {
					t.Fatalf("error %q, Spark raises %s", msg, tc.errClass)
				}
				if strings.Contains(msg, "thund") || strings.Contains(msg, "LINE ") {
					t.Fatalf("the message shows internals: %q", msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, r.SQL)
			}
			if strings.Join(types, ", ") != strings.Join(tc.types, ", ") {
				t.Errorf("types %v, Spark's %v\nSQL: %s", types, tc.types, r.SQL)
			}
			want := tc.rows
			if !strings.Contains(tc.query, "ORDER BY") {
				// Without ORDER BY neither engine promises an order.
				rows, want = sorted(rows), sorted(want)
			}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Errorf("rows %v, Spark's %v\nSQL: %s", rows, want, r.SQL)
			}
		})
	}
}

// sorted returns the rows in text order.
func sorted(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}

// query runs q and returns its columns' Spark types and its rows as text.
func query(db *sql.DB, q string) ([]string, [][]string, error) {
	rs, err := db.Query(q)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	cols, err := rs.ColumnTypes()
	if err != nil {
		return nil, nil, err
	}
	types := make([]string, len(cols))
	for i, c := range cols {
		types[i] = translate.SparkType(c.DatabaseTypeName())
	}
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = text(v, types[i])
		}
		out = append(out, row)
	}
	return types, out, rs.Err()
}

// text prints a value as the trap table writes Spark's.
func text(v any, typ string) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case time.Time:
		if typ == "time(6)" {
			s := strings.TrimRight(v.UTC().Format("15:04:05.000000"), "0")
			return strings.TrimSuffix(s, ".")
		}
		if typ == "date" {
			return v.UTC().Format("2006-01-02")
		}
		return v.UTC().Format("2006-01-02 15:04:05")
	case duckdb.Decimal:
		r := new(big.Rat).SetFrac(v.Value, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil))
		return r.FloatString(int(v.Scale))
	case []any:
		elem := strings.TrimSuffix(strings.TrimPrefix(typ, "array<"), ">")
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = text(x, elem)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *big.Int:
		return v.String()
	}
	return fmt.Sprint(v)
}

// Spark reads the TIME type only with spark.sql.timeType.enabled (off by
// default on 4.1: UNSUPPORTED_TIME_TYPE), so without Options.TimeType a
// TIME literal, a cast to TIME and the TIME functions are refused.
func TestTimeTypeNeedsItsSetting(t *testing.T) {
	for _, q := range []string{`SELECT TIME '01:02:03' AS a`, `SELECT CAST('01:02' AS TIME) AS a`, `SELECT make_time(1, 2, 3) AS a`, `SELECT to_time('01:02:03') AS a`} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "spark.sql.timeType.enabled") {
			t.Errorf("%s: %+v, want the TIME setting's refusal", q, r.Findings)
		}
		if r := translate.TranslateText(q, translate.Options{TimeType: true}); len(r.Findings) != 0 {
			t.Errorf("%s with the setting: %+v", q, r.Findings)
		}
	}
}
