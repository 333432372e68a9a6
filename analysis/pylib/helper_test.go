package pylib

import (
	"strings"
	"testing"
)

// TestHelperModuleRules: rules a helper module binds to literals are the
// file's expectations, through every import form; a module's function
// that does more than return a literal, or a name it computes, is not
// read, and Thund never reads past the modules the file imports.
func TestHelperModuleRules(t *testing.T) {
	modules := map[string]string{
		"rules": `"""Shared rules."""
import os

RULES = {
    "has_customer": "customer IS NOT NULL",
    "positive": "amount > " + str(0),
}
DROP_RULES = {"known_status": "status IN ('open', 'closed')"}
TABLE = "orders"
COMPUTED = os.environ["X"]

def get_rules():
    """The rules."""
    return {"small": "amount < 50"}

def dynamic():
    return {k: v for k, v in RULES.items()}
`,
		"utilities.more": `FAIL_RULES = {"id": "id IS NOT NULL"}`,
	}
	asked := map[string]int{}
	o := Options{Module: func(name string) (string, bool) {
		asked[name]++
		t, ok := modules[name]
		return t, ok
	}}
	text := `from pyspark import pipelines as dp
from rules import RULES, DROP_RULES as DR, TABLE, COMPUTED
import rules
from utilities import more
from utilities.more import FAIL_RULES

@dp.materialized_view
@dp.expect_all(RULES)
@dp.expect_all_or_drop(DR)
@dp.expect_all(rules.get_rules())
@dp.expect_all_or_fail(more.FAIL_RULES)
@dp.expect_or_fail("again", FAIL_RULES["id"])
@dp.expect_all(rules.dynamic())
@dp.expect_all(COMPUTED)
def checked():
    return spark.read.table(TABLE)
`
	f, err := ParseWith("t.py", text, o)
	if err != nil || len(f.Definitions) != 1 {
		t.Fatalf("%v %+v", err, f.Definitions)
	}
	d := f.Definitions[0]
	var got []string
	for _, e := range d.Expectations {
		got = append(got, e.Action+" "+e.Name+": "+e.Cond.Value)
	}
	want := "warn has_customer: customer IS NOT NULL|warn positive: amount > 0|drop known_status: status IN ('open', 'closed')|warn small: amount < 50|fail id: id IS NOT NULL"
	if strings.Join(got, "|") != want {
		t.Errorf("expectations:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if len(d.Expectations) > 0 {
		if at := text[d.Expectations[0].Cond.Loc.Start:d.Expectations[0].Cond.Loc.End]; at != "RULES" {
			t.Errorf("a helper's rule maps to %q, want the name RULES in the decorator", at)
		}
	}
	var unknown []string
	for _, u := range d.UnknownExpectations {
		unknown = append(unknown, u.From)
	}
	if strings.Join(unknown, "|") != `FAIL_RULES["id"]|rules.dynamic()|COMPUTED` {
		t.Errorf("unread rules = %v", unknown)
	}
	if d.Query == nil || d.Query.SQL != "SELECT * FROM `orders`" {
		t.Errorf("the helper's TABLE is not read: %+v %q", d.Query, d.Opaque)
	}
	if asked["rules"] != 1 || asked["utilities.more"] != 1 || asked["os"] != 0 || len(asked) != 2 {
		t.Errorf("modules asked for: %v (each once, none the helper imports)", asked)
	}
	if strings.Join(f.Modules, ",") != "rules,utilities.more" {
		t.Errorf("modules read = %v", f.Modules)
	}
	// Without the reader, the same file's helper rules are unknown.
	f, _ = Parse("t.py", text)
	if d := f.Definitions[0]; len(d.Expectations) != 0 || len(d.UnknownExpectations) != 7 {
		t.Errorf("without Module: %d rules read, %d unknown", len(d.Expectations), len(d.UnknownExpectations))
	}
}
