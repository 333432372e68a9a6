package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// tiePipeline is bronze (a streaming table whose query is bronzeSQL)
// read as a stream by an apply-changes flow into silver sequenced by seq.
func tiePipeline(bronzeSQL, seq string) *ir.Pipeline {
	return &ir.Pipeline{
		Datasets: []*ir.Dataset{
			{Name: "bronze", Kind: ir.StreamingTable},
			{Name: "silver", Kind: ir.StreamingTable},
		},
		Flows: []*ir.Flow{
			{Name: "bronze", Target: "bronze", Streaming: true, SQL: bronzeSQL, Dialect: "spark", Reads: []ir.Ref{{Name: "raw", Streaming: true}}},
			{Name: "silver", Target: "silver", Streaming: true, Reads: []ir.Ref{{Name: "bronze", Streaming: true}},
				CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: seq, SCD: 2, Loc: ir.Loc{File: "silver.sql", Start: 10, End: 40}}},
		},
	}
}

// TestCDCSequencedByProcessingTime: a CDC flow sequenced by a column its
// source sets to current_timestamp() or now() (so every change of a
// micro-batch ties) gets a warning at its CDC clause that names the
// column, the dataset and the function; a sequence column of the data,
// or a processing time under another name, gets none.
func TestCDCSequencedByProcessingTime(t *testing.T) {
	for _, c := range []struct {
		sql, seq, want string
	}{
		{"SELECT *, current_timestamp() as ingestion_timestamp FROM STREAM(raw)", "ingestion_timestamp", "sets to current_timestamp()"},
		{"SELECT *, NOW() `ts` FROM STREAM(raw)", "ts", "sets to NOW()"},
		{"SELECT *, CURRENT_TIMESTAMP AS ts FROM STREAM(raw)", "`ts`", "sets to CURRENT_TIMESTAMP,"},
		{"SELECT *, current_timestamp() AS loaded_at FROM STREAM(raw)", "event_ts", ""},
		{"SELECT id, seq FROM STREAM(raw)", "seq", ""},
	} {
		var got []ir.Diagnostic
		for _, d := range Check(tiePipeline(c.sql, c.seq), []ir.Backend{ir.Native, ir.Databricks}) {
			if d.Code == CodeCDCSequenceTies {
				got = append(got, d)
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: unexpected %v", c.sql, got)
		case c.want == "":
		case len(got) != 1:
			t.Errorf("%s: %d warnings, want 1", c.sql, len(got))
		case got[0].Severity != ir.Warning || got[0].Loc.File != "silver.sql" || got[0].Loc.Start != 10:
			t.Errorf("%s: %+v, want a warning at the CDC clause", c.sql, got[0])
		case !strings.Contains(got[0].Message, "the query of bronze "+c.want) || !strings.Contains(got[0].Message, "no defined order"):
			t.Errorf("%s: message %q lacks %q", c.sql, got[0].Message, c.want)
		}
	}
}
