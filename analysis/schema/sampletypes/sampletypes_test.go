package sampletypes

import (
	"reflect"
	"strings"
	"testing"
)

func TestInfer(t *testing.T) {
	cases := []struct {
		csv  string
		want []string
	}{
		{"id,name\n1,a\n", []string{Int, String}},
		{"a,b,c,d,e,f\ntrue,1.5,2024-01-05,2024-01-05 10:00:00,x,\nFALSE,2,2024-02-29,2024-01-05,7,\n",
			[]string{Boolean, Double, Date, Timestamp, String, ""}},
		// values DuckDB's sniffer may read otherwise stay unknown
		{"d,t,z,n\n01/02/2024,10:30,2024-01-05T10:00:00+02,007\n", []string{"", "", "", ""}},
		// a header alone, NULLs: unknown
		{"a,b\n", []string{"", ""}},
		{"a,b\nNULL,1\n,2\n", []string{String, Int}},
		// a row of another width: nothing is certain
		{"a,b\n1,2\n3\n", []string{"", ""}},
		// mixed: the narrowest type every value fits
		{"a,b\n1,true\n2.5,x\n", []string{Double, String}},
		{"a\n1\n1e3\n", []string{Double}},
	}
	for _, c := range cases {
		if got := Infer(strings.NewReader(c.csv)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.csv, got, c.want)
		}
	}
	if Infer(strings.NewReader("")) != nil {
		t.Error("no header: want nil")
	}
}
