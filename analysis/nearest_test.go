package analysis

import "testing"

// TestNearest: the closest name within the typo budget (a third of the
// length, at least one edit), ignoring case; the first of equals wins;
// nothing when every candidate is too far; the name itself is no
// suggestion.
func TestNearest(t *testing.T) {
	names := []string{"clean_orders", "Customers", "daily_revenue", "café_sales", "ds_01500", "ds_01501", "base"}
	for _, c := range []struct{ name, want string }{
		{"clean_order", "clean_orders"},
		{"CLEAN_ORDRES", "clean_orders"},
		{"customer", "Customers"},
		{"dz_01500", "ds_01500"},
		{"ds_0150", "ds_01500"},
		{"cafe_sales", "café_sales"},
		{"revenue", ""},
		{"x", ""},
		{"clean_orders", ""},
		// A swap of neighbours is one edit.
		{"Bsae", "base"},
		{"clean_odrers", "clean_orders"},
		{"aseb", ""},
	} {
		if got := Nearest(c.name, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
