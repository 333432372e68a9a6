package engine

import (
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestCSVSampleSparkTypes: a CSV sample is read with the types and names
// Spark's CSV reader infers (header, inferSchema), and its values as
// Spark reads them. Checked on Spark 4.1.4: spark.read.csv(path,
// header=True, inferSchema=True) of these files, session zone UTC, gave
// the schemas in the comments and the values below (the rows are the
// native run's, DuckDB's text of the same values: Spark's 1000.0 is
// 1000.0, its 2025-01-01 08:00:00 is 2025-01-01 08:00:00).
func TestCSVSampleSparkTypes(t *testing.T) {
	cases := []struct {
		name, csv string
		// types are DuckDB's names of Spark's types, per column.
		types string
		rows  []string
	}{
		// struct<small:int,mixed:bigint,huge:decimal(20,0),lead:int,plus:int,neg0:int,big19:decimal(19,0),dig40:double>
		{"ints", "small,mixed,huge,lead,plus,neg0,big19,dig40\n1,1,12345678901234567890,007,+5,-0,9223372036854775808,1234567890123456789012345678901234567890\n2,3000000000,1,010,+6,0,1,1\n",
			"small INTEGER; mixed BIGINT; huge DECIMAL(20,0); lead INTEGER; plus INTEGER; neg0 INTEGER; big19 DECIMAL(19,0); dig40 DOUBLE",
			[]string{"1|1|12345678901234567890|7|5|0|9223372036854775808|1.2345678901234568e+39", "2|3000000000|1|10|6|0|1|1.0"}},
		// struct<tz_z:timestamp,tz_off:timestamp,plain:timestamp,spaced:timestamp,frac:timestamp,nosec:timestamp,mixdt:timestamp,neg:timestamp>
		{"ts", "tz_z,tz_off,plain,spaced,frac,nosec,mixdt,neg\n2025-01-01T10:00:00Z,2025-01-01T10:00:00+02:00,2025-01-01T10:00:00,2025-01-01 10:00:00,2025-01-01 10:00:00.123456,2025-01-01 10:00,2025-01-01,2025-01-01T10:00:00-05:30\n2025-06-01T23:30:00Z,2025-06-01T00:30:00+02:00,2025-06-01T23:30:00,2025-06-01 23:30:00,2025-06-01 23:30:00.5,2025-06-01 23:30,2025-06-01 10:00:00,2025-06-01T10:00:00-05:30\n",
			"tz_z TIMESTAMP; tz_off TIMESTAMP; plain TIMESTAMP; spaced TIMESTAMP; frac TIMESTAMP; nosec TIMESTAMP; mixdt TIMESTAMP; neg TIMESTAMP",
			[]string{
				"2025-01-01 10:00:00|2025-01-01 08:00:00|2025-01-01 10:00:00|2025-01-01 10:00:00|2025-01-01 10:00:00.123456|2025-01-01 10:00:00|2025-01-01 00:00:00|2025-01-01 15:30:00",
				"2025-06-01 23:30:00|2025-05-31 22:30:00|2025-06-01 23:30:00|2025-06-01 23:30:00|2025-06-01 23:30:00.5|2025-06-01 23:30:00|2025-06-01 10:00:00|2025-06-01 15:30:00",
			}},
		// struct<b1:boolean,b2:boolean,b3:string,b4:string,b5:int>
		{"bools", "b1,b2,b3,b4,b5\ntrue,TRUE,t,yes,1\nfalse,False,f,no,0\n",
			"b1 BOOLEAN; b2 BOOLEAN; b3 VARCHAR; b4 VARCHAR; b5 INTEGER",
			[]string{"true|true|t|yes|1", "false|false|f|no|0"}},
		// struct<d1:date,d2:timestamp,d3:string,d4:int,d5:string,d6:timestamp>
		{"dates", "d1,d2,d3,d4,d5,d6\n2025-01-05,2025-1-5,2025/01/05,20250105,05/01/2025,2025-01-5\n2025-12-31,2025-12-3,2025/12/31,20251231,31/12/2025,2025-12-31\n",
			"d1 DATE; d2 TIMESTAMP; d3 VARCHAR; d4 INTEGER; d5 VARCHAR; d6 TIMESTAMP",
			[]string{"2025-01-05|2025-01-05 00:00:00|2025/01/05|20250105|05/01/2025|2025-01-05 00:00:00", "2025-12-31|2025-12-03 00:00:00|2025/12/31|20251231|31/12/2025|2025-12-31 00:00:00"}},
		// struct<fd:string,rd:date>: a DATE column after a column of
		// mixed date forms (QA Q21: DuckDB took 4/14/2024's format for rd)
		{"dateaftermixed", "fd,rd\n4/14/2024,2025-01-01\n2024-04-10,2025-01-02\n",
			"fd VARCHAR; rd DATE",
			[]string{"4/14/2024|2025-01-01", "2024-04-10|2025-01-02"}},
		// struct<d1:double,...,d7:double>: Infinity is no DATE
		{"doubles", "d1,d2,d3,d4,d5,d6,d7\n1.5,1e3,NaN,Infinity,.5,1.50,1\n2.25,2E-2,1.0,-Infinity,5.,2.00,2.5\n",
			"d1 DOUBLE; d2 DOUBLE; d3 DOUBLE; d4 DOUBLE; d5 DOUBLE; d6 DOUBLE; d7 DOUBLE",
			[]string{"1.5|1000.0|nan|inf|0.5|1.5|1.0", "2.25|0.02|1.0|-inf|5.0|2.0|2.5"}},
		// struct<a:string,b:string,c:string>: "" is NULL too
		{"empties", "a,b,c\nx,,z\n\"\",\"\",\"\"\n,\"q\",\n",
			"a VARCHAR; b VARCHAR; c VARCHAR",
			[]string{"x|NULL|z", "NULL|NULL|NULL", "NULL|q|NULL"}},
		// struct< sp :int,dup1:int,dup2:int,Cap:int>
		{"headers", " sp ,dup,dup,Cap\n1,2,3,4\n",
			" sp  INTEGER; dup1 INTEGER; dup2 INTEGER; Cap INTEGER",
			[]string{"1|2|3|4"}},
		// struct<a:int,b:int,_c2:int>
		{"trailing", "a,b,\n1,2,\n3,4,5\n",
			"a INTEGER; b INTEGER; _c2 INTEGER",
			[]string{"1|2|NULL", "3|4|5"}},
		// struct<onlyempty:string,intstr:string,intbool:string,datets:timestamp>
		{"mixes", "onlyempty,intstr,intbool,datets\n,1,1,2025-01-01\n,x,true,2025-01-01 10:00:00\n",
			"onlyempty VARCHAR; intstr VARCHAR; intbool VARCHAR; datets TIMESTAMP",
			[]string{"NULL|1|1|2025-01-01 00:00:00", "NULL|x|true|2025-01-01 10:00:00"}},
		// struct<a:int,b:string>: a blank line is no row
		{"blank", "a,b\n1,x\n\n2,y\n", "a INTEGER; b VARCHAR", []string{"1|x", "2|y"}},
	}
	files := map[string]string{}
	for _, c := range cases {
		files["samples/"+c.name+".csv"] = c.csv
		files["m_"+c.name+".sql"] = "CREATE MATERIALIZED VIEW m_" + c.name + " AS SELECT * FROM " + c.name + ";\n"
	}
	_, s := runOK(t, writePipeline(t, files))
	for _, c := range cases {
		got := rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE m_"+c.name+")")
		sameRows(t, c.name+" types", got, []string{c.types})
		var cols []string
		for _, part := range strings.Split(c.types, "; ") {
			name := part[:strings.LastIndexByte(part, ' ')]
			cols = append(cols, "CAST("+quoteIdent(name)+" AS VARCHAR)")
		}
		rows := rowsOf(t, s, "SELECT "+strings.Join(cols, ", ")+" FROM m_"+c.name)
		sameRows(t, c.name+" rows", rows, sortedRows(c.rows...))
	}
}

// TestCSVSampleOddForms: a value Spark reads as a TIMESTAMP or DOUBLE in
// a form DuckDB's cast reads otherwise leaves its column STRING natively,
// with a warning at the value; a quoted line break is a warning (Spark,
// without multiLine, ends the record there) and the file still reads.
// Checked on Spark 4.1.4: 2025-01 and "2025-01-01 10:00:00 UTC" are
// TIMESTAMP, " 5" and 1.5d DOUBLE, "1,000" and 0x10 STRING; the quoted
// line break splits the record in two.
func TestCSVSampleOddForms(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/odd.csv":   "ym,zone,ws,suffix,comma,hex\n2025-01,2025-01-01 10:00:00 UTC, 5,1.5d,\"1,000\",0x10\n",
		"samples/multi.csv": "id,note\n1,\"one\ntwo\"\n2,plain\n",
		"m.sql":             "CREATE MATERIALIZED VIEW m AS SELECT * FROM odd;\nCREATE MATERIALIZED VIEW n AS SELECT * FROM multi;\n",
	})
	res, s := runOK(t, dir)
	sameRows(t, "odd types", rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE m)"),
		[]string{"ym VARCHAR; zone VARCHAR; ws VARCHAR; suffix VARCHAR; comma VARCHAR; hex VARCHAR"})
	sameRows(t, "multi", rowsOf(t, s, "SELECT id, replace(note, chr(10), '/') FROM n"), []string{"1|one/two", "2|plain"})
	var got []string
	for _, w := range res.SampleWarnings {
		got = append(got, w.File+":"+strconv.Itoa(w.Line)+": "+w.Message)
	}
	want := []string{
		`samples/multi.csv:2: a quoted field of this record runs to line 3: Spark's CSV reader, without the multiLine option, ends a record at every line break, so on Spark this row is read as 2 records; the native run reads it as one; keep each record on one line (or read the files with multiLine in a Python load)`,
		`samples/odd.csv:2: column ym: Spark reads "2025-01" as a TIMESTAMP, which the native run cannot read the same way, so it reads the column as STRING; write every timestamp as yyyy-MM-dd HH:mm:ss, with Z or an offset such as +02:00 if it has a zone`,
		`samples/odd.csv:2: column zone: Spark reads "2025-01-01 10:00:00 UTC" as a TIMESTAMP, which the native run cannot read the same way, so it reads the column as STRING; write every timestamp as yyyy-MM-dd HH:mm:ss, with Z or an offset such as +02:00 if it has a zone`,
		`samples/odd.csv:2: column ws: Spark reads " 5" as a DOUBLE, which the native run cannot read the same way, so it reads the column as STRING; write a number as 1.5, 1e3 or NaN, without spaces or a suffix`,
		`samples/odd.csv:2: column suffix: Spark reads "1.5d" as a DOUBLE, which the native run cannot read the same way, so it reads the column as STRING; write a number as 1.5, 1e3 or NaN, without spaces or a suffix`,
	}
	sort.Strings(got)
	sort.Strings(want)
	sameRows(t, "warnings", got, want)
}

// TestCSVFolderSparkTypes: the files of a folder sample are one table,
// whose schema Spark infers over every file's rows: a column INT in one
// file and BIGINT in another is BIGINT (checked on Spark 4.1.4, a table
// USING csv with header and inferSchema over the folder).
func TestCSVFolderSparkTypes(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/1.csv": "a,b,c\n1,x,\n",
		"samples/ev/2.csv": "a,b,c\n3000000000,y,2025-01-01T10:00:00+02:00\n",
		"m.sql":            "CREATE MATERIALIZED VIEW m AS SELECT * FROM ev;\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "types", rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE m)"),
		[]string{"a BIGINT; b VARCHAR; c TIMESTAMP"})
	sameRows(t, "rows", rowsOf(t, s, "SELECT a, b, CAST(c AS VARCHAR) FROM m"), []string{"1|x|NULL", "3000000000|y|2025-01-01 08:00:00"})
}

// TestCSVFolderHeadersDiffer: files of a folder whose headers differ are
// read by name natively but by position on Spark (checked on Spark
// 4.1.4: a table over 1.csv "a,b" and 2.csv "b,a,c" read both files'
// fields under the header b, a, c, so 1.csv's 1,x gave b=1, a=x), which
// the warning says.
func TestCSVFolderHeadersDiffer(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/1.csv": "a,b\n1,x\n",
		"samples/ev/2.csv": "b,a,c\ny,2,z\n",
		"m.sql":            "CREATE MATERIALIZED VIEW m AS SELECT * FROM ev;\n",
	})
	res, _ := runOK(t, dir)
	found := false
	for _, w := range res.SampleWarnings {
		if w.File == "samples/ev/2.csv" && strings.Contains(w.Message, "adds column c, which 1.csv lacks") && strings.Contains(w.Message, "Spark's CSV reader reads every file's fields by position") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning about the headers: %+v", res.SampleWarnings)
	}
}
