package watch

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A change to the CONSTRAINT ... EXPECT of a table declared without a
// query (a CDC target) changes the table's hash, so watch mode re-runs
// it: its expectations hold for every flow into it.
func TestHashTargetExpectations(t *testing.T) {
	pipeline := func(cond string) *ir.Pipeline {
		return &ir.Pipeline{
			Datasets: []*ir.Dataset{{Name: "cur", Kind: ir.StreamingTable,
				Expectations: []ir.Expectation{{Name: "ok", SQL: cond, Action: ir.Drop, InSQL: true}}}},
			Flows: []*ir.Flow{{Name: "cur", Target: "cur", Streaming: true, SQL: "SELECT * FROM STREAM(s)", Normalized: "SELECT * FROM STREAM(s)",
				CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1}}},
		}
	}
	a, b, c := Hashes(pipeline("id > 0"), nil)["cur"], Hashes(pipeline("id > 1"), nil)["cur"], Hashes(pipeline("id  > 0"), nil)["cur"]
	if a == "" || a == b {
		t.Fatalf("hash %q before, %q after the expectation changed: want them to differ", a, b)
	}
	if a != c {
		t.Fatalf("whitespace in the condition changed the hash: %q, %q", a, c)
	}
}
