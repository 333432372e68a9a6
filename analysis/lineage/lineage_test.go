package lineage_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/ir"
)

func retail(t *testing.T) (*analysis.Snapshot, *lineage.Graph) {
	t.Helper()
	snap, err := analysis.Load(filepath.Join("..", "..", "testdata", "retail"), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap, graphOf(snap)
}

func graphOf(snap *analysis.Snapshot) *lineage.Graph {
	return lineage.New(lineage.Input{Pipeline: snap.Pipeline, Tree: snap.SparkTree, Text: snap.Text, SourceColumns: snap.SampleColumns})
}

func deps(c *lineage.Column) string {
	var out []string
	for _, d := range c.Deps {
		out = append(out, d.From.String()+":"+string(d.Kind))
	}
	return strings.Join(out, " ")
}

func TestRetailColumnDeps(t *testing.T) {
	_, g := retail(t)
	cases := map[string]string{
		// a computed column of a source
		"clean_orders.amount": "orders.quantity:expression orders.unit_price:expression",
		// passed through an alias (o), with the join keys of the query
		"order_lines.amount": "clean_orders.amount:passthrough clean_orders.product_id:join products.product_id:join",
		// passed through a * with the view's filter
		"billable_lines.amount": "order_lines.amount:passthrough order_lines.status:filter",
		// an aggregate
		"customer_orders.order_total": "billable_lines.amount:aggregate billable_lines.customer_id:join customers.customer_id:join",
		// through a CTE and its t.*; the outer WHERE filters on a window
		// over the CTE's columns
		"top_products.revenue":       "billable_lines.amount:aggregate billable_lines.amount:filter billable_lines.category:filter billable_lines.product_id:filter",
		"top_products.category_rank": "billable_lines.amount:aggregate billable_lines.amount:filter billable_lines.category:expression billable_lines.category:filter billable_lines.product_id:expression billable_lines.product_id:filter",
		// through a subquery
		"customer_ranking.lifetime_value": "customer_orders.order_total:aggregate",
	}
	for name, want := range cases {
		i := strings.IndexByte(name, '.')
		c := g.Lookup(lineage.ColumnID{Table: name[:i], Column: name[i+1:]})
		if c == nil {
			t.Errorf("%s: no such column", name)
			continue
		}
		if got := deps(c); got != want {
			t.Errorf("%s deps:\n got %s\nwant %s", name, got, want)
		}
	}
}

func TestReaders(t *testing.T) {
	_, g := retail(t)
	var got []string
	for _, d := range g.Readers(lineage.ColumnID{Table: "clean_orders", Column: "amount"}) {
		got = append(got, d.From.String()+":"+string(d.Kind))
	}
	want := "order_lines.amount:passthrough order_lines.discount:expression"
	if strings.Join(got, " ") != want {
		t.Errorf("readers of clean_orders.amount: got %v, want %s", got, want)
	}
}

// apply applies edits to the snapshot's texts.
func apply(t *testing.T, snap *analysis.Snapshot, edits []lineage.Edit) map[string]string {
	t.Helper()
	out := map[string]string{}
	byFile := map[string][]lineage.Edit{}
	for _, e := range edits {
		byFile[e.Loc.File] = append(byFile[e.Loc.File], e)
	}
	for f, es := range byFile {
		text, _ := snap.Text(f)
		for i := len(es) - 1; i >= 0; i-- { // sorted by position
			text = text[:es[i].Loc.Start] + es[i].NewText + text[es[i].Loc.End:]
		}
		out[f] = text
	}
	return out
}

func TestRenameColumnCascades(t *testing.T) {
	snap, g := retail(t)
	edits, err := g.RenameColumn(lineage.ColumnID{Table: "clean_orders", Column: "amount"}, "line_amount")
	if err != nil {
		t.Fatal(err)
	}
	texts := apply(t, snap, edits)
	for file, want := range map[string][]string{
		"transformations/clean_orders.sql":    {"AS line_amount", "line_amount IS NOT NULL AND line_amount > 0"},
		"transformations/order_lines.sql":     {"o.line_amount,", "o.quantity - o.line_amount AS discount"},
		"transformations/revenue.sql":         {"round(sum(line_amount), 2) AS revenue"},
		"transformations/customer_orders.sql": {"sum(l.line_amount) AS order_total"},
		"transformations/top_products.sql":    {"sum(line_amount) AS revenue"},
	} {
		for _, w := range want {
			if !strings.Contains(texts[file], w) {
				t.Errorf("%s after the rename lacks %q:\n%s", file, w, texts[file])
			}
		}
	}
	// the renamed pipeline analyzes without a column error
	var changes []analysis.Change
	for f, text := range texts {
		text := text
		changes = append(changes, analysis.Change{Path: f, Text: &text})
	}
	next := snap.Update(changes)
	for _, d := range next.Diagnostics {
		if d.Severity == ir.Error || strings.Contains(string(d.Code), "column") {
			t.Errorf("after the rename: %s: %s", d.Code, d.Message)
		}
	}
	after := graphOf(next)
	if c := after.Lookup(lineage.ColumnID{Table: "billable_lines", Column: "line_amount"}); c == nil {
		t.Error("billable_lines.line_amount missing after the rename")
	}
}

func TestRenameThroughStar(t *testing.T) {
	snap, g := retail(t)
	// billable_lines takes its columns from a * over order_lines: the
	// name is written in order_lines, and renamed there; the readers of
	// billable_lines follow through the *.
	edits, err := g.RenameColumn(lineage.ColumnID{Table: "billable_lines", Column: "amount"}, "line_total")
	if err != nil {
		t.Fatal(err)
	}
	got := apply(t, snap, edits)
	for f, w := range map[string]string{
		"transformations/order_lines.sql":     "  o.amount AS line_total,\n",
		"transformations/revenue.sql":         "round(sum(line_total), 2) AS revenue",
		"transformations/customer_orders.sql": "sum(l.line_total) AS order_total",
		"transformations/top_products.sql":    "sum(line_total) AS revenue",
	} {
		if !strings.Contains(got[f], w) {
			t.Errorf("%s after the rename lacks %q:\n%s", f, w, got[f])
		}
	}
	if _, ok := got["transformations/clean_orders.sql"]; ok {
		t.Errorf("clean_orders.sql edited: order_lines names the column itself")
	}
	// a source's column is not renamed
	_, err = g.RenameColumn(lineage.ColumnID{Table: "products", Column: "category"}, "x")
	if err == nil || !strings.Contains(err.Error(), "category is a column of the source products") {
		t.Errorf("rename of a source's column: %v", err)
	}
}

func TestRenameRefusals(t *testing.T) {
	_, g := retail(t)
	var re *lineage.RenameError
	var err error
	// the name is taken
	_, err = g.RenameColumn(lineage.ColumnID{Table: "clean_orders", Column: "amount"}, "quantity")
	if !errors.As(err, &re) || !strings.Contains(re.Error(), "already has a column named quantity") {
		t.Errorf("rename to a taken name: got %v", err)
	}
}

func TestRenameCTE(t *testing.T) {
	snap, g := retail(t)
	var f *ir.Flow
	for _, x := range snap.Pipeline.Flows {
		if x.Target == "top_products" {
			f = x
		}
	}
	fm := g.Flow(f)
	text, _ := snap.Text(f.Loc.File)
	off := strings.Index(text, "FROM product_sales") + len("FROM ")
	spot := fm.At(off)
	if spot.CTE == nil || spot.TableRef == nil {
		t.Fatalf("no CTE reference at %d: %+v", off, spot)
	}
	edits, err := fm.RenameCTE(spot.CTE, "sales")
	if err != nil {
		t.Fatal(err)
	}
	got := apply(t, snap, edits)[f.Loc.File]
	for _, w := range []string{"WITH sales AS (", "  sales.*,", "FROM sales\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("after renaming the CTE, no %q in:\n%s", w, got)
		}
	}
	if _, err := fm.RenameCTE(spot.CTE, "ranked"); err == nil {
		t.Error("renaming a CTE to the name of another one was accepted")
	}
}

func TestStarAndReferences(t *testing.T) {
	snap, g := retail(t)
	var f *ir.Flow
	for _, x := range snap.Pipeline.Flows {
		if x.Target == "billable_lines" {
			f = x
		}
	}
	fm := g.Flow(f)
	text, _ := snap.Text(f.Loc.File)
	spot := fm.At(strings.Index(text, "SELECT *") + len("SELECT "))
	if spot.Star == nil {
		t.Fatal("no * found")
	}
	var names []string
	for _, c := range spot.StarCols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "order_id,order_date,customer_id,status,product_id,product_name,category,quantity,unit_price,amount,discount" {
		t.Errorf("* expands to %s", got)
	}
	defs, refs := g.References(lineage.ColumnID{Table: "clean_orders", Column: "amount"})
	if len(defs) != 1 || defs[0].File != "transformations/clean_orders.sql" {
		t.Errorf("definitions of clean_orders.amount: %v", defs)
	}
	files := map[string]int{}
	for _, r := range refs {
		files[r.File]++
	}
	// the expectation (2), o.amount twice, sum(amount) in revenue.sql and
	// top_products.sql, l.amount in customer_orders.sql
	want := map[string]int{"transformations/clean_orders.sql": 2, "transformations/order_lines.sql": 2,
		"transformations/revenue.sql": 1, "transformations/top_products.sql": 1, "transformations/customer_orders.sql": 1}
	for f, n := range want {
		if files[f] != n {
			t.Errorf("references of clean_orders.amount in %s: %d, want %d (all: %v)", f, files[f], n, refs)
		}
	}
}

func TestTrees(t *testing.T) {
	_, g := retail(t)
	up := g.Upstream(lineage.ColumnID{Table: "daily_revenue", Column: "revenue"})
	var ids []string
	for _, id := range up.Closure() {
		ids = append(ids, id.String())
	}
	// revenue <- billable_lines.amount <- order_lines.amount <-
	// clean_orders.amount <- orders.quantity, orders.unit_price, with the
	// filters and join keys on the way
	for _, w := range []string{"billable_lines.amount", "order_lines.amount", "clean_orders.amount", "orders.quantity", "orders.unit_price", "order_lines.status", "products.product_id"} {
		if !strings.Contains(" "+strings.Join(ids, " ")+" ", " "+w+" ") {
			t.Errorf("upstream of daily_revenue.revenue lacks %s: %v", w, ids)
		}
	}
	down := g.Downstream(lineage.ColumnID{Table: "orders", Column: "unit_price"})
	ids = nil
	for _, id := range down.Closure() {
		ids = append(ids, id.String())
	}
	for _, w := range []string{"clean_orders.unit_price", "clean_orders.amount", "order_lines.discount", "daily_revenue.revenue", "customer_ranking.lifetime_value", "revenue_by_region.avg_order"} {
		if !strings.Contains(" "+strings.Join(ids, " ")+" ", " "+w+" ") {
			t.Errorf("downstream of orders.unit_price lacks %s: %v", w, ids)
		}
	}
}

func TestReuseAcrossSnapshots(t *testing.T) {
	snap, g1 := retail(t)
	flow := func(s *analysis.Snapshot, target string) *ir.Flow {
		for _, f := range s.Pipeline.Flows {
			if f.Target == target {
				return f
			}
		}
		t.Fatalf("no flow into %s", target)
		return nil
	}
	ranking := g1.Flow(flow(snap, "customer_ranking"))
	lines := g1.Flow(flow(snap, "order_lines"))
	// an edit of clean_orders that renames a column order_lines reads
	text, _ := snap.Text("transformations/clean_orders.sql")
	edited := strings.Replace(text, "AS amount", "AS line_amount", 1)
	next := snap.Update([]analysis.Change{{Path: "transformations/clean_orders.sql", Text: &edited}})
	g2 := lineage.New(lineage.Input{Pipeline: next.Pipeline, Tree: next.SparkTree, Text: next.Text, SourceColumns: next.SampleColumns, Prev: g1})
	if got := g2.Flow(flow(next, "customer_ranking")); got == nil || got.Model != ranking.Model {
		t.Error("customer_ranking's model was not reused, though nothing it reads changed")
	}
	if got := g2.Flow(flow(next, "order_lines")); got == nil || got.Model == lines.Model {
		t.Error("order_lines' model was reused, though clean_orders' columns changed")
	}
	if c := g2.Lookup(lineage.ColumnID{Table: "clean_orders", Column: "line_amount"}); c == nil {
		t.Error("the edited column is not in the new graph")
	}
}
