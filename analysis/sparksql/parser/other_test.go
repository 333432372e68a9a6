package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// otherOK are statements that parse into an *ast.Other of kind with
// names as its Names.
var otherOK = []struct {
	sql   string
	kind  string
	names []string
}{
	// namespaces
	{"CREATE DATABASE IF NOT EXISTS sales COMMENT 'all of it' LOCATION '/w/sales' WITH DBPROPERTIES (owner_team = 'bi')", "CREATE NAMESPACE", []string{"sales"}},
	{"CREATE SCHEMA cat.s WITH PROPERTIES ('a' = 1)", "CREATE NAMESPACE", []string{"cat.s"}},
	{"CREATE NAMESPACE n DEFAULT COLLATION UTF8_LCASE", "CREATE NAMESPACE", []string{"n"}},
	{"ALTER DATABASE sales SET DBPROPERTIES ('k' = 'v')", "ALTER NAMESPACE", []string{"sales"}},
	{"ALTER SCHEMA sales UNSET PROPERTIES ('k')", "ALTER NAMESPACE", []string{"sales"}},
	{"ALTER NAMESPACE sales SET LOCATION '/x'", "ALTER NAMESPACE", []string{"sales"}},
	{"DROP DATABASE IF EXISTS sales CASCADE", "DROP NAMESPACE", []string{"sales"}},
	{"DROP SCHEMA sales RESTRICT", "DROP NAMESPACE", []string{"sales"}},
	{"SHOW DATABASES", "SHOW NAMESPACES", nil},
	{"SHOW SCHEMAS IN cat LIKE 's*'", "SHOW NAMESPACES", []string{"cat"}},
	// functions and variables
	{"CREATE FUNCTION f AS 'com.acme.Upper' USING JAR '/lib/u.jar', FILE '/lib/x'", "CREATE FUNCTION", []string{"f"}},
	{"CREATE OR REPLACE TEMPORARY FUNCTION f AS 'com.acme.Upper'", "CREATE FUNCTION", []string{"f"}},
	{"CREATE FUNCTION area(w DOUBLE, h DOUBLE COMMENT 'height') RETURNS DOUBLE RETURN w * h", "CREATE FUNCTION", []string{"area"}},
	{"CREATE FUNCTION rows_of(n INT DEFAULT 3) RETURNS TABLE (a INT NOT NULL, b STRING COMMENT 'x') RETURN SELECT n, 'x'", "CREATE FUNCTION", []string{"rows_of"}},
	{"CREATE FUNCTION anyrows() RETURNS TABLE RETURN SELECT 1", "CREATE FUNCTION", []string{"anyrows"}},
	{"CREATE FUNCTION g() RETURNS INT LANGUAGE SQL NOT DETERMINISTIC READS SQL DATA CALLED ON NULL INPUT SQL SECURITY DEFINER COMMENT 'c' RETURN 1", "CREATE FUNCTION", []string{"g"}},
	{"CREATE FUNCTION g() RETURN (SELECT max(a) FROM t)", "CREATE FUNCTION", []string{"g"}},
	{"CREATE FUNCTION g(x my_type) RETURNS other_type RETURN x", "CREATE FUNCTION", []string{"g"}},
	{"DROP FUNCTION IF EXISTS db.f", "DROP FUNCTION", []string{"db.f"}},
	{"DROP TEMPORARY FUNCTION f", "DROP FUNCTION", []string{"f"}},
	{"DECLARE VARIABLE v INT DEFAULT 5", "DECLARE VARIABLE", []string{"v"}},
	{"DECLARE OR REPLACE VAR v = 'a'", "DECLARE VARIABLE", []string{"v"}},
	{"DECLARE a, b STRING", "DECLARE VARIABLE", []string{"a", "b"}},
	{"DROP TEMPORARY VARIABLE IF EXISTS system.session.v", "DROP VARIABLE", []string{"system.session.v"}},
	// indexes
	{"CREATE INDEX IF NOT EXISTS idx ON TABLE t USING btree (a, b OPTIONS (k = 1)) OPTIONS (x = 'y')", "CREATE INDEX", []string{"idx", "t"}},
	{"DROP INDEX IF EXISTS idx ON t", "DROP INDEX", []string{"idx", "t"}},
	// tables and views
	{"DROP TABLE IF EXISTS cat.db.t PURGE", "DROP TABLE", []string{"cat.db.t"}},
	{"DROP VIEW v", "DROP VIEW", []string{"v"}},
	{"DROP TABLE IDENTIFIER('db.t')", "DROP TABLE", []string{"db.t"}},
	{"ALTER TABLE t ADD COLUMN c INT", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t ADD COLUMNS (c INT NOT NULL COMMENT 'x' FIRST, d STRING DEFAULT 'a' AFTER c)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t RENAME COLUMN a.b TO c", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t DROP COLUMN IF EXISTS a, b.c", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t DROP COLUMNS (a, b)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t RENAME TO db.t2", "ALTER TABLE", []string{"t", "db.t2"}},
	{"ALTER VIEW v RENAME TO v2", "ALTER VIEW", []string{"v", "v2"}},
	{"ALTER TABLE t SET TBLPROPERTIES ('a' = '1', b.c = 2, 'comment' = 'x')", "ALTER TABLE", []string{"t"}},
	{"ALTER VIEW v UNSET TBLPROPERTIES IF EXISTS ('a', 'b')", "ALTER VIEW", []string{"v"}},
	{"ALTER TABLE t ALTER COLUMN a TYPE BIGINT", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t ALTER COLUMN a COMMENT 'x', b FIRST, c AFTER a, d SET NOT NULL, e DROP NOT NULL, f SET DEFAULT 1, g DROP DEFAULT", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t ALTER column TYPE INT", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t CHANGE a TYPE INT", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t CHANGE COLUMN a a INT COMMENT 'x' FIRST", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t REPLACE COLUMNS (a INT COMMENT 'x', b STRING)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t PARTITION (p = 1) SET SERDE 'org.x.Serde' WITH SERDEPROPERTIES ('a' = 'b')", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t SET SERDEPROPERTIES ('a' = 'b')", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t ADD IF NOT EXISTS PARTITION (p = 1) LOCATION '/a' PARTITION (p = 2)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t PARTITION (p = 1) RENAME TO PARTITION (p = 2)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t DROP IF EXISTS PARTITION (p = 1), PARTITION (p = 2) PURGE", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t PARTITION (p = 1) SET LOCATION '/x'", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t RECOVER PARTITIONS", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t CLUSTER BY (a, b.c)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t CLUSTER BY NONE", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t DEFAULT COLLATION UTF8_LCASE", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES p (id) NOT ENFORCED", "ALTER TABLE", []string{"t", "p"}},
	{"ALTER TABLE t ADD CONSTRAINT positive CHECK (a > 0)", "ALTER TABLE", []string{"t"}},
	{"ALTER TABLE t DROP CONSTRAINT IF EXISTS pk CASCADE", "ALTER TABLE", []string{"t"}},
	{"ALTER VIEW v AS SELECT * FROM t", "ALTER VIEW", []string{"v"}},
	{"ALTER VIEW v SELECT 1", "ALTER VIEW", []string{"v"}},
	{"ALTER VIEW v WITH SCHEMA TYPE EVOLUTION", "ALTER VIEW", []string{"v"}},
	// SHOW
	{"SHOW TABLES", "SHOW TABLES", nil},
	{"SHOW TABLES FROM db LIKE 'a*'", "SHOW TABLES", []string{"db"}},
	{"SHOW TABLES IN db 'a*'", "SHOW TABLES", []string{"db"}},
	{"SHOW TABLE EXTENDED IN db LIKE 't*' PARTITION (p = 1)", "SHOW TABLE EXTENDED", []string{"db"}},
	{"SHOW TBLPROPERTIES t ('a.b')", "SHOW TBLPROPERTIES", []string{"t"}},
	{"SHOW TBLPROPERTIES t (a.b)", "SHOW TBLPROPERTIES", []string{"t"}},
	{"SHOW COLUMNS IN t FROM db", "SHOW COLUMNS", []string{"t", "db"}},
	{"SHOW VIEWS IN db LIKE 'v*'", "SHOW VIEWS", []string{"db"}},
	{"SHOW PARTITIONS t PARTITION (p = 1)", "SHOW PARTITIONS", []string{"t"}},
	{"SHOW FUNCTIONS", "SHOW FUNCTIONS", nil},
	{"SHOW USER FUNCTIONS LIKE 'f*'", "SHOW FUNCTIONS", nil},
	{"SHOW ALL FUNCTIONS db.f", "SHOW FUNCTIONS", []string{"db.f"}},
	{"SHOW FUNCTIONS LIKE", "SHOW FUNCTIONS", []string{"LIKE"}},
	{"SHOW PROCEDURES IN cat.db", "SHOW PROCEDURES", []string{"cat.db"}},
	{"SHOW CREATE TABLE t AS SERDE", "SHOW CREATE TABLE", []string{"t"}},
	{"SHOW CURRENT SCHEMA", "SHOW CURRENT NAMESPACE", nil},
	{"SHOW CATALOGS LIKE 'c*'", "SHOW CATALOGS", nil},
	// DESCRIBE
	{"DESCRIBE t", "DESCRIBE", []string{"t"}},
	{"DESC TABLE EXTENDED t", "DESCRIBE", []string{"t"}},
	{"DESC FORMATTED db.t PARTITION (p = 1)", "DESCRIBE", []string{"db.t"}},
	{"DESC t a.b", "DESCRIBE", []string{"t"}},
	{"DESC EXTENDED t AS JSON", "DESCRIBE", []string{"t"}},
	{"DESC TABLE", "DESCRIBE", []string{"TABLE"}},
	{"DESC EXTENDED", "DESCRIBE", []string{"EXTENDED"}},
	{"DESCRIBE QUERY", "DESCRIBE", []string{"QUERY"}},
	{"DESC FUNCTION EXTENDED upper", "DESCRIBE FUNCTION", []string{"upper"}},
	{"DESC FUNCTION 'upper'", "DESCRIBE FUNCTION", nil},
	{"DESC FUNCTION <=>", "DESCRIBE FUNCTION", nil},
	{"DESC FUNCTION EXTENDED", "DESCRIBE FUNCTION", []string{"EXTENDED"}},
	{"DESC PROCEDURE cat.p", "DESCRIBE PROCEDURE", []string{"cat.p"}},
	{"DESC DATABASE EXTENDED db", "DESCRIBE NAMESPACE", []string{"db"}},
	{"DESC QUERY SELECT 1", "DESCRIBE QUERY", nil},
	{"DESC SELECT * FROM t", "DESCRIBE QUERY", nil},
	{"DESCRIBE WITH c AS (SELECT 1) SELECT * FROM c", "DESCRIBE QUERY", nil},
	// other commands
	{"COMMENT ON TABLE t IS 'facts'", "COMMENT ON TABLE", []string{"t"}},
	{"COMMENT ON DATABASE db IS NULL", "COMMENT ON NAMESPACE", []string{"db"}},
	{"REFRESH TABLE t", "REFRESH TABLE", []string{"t"}},
	{"REFRESH FUNCTION f", "REFRESH FUNCTION", []string{"f"}},
	{"REFRESH '/path/x'", "REFRESH", nil},
	{"REFRESH /path/x", "REFRESH", nil},
	{"REFRESH TABLE", "REFRESH", nil},
	{"CACHE TABLE t", "CACHE TABLE", []string{"t"}},
	{"CACHE LAZY TABLE t OPTIONS ('storageLevel' 'DISK_ONLY') SELECT * FROM s", "CACHE TABLE", []string{"t"}},
	{"UNCACHE TABLE IF EXISTS t", "UNCACHE TABLE", []string{"t"}},
	{"CLEAR CACHE", "CLEAR CACHE", nil},
	{"LOAD DATA LOCAL INPATH '/x' OVERWRITE INTO TABLE t PARTITION (p = 1)", "LOAD DATA", []string{"t"}},
	{"TRUNCATE TABLE t PARTITION (p = 1)", "TRUNCATE TABLE", []string{"t"}},
	{"MSCK REPAIR TABLE t SYNC PARTITIONS", "REPAIR TABLE", []string{"t"}},
	{"REPAIR TABLE t", "REPAIR TABLE", []string{"t"}},
	{"ADD JAR /tmp/a.jar", "ADD JAR", nil},
	{"ADD FILES '/a' \"/b\"", "ADD FILE", nil},
	{"LIST ARCHIVES", "LIST ARCHIVE", nil},
	{"CALL cat.sys.compact(1, name => 'x')", "CALL", []string{"cat.sys.compact"}},
	{"ANALYZE TABLE t PARTITION (p) COMPUTE STATISTICS NOSCAN", "ANALYZE TABLE", []string{"t"}},
	{"ANALYZE TABLE t COMPUTE STATISTICS FOR COLUMNS a, b", "ANALYZE TABLE", []string{"t"}},
	{"ANALYZE TABLE t COMPUTE STATISTICS FOR ALL COLUMNS", "ANALYZE TABLE", []string{"t"}},
	{"ANALYZE TABLES IN db COMPUTE STATISTICS", "ANALYZE TABLES", []string{"db"}},
	{"EXPLAIN SELECT 1", "EXPLAIN", nil},
	{"EXPLAIN FORMATTED INSERT INTO t SELECT 1", "EXPLAIN", nil},
	{"EXPLAIN CODEGEN SET a = b", "EXPLAIN", nil},
	{"EXECUTE IMMEDIATE 'SELECT ?' INTO a, b USING 1, 2 AS x", "EXECUTE IMMEDIATE", []string{"a", "b"}},
	{"EXECUTE IMMEDIATE stmt USING (1 AS a, 2 AS b)", "EXECUTE IMMEDIATE", nil},
	// DML
	{"DELETE FROM db.t AS x WHERE x.a = 1", "DELETE FROM", []string{"db.t"}},
	{"UPDATE t SET a = 1, b.c = a + 1 WHERE d", "UPDATE", []string{"t"}},
	{"UPDATE t x SET a = 1", "UPDATE", []string{"t"}},
	{"UPDATE t SET SET a = 1", "UPDATE", []string{"t"}},
	{"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *", "MERGE INTO", []string{"t", "s"}},
	{"MERGE WITH SCHEMA EVOLUTION INTO t AS tg USING (SELECT * FROM s) AS src ON tg.id = src.id " +
		"WHEN MATCHED AND src.gone THEN DELETE WHEN MATCHED THEN UPDATE SET tg.v = src.v " +
		"WHEN NOT MATCHED BY TARGET AND src.v > 0 THEN INSERT (id, v) VALUES (src.id, src.v) " +
		"WHEN NOT MATCHED BY SOURCE THEN DELETE", "MERGE INTO", []string{"t"}},
	{"WITH c AS (SELECT 1 AS id) MERGE INTO t USING c ON t.id = c.id WHEN MATCHED THEN DELETE", "MERGE INTO", []string{"t", "c"}},
	// scripts
	{"BEGIN END", "BEGIN", nil},
	{"BEGIN NOT ATOMIC DECLARE x INT DEFAULT 0; SET x = x + 1; SELECT x; END;", "BEGIN", nil},
}

func TestOtherStatements(t *testing.T) {
	for _, tc := range otherOK {
		st, errs := ParseStatement(tc.sql, Options{})
		if len(errs) > 0 {
			t.Errorf("%s: %v (at %d, %s)", tc.sql, errs[0], errs[0].Start, errs[0].Class)
			continue
		}
		o, ok := st.(*ast.Other)
		if !ok {
			t.Errorf("%s: got %T, want *ast.Other", tc.sql, st)
			continue
		}
		if o.Kind != tc.kind {
			t.Errorf("%s: Kind %q, want %q", tc.sql, o.Kind, tc.kind)
		}
		var names []string
		for _, n := range o.Names {
			names = append(names, n.String())
		}
		if !reflect.DeepEqual(names, tc.names) {
			t.Errorf("%s: Names %q, want %q", tc.sql, names, tc.names)
		}
		want := len(strings.TrimRight(tc.sql, "; "))
		if o.Start != 0 || o.End != want {
			t.Errorf("%s: Range %v, want {0 %d}", tc.sql, o.Range, want)
		}
		checkInside(t, tc.sql, o)
	}
}

// checkInside checks that every part of o lies inside it and that each
// name's range holds the name.
func checkInside(t *testing.T, sql string, o *ast.Other) {
	t.Helper()
	in := func(what string, r ast.Range) {
		if r.Start < o.Start || r.End > o.End || r.Start > r.End {
			t.Errorf("%s: %s range %v outside the statement %v", sql, what, r, o.Range)
		}
	}
	for _, n := range o.Names {
		in("name "+n.String(), n.Range)
		if len(n.Parts) == 1 && !strings.Contains(strings.ToUpper(sql[n.Start:n.End]), "IDENTIFIER") &&
			!strings.EqualFold(sql[n.Start:n.End], n.Parts[0].Name) && sql[n.Start] != '`' {
			t.Errorf("%s: name %q covers %q", sql, n.String(), sql[n.Start:n.End])
		}
	}
	for _, x := range o.Exprs {
		in("expression", x.Span())
	}
	for _, q := range o.Queries {
		in("query", q.Range)
	}
	for _, s := range o.Stmts {
		in("statement", s.Span())
		if n, ok := s.(*ast.Other); ok {
			checkInside(t, sql, n)
		}
	}
}

// otherErr are statements Spark refuses: the error's class and the text
// where it starts ("" for the statement's start, "$" for its end).
var otherErr = []struct {
	sql, class, at string
}{
	// syntax errors
	{"DROP VARIABLE v", "PARSE_SYNTAX_ERROR", "VARIABLE"},
	{"DROP TABLE", "PARSE_SYNTAX_ERROR", "$"},
	{"SHOW COLUMNS t", "PARSE_SYNTAX_ERROR", "t"},
	{"SHOW TABLE EXTENDED", "PARSE_SYNTAX_ERROR", "$"},
	{"COMMENT ON VIEW v IS 'x'", "PARSE_SYNTAX_ERROR", "VIEW"},
	{"ALTER TABLE t FOO", "PARSE_SYNTAX_ERROR", "FOO"},
	{"ALTER TABLE a.b.c TOUCH", "PARSE_SYNTAX_ERROR", "TOUCH"},
	{"ALTER VIEW v ALTER COLUMN a TYPE INT", "PARSE_SYNTAX_ERROR", "ALTER COLUMN"},
	{"EXECUTE IMMEDIATE 'x' INTO (a, b)", "PARSE_SYNTAX_ERROR", "(a"},
	{"MERGE INTO t USING s ON a = b WHEN NOT MATCHED THEN INSERT * WHEN MATCHED THEN DELETE", "PARSE_SYNTAX_ERROR", "WHEN MATCHED"},
	{"MERGE INTO t USING s ON a = b WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *", "PARSE_SYNTAX_ERROR", "*"},
	{"CREATE FUNCTION f() RETURNS TABLE () RETURN SELECT 1", "PARSE_SYNTAX_ERROR", ") RETURN SELECT"},
	{"CREATE FUNCTION f() RETURNS TABLE (a INT DEFAULT 1) RETURN SELECT 1", "PARSE_SYNTAX_ERROR", "DEFAULT"},
	{"DECLARE VARIABLE IF NOT EXISTS v INT", "PARSE_SYNTAX_ERROR", "EXISTS"},
	{"EXPLAIN BEGIN SELECT 1; END", "PARSE_SYNTAX_ERROR", "BEGIN"},
	{"FOO BAR", "PARSE_SYNTAX_ERROR", ""},
	{"IF 1 = 1 THEN SELECT 1; END IF", "PARSE_SYNTAX_ERROR", ""},
	{"lbl: BEGIN SELECT 1; END", "PARSE_SYNTAX_ERROR", ""},
	{"BEGIN SELECT 1 END", "PARSE_SYNTAX_ERROR", "END"},
	{"BEGIN SET VAR x = 1; END", "PARSE_SYNTAX_ERROR", "x ="},
	{"BEGIN RESET; END", "PARSE_SYNTAX_ERROR", "RESET"},
	{"BEGIN IF x THEN END IF; END", "PARSE_SYNTAX_ERROR", "END IF"},
	{"BEGIN WHILE x DO SELECT 1; END LOOP; END", "PARSE_SYNTAX_ERROR", "LOOP"},
	{"BEGIN END lbl", "PARSE_SYNTAX_ERROR", "lbl"},
	// a syntax error wins over Spark's later refusals
	{"CREATE TEMPORARY FUNCTION db.f AS 'x' garbage", "PARSE_SYNTAX_ERROR", "garbage"},
	// the Hive commands Spark refuses
	{"CREATE ROLE admin", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"GRANT SELECT ON t TO u", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"SHOW CURRENT ROLES", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"SHOW CREATE TABLE t garbage", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"CREATE INDEX i ON t", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"DROP INDEX i", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER INDEX i ON t REBUILD", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER TABLE db.t CLUSTERED BY (a) INTO 4 BUCKETS", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER TABLE t PARTITION (p = 1) COMPACT 'major'", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER TABLE t REPLACE COLUMNS a INT", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"LOCK TABLE t", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"START TRANSACTION", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"COMMIT", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"DFS -ls /", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"CREATE TEMPORARY MACRO m(x INT) x + 1", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER VIEW v ADD PARTITION (p = 1)", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER VIEW v DROP IF EXISTS PARTITION (p = 1), PARTITION (p = 2) PURGE", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"ALTER TABLE t PARTITION (p = 1) CHANGE a a INT", "INVALID_STATEMENT_OR_CLAUSE", ""},
	{"EXPLAIN LOGICAL SELECT 1", "INVALID_STATEMENT_OR_CLAUSE", "LOGICAL"},
	// the refusals of Spark's plan builder
	{"CREATE SCHEMA s COMMENT 'a' COMMENT 'b'", "DUPLICATE_CLAUSES", "COMMENT 'b'"},
	{"CREATE NAMESPACE n WITH PROPERTIES (a = 1) WITH DBPROPERTIES (b = 2)", "UNSUPPORTED_FEATURE.SET_PROPERTIES_AND_DBPROPERTIES", "WITH DB"},
	{"CREATE NAMESPACE n WITH PROPERTIES ('location' = '/x')", "UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY", "'location'"},
	{"CREATE NAMESPACE n WITH PROPERTIES (a)", "_LEGACY_ERROR_TEMP_0035", "(a)"},
	{"CREATE NAMESPACE n WITH PROPERTIES (a = 1, a = 2)", "DUPLICATE_KEY", "(a"},
	{"CREATE NAMESPACE IF ! EXISTS n", "SYNTAX_DISCONTINUED.BANG_EQUALS_NOT", "!"},
	{"CREATE TEMPORARY FUNCTION db.f AS 'x'", "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_DATABASE", "db.f"},
	{"CREATE TEMPORARY FUNCTION a.b.f AS 'x'", "INVALID_SQL_SYNTAX.MULTI_PART_NAME", "a.b.f"},
	{"CREATE TEMPORARY FUNCTION IDENTIFIER('db' || '.f') AS 'x'", "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_DATABASE", "IDENTIFIER"},
	{"CREATE TEMPORARY FUNCTION IF NOT EXISTS f AS 'x'", "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_IF_NOT_EXISTS", ""},
	{"CREATE FUNCTION f AS 'x' USING ZIP 'a'", "_LEGACY_ERROR_TEMP_0035", "ZIP"},
	{"CREATE OR REPLACE FUNCTION IF NOT EXISTS f AS 'x'", "INVALID_SQL_SYNTAX.CREATE_ROUTINE_WITH_IF_NOT_EXISTS_AND_REPLACE", ""},
	{"CREATE FUNCTION f(x INT, y INT GENERATED ALWAYS AS (x + 1)) RETURN y", "INVALID_SQL_SYNTAX.CREATE_FUNC_WITH_GENERATED_COLUMNS_AS_PARAMETERS", "GENERATED"},
	{"CREATE FUNCTION f(x INT CHECK (x > 0)) RETURN x", "INVALID_SQL_SYNTAX.CREATE_FUNC_WITH_COLUMN_CONSTRAINTS", "CHECK"},
	{"CREATE FUNCTION f() RETURNS INT LANGUAGE PYTHON RETURN 1", "_LEGACY_ERROR_TEMP_0035", "LANGUAGE"},
	{"CREATE FUNCTION f() RETURNS INT SQL SECURITY INVOKER RETURN 1", "_LEGACY_ERROR_TEMP_0035", "SQL SECURITY"},
	{"CREATE FUNCTION f() RETURNS NULL ON NULL INPUT RETURN 1", "_LEGACY_ERROR_TEMP_0035", "RETURNS"},
	{"CREATE FUNCTION f() MODIFIES SQL DATA RETURN 1", "_LEGACY_ERROR_TEMP_0035", "MODIFIES"},
	{"CREATE FUNCTION f() COMMENT 'a' COMMENT 'b' RETURN 1", "DUPLICATE_CLAUSES", "COMMENT 'b'"},
	{"DROP TEMPORARY FUNCTION db.f", "INVALID_SQL_SYNTAX.MULTI_PART_NAME", "db.f"},
	{"DECLARE v", "INVALID_SQL_SYNTAX.VARIABLE_TYPE_OR_DEFAULT_REQUIRED", "v"},
	{"DECLARE v FOO", "UNSUPPORTED_DATATYPE", "FOO"},
	{"ALTER TABLE t ADD COLUMNS c INT COMMENT 'a' COMMENT 'b'", "ALTER_TABLE_COLUMN_DESCRIPTOR_DUPLICATE", "COMMENT 'b'"},
	{"ALTER TABLE t SET TBLPROPERTIES ('provider' = 'x')", "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY", "'provider'"},
	{"ALTER VIEW v UNSET TBLPROPERTIES ('a' = 1)", "_LEGACY_ERROR_TEMP_0035", "('a'"},
	{"ALTER TABLE t CHANGE a", "_LEGACY_ERROR_TEMP_0035", ""},
	{"ALTER TABLE t ALTER COLUMN a", "_LEGACY_ERROR_TEMP_0035", ""},
	{"ALTER TABLE t CHANGE a b INT", "_LEGACY_ERROR_TEMP_0034", "CHANGE"},
	{"ALTER TABLE t REPLACE COLUMNS (a INT NOT NULL)", "_LEGACY_ERROR_TEMP_0034", "NOT NULL"},
	{"ALTER TABLE t PARTITION (p) SET LOCATION '/x'", "INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE", "PARTITION"},
	{"TRUNCATE TABLE t PARTITION (p = 1, P = 2)", "DUPLICATE_KEY", "PARTITION"},
	{"TRUNCATE TABLE t PARTITION (p = DEFAULT)", "REF_DEFAULT_VALUE_IS_NOT_ALLOWED_IN_PARTITION", "PARTITION"},
	{"SHOW TABLE EXTENDED LIKE 't' PARTITION (p)", "INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE", "PARTITION"},
	{"SHOW FUNCTIONS IN db f", "INVALID_SQL_SYNTAX.SHOW_FUNCTIONS_INVALID_PATTERN", "f"},
	{"SHOW BAD FUNCTIONS", "INVALID_SQL_SYNTAX.SHOW_FUNCTIONS_INVALID_SCOPE", "BAD"},
	{"DESC t AS JSON", "DESCRIBE_JSON_NOT_EXTENDED", ""},
	{"DESC EXTENDED t col AS JSON", "UNSUPPORTED_FEATURE.DESC_TABLE_COLUMN_JSON", "col"},
	{"DESC t PARTITION (p = 1) c", "UNSUPPORTED_FEATURE.DESC_TABLE_COLUMN_PARTITION", "PARTITION"},
	{"DESC t PARTITION (p)", "INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE", "PARTITION"},
	{"REFRESH", "_LEGACY_ERROR_TEMP_0064", ""},
	{"REFRESH /a b", "_LEGACY_ERROR_TEMP_0064", "/a"},
	{"CACHE TABLE db.t AS SELECT 1", "_LEGACY_ERROR_TEMP_0037", "db.t"},
	{"ADD STUFF x", "_LEGACY_ERROR_TEMP_0035", "STUFF"},
	{"ANALYZE TABLE t COMPUTE STATISTICS FOO", "INVALID_SQL_SYNTAX.ANALYZE_TABLE_UNEXPECTED_NOSCAN", "FOO"},
	{"EXECUTE IMMEDIATE 'x' USING 1 AS a, 2 AS a", "EXEC_IMMEDIATE_DUPLICATE_ARGUMENT_ALIASES", ""},
	{"DELETE FROM t x(a)", "COLUMN_ALIASES_NOT_ALLOWED", "x(a)"},
	{"MERGE INTO t USING s ON a = b", "MERGE_WITHOUT_WHEN", ""},
	{"MERGE INTO t USING s ON a = b WHEN MATCHED THEN DELETE WHEN MATCHED THEN DELETE", "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION", ""},
	{"MERGE INTO t USING s ON a = b WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)", "_LEGACY_ERROR_TEMP_0006", "WHEN"},
	// scripts
	{"BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND SELECT 1; END", "UNSUPPORTED_FEATURE.CONTINUE_EXCEPTION_HANDLER", "CONTINUE"},
	{"BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION, c SELECT 1; END", "INVALID_HANDLER_DECLARATION.INVALID_CONDITION_COMBINATION", "DECLARE"},
	{"BEGIN DECLARE EXIT HANDLER FOR c, C SELECT 1; END", "INVALID_HANDLER_DECLARATION.DUPLICATE_CONDITION_IN_HANDLER_DECLARATION", "C SELECT"},
	{"BEGIN DECLARE c CONDITION FOR SQLSTATE '00000'; END", "INVALID_SQLSTATE", "'00000'"},
	{"BEGIN DECLARE c CONDITION; DECLARE c CONDITION; END", "DUPLICATE_CONDITION_IN_SCOPE", "DECLARE c CONDITION; END"},
	{"BEGIN DECLARE `a b` CONDITION; END", "INVALID_ERROR_CONDITION_DECLARATION.SPECIAL_CHARACTER_FOUND", "`a b`"},
	{"BEGIN SELECT 1; DECLARE x INT; END", "INVALID_VARIABLE_DECLARATION.ONLY_AT_BEGINNING", "DECLARE"},
	{"BEGIN IF 1 = 1 THEN DECLARE x INT; END IF; END", "INVALID_VARIABLE_DECLARATION.NOT_ALLOWED_IN_SCOPE", "DECLARE"},
	{"BEGIN SELECT 1; DECLARE c CONDITION; END", "INVALID_ERROR_CONDITION_DECLARATION.NOT_AT_START_OF_COMPOUND_STATEMENT", "DECLARE"},
	{"BEGIN SELECT 1; DECLARE EXIT HANDLER FOR SQLEXCEPTION SELECT 2; END", "INVALID_HANDLER_DECLARATION.WRONG_PLACE_OF_DECLARATION", "DECLARE"},
	{"BEGIN a: BEGIN SELECT 1; END b; END", "LABELS_MISMATCH", "b;"},
	{"BEGIN BEGIN SELECT 1; END b; END", "END_LABEL_WITHOUT_BEGIN_LABEL", "b;"},
	{"BEGIN a: BEGIN a: LOOP LEAVE a; END LOOP; END; END", "LABEL_OR_FOR_VARIABLE_ALREADY_EXISTS", "a: LOOP"},
	{"BEGIN x: BEGIN FOR x AS SELECT 1 AS c DO SELECT 1; END FOR; END; END", "LABEL_OR_FOR_VARIABLE_ALREADY_EXISTS", "x AS"},
	{"BEGIN sys_l: BEGIN SELECT 1; END; END", "LABEL_OR_FOR_VARIABLE_NAME_FORBIDDEN", "sys_l"},
	{"BEGIN LEAVE nope; END", "INVALID_LABEL_USAGE.DOES_NOT_EXIST", "nope"},
	{"BEGIN a: BEGIN ITERATE a; END; END", "INVALID_LABEL_USAGE.ITERATE_IN_COMPOUND", "a;"},
	// Spark visits a script in text order: the first refusal is reported
	{"BEGIN a: BEGIN LEAVE nope; END b; END", "LABELS_MISMATCH", "b;"},
	{"BEGIN LEAVE nope; SELECT 1; DECLARE x INT; END", "INVALID_LABEL_USAGE.DOES_NOT_EXIST", "nope"},
	{"BEGIN DROP TEMPORARY FUNCTION a.b; LEAVE nope; END", "INVALID_SQL_SYNTAX.MULTI_PART_NAME", "a.b"},
}

func TestOtherErrors(t *testing.T) {
	for _, tc := range otherErr {
		_, errs := ParseStatement(tc.sql, Options{})
		if len(errs) == 0 {
			t.Errorf("%s: parses, want %s", tc.sql, tc.class)
			continue
		}
		e := errs[0]
		at := 0
		if tc.at == "$" {
			at = len(tc.sql)
		} else if tc.at != "" {
			at = strings.Index(tc.sql, tc.at)
			if at < 0 {
				t.Fatalf("%s: %q is not in the statement", tc.sql, tc.at)
			}
		}
		if e.Class != tc.class || e.Start != at {
			t.Errorf("%s: %s at %d (%s), want %s at %d", tc.sql, e.Class, e.Start, e.Message, tc.class, at)
		}
		if e.Message == "" || e.End < e.Start || e.End > len(tc.sql) {
			t.Errorf("%s: error %+v has no message or a bad range", tc.sql, e)
		}
	}
}

// kinds lists the kinds of o's nested statements, depth first.
func kinds(st ast.Stmt) []string {
	o, ok := st.(*ast.Other)
	if !ok {
		switch s := st.(type) {
		case *ast.Set:
			return []string{"SET " + s.Kind}
		case *ast.QueryStmt:
			return []string{"query"}
		}
		return []string{"other"}
	}
	out := []string{o.Kind}
	for _, s := range o.Stmts {
		out = append(out, kinds(s)...)
	}
	return out
}

func TestOtherScripts(t *testing.T) {
	tests := []struct {
		sql   string
		kinds []string
	}{
		{"BEGIN DECLARE x INT; IF x > 1 THEN SELECT 1; ELSEIF x < 0 THEN SELECT 2; ELSE VALUES (3); END IF; END",
			[]string{"BEGIN", "DECLARE VARIABLE", "IF", "query", "query", "query"}},
		{"BEGIN CASE WHEN 1 = 1 THEN SELECT 1; ELSE SELECT 2; END CASE; END", []string{"BEGIN", "CASE", "query", "query"}},
		{"BEGIN CASE x WHEN 1 THEN SELECT 1; WHEN 2 THEN SELECT 2; END CASE; END", []string{"BEGIN", "CASE", "query", "query"}},
		{"BEGIN lbl: WHILE x < 10 DO SET x = x + 1; ITERATE lbl; END WHILE lbl; END", []string{"BEGIN", "WHILE", "SET VAR", "ITERATE"}},
		{"BEGIN REPEAT SET x = x + 1; UNTIL x > 3 END REPEAT; END", []string{"BEGIN", "REPEAT", "SET VAR"}},
		{"BEGIN l: LOOP LEAVE l; END LOOP l; END", []string{"BEGIN", "LOOP", "LEAVE"}},
		{"BEGIN FOR r AS SELECT * FROM t DO SELECT r.a; END FOR; END", []string{"BEGIN", "FOR", "query"}},
		{"BEGIN f: FOR SELECT a FROM t do_it DO SELECT 1; END FOR f; END", []string{"BEGIN", "FOR", "query"}},
		{"BEGIN DECLARE c CONDITION FOR SQLSTATE '45001'; DECLARE EXIT HANDLER FOR c, SQLSTATE '22012' BEGIN SELECT 1; END; SELECT 1 / 0; END",
			[]string{"BEGIN", "DECLARE CONDITION", "DECLARE HANDLER", "BEGIN", "query", "query"}},
		{"BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION SET x = 1; SELECT 1; END", []string{"BEGIN", "DECLARE HANDLER", "SET VAR", "query"}},
		{"BEGIN DECLARE EXIT HANDLER FOR DIVIDE_BY_ZERO h: BEGIN LEAVE h; END; SELECT 1; END", []string{"BEGIN", "DECLARE HANDLER", "BEGIN", "LEAVE", "query"}},
		{"BEGIN SET (a, b) = (SELECT 1, 2); SET CATALOG c; USE db; END", []string{"BEGIN", "SET VAR", "SET CATALOG", "other"}},
		{"BEGIN EXPLAIN SELECT 1; DROP TABLE t; CREATE TABLE t (a INT); INSERT INTO t VALUES (1); MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE; END",
			[]string{"BEGIN", "EXPLAIN", "query", "DROP TABLE", "other", "other", "MERGE INTO"}},
		{"BEGIN a: BEGIN b: BEGIN LEAVE a; END b; END a; END", []string{"BEGIN", "BEGIN", "BEGIN", "LEAVE"}},
		{"BEGIN a: BEGIN SELECT 1; END; a: BEGIN SELECT 2; END; END", []string{"BEGIN", "BEGIN", "query", "BEGIN", "query"}},
	}
	for _, tc := range tests {
		st, errs := ParseStatement(tc.sql, Options{})
		if len(errs) > 0 {
			t.Errorf("%s: %v (at %d, %s)", tc.sql, errs[0], errs[0].Start, errs[0].Class)
			continue
		}
		if got := kinds(st); !reflect.DeepEqual(got, tc.kinds) {
			t.Errorf("%s: %q, want %q", tc.sql, got, tc.kinds)
		}
		checkInside(t, tc.sql, st.(*ast.Other))
	}
}

func TestOtherParts(t *testing.T) {
	st, errs := ParseStatement("WITH c AS (SELECT 1 AS id) DELETE FROM t WHERE id IN (SELECT id FROM c)", Options{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	o := st.(*ast.Other)
	if o.Kind != "DELETE FROM" || len(o.Queries) != 1 || len(o.Exprs) != 1 || o.Start != 0 {
		t.Errorf("WITH ... DELETE: %+v", o)
	}

	st, errs = ParseStatement("UPDATE t SET a = b + 1 WHERE c", Options{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	o = st.(*ast.Other)
	if len(o.Exprs) != 3 {
		t.Fatalf("UPDATE: %d expressions, want 3", len(o.Exprs))
	}
	if col, ok := o.Exprs[0].(*ast.Column); !ok || col.Parts[0].Name != "a" {
		t.Errorf("UPDATE: first expression %#v, want the column a", o.Exprs[0])
	}

	st, errs = ParseStatement("EXPLAIN EXTENDED SELECT * FROM t", Options{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if o = st.(*ast.Other); len(o.Stmts) != 1 {
		t.Fatalf("EXPLAIN: %d statements", len(o.Stmts))
	}
	if _, ok := o.Stmts[0].(*ast.QueryStmt); !ok {
		t.Errorf("EXPLAIN: nested %T", o.Stmts[0])
	}

	st, errs = ParseStatement("CACHE TABLE c AS SELECT * FROM t", Options{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if o = st.(*ast.Other); len(o.Queries) != 1 || o.Queries[0].Start != strings.Index("CACHE TABLE c AS SELECT * FROM t", "SELECT") {
		t.Errorf("CACHE TABLE: %+v", o.Queries)
	}
}

func TestOtherInScripts(t *testing.T) {
	src := "DROP TABLE a; SHOW TABLES;\nBEGIN\n  SELECT 1;\nEND;\nALTER TABLE t; DESC t"
	sc := Parse(src, Options{})
	if len(sc.Stmts) != 5 {
		t.Fatalf("%d statements, want 5", len(sc.Stmts))
	}
	if len(sc.Errors) != 1 || sc.Errors[0].Start != strings.Index(src, "; DESC") {
		t.Fatalf("errors %v, want one at ALTER TABLE t's end", sc.Errors)
	}
	if o, ok := sc.Stmts[4].(*ast.Other); !ok || o.Kind != "DESCRIBE" {
		t.Errorf("the statement after the broken one: %#v", sc.Stmts[4])
	}
	if o, ok := sc.Stmts[2].(*ast.Other); !ok || o.Kind != "BEGIN" || len(o.Stmts) != 1 {
		t.Errorf("the script: %#v", sc.Stmts[2])
	}
}

func TestOtherANSI(t *testing.T) {
	if _, errs := ParseStatement("DROP TABLE select", Options{}); len(errs) > 0 {
		t.Errorf("default keywords: %v", errs[0])
	}
	_, errs := ParseStatement("DROP TABLE select", Options{ANSI: true})
	if len(errs) == 0 || errs[0].Start != 11 {
		t.Errorf("ANSI keywords: %v, want an error at select", errs)
	}
	if _, errs := ParseStatement(`DROP TABLE "t"`, Options{}); len(errs) == 0 {
		t.Errorf(`DROP TABLE "t" parses with double-quoted strings`)
	}
	if _, errs := ParseStatement(`DROP TABLE "t"`, Options{DoubleQuotedIdentifiers: true}); len(errs) > 0 {
		t.Errorf(`DROP TABLE "t" with double-quoted identifiers: %v`, errs[0])
	}
}

func TestOtherEdges(t *testing.T) {
	// FOR's query may end in an alias spelt like DO
	src := "BEGIN f: FOR r AS SELECT a FROM t do DO SELECT 1; END FOR f; END"
	st, errs := ParseStatement(src, Options{})
	if len(errs) > 0 {
		t.Fatalf("FOR ... do DO: %v", errs[0])
	}
	loop := st.(*ast.Other).Stmts[0].(*ast.Other)
	if q := loop.Queries; loop.Kind != "FOR" || len(q) != 1 || !strings.HasSuffix(src[q[0].Start:q[0].End], "t do") {
		t.Errorf("FOR ... do DO: %+v", loop)
	}
	// an unknown SHOW is refused at the word, not at the end
	_, errs = ParseStatement("SHOW NOTHING", Options{})
	if len(errs) != 1 || errs[0].Start != 5 {
		t.Errorf("SHOW NOTHING: %v", errs)
	}
	// a long script is not "too complex"
	var b strings.Builder
	b.WriteString("BEGIN\n")
	for i := 0; i < 25000; i++ {
		b.WriteString("  DESC QUERY SELECT 1;\n")
	}
	b.WriteString("END")
	if _, errs := ParseStatement(b.String(), Options{}); len(errs) > 0 {
		t.Errorf("long script: %v", errs[0])
	}
}

func TestSetRoleRefused(t *testing.T) {
	_, errs := ParseStatement("SET ROLE admin", Options{})
	if len(errs) != 1 || errs[0].Class != "INVALID_STATEMENT_OR_CLAUSE" {
		t.Errorf("SET ROLE: %v, want INVALID_STATEMENT_OR_CLAUSE as for Spark's other Hive commands", errs)
	}
}
