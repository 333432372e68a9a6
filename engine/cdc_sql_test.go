package engine

import "testing"

// TestCDCSQLForms runs Databricks' APPLY CHANGES INTO and AUTO CDC on the
// native CDC engine: COLUMNS * EXCEPT leaves the operation and sequence
// columns out, APPLY AS DELETE WHEN with a Spark "..." string deletes,
// SCD 2 versions carry __START_AT and __END_AT, and IGNORE NULL UPDATES
// keeps a stored value where a change has NULL (SCD 1).
func TestCDCSQLForms(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE cur;
APPLY CHANGES INTO LIVE.cur FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = "DELETE" SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE keep;
CREATE FLOW keep_cdc AS AUTO CDC INTO keep FROM STREAM(changes) KEYS (id)
SEQUENCE BY seq COLUMNS (id, v, w, seq) IGNORE NULL UPDATES;

CREATE OR REFRESH STREAMING TABLE hist;
CREATE FLOW hist_cdc AS AUTO CDC INTO hist FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = "DELETE" SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2;
`,
		"samples/changes/1.csv": "id,v,w,op,seq\n1,a,x,INSERT,1\n2,b,y,INSERT,2\n3,c,z,INSERT,3\n",
		"samples/changes/2.csv": "id,v,w,op,seq\n1,,x2,UPDATE,4\n2,b,y,DELETE,5\n3,c2,,UPDATE,6\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("1|NULL|x2|4", "3|c2|NULL|6"))
	sameRows(t, "cur columns", rowsOf(t, s, "SELECT column_name FROM (DESCRIBE cur)"), sortedRows("id", "v", "w", "seq"))
	// IGNORE NULL UPDATES: 1 keeps a, 3 keeps z; no delete predicate, so
	// the DELETE row of 2 is an update (op is not a column here).
	sameRows(t, "keep", tableRows(t, s, "keep"), sortedRows("1|a|x2|4", "2|b|y|5", "3|c2|z|6"))
	sameRows(t, "hist", tableRows(t, s, "hist"), sortedRows(
		"1|a|x|1|4", "1|NULL|x2|4|NULL", "2|b|y|2|5", "3|c|z|3|6", "3|c2|NULL|6|NULL"))
	sameRows(t, "hist columns", rowsOf(t, s, "SELECT column_name FROM (DESCRIBE hist)"), sortedRows("id", "v", "w", "__START_AT", "__END_AT"))
}

// TestCDCIgnoreNullUpdatesAcrossTriggers: with one trigger per batch, a
// NULL keeps the value stored by an earlier trigger, but not one from
// before a delete of the key.
func TestCDCIgnoreNullUpdatesAcrossTriggers(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE STREAMING TABLE keep;
-- @trigger: processing_time '1 second'
CREATE FLOW keep_cdc AS AUTO CDC INTO keep FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op) IGNORE NULL UPDATES;
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,INSERT,1\n2,b,INSERT,2\n",
		"samples/changes/2.csv": "id,v,op,seq\n1,,UPDATE,3\n2,,DELETE,4\n",
		"samples/changes/3.csv": "id,v,op,seq\n2,,INSERT,5\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "keep", tableRows(t, s, "keep"), sortedRows("1|a|3", "2|NULL|5"))
}

// TestCDCTrackHistory: with TRACK HISTORY ON * EXCEPT (w), a change of w
// alone updates the open version in place; a change of v opens a new
// one; a delete closes the version and a later insert opens another.
func TestCDCTrackHistory(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE STREAMING TABLE hist;
CREATE FLOW hist_cdc AS AUTO CDC INTO hist FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op)
STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (w);
CREATE STREAMING TABLE tracked;
CREATE FLOW tracked_cdc AS AUTO CDC INTO tracked FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS (id, v, w)
STORED AS SCD TYPE 2 TRACK HISTORY ON (v);
`,
		"samples/changes/1.csv": "id,v,w,op,seq\n1,a,x,INSERT,1\n1,a,y,UPDATE,2\n1,b,y,UPDATE,3\n2,c,x,INSERT,1\n",
		"samples/changes/2.csv": "id,v,w,op,seq\n1,b,z,UPDATE,4\n2,c,x,DELETE,5\n2,c,q,INSERT,6\n",
	})
	_, s := runOK(t, dir)
	// seq is tracked in hist (only w is not): each change of seq is a
	// version, so tracking needs the sequence left out, as in tracked.
	sameRows(t, "hist", tableRows(t, s, "hist"), sortedRows(
		"1|a|x|1|1|2", "1|a|y|2|2|3", "1|b|y|3|3|4", "1|b|z|4|4|NULL", "2|c|x|1|1|5", "2|c|q|6|6|NULL"))
	sameRows(t, "tracked", tableRows(t, s, "tracked"), sortedRows(
		"1|a|y|1|3", "1|b|z|3|NULL", "2|c|x|1|5", "2|c|q|6|NULL"))
}

// TestCDCTruncateWhen: APPLY AS TRUNCATE WHEN empties the target of the
// rows written before the truncation, in a later trigger as in the same
// one; changes after it are applied.
func TestCDCTruncateWhen(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE STREAMING TABLE cur;
-- @trigger: processing_time '1 second'
CREATE FLOW cur_cdc AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = "DELETE" APPLY AS TRUNCATE WHEN op = "TRUNCATE"
SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,INSERT,1\n2,b,INSERT,2\n",
		"samples/changes/2.csv": "id,v,op,seq\n3,c,INSERT,3\n0,,TRUNCATE,4\n4,d,INSERT,5\n",
		"samples/changes/3.csv": "id,v,op,seq\n1,late,UPDATE,2\n5,e,INSERT,6\n",
	})
	_, s := runOK(t, dir)
	// 1 and 2 (stored) and 3 (same trigger) are truncated; 1's late
	// change is older than the truncation.
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("4|d|5", "5|e|6"))
}

// TestCDCDeclaredTarget: a CDC target's declared column list is its
// schema natively, as for any streaming table: the declared order and
// types first (NULL for a declared column the changes lack), SCD 2's
// __START_AT and __END_AT after them.
func TestCDCDeclaredTarget(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE cur (seq BIGINT, id INT, v STRING, note STRING);
CREATE FLOW cur_cdc AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;
CREATE OR REFRESH STREAMING TABLE hist (v STRING, id BIGINT);
CREATE FLOW hist_cdc AS AUTO CDC INTO hist FROM STREAM(changes) KEYS (id) SEQUENCE BY seq COLUMNS (id, v) STORED AS SCD TYPE 2;
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,INSERT,1\n2,b,INSERT,2\n",
		"samples/changes/2.csv": "id,v,op,seq\n1,c,UPDATE,3\n",
	})
	_, s := runOK(t, dir)
	describe := func(table string) []string {
		return rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE "+table+")")
	}
	sameRows(t, "cur columns", describe("cur"), []string{"seq BIGINT; id INTEGER; v VARCHAR; note VARCHAR"})
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("2|2|b|NULL", "3|1|c|NULL"))
	sameRows(t, "hist columns", describe("hist"), []string{"v VARCHAR; id BIGINT; __START_AT INTEGER; __END_AT INTEGER"})
	sameRows(t, "hist", tableRows(t, s, "hist"), sortedRows("a|1|1|3", "b|2|2|NULL", "c|1|3|NULL"))
}

// TestCDCSubquerySource: the source of APPLY CHANGES / AUTO CDC may be a
// subquery over the stream (Databricks, and Spark 4.3 checked with its
// dry run): its filter and computed columns shape the changes applied,
// trigger by trigger, and the target reads the stream inside.
func TestCDCSubquerySource(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE hist;
-- @trigger: processing_time '1 second'
APPLY CHANGES INTO hist FROM (
  SELECT id, upper(v) AS v, seq FROM STREAM(changes) WHERE id IS NOT NULL AND v <> 'skip'
) KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2;
CREATE STREAMING TABLE cur;
CREATE FLOW cur_cdc AS AUTO CDC INTO cur FROM (SELECT id, v, seq, op FROM STREAM(changes) WHERE v <> 'skip') AS c
KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op);
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,INSERT,1\n2,b,INSERT,2\n,z,INSERT,3\n",
		"samples/changes/2.csv": "id,v,op,seq\n1,c,UPDATE,4\n2,skip,DELETE,5\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "hist", tableRows(t, s, "hist"), sortedRows("1|A|1|1|4", "1|C|4|4|NULL", "2|B|2|2|NULL"))
	sameRows(t, "hist columns", rowsOf(t, s, "SELECT column_name FROM (DESCRIBE hist)"), sortedRows("id", "v", "seq", "__START_AT", "__END_AT"))
	// the NULL key is filtered only in hist; in cur it is a key of its own
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("1|c|4", "2|b|2", "NULL|z|3"))
}
