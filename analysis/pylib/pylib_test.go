package pylib

import (
	"os"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

func parseFile(t *testing.T, name string) (string, File) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(name, string(b))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return string(b), f
}

// TestInitTemplate reads the file `spark-pipelines init` writes.
func TestInitTemplate(t *testing.T) {
	text, f := parseFile(t, "init_example.py")
	if len(f.Definitions) != 1 {
		t.Fatalf("got %d definitions, want 1: %+v", len(f.Definitions), f.Definitions)
	}
	d := f.Definitions[0]
	if d.Name != "example_python_materialized_view" || d.Kind != ir.MaterializedView || d.API != "dp" {
		t.Errorf("definition = %+v", d)
	}
	if got := text[d.NameLoc.Start:d.NameLoc.End]; got != "example_python_materialized_view" {
		t.Errorf("NameLoc covers %q", got)
	}
	if got := text[d.Loc.Start:d.Loc.End]; got != "@dp.materialized_view\ndef example_python_materialized_view() -> DataFrame:\n    return spark.range(10)" {
		t.Errorf("Loc covers %q", got)
	}
	if len(d.Reads) != 0 || len(d.Unknown) != 0 {
		t.Errorf("spark.range reads nothing, got %+v %+v", d.Reads, d.Unknown)
	}
}

func TestMixedFile(t *testing.T) {
	text, f := parseFile(t, "mixed.py")
	type want struct {
		name, kind, target, comment string
		reads                       []string
		streaming                   []bool
		unknown                     int
	}
	wants := []want{
		{name: "bronze_events", kind: "streaming_table", comment: "raw events"},
		{name: "load_events", target: "bronze_events", reads: []string{`"landing.events"`}, streaming: []bool{true}},
		{name: "silver_users", kind: "table", comment: "users with a country",
			reads: []string{`"raw_" + "events"`, `"raw.users"`, `"countries"`}, streaming: []bool{false, false, false}},
		{name: "recent", kind: "temporary_view", reads: []string{`'bronze_events'`}, streaming: []bool{true}},
		{name: "tmp", kind: "temporary_view", reads: []string{`"silver_users"`}, streaming: []bool{false}},
	}
	if len(f.Definitions) != len(wants) {
		t.Fatalf("got %d definitions, want %d: %+v", len(f.Definitions), len(wants), f.Definitions)
	}
	for i, w := range wants {
		d := f.Definitions[i]
		if d.Name != w.name || string(d.Kind) != w.kind || d.Target != w.target || d.Comment != w.comment {
			t.Errorf("definition %d = %+v, want %+v", i, d, w)
		}
		if len(d.Reads) != len(w.reads) || len(d.Unknown) != w.unknown {
			t.Errorf("%s: reads %+v unknown %+v", d.Name, d.Reads, d.Unknown)
			continue
		}
		for j, r := range d.Reads {
			if got := text[r.Loc.Start:r.Loc.End]; got != w.reads[j] || r.Streaming != w.streaming[j] {
				t.Errorf("%s read %d: %q streaming=%v, want %q %v", d.Name, j, got, r.Streaming, w.reads[j], w.streaming[j])
			}
		}
	}
	silver := f.Definitions[2]
	if got := text[silver.NameLoc.Start:silver.NameLoc.End]; got != `silver_users` {
		t.Errorf("name= literal covers %q", got)
	}
	// TABLE = "raw_" + "events" is a text Thund knows: Python's sum.
	if got := silver.Reads[0].Name; got != "raw_events" {
		t.Errorf("the read of TABLE is %q, want raw_events", got)
	}
	flow := f.Definitions[1]
	if got := text[flow.TargetLoc.Start:flow.TargetLoc.End]; got != `bronze_events` {
		t.Errorf("target covers %q", got)
	}
	if got := text[f.Definitions[0].Loc.Start:f.Definitions[0].Loc.End]; got != `dp.create_streaming_table("bronze_events", comment="raw events")` {
		t.Errorf("create_streaming_table covers %q", got)
	}
	if got := text[f.Definitions[3].Loc.Start:f.Definitions[3].Loc.End]; got[len(got)-1] != ')' {
		t.Errorf("recent ends with %q", got)
	}
}

func TestNotPipelineFile(t *testing.T) {
	f, err := Parse("udf.py", "import dlt_helpers\n\n@table\ndef x():\n    return spark.table('a')\n\n@other.table\ndef y():\n    pass\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 0 {
		t.Errorf("no pipelines import, yet %+v", f.Definitions)
	}
}

func TestSyntaxError(t *testing.T) {
	text := "from pyspark import pipelines as dp\n\n@dp.table\ndef x(:\n    pass\n\n@dp.table\ndef y():\n    return spark.range(3)\n"
	f, err := Parse("bad.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) == 0 || f.Errors[0].Line != 4 || f.Errors[0].Offset < 0 || f.Errors[0].Offset > len(text) {
		t.Fatalf("syntax errors %+v", f.Errors)
	}
	if len(f.Definitions) != 1 || f.Definitions[0].Name != "y" {
		t.Errorf("the definition after the error is still read, got %+v", f.Definitions)
	}
}

// FuzzParse checks Parse never panics and spans stay in the text.
func FuzzParse(f *testing.F) {
	f.Add("from pyspark import pipelines as dp\n@dp.table\ndef t():\n    return spark.sql('SELECT \\'a\\' ' \"FROM x\" f'{{y}}')\n")
	f.Add("from pyspark import pipelines as dp\nfrom pyspark.sql import functions as F\nX = f\"{X}\"\nfor t, u in [(\"a\", \"b\")]:\n    dp.create_streaming_table(f\"s_{t}{X}\")\n" +
		"def mk(n, p=\"x\"):\n    @dp.table(name=n, partition_cols=[p])\n    def f():\n        return spark.read.format(\"csv\").load(\"/a/b.csv\").join(spark.table(n), [\"k\"]).groupBy(\"k\").agg(F.sum(\"v\").alias(\"s\"))\n" +
		"mk(\"q\")\nfor z in [\"r\"]:\n    mk(z)\n")
	for _, name := range []string{"init_example.py", "mixed.py"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		file, err := Parse("f.py", text)
		if err != nil {
			return
		}
		for _, u := range file.Unknown {
			if u.Loc.Start < 0 || u.Loc.End > len(text) || u.Loc.Start > u.Loc.End {
				t.Fatalf("unknown %+v out of %d bytes", u, len(text))
			}
		}
		for _, d := range file.Definitions {
			if q := d.Query; q != nil && q.Lit != nil {
				lit := q.Lit
				if len(lit.Offsets) != len(lit.Value)+1 {
					t.Fatalf("literal %q has %d offsets", lit.Value, len(lit.Offsets))
				}
				for _, o := range lit.Offsets {
					if o < lit.Loc.Start || o > lit.Loc.End {
						t.Fatalf("offset %d outside the literal %+v", o, lit.Loc)
					}
				}
				if over, ok := Overlay(text, lit); ok && len(over) != len(text) {
					t.Fatalf("overlay of %d bytes for a text of %d", len(over), len(text))
				}
			}
			for _, s := range append([]Span{d.Loc, d.NameLoc}, spans(d)...) {
				if s.Start < 0 || s.End > len(text) || s.Start > s.End {
					t.Fatalf("span %+v out of %d bytes", s, len(text))
				}
			}
		}
	})
}

func spans(d Definition) []Span {
	var out []Span
	for _, r := range d.Reads {
		out = append(out, r.Loc)
	}
	for _, u := range d.Unknown {
		out = append(out, u.Loc)
	}
	return out
}

// TestLoopsAndFactories: definitions in a loop over literals, or in a
// function called with literals, are expanded with the values bound; a
// loop over computed values is an Unknown at its iterable.
func TestLoopsAndFactories(t *testing.T) {
	text := `from pyspark import pipelines as dp

SOURCES = ["orders", "users"]

for t in ["a", "b"]:
    dp.create_streaming_table(f"bronze_{t}", comment=f"raw {t}")

for name, src in [("x", "landing.x"), ("y", "landing.y")]:
    @dp.materialized_view(name=name)
    def _copy():
        return spark.read.table(src)

def make(table, prefix="silver"):
    @dp.table(name=f"{prefix}_{table}", partition_cols=["day"])
    def _t():
        return spark.readStream.table(f"bronze_{table}").where("id IS NOT NULL")

for s in SOURCES:
    make(s)
make("c", prefix="gold")
make(spark.conf.get("x"))

for q in spark.conf.get("tables").split(","):
    dp.create_streaming_table(q)
`
	f, err := Parse("loops.py", text)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Definitions {
		s := d.Name
		if d.Query != nil {
			s += ": " + d.Query.SQL
		}
		got = append(got, s)
	}
	want := []string{
		"bronze_a", "bronze_b",
		"x: SELECT * FROM `landing`.`x`", "y: SELECT * FROM `landing`.`y`",
		"silver_orders: SELECT * FROM STREAM(`bronze_orders`) WHERE id IS NOT NULL",
		"silver_users: SELECT * FROM STREAM(`bronze_users`) WHERE id IS NOT NULL",
		"gold_c: SELECT * FROM STREAM(`bronze_c`) WHERE id IS NOT NULL",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("definitions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := f.Definitions[0]; d.Comment != "raw a" || d.Kind != ir.StreamingTable {
		t.Errorf("bronze_a = %+v", d)
	}
	if d := f.Definitions[2]; text[d.NameLoc.Start:d.NameLoc.End] != "x" || d.Reads[0].Name != "landing.x" || text[d.Reads[0].Inner.Start:d.Reads[0].Inner.End] != "landing.x" {
		t.Errorf("x: name at %q, reads %+v", text[d.NameLoc.Start:d.NameLoc.End], d.Reads)
	}
	if d := f.Definitions[4]; len(d.PartitionCols) != 1 || d.PartitionCols[0] != "day" {
		t.Errorf("silver_orders partition_cols = %v", d.PartitionCols)
	}
	var unknown []string
	for _, u := range f.Unknown {
		unknown = append(unknown, u.What+" "+text[u.Loc.Start:u.Loc.End])
	}
	if strings.Join(unknown, "; ") != `loop spark.conf.get("x"); loop spark.conf.get("tables").split(",")` {
		t.Errorf("unknown = %q", unknown)
	}
}

// TestSettings: the table settings of a decorator and of
// create_streaming_table, and a computed one.
func TestSettings(t *testing.T) {
	text := `import dlt
PROPS = {"quality": "gold"}

@dlt.table(comment="c", partition_cols=["d", "h"], cluster_by=("k",), table_properties=PROPS,
           spark_conf={"spark.sql.shuffle.partitions": "4"}, schema="id BIGINT, d DATE", format="delta")
def t():
    return spark.range(3)

dlt.create_streaming_table("s", table_properties={"a": "1"}, partition_cols=cols())
`
	f, err := Parse("s.py", text)
	if err != nil || len(f.Definitions) != 2 {
		t.Fatalf("%v %+v", err, f.Definitions)
	}
	d := f.Definitions[0]
	if strings.Join(d.PartitionCols, ",") != "d,h" || strings.Join(d.ClusterBy, ",") != "k" || d.Properties["quality"] != "gold" ||
		d.Conf["spark.sql.shuffle.partitions"] != "4" || d.Schema != "id BIGINT, d DATE" || d.Format != "delta" || d.Comment != "c" {
		t.Errorf("t = %+v", d)
	}
	if text[d.SchemaLoc.Start:d.SchemaLoc.End] != "id BIGINT, d DATE" {
		t.Errorf("schema at %q", text[d.SchemaLoc.Start:d.SchemaLoc.End])
	}
	if s := f.Definitions[1]; s.Properties["a"] != "1" || s.PartitionCols != nil {
		t.Errorf("s = %+v", s)
	}
	if len(f.Unknown) != 1 || f.Unknown[0].What != UnknownSetting || text[f.Unknown[0].Loc.Start:f.Unknown[0].Loc.End] != "cols()" {
		t.Errorf("unknown = %+v", f.Unknown)
	}
}

// TestOptionedTableRead: a reader given options before .table (Delta's
// change feed, spark.readStream.option("readChangeFeed", "true")) still
// reads that table: an edge of the graph at the name, streaming when the
// reader is spark.readStream.
func TestOptionedTableRead(t *testing.T) {
	text := "from pyspark import pipelines as dp\n\n@dp.table\ndef cdf():\n" +
		"    return spark.readStream.option(\"readChangeFeed\", \"true\").table(\"main.src.products\")\n\n" +
		"@dp.materialized_view\ndef snap():\n    return spark.read.format(\"delta\").options(versionAsOf=\"3\").table(\"products\")\n"
	f, err := Parse("p.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 2 {
		t.Fatalf("definitions: %+v", f.Definitions)
	}
	for i, want := range []struct {
		name      string
		streaming bool
	}{{"main.src.products", true}, {"products", false}} {
		d := f.Definitions[i]
		if len(d.Reads) != 1 || d.Reads[0].Name != want.name || d.Reads[0].Streaming != want.streaming ||
			text[d.Reads[0].Inner.Start:d.Reads[0].Inner.End] != want.name {
			t.Errorf("%s: reads %+v, want %s (streaming %v)", d.Name, d.Reads, want.name, want.streaming)
		}
	}
}
