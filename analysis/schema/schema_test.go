package schema

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// load analyses dir and opens a session on it.
func load(t testing.TB, dir string) (*analysis.Snapshot, *engine.Session) {
	t.Helper()
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Open(snap.Root, engine.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return snap, s
}

// tree writes files under a new temp folder and returns it.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func describe(t testing.TB, snap *analysis.Snapshot, s *engine.Session) *Result {
	t.Helper()
	res, err := Describe(context.Background(), s, snap)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func columnStrings(cols []engine.Column) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name+" "+c.Type)
	}
	return out
}

// diagStrings renders diagnostics as file:start-end [text] code message.
func diagStrings(snap *analysis.Snapshot, ds []ir.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		text, _ := snap.Text(d.Loc.File)
		out = append(out, fmt.Sprintf("%s:%d-%d [%s] %s %s %s", d.Loc.File, d.Loc.Start, d.Loc.End, text[d.Loc.Start:d.Loc.End], d.Severity, d.Code, d.Message))
	}
	return out
}

func TestRetailColumns(t *testing.T) {
	snap, s := load(t, "../../testdata/retail")
	res := describe(t, snap, s)
	// Spark's result types, as the translation makes them (INT *
	// DECIMAL(10,2) is DECIMAL(21,2), sum(INT) BIGINT, sum(DECIMAL(21,2))
	// DECIMAL(31,2), rank() INT), in DuckDB's spelling.
	want := map[string][]string{
		"clean_orders": {"order_id INTEGER", "customer_id VARCHAR", "product_id VARCHAR", "order_date DATE", "quantity INTEGER",
			"unit_price DECIMAL(10,2)", "amount DECIMAL(21,2)", "status VARCHAR"},
		"order_lines": {"order_id INTEGER", "order_date DATE", "customer_id VARCHAR", "status VARCHAR", "product_id VARCHAR",
			"product_name VARCHAR", "category VARCHAR", "quantity INTEGER", "unit_price DECIMAL(10,2)", "amount DECIMAL(21,2)", "discount DECIMAL(22,2)"},
		"billable_lines": {"order_id INTEGER", "order_date DATE", "customer_id VARCHAR", "status VARCHAR", "product_id VARCHAR",
			"product_name VARCHAR", "category VARCHAR", "quantity INTEGER", "unit_price DECIMAL(10,2)", "amount DECIMAL(21,2)", "discount DECIMAL(22,2)"},
		"customer_orders": {"order_id INTEGER", "order_date DATE", "customer_id VARCHAR", "customer_name VARCHAR", "region VARCHAR",
			"units BIGINT", "order_total DECIMAL(31,2)"},
		"customer_ranking": {"customer_id VARCHAR", "customer_name VARCHAR", "region VARCHAR", "orders BIGINT", "lifetime_value DECIMAL(38,2)",
			"overall_rank INTEGER", "region_rank INTEGER", "running_value DECIMAL(38,2)", "running_share_pct DECIMAL(34,1)"},
		"daily_revenue":     {"order_date DATE", "orders BIGINT", "units BIGINT", "revenue DECIMAL(31,2)", "discounts DECIMAL(32,2)"},
		"revenue_by_region": {"region VARCHAR", "order_month DATE", "orders BIGINT", "customers BIGINT", "revenue DECIMAL(38,2)", "avg_order DECIMAL(32,2)"},
		"top_products":      {"category VARCHAR", "category_rank INTEGER", "product_id VARCHAR", "product_name VARCHAR", "units BIGINT", "revenue DECIMAL(31,2)"},
	}
	if len(res.Order) != len(want) {
		t.Fatalf("order %v", res.Order)
	}
	for name, cols := range want {
		d := res.Datasets[name]
		if d == nil || d.Status != Described {
			t.Errorf("%s: %+v", name, d)
			continue
		}
		if got := columnStrings(d.Columns); !reflect.DeepEqual(got, cols) {
			t.Errorf("%s columns\n got %q\nwant %q", name, got, cols)
		}
	}
	if got := columnStrings(res.Columns("Orders")); len(got) != 7 || got[0] != "order_id INTEGER" {
		t.Errorf("source orders: %q", got)
	}
	if len(res.Diagnostics) > 0 {
		t.Errorf("diagnostics: %s", strings.Join(diagStrings(snap, res.Diagnostics), "\n"))
	}
}

// TestUnknownColumn: a typo of a column, on lines with CRLF endings and
// multi-byte characters before it, is reported at the name as written with
// DuckDB's suggestion; what reads the broken dataset is skipped quietly.
func TestUnknownColumn(t *testing.T) {
	typo := "-- Amounts in €, with a 🚀.\r\n" +
		"SELECT 'é€🚀' AS tag, payment_id,\r\n" +
		"  amout * 2 AS doubled\r\n" +
		"FROM payments\r\n"
	root := tree(t, map[string]string{
		"thund.yaml":           "backends: [native]\n",
		"samples/payments.csv": "payment_id,account_id,amount\n1,a1,30.00\n",
		"typo.sql":             typo,
		"downstream.sql":       "SELECT doubled, nothing_here FROM typo\n",
		"qualified.sql":        "SELECT p.payment_id, p.`acount_id` FROM payments AS p\n",
		"fine.sql":             "SELECT payment_id, amount FROM payments\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	start := strings.Index(typo, "amout")
	// The analysis finds the typos from the Spark semantic model (also
	// downstream's, which DuckDB never gets to, as typo fails); the
	// binder's findings on the same queries are their twins and dropped.
	var static []ir.Diagnostic
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeUnknownColumn {
			static = append(static, d)
		}
	}
	want := []string{
		"downstream.sql:16-28 [nothing_here] error unknown-column unknown column `nothing_here` (the columns here are `tag`, `payment_id`, `typo.doubled`)",
		"qualified.sql:21-34 [p.`acount_id`] error unknown-column unknown column `p`.`acount_id`: `p` has no column `acount_id`; did you mean `p.account_id`?",
		fmt.Sprintf("typo.sql:%d-%d [amout] error unknown-column unknown column `amout`; did you mean `amount`?", start, start+5),
	}
	if got := diagStrings(snap, static); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Diagnostics) != 0 {
		t.Errorf("the binder's twins are kept: %s", strings.Join(diagStrings(snap, res.Diagnostics), "\n"))
	}
	if d := res.Datasets["typo"]; d.Status != Failed || d.Columns != nil {
		t.Errorf("typo: %+v", d)
	}
	if d := res.Datasets["downstream"]; d.Status != Skipped || d.Reason != "upstream typo failed" {
		t.Errorf("downstream: %+v", d)
	}
	if d := res.Datasets["fine"]; d.Status != Described || len(d.Columns) != 2 {
		t.Errorf("fine: %+v", d)
	}
}

// TestBinderErrors: a Spark SQL query is checked as a run executes it,
// translated: what Spark accepts and the translation binds (a string plus
// a number, date_add of a timestamp) is no error, even where DuckDB
// rejects the text as written; what a run refuses before running is an
// unsupported-on-backend error at the construct, with the reason.
// DuckDB-unreadable Spark syntax and tables without samples give no
// diagnostic.
func TestBinderErrors(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":            "backends: [native, spark-4.1]\n",
		"samples/customers.csv": "customer_id,name,signup_date\nC1,Ada,2024-01-01\n",
		"type_error.sql":        "SELECT customer_id, name + 1 AS n FROM customers\n",
		"no_function.sql":       "SELECT customer_id, months_between(signup_date, signup_date) AS m FROM customers\n",
		"group_by.sql":          "SELECT name, count(*) AS n FROM customers GROUP BY customer_id\n",
		"lateral.sql":           "SELECT customer_id, x FROM customers LATERAL VIEW explode(array(1, 2)) t AS x\n",
		"date_add.sql":          "SELECT date_add(CAST(signup_date AS TIMESTAMP), 1) AS d FROM customers\n",
		"pattern.sql":           "SELECT date_format(signup_date, 'yyyy QQ') AS d FROM customers\n",
		"no_sample.sql":         "SELECT * FROM suppliers\n",
		"spark_fn.sql":          "SELECT named_struct('a', customer_id) AS s FROM customers\n",
		// Not checked natively, so DuckDB's opinion is not reported.
		"spark_only.sql": "-- @backends: spark-4.1\nSELECT name + 1 AS n FROM customers\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	got := diagStrings(snap, res.Diagnostics)
	want := []string{
		"no_function.sql:20-34 [months_between] error unsupported-on-backend months_between does not run natively: months_between's day-fraction rules do not run natively yet",
		"pattern.sql:32-41 ['yyyy QQ'] error unsupported-on-backend pattern cannot run on the native backend: this datetime pattern uses the pattern letters QQ, which Thund does not translate (docs/spark-compat.md lists the letters it does)",
	}
	if len(got) != len(want) {
		t.Fatalf("got\n%s", strings.Join(got, "\n"))
	}
	// group_by.sql's mistake is found without DuckDB (missing-aggregation),
	// and the binder's twin is dropped.
	found := false
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeMissingAggregation && d.Loc.File == "group_by.sql" {
			found = true
		}
	}
	if !found {
		t.Errorf("no missing-aggregation on group_by.sql: %v", diagStrings(snap, snap.Diagnostics))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("got  %s\nwant %s...", got[i], want[i])
		}
	}
	for name, st := range map[string]Status{"lateral": Described, "no_sample": Skipped, "spark_only": Described, "type_error": Described, "date_add": Described, "no_function": Failed, "spark_fn": Described} {
		if d := res.Datasets[name]; d.Status != st {
			t.Errorf("%s: %+v, want %s", name, d, st)
		}
	}
}

// TestFlowsAndExpectations: a second flow into a dataset must append by
// name, and expectations bind against the dataset's columns.
func TestFlowsAndExpectations(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":         "backends: [native]\n",
		"samples/events.csv": "id,kind\n1,a\n",
		"all_events.sql": "-- @expect.known: kinde IN ('a', 'b')\n-- @expect.ok: id > 0\n" +
			"SELECT id, kind FROM events\n",
		"more_events.sql": "-- @target: all_events\nSELECT id, kind, 'x' AS extra FROM events\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	got := diagStrings(snap, res.Diagnostics)
	want := []string{
		"all_events.sql:18-23 [kinde] error unknown-column column \"kinde\" does not exist in all_events: did you mean \"kind\"?",
		"more_events.sql:47-52 [extra] error unknown-column column \"extra\" does not exist in all_events; the columns are id, kind",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDescribeKeepsOutputs: describing after a run leaves the run's
// tables as they were, and a second Describe sees the current queries.
func TestDescribeKeepsOutputs(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":         "backends: [native]\n",
		"samples/orders.csv": "id,amount\n1,10\n2,20\n",
		"big.sql":            "SELECT id, amount FROM orders WHERE amount > 5\n",
		"top.sql":            "SELECT max(amount) AS top FROM big\n",
	})
	snap, s := load(t, root)
	ctx := context.Background()
	if _, err := s.Run(ctx, snap.Pipeline, engine.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	res := describe(t, snap, s)
	if got := columnStrings(res.Columns("top")); !reflect.DeepEqual(got, []string{"top INTEGER"}) {
		t.Errorf("top: %q", got)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 2 {
		t.Errorf("big after describe: %d rows, %v", n, err)
	}
	// Change a query: the next Describe binds the new one, not the
	// relation the last one made.
	if err := os.WriteFile(filepath.Join(root, "big.sql"), []byte("SELECT id, amount * 1.5 AS amount, 'x' AS tag FROM orders\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap2, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res2 := describe(t, snap2, s)
	if got := columnStrings(res2.Columns("big")); !reflect.DeepEqual(got, []string{"id INTEGER", "amount DECIMAL(13,1)", "tag VARCHAR"}) {
		t.Errorf("big: %q", got)
	}
	if got := columnStrings(res2.Columns("top")); !reflect.DeepEqual(got, []string{"top DECIMAL(13,1)"}) {
		t.Errorf("top: %q", got)
	}
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 2 {
		t.Errorf("big after the second describe: %d rows, %v", n, err)
	}
}

// TestDescribeCancelled: a cancelled context stops Describe.
func TestDescribeCancelled(t *testing.T) {
	snap, s := load(t, "../../testdata/retail")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Describe(ctx, s, snap); err == nil {
		t.Fatal("no error")
	}
	// The describing connection is free again.
	describe(t, snap, s)
}

func BenchmarkDescribeRetail(b *testing.B) {
	snap, s := load(b, "../../testdata/retail")
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Describe(ctx, s, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSettingColumns: a CDC key or sequence column the query does not
// have, and a watermark column its stream does not have, are unknown-column
// errors at the pragma, a deletes predicate that does not bind a binder
// error; the right names give none.
func TestSettingColumns(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":            "backends: [native]\n",
		"samples/changes/1.csv": "id,seq,_change_type\n1,1,INSERT\n",
		"samples/clicks/1.csv":  "ts,page\n2025-01-01 10:00:00,a\n",
		"bad_cdc.sql":           "-- @kind: streaming_table\n-- @cdc: keys=(idd) sequence_by=seq\nSELECT * FROM STREAM(changes)\n",
		"good_cdc.sql":          "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=(seq < 0)\nSELECT * FROM STREAM(changes)\n",
		"bad_del.sql":           "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=(nosuch = 1)\nSELECT * FROM STREAM(changes)\n",
		"bad_wm.sql":            "-- @kind: streaming_table\n-- @watermark: tss, 5 minutes\nSELECT date_trunc('minute', ts) AS m, count(*) AS n FROM STREAM(clicks) GROUP BY 1\n",
		"good_wm.sql":           "-- @kind: streaming_table\n-- @watermark: ts, 5 minutes\nSELECT date_trunc('minute', ts) AS m, count(*) AS n FROM STREAM(clicks) GROUP BY 1\n",
		"text_wm.sql":           "-- @kind: streaming_table\n-- @watermark: page, 5 minutes\nSELECT page, count(*) AS n FROM STREAM(clicks) GROUP BY 1\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Loc.File+" "+string(d.Code))
	}
	if strings.Join(got, ",") != "bad_cdc.sql unknown-column,bad_del.sql sql-binder,bad_wm.sql unknown-column,text_wm.sql sql-binder" {
		t.Fatalf("diagnostics: %v", got)
	}
}

// TestDescribeTypesAreSparks: a flow is described by its translation, so
// its columns have Spark's result types; a flow the translator refuses
// but whose text binds on DuckDB is described as written, with no error.
func TestDescribeTypesAreSparks(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":         "backends: [native]\n",
		"samples/orders.csv": "id,qty,price\n1,2,1.50\n",
		"lines.sql":          "SELECT id, cast(qty AS INT) * cast(price AS DECIMAL(10, 2)) AS amount, sum(cast(qty AS INT)) OVER () AS total FROM orders\n",
		"nulls.sql":          "SELECT NULL AS nothing, 1 AS one\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	if got := columnStrings(res.Columns("lines")); !reflect.DeepEqual(got, []string{"id INTEGER", "amount DECIMAL(21,2)", "total BIGINT"}) {
		t.Errorf("lines: %q, want Spark's DECIMAL(21,2) and BIGINT", got)
	}
	if d := res.Datasets["nulls"]; d == nil || d.Status != Described || len(d.Columns) != 2 {
		t.Errorf("nulls: %+v, want it described as written", d)
	}
	if len(res.Diagnostics) > 0 {
		t.Errorf("diagnostics: %s", strings.Join(diagStrings(snap, res.Diagnostics), "\n"))
	}
}
