package parity

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Report writes one column per release, oldest first, the rows of the
// latest run; ParseReport reads every column back as it was, so that a
// run on one release keeps the others' columns unchanged.
func TestReportColumnPerRelease(t *testing.T) {
	runs := map[string][]Row{
		"4.3.0": {
			{Pipeline: "cdc", Dataset: "customers", Status: NotPortable, Detail: "cdc/customers.sql:3: no format merges | not even delta"},
			{Pipeline: "retail", Dataset: "orders", NativeRows: 3, SparkRows: 3, Status: Equal},
			{Pipeline: "retail", Dataset: "daily", NativeRows: 2, SparkRows: 3, Status: Differs, Detail: "only Spark has (1, 2)"},
			{Pipeline: "retail", Dataset: "v", Status: NotStored, Detail: "temporary view"},
		},
		"4.10.0": {{Pipeline: "retail", Dataset: "orders", NativeRows: 3, SparkRows: 3, Status: Equal}},
		"4.1.4": {
			{Pipeline: "retail", Dataset: "orders", NativeRows: 3, SparkRows: 3, Status: Equal},
			// A dataset the latest run no longer has is left out.
			{Pipeline: "retail", Dataset: "gone", NativeRows: 1, SparkRows: 1, Status: Equal},
		},
	}
	text := Report(runs, "4.3.0")
	if !strings.Contains(text, "| pipeline | dataset | Spark 4.1.4 | Spark 4.3.0 | Spark 4.10.0 |\n") {
		t.Fatalf("no header with the releases oldest first:\n%s", text)
	}
	for _, want := range []string{
		"| cdc | customers | not run | not portable: cdc/customers.sql:3: no format merges \\| not even delta | not run |\n",
		"| retail | daily | not run | DIFFERS (2 / 3): only Spark has (1, 2) | not run |\n",
		"| retail | orders | equal (3 / 3) | equal (3 / 3) | equal (3 / 3) |\n",
		"- Spark 4.3.0: 4 datasets: 1 equal, 1 differ, 1 not portable, 1 not stored (temporary views).\n",
		"- Spark 4.1.4: 1 datasets: 1 equal, 0 differ, 0 not portable, 0 not stored (temporary views).\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "gone") {
		t.Errorf("a dataset only an older run had is in the report:\n%s", text)
	}
	back, err := ParseReport(text)
	if err != nil {
		t.Fatal(err)
	}
	runs["4.1.4"] = runs["4.1.4"][:1]
	for rel, rows := range runs {
		sortRows(rows)
		sortRows(back[rel])
		if !reflect.DeepEqual(back[rel], rows) {
			t.Errorf("Spark %s read back as %+v, want %+v", rel, back[rel], rows)
		}
	}
	if again := Report(back, "4.3.0"); again != text {
		t.Errorf("the report read back renders differently:\n%s\nwant\n%s", again, text)
	}
	for _, bad := range []string{
		"| pipeline | dataset | rows (native / Spark) | result |\n|---|---|---|---|\n| a | b | 1 / 1 | equal |\n",
		"| pipeline | dataset | Spark 4.1.4 |\n|---|---|---|\n| a | b | equal |\n",
		"| pipeline | dataset | Spark 4.1.4 |\n|---|---|---|\n| a | b | fine |\n",
		"| a | b | equal (1 / 1) |\n",
	} {
		if _, err := ParseReport(bad); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("ParseReport(%q) = %v, want an error naming the line", bad, err)
		}
	}
}

func sortRows(rows []Row) {
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].Pipeline+"."+rows[i].Dataset < rows[j].Pipeline+"."+rows[j].Dataset
	})
}
