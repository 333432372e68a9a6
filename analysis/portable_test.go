package analysis

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

func portabilityDiags(s *Snapshot) []string {
	var out []string
	for _, d := range s.Diagnostics {
		if d.Code != ir.CodeNotPortable {
			continue
		}
		text, _ := s.Text(d.Loc.File)
		out = append(out, fmt.Sprintf("%s:%d-%d %s %s %s", d.Loc.File, d.Loc.Start, d.Loc.End, text[d.Loc.Start:d.Loc.End], d.Severity, d.Backend))
	}
	return out
}

func TestPortabilityTestdata(t *testing.T) {
	s, err := Load("../testdata/broken/portability", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"daily_events.sql:162-170 strftime warning spark-4.1",
		"daily_events.sql:243-251 EPOCH_MS warning spark-4.1",
		"user_lists.sql:134-144 list_value warning spark-4.1",
		"user_lists.sql:179-191 string_split warning spark-4.1",
		"user_lists.sql:219-226 arg_max warning spark-4.1",
		"user_lists.sql:340-348 date_sub warning spark-4.1",
	}
	if got := portabilityDiags(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// and span_days.sql's quoted unit, which Spark's grammar refuses
	if len(s.Diagnostics) != len(want)+1 {
		t.Errorf("other diagnostics: %s", strings.Join(diagStrings(s), "\n"))
	}
}

func TestPortabilityBackends(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":         "backends: [native, spark-4.1, spark-4.2]\n",
		"samples/orders.csv": "id,ts\n1,2024-01-01\n",
		"a.sql":              "SELECT id, strftime(ts, '%Y') AS y FROM orders\n",
		"b.sql":              "-- @backends: native, spark-4.2\nSELECT id, main.epoch(ts) AS e FROM orders\n",
		"c.sql":              "-- @backends: native\nSELECT id, strptime('2024', '%Y') AS e FROM orders\n",
		// Spark forms of names DuckDB also has: no warning.
		"d.sql": "SELECT id, date_sub(ts, 1) AS d, datediff(ts, ts) AS n, date_diff(ts, ts) AS m, datediff(DAY, ts, ts) AS k FROM orders\n",
		// A quoted name is still the function.
		"e.sql": "-- @target: a\nSELECT 2 AS id, `list_value`(1) AS y, array_has(array(1), 1) AS h FROM orders\n",
		// A double-quoted column is a string on Spark; a quoted alias is not.
		"f.sql": "SELECT \"id\" AS \"n\" FROM orders\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a.sql:11-19 strftime warning spark-4.1",
		"a.sql:11-19 strftime warning spark-4.2",
		"b.sql:43-53 main.epoch warning spark-4.2",
		"e.sql:30-42 `list_value` warning spark-4.1",
		"e.sql:30-42 `list_value` warning spark-4.2",
		"e.sql:52-61 array_has warning spark-4.1",
		"e.sql:52-61 array_has warning spark-4.2",
		"f.sql:7-11 \"id\" warning spark-4.1",
		"f.sql:7-11 \"id\" warning spark-4.2",
	}
	if got := portabilityDiags(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeNotPortable && d.Loc.File == "a.sql" && !strings.Contains(d.Message, "date_format") {
			t.Errorf("message does not give the Spark spelling: %s", d.Message)
		}
	}
}

// TestNotPortableDocumented keeps docs/spark-compat.md listing every
// function of NotPortable.
func TestNotPortableDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/spark-compat.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range NotPortable {
		if seen[f.Name] {
			t.Errorf("%s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Name != strings.ToLower(f.Name) {
			t.Errorf("%s: names are lower case", f.Name)
		}
		if !strings.Contains(string(doc), "`"+f.Name+"`") {
			t.Errorf("docs/spark-compat.md does not list %s", f.Name)
		}
	}
}

// Functions both engines have with other meanings: a warning at the call,
// only for the argument counts whose meaning differs, for a query that
// runs as written (dialect: duckdb). In Spark SQL the translator gives
// them Spark's meaning natively, so there is nothing to warn about.
func TestPortabilityDiffersOnSpark(t *testing.T) {
	files := map[string]string{
		"thund.yaml":      "backends: [native, spark-4.1]\n",
		"samples/t.csv":   "x,s,d\n8,ab12,2025-03-03\n",
		"logs.sql":        "SELECT log(x) AS l1, log(2, x) AS l2, ln(x) AS l3 FROM t\n",
		"regex.sql":       "SELECT regexp_extract(s, '([a-z]+)') AS g, regexp_extract(s, '([a-z]+)', 1) AS g1 FROM t\n",
		"days.sql":        "SELECT DAYNAME(d) AS n, date_format(d, 'EEE') AS m, \"x\" AS q FROM t\n",
		"native_only.sql": "-- @backends: native\nSELECT typeof(x) AS ty FROM t\n",
	}
	s, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := portabilityDiags(s); len(got) != 0 {
		t.Errorf("Spark SQL runs natively with Spark's meaning, but:\n%s", strings.Join(got, "\n"))
	}
	root := writeTree(t, map[string]string{
		"thund.yaml":      "dialect: duckdb\nbackends: [native, spark-4.1]\n",
		"samples/t.csv":   "x,s,d\n8,ab12,2025-03-03\n",
		"logs.sql":        "SELECT log(x) AS l1, log(2, x) AS l2, ln(x) AS l3 FROM t\n",
		"regex.sql":       "SELECT regexp_extract(s, '([a-z]+)') AS g, regexp_extract(s, '([a-z]+)', 1) AS g1 FROM t\n",
		"days.sql":        "SELECT DAYNAME(d) AS n, date_format(d, 'EEE') AS m FROM t\n",
		"native_only.sql": "-- @backends: native\nSELECT typeof(x) AS ty FROM t\n",
	})
	s, err = Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"days.sql:7-14 DAYNAME warning spark-4.1",
		"logs.sql:7-10 log warning spark-4.1",
		"regex.sql:7-21 regexp_extract warning spark-4.1",
	}
	got := portabilityDiags(s)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeNotPortable && d.Loc.File == "logs.sql" &&
			(!strings.Contains(d.Message, "means something else natively") || !strings.Contains(d.Message, "natural logarithm") || !strings.Contains(d.Message, "use ln(x)")) {
			t.Errorf("log message: %s", d.Message)
		}
	}
}

// TestDiffersOnSparkDocumented keeps docs/spark-compat.md listing every
// function of DiffersOnSpark, and the two lists apart.
func TestDiffersOnSparkDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/spark-compat.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range DiffersOnSpark {
		if _, dup := notPortable[f.Name]; dup {
			t.Errorf("%s is in both NotPortable and DiffersOnSpark", f.Name)
		}
		if f.Name != strings.ToLower(f.Name) || f.Example == "" || f.Differs == "" {
			t.Errorf("%+v: lower-case name, Differs and Example required", f)
		}
		if !strings.Contains(string(doc), "| `"+f.Name+"` |") {
			t.Errorf("docs/spark-compat.md does not list %s in the table of diagnosed differences", f.Name)
		}
	}
}
