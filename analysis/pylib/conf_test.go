package pylib

import (
	"testing"
)

// TestConfGet: spark.conf.get("k") reads the pipeline's configuration
// (a module constant bound to it, inline, in an f-string, with a
// default), and a name computed from an integer constant is known.
func TestConfGet(t *testing.T) {
	text := header + `cat = spark.conf.get("cat")
sch = spark.conf.get("schema", "bronze")
n = 1

@dp.materialized_view(name=f"{cat}.{sch}.m{n}")
def m():
    return spark.read.table(f"{cat}.src.orders")

@dp.table(name=spark.conf.get("other"))
def unnamed():
    return spark.range(1)

@dp.table
def o():
    return spark.readStream.format("json").load(f"/Volumes/{cat}/raw/ev/")
`
	f, err := ParseWith("c.py", text, Options{Conf: map[string]string{"cat": "main"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 2 {
		t.Fatalf("got %d definitions, want 2 (the one named by an unset key with no default is unknown): %+v", len(f.Definitions), f.Definitions)
	}
	m := f.Definitions[0]
	if m.Name != "main.bronze.m1" {
		t.Errorf("name = %q, want main.bronze.m1", m.Name)
	}
	if len(m.Reads) != 1 || m.Reads[0].Name != "main.src.orders" {
		t.Errorf("reads = %+v, want main.src.orders", m.Reads)
	}
	o := f.Definitions[1]
	if o.Name != "o" || len(o.Reads) != 1 || o.Reads[0].Path != "/Volumes/main/raw/ev/" || !o.Reads[0].Streaming {
		t.Errorf("o = %+v", o)
	}
	if len(f.Unknown) != 1 || f.Unknown[0].What != UnknownName {
		t.Errorf("unknown = %+v, want the name= of an unset key", f.Unknown)
	}
	// Without the configuration the names are computed at run time.
	f, err = Parse("c.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 1 || f.Definitions[0].Name != "o" || len(f.Definitions[0].Reads) != 0 {
		t.Errorf("without the configuration: %+v, want only o, its path unknown", f.Definitions)
	}
}

// TestExpectationsFromFunctions: an @expect_all* dict returned by a
// function of the file is read; one from a helper module is an
// UnknownExpectations, never silently dropped.
func TestExpectationsFromFunctions(t *testing.T) {
	text := header + `from utilities import rules

def local_rules():
    """The rules."""
    return {"id_not_null": "id IS NOT NULL"}

r = rules.get_rules()

@dp.expect_all_or_drop(local_rules())
@dp.materialized_view
def a():
    return spark.read.table("src")

@dp.expect_all_or_fail(r)
@dp.materialized_view
def b():
    return spark.read.table("src")
`
	f, err := Parse("e.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 2 {
		t.Fatalf("definitions: %+v", f.Definitions)
	}
	a, b := f.Definitions[0], f.Definitions[1]
	if len(a.Expectations) != 1 || a.Expectations[0].Name != "id_not_null" || a.Expectations[0].Cond.Value != "id IS NOT NULL" || a.Expectations[0].Action != "drop" || len(a.UnknownExpectations) != 0 {
		t.Errorf("a: %+v %+v", a.Expectations, a.UnknownExpectations)
	}
	if len(b.Expectations) != 0 || len(b.UnknownExpectations) != 1 || b.UnknownExpectations[0].From != "rules.get_rules()" || b.UnknownExpectations[0].Action != "fail" || text[b.UnknownExpectations[0].Loc.Start:b.UnknownExpectations[0].Loc.End] != "r" {
		t.Errorf("b: %+v %+v", b.Expectations, b.UnknownExpectations)
	}
}
