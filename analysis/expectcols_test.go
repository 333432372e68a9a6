package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestExpectationUnknownColumn: a column an expectation names that the
// rows it checks do not have is an unknown-column error at the name, with
// the nearest column, for a CONSTRAINT of the statement, a @expect
// pragma and a CONSTRAINT of a streaming table filled by a flow; known
// columns, a lambda's variable and a qualified name are not.
func TestExpectationUnknownColumn(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":         "dialect: databricks\n",
		"samples/orders.csv": "id,amount,tags\n1,2,a\n",
		"a.sql": "CREATE OR REFRESH MATERIALIZED VIEW o1 (\n" +
			"  CONSTRAINT nocol EXPECT (amout > 0) ON VIOLATION DROP ROW,\n" +
			"  CONSTRAINT fine EXPECT (amount > 0 AND id IS NOT NULL AND exists(array(1), x -> x > 0))\n" +
			") AS SELECT id, amount FROM orders;\n" +
			"CREATE OR REFRESH STREAMING TABLE s (CONSTRAINT late EXPECT (idd > 0));\n" +
			"CREATE FLOW f AS INSERT INTO s BY NAME SELECT id, amount FROM STREAM(orders);\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("a.sql")
	want := map[string]string{"amout": "`amount`", "idd": "`id`"}
	for _, d := range s.Diagnostics {
		if d.Code != ir.CodeUnknownColumn {
			continue
		}
		at := text[d.Loc.Start:d.Loc.End]
		near, ok := want[at]
		if !ok {
			t.Errorf("unexpected unknown column at %q: %s", at, d.Message)
			continue
		}
		delete(want, at)
		if d.Severity != ir.Error || !strings.Contains(d.Message, "did you mean "+near) {
			t.Errorf("%q: %s %s", at, d.Severity, d.Message)
		}
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v; diagnostics %v", want, diagStrings(s))
	}
}

// TestExpectationRules: two expectations of one name for a dataset are a
// duplicate-expectation error at the second; a condition with a subquery
// is an error against databricks; distinct names and plain conditions
// are fine.
func TestExpectationRules(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":         "dialect: databricks\n",
		"samples/orders.csv": "id,amount,status\n1,2,a\n",
		"a.sql": "CREATE OR REFRESH MATERIALIZED VIEW statuses AS SELECT DISTINCT status FROM orders;\n" +
			"CREATE OR REFRESH MATERIALIZED VIEW o1 (\n" +
			"  CONSTRAINT pos EXPECT (amount > 0) ON VIOLATION DROP ROW,\n" +
			"  CONSTRAINT POS EXPECT (amount < 100),\n" +
			"  CONSTRAINT known EXPECT (status IN (SELECT status FROM statuses)),\n" +
			"  CONSTRAINT fine EXPECT (id IS NOT NULL)\n" +
			") AS SELECT id, amount, status FROM orders;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("a.sql")
	var dup, sub int
	for _, d := range s.Diagnostics {
		switch {
		case d.Code == ir.CodeDuplicateExpectation:
			dup++
			if !strings.HasPrefix(text[d.Loc.Start:], "CONSTRAINT POS") {
				t.Errorf("duplicate at %q", text[d.Loc.Start:d.Loc.End])
			}
		case d.Code == ir.CodeUnsupported && strings.Contains(d.Message, "subquer"):
			sub++
			if got := text[d.Loc.Start:d.Loc.End]; !strings.HasPrefix(got, "status IN (SELECT") {
				t.Errorf("subquery finding at %q", got)
			}
		case d.Severity == ir.Error:
			t.Errorf("unexpected error: %s", d.Message)
		}
	}
	if dup != 1 || sub != 1 {
		t.Errorf("%d duplicate and %d subquery findings, want 1 and 1: %v", dup, sub, diagStrings(s))
	}
}
