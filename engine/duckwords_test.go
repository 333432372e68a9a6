package engine

import (
	"context"
	"strings"
	"testing"
)

// TestSparkWordsOfDuckDBErrors: DuckDB's own messages for a text that is
// no date, timestamp or decimal, and for a column or qualifier no input
// has, become Spark's classes (CAST_INVALID_INPUT, UNRESOLVED_COLUMN)
// naming the value and type or the column (each form checked on Spark
// 4.1.4, which also suggests a qualified name's columns qualified); the
// messages are DuckDB's real ones, from the session, and none of
// DuckDB's words survive. DuckDB offers its nearest columns, Spark every
// column by nearness, so only the first suggestion is held to Spark's.
func TestSparkWordsOfDuckDBErrors(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, q := range []string{`CREATE TABLE t (order_datetime VARCHAR, _ingested_x INT, a INT)`, `INSERT INTO t VALUES ('1567065491', 1, 2)`} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ query, want string }{
		{`SELECT CAST(order_datetime AS TIMESTAMP) FROM t`,
			`[CAST_INVALID_INPUT] The value '1567065491' of the type "STRING" cannot be cast to "TIMESTAMP" because it is malformed.`},
		{`SELECT CAST('2024-13-45' AS DATE)`,
			`[CAST_INVALID_INPUT] The value '2024-13-45' of the type "STRING" cannot be cast to "DATE" because it is malformed.`},
		{`SELECT CAST(order_datetime AS DATE) FROM t`,
			`The value '1567065491' of the type "STRING" cannot be cast to "DATE"`},
		{`SELECT CAST('x1' AS DECIMAL(10, 2))`,
			`[CAST_INVALID_INPUT] The value 'x1' of the type "STRING" cannot be cast to "DECIMAL(10,2)" because it is malformed.`},
		{`SELECT _ingested_at FROM t`,
			"[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `_ingested_at` cannot be resolved. Did you mean one of the following? [`_ingested_x`"},
		{`SELECT x._ingested_at FROM t x`,
			"name `x`.`_ingested_at` cannot be resolved. Did you mean one of the following? [`x`.`_ingested_x`"},
		{`SELECT _metadata.file_path FROM (SELECT 1 AS a)`,
			"[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter qualified by `_metadata` cannot be resolved"},
	} {
		err := s.Exec(ctx, c.query)
		if err == nil {
			t.Fatalf("%s: DuckDB ran it", c.query)
		}
		msg := firstParagraph(err.Error())
		got := sparkWords(duckPrefix(msg))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.query, got, c.want)
		}
		for _, duck := range []string{"field value out of range", "Could not convert", "Referenced", "Candidate", "FROM clause", "unnamed_subquery", "Error:"} {
			if strings.Contains(got, duck) {
				t.Errorf("%s: %q keeps DuckDB's %q", c.query, got, duck)
			}
		}
	}
}

// firstParagraph is a DuckDB message without its LINE context, as the
// translated query's explain hands it on.
func firstParagraph(msg string) string {
	if i := strings.Index(msg, "\n\nLINE "); i >= 0 {
		return msg[:i]
	}
	return msg
}

// duckPrefix drops DuckDB's "Conversion Error: " kind of prefix, as the
// translation's ExplainIn does.
func duckPrefix(msg string) string {
	for _, p := range []string{"Conversion Error: ", "Binder Error: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// TestCastErrorAtUsersExpression: a run whose query casts a text that is
// no timestamp (an epoch second written as text, date_format reads it as
// a timestamp) fails as Spark 4.1.4 does under ANSI, CAST_INVALID_INPUT
// with the value and the type, at the user's expression, in none of
// DuckDB's words.
func TestCastErrorAtUsersExpression(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml":         "backends: [native]\ndialect: databricks\n",
		"gold.sql":           "CREATE MATERIALIZED VIEW fact AS SELECT\n  id,\n  int(date_format(s.t, 'yyyyMMdd')) AS k\nFROM sales s;\n",
		"samples/sales.json": `{"id": 1, "t": "1567065491"}` + "\n",
	})
	snap, s := loadClean(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["fact"]
	if d == nil || d.Phase != Failed {
		t.Fatalf("fact: %+v, want a failure", d)
	}
	want := `gold.sql:3:7: fact: [CAST_INVALID_INPUT] The value '1567065491' of the type "STRING" cannot be cast to "TIMESTAMP" because it is malformed.`
	if !strings.Contains(d.Error, want) || strings.Contains(d.Error, "out of range") || strings.Contains(d.Error, "source column") {
		t.Errorf("error %q, want %q", d.Error, want)
	}
}
