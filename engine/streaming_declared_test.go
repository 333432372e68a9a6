package engine

import "testing"

// TestStreamingDeclaredColumns: a streaming table's column list is its
// schema natively, as Spark 4.1.4's spark-pipelines run stores it: the
// declared order and types (a DECIMAL(8,2) widened to DECIMAL(10,2)), a
// declared column a flow does not give is NULL (the table's own query or
// an append flow alike), and a column of an append flow the list does not
// declare is not stored; every trigger writes that way, not only the one
// that creates the table.
func TestStreamingDeclaredColumns(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"a.sql": `-- @trigger: processing_time '1 second'
CREATE STREAMING TABLE st (amount DECIMAL(10,2), id BIGINT, name STRING)
AS SELECT id, name, CAST(amount AS DECIMAL(8,2)) AS amount FROM STREAM(src);

CREATE STREAMING TABLE wide (ID BIGINT, name STRING, z STRING);
-- @trigger: processing_time '1 second'
CREATE FLOW into_wide AS INSERT INTO wide BY NAME SELECT name, id FROM STREAM(src);

CREATE STREAMING TABLE own (id BIGINT, name STRING, z STRING) AS SELECT id, name FROM STREAM(src);

CREATE STREAMING TABLE narrow (id BIGINT);
CREATE FLOW into_narrow AS INSERT INTO narrow BY NAME SELECT id, name FROM STREAM(src);
`,
		"samples/src/1.csv": "id,name,amount\n1,a,10.5\n",
		"samples/src/2.csv": "id,name,amount\n2,b,20.25\n",
	})
	_, s := runOK(t, dir)
	describe := func(table string) []string {
		// One row, so the order of the columns shows.
		return rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE "+table+")")
	}
	sameRows(t, "st columns", describe("st"), []string{"amount DECIMAL(10,2); id BIGINT; name VARCHAR"})
	sameRows(t, "st", tableRows(t, s, "st"), sortedRows("10.5|1|a", "20.25|2|b"))
	sameRows(t, "wide columns", describe("wide"), []string{"ID BIGINT; name VARCHAR; z VARCHAR"})
	sameRows(t, "wide", tableRows(t, s, "wide"), sortedRows("1|a|NULL", "2|b|NULL"))
	sameRows(t, "own", tableRows(t, s, "own"), sortedRows("1|a|NULL", "2|b|NULL"))
	sameRows(t, "narrow columns", describe("narrow"), []string{"id BIGINT"})
	sameRows(t, "narrow", tableRows(t, s, "narrow"), sortedRows("1", "2"))
}
