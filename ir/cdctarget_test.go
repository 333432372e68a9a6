package ir

import "testing"

// The columns a CDC target keeps and the validity columns it adds.
func TestCDCTargetColumns(t *testing.T) {
	for _, tc := range []struct {
		cdc        CDC
		keep, drop []string
		start, end string
	}{
		{CDC{SCD: 1}, []string{"id", "Name"}, []string{"_change_type", "_CHANGE_TYPE"}, "", ""},
		{CDC{SCD: 2, Columns: []string{"id", " `name` "}}, []string{"ID", "name"}, []string{"op", "_change_type"}, "__start_at", "__end_at"},
		{CDC{SCD: 2, Columns: []string{"op"}, ColumnsExcept: true, StartAt: "__START_AT", EndAt: "__END_AT"}, []string{"id", "name"}, []string{"OP"}, "__START_AT", "__END_AT"},
	} {
		for _, n := range tc.keep {
			if !tc.cdc.Keeps(n) {
				t.Errorf("%+v does not keep %s", tc.cdc, n)
			}
		}
		for _, n := range tc.drop {
			if tc.cdc.Keeps(n) {
				t.Errorf("%+v keeps %s", tc.cdc, n)
			}
		}
		if s, e := tc.cdc.Validity(); s != tc.start || e != tc.end {
			t.Errorf("%+v validity %q %q", tc.cdc, s, e)
		}
	}
	c := CDC{SequenceBy: " `Seq` "}
	if !c.Sequences("seq") || c.Sequences("id") {
		t.Errorf("Sequences of %q", c.SequenceBy)
	}
}
