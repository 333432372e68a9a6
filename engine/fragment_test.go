package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// expectation finds the result of expectation name on dataset ds.
func expectation(t *testing.T, res *Result, ds, name string) ExpectationResult {
	t.Helper()
	for _, r := range res.Expectations {
		if r.Dataset == ds && r.Name == name {
			return r
		}
	}
	t.Fatalf("no result for expectation %s of %s (results: %+v)", name, ds, res.Expectations)
	return ExpectationResult{}
}

// TestExpectationsReadAsSpark: an expectation's condition is Spark SQL,
// translated: "..." is a string (not a column), size and array_contains
// are Spark's, in the CONSTRAINT form, the @expect pragma and a view's
// drop filter alike.
func TestExpectationsReadAsSpark(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"orders.sql": `CREATE OR REFRESH MATERIALIZED VIEW orders (
  CONSTRAINT open_status EXPECT (status = "OPEN") ON VIOLATION DROP ROW,
  CONSTRAINT tagged EXPECT (size(tags) > 0),
  CONSTRAINT has_a EXPECT (array_contains(tags, 'a'))
) AS SELECT id, status, split(tag_list, ';') AS tags FROM raw_orders;
`,
		"checked.sql": `-- @expect.not_closed: status != "CLOSED"
SELECT id, status FROM raw_orders;
`,
		"open_view.sql": `CREATE TEMPORARY VIEW open_view (
  CONSTRAINT open_only EXPECT (status == "OPEN") ON VIOLATION DROP ROW
) AS SELECT id, status FROM raw_orders;
`,
		"samples/raw_orders.csv": "id,status,tag_list\n1,OPEN,a;b\n2,CLOSED,b\n3,OPEN,\n4,OPEN,c\n",
	})
	res, s := runOK(t, dir)
	if r := expectation(t, res, "orders", "open_status"); r.Violations != 1 || r.Dropped != 1 {
		t.Errorf("open_status: %d violations, %d dropped; want 1 and 1 (\"OPEN\" is a string)", r.Violations, r.Dropped)
	}
	sameRows(t, "orders ids", rowsOf(t, s, "SELECT id FROM orders"), sortedRows("1", "3", "4"))
	// Row 3's empty tag_list is NULL, so are its tags and, with ANSI
	// mode on, size(tags) (not -1): it violates tagged, the others hold.
	if r := expectation(t, res, "orders", "tagged"); r.Violations != 1 {
		t.Errorf("tagged: %d violations, want 1", r.Violations)
	}
	if r := expectation(t, res, "orders", "has_a"); r.Violations != 2 {
		t.Errorf("has_a: %d violations, want 2 (ids 3 and 4)", r.Violations)
	}
	if r := expectation(t, res, "checked", "not_closed"); r.Violations != 1 {
		t.Errorf("not_closed: %d violations, want 1", r.Violations)
	}
	if r := expectation(t, res, "open_view", "open_only"); r.Violations != 1 {
		t.Errorf("open_only: %d violations, want 1", r.Violations)
	}
	sameRows(t, "open_view", rowsOf(t, s, "SELECT id FROM open_view"), sortedRows("1", "3", "4"))
}

// TestExpectationDividesAsSpark: amount / qty in an expectation is
// Spark's division (a double: 3 / 2 is 1.5), and a zero divisor is
// Spark's DIVIDE_BY_ZERO under ANSI mode, at the user's expression, with
// no internal name, not a NULL that quietly counts as a violation.
func TestExpectationDividesAsSpark(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"lines.sql": `CREATE MATERIALIZED VIEW lines (
  CONSTRAINT unit_price EXPECT (amount / qty > 1)
) AS SELECT * FROM raw_lines;
`,
		"samples/raw_lines.csv": "amount,qty\n3,2\n2,2\n",
	})
	res, _ := runOK(t, dir)
	if r := expectation(t, res, "lines", "unit_price"); r.Violations != 1 {
		t.Errorf("unit_price: %d violations, want 1 (3 / 2 = 1.5 > 1; 2 / 2 = 1)", r.Violations)
	}

	dir = writePipeline(t, map[string]string{
		"lines.sql": `CREATE MATERIALIZED VIEW lines (
  CONSTRAINT unit_price EXPECT (amount / qty > 1)
) AS SELECT * FROM raw_lines;
`,
		"samples/raw_lines.csv": "amount,qty\n3,2\n2,0\n",
	})
	snap, s := loadClean(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["lines"]
	if d.Phase != Failed {
		t.Fatalf("lines %s, want failed with DIVIDE_BY_ZERO", d.Phase)
	}
	t.Log(d.Error)
	for _, want := range []string{"lines.sql:2:", "DIVIDE_BY_ZERO", "expectation unit_price"} {
		if !strings.Contains(d.Error, want) {
			t.Errorf("the error does not say %q: %s", want, d.Error)
		}
	}
	if strings.Contains(d.Error, "__thund") {
		t.Errorf("the error names an internal relation: %s", d.Error)
	}
}

// TestExpectationErrorsInSparkTerms: an unknown column in an expectation
// fails the dataset at the column, in Spark's words.
func TestExpectationErrorsInSparkTerms(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"lines.sql": `CREATE MATERIALIZED VIEW lines (
  CONSTRAINT positive EXPECT (amout > 0)
) AS SELECT * FROM raw_lines;
`,
		"samples/raw_lines.csv": "amount,qty\n3,2\n",
	})
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["lines"]
	if d.Phase != Failed {
		t.Fatalf("lines %s, want failed", d.Phase)
	}
	for _, want := range []string{"lines.sql:2:31", "UNRESOLVED_COLUMN", "amout", "expectation positive"} {
		if !strings.Contains(d.Error, want) {
			t.Errorf("the error does not say %q: %s", want, d.Error)
		}
	}
	if strings.Contains(d.Error, "__thund") || strings.Contains(d.Error, "thund_fragment") {
		t.Errorf("the error names an internal name: %s", d.Error)
	}
}

// TestCDCPredicatesReadAsSpark: APPLY AS DELETE WHEN op = "D" compares
// with the string D (Spark), in APPLY CHANGES INTO and in the @cdc
// pragma's deletes=, and an expectation with a "..." string on the
// changes of a streaming flow counts as Spark does.
func TestCDCPredicatesReadAsSpark(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE cur;
APPLY CHANGES INTO LIVE.cur FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = "D"
SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;
`,
		"pragma.sql": `-- @cdc: keys=(id) sequence_by=seq deletes=(op = "D")
-- @expect.known_op: op IN ("I", "U", "D")
SELECT * FROM STREAM(changes);
`,
		"events.sql": `CREATE OR REFRESH STREAMING TABLE events (
  CONSTRAINT not_deleted EXPECT (op <> "D") ON VIOLATION DROP ROW
) AS SELECT id, op FROM STREAM(changes);
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,I,1\n2,b,I,2\n3,c,I,3\n",
		"samples/changes/2.csv": "id,v,op,seq\n1,a2,U,4\n2,b,D,5\n3,c,X,6\n",
	})
	res, s := runOK(t, dir)
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("1|a2|4", "3|c|6"))
	sameRows(t, "pragma", rowsOf(t, s, "SELECT id, v, seq FROM pragma"), sortedRows("1|a2|4", "3|c|6"))
	if r := expectation(t, res, "pragma", "known_op"); r.Violations != 1 {
		t.Errorf("known_op: %d violations, want 1 (op X)", r.Violations)
	}
	if r := expectation(t, res, "events", "not_deleted"); r.Violations != 1 || r.Dropped != 1 {
		t.Errorf("not_deleted: %d violations, %d dropped; want 1 and 1", r.Violations, r.Dropped)
	}
	sameRows(t, "events", rowsOf(t, s, "SELECT id, op FROM events"), sortedRows("1|I", "2|I", "3|I", "1|U", "3|X"))
}

// TestDescriberCheckReadsSpark: an expectation that binds only as Spark
// reads it ("OPEN" a string, <=> and size Spark's) passes Check; one
// naming an unknown column fails under either reading.
func TestDescriberCheckReadsSpark(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Define(ctx, "base", "SELECT 1 AS id, 'OPEN' AS status, [1, 2] AS xs"); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{`status = "OPEN"`, `status IN ("OPEN", "CLOSED")`, `id <=> 1`, `size(xs) > 0`} {
		if err := d.Check(ctx, "base", ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	var e *SQLError
	if err := d.Check(ctx, "base", `stauts = "OPEN"`); !errors.As(err, &e) || e.Name != "stauts" {
		t.Errorf("an unknown column: got %v", err)
	}
}

// TestPythonExpectationReadsSpark: @dlt.expect's condition is Spark SQL:
// "OPEN" in it is a string, and <=> is Spark's null-safe equality.
func TestPythonExpectationReadsSpark(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/orders.py": "import dlt\n\n@dlt.table\n@dlt.expect_or_drop(\"open\", 'status = \"OPEN\"')\n@dlt.expect(\"has_id\", \"NOT (id <=> NULL)\")\n" +
			"def orders():\n    return spark.sql(\"SELECT id, status FROM raw_orders\")\n",
		"samples/raw_orders.csv": "id,status\n1,OPEN\n2,CLOSED\n,OPEN\n",
	})
	res := runPython(t, dir)
	if d := res.Datasets["orders"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Fatalf("orders = %+v, want 2 rows", d)
	}
	if r := expectation(t, res, "orders", "open"); r.Dropped != 1 {
		t.Errorf("open: %d dropped, want 1", r.Dropped)
	}
	if r := expectation(t, res, "orders", "has_id"); r.Violations != 1 {
		t.Errorf("has_id: %d violations, want 1", r.Violations)
	}
}
