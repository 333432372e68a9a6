package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestCDCErrorsInUserTerms: when DuckDB refuses one of the statements a
// streaming or apply-changes flow runs over the engine's working tables,
// the error names neither those tables nor their helper columns and
// does not quote the engine's statement (DuckDB's "LINE 1:" context):
// it says which step of which flow failed, in Spark's type names, and
// for two flows sequencing one target by different types, what to cast.
func TestCDCErrorsInUserTerms(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"declared type", map[string]string{
			"cdc.sql":               "CREATE STREAMING TABLE cur (id INT, v INT);\nCREATE FLOW f AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2;\n",
			"samples/changes/1.csv": "id,v,seq\n1,abc,1\n",
		}, "flow f (into cur): apply changes to cur: [CAST_INVALID_INPUT] The value 'abc' of the type \"STRING\" cannot be cast to \"INT\" because it is malformed."},
		{"sequence types", map[string]string{
			"cdc.sql": "CREATE STREAMING TABLE cur;\nCREATE FLOW f AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id) SEQUENCE BY seq;\n" +
				"CREATE FLOW g AS AUTO CDC INTO cur FROM STREAM(other) KEYS (id) SEQUENCE BY seq;\n",
			"samples/changes/1.csv": "id,v,seq\n1,abc,1\n",
			"samples/other/1.csv":   "id,v,seq\n2,x,2020-01-01\n",
		}, "flow g (into cur): the sequence column seq of these changes is DATE, but the changes applied into cur before, by another flow into it, are sequenced by INT: every flow into cur must sequence by one type; cast it in the flow's query (CAST(seq AS INT))"},
		{"delete condition", map[string]string{
			"cdc.sql":               "CREATE STREAMING TABLE cur;\nCREATE FLOW f AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id) APPLY AS DELETE WHEN v = 1 SEQUENCE BY seq;\n",
			"samples/changes/1.csv": "id,v,seq\n1,abc,1\n",
		}, "flow f (into cur): classify changes (the delete condition v = 1): [CAST_INVALID_INPUT] The value 'abc'"},
		{"watermark type", map[string]string{
			"w.sql":                 "-- @kind: streaming_table\n-- @watermark: v, 1 minute\nSELECT v, count(*) AS n FROM STREAM(changes) GROUP BY v\n",
			"samples/changes/1.csv": "id,v,seq\n1,abc,1\n",
		}, "watermark column v of stream changes is STRING"},
	}
	for _, c := range cases {
		c.files["thund.yaml"] = "backends: [native]\ndialect: databricks\n"
		snap, s := loadClean(t, writePipeline(t, c.files))
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var msgs []string
		for _, k := range res.Order {
			if d := res.Datasets[k]; d.Phase == Failed {
				msgs = append(msgs, d.Error)
			}
		}
		got := strings.Join(msgs, "\n")
		if !strings.Contains(got, c.want) || strings.Contains(got, "__thund") || strings.Contains(got, "LINE 1") || strings.Contains(got, "⟦") || strings.Contains(got, " Error: ") {
			t.Errorf("%s: %q, want %q and no internal name", c.name, got, c.want)
		}
	}
}

// TestUserWords: each kind of internal name in a DuckDB message becomes
// what it holds, by the user's names (a stream by the qualified name of
// what it reads, not the relation the run keeps that under).
func TestUserWords(t *testing.T) {
	fr := &flowRun{prefix: "__thund_s3_", f: &ir.Flow{Name: "f"}, d: &ir.Dataset{Name: "shop.cur"},
		inputs: []*streamInput{{name: "orders", label: "raw.orders", newT: `"__thund_s3_new0"`, seenT: `"__thund_s3_seen0"`}}}
	for in, want := range map[string]string{
		`Catalog Error: Table with name __thund_s3_new0 does not exist` + "\n\nLINE 1: SELECT * FROM \"__thund_s3_new0\"\n        ^": "Catalog Error: Table with name the trigger's rows of raw.orders does not exist",
		`Catalog Error: Table with name "__thund_s3_new0" does not exist!`:                                                           "Catalog Error: Table with name the trigger's rows of raw.orders does not exist!",
		`in "__thund_s3_seen0" and "__thund_s3_cdc_winners" and "__thund_s3_prev"`:                                                   "in the rows of raw.orders read so far and the trigger's changes for shop.cur and a working table of flow f",
		`"__thund_cdc_0_cur", "__thund_src_1_Full Load", "__thund_log_0_raw", "__thund_s9_x"`:                                        "the apply-changes state of shop.cur, the sample rows of Full Load, the rows streamed into raw, a working table of the run",
		`Referenced column "x" not found! Candidate bindings: "__thund_w.__thund_seq", __thund_w.id`:                                 `Referenced column "x" not found! Candidate bindings: "the sequence already applied", id`,
		`Cannot compare values of type BIGINT and type DATE`:                                                                         "Cannot compare values of type BIGINT and type DATE",
		`Could not convert string 'a' to INT64 ⟦check 0⟧`:                                                                            "Could not convert string 'a' to BIGINT",
	} {
		if got := fr.userWords(in); got != want {
			t.Errorf("userWords(%q) = %q, want %q", in, got, want)
		}
	}
}
