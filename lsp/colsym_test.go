package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// hoverText hovers at the n-th needle plus delta and returns the text.
func (c *client) hoverText(t *testing.T, u protocol.DocumentURI, text, needle string, n, delta int) string {
	t.Helper()
	var h *protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, needle, n, delta)), &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

func wantAll(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// workspaceEdits decodes a rename's documentChanges into edits per file
// (base name).
func workspaceEdits(t *testing.T, raw []json.RawMessage) map[string][]protocol.TextEdit {
	t.Helper()
	out := map[string][]protocol.TextEdit{}
	for _, r := range raw {
		var ch struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []protocol.TextEdit `json:"edits"`
		}
		if err := json.Unmarshal(r, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.TextDocument.URI == "" {
			continue
		}
		f := filepath.Base(uri.URI(ch.TextDocument.URI).Filename())
		out[f] = append(out[f], ch.Edits...)
	}
	return out
}

// applyEdits applies LSP edits to a text (ASCII, one edit per range).
func applyEdits(t *testing.T, text string, edits []protocol.TextEdit) string {
	t.Helper()
	offset := func(p protocol.Position) int {
		off := 0
		for i := uint32(0); i < p.Line; i++ {
			off += strings.IndexByte(text[off:], '\n') + 1
		}
		return off + int(p.Character)
	}
	sort.Slice(edits, func(i, j int) bool { return offset(edits[i].Range.Start) > offset(edits[j].Range.Start) })
	for _, e := range edits {
		text = text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
	}
	return text
}

func rpcCode(t *testing.T, err error) jsonrpc2.Code {
	t.Helper()
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want a JSON-RPC error", err)
	}
	return e.Code
}

// TestColumnHoverAndDefinition: a column's hover gives its type and its
// origin through aliases, * and upstream datasets; * lists its columns;
// definition jumps to the expression computing the column, or to a CTE.
func TestColumnHoverAndDefinition(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, text := c.open(t, filepath.Join(tr, "customer_orders.sql"))

	h := c.hoverText(t, u, text, "l.amount", 0, 3)
	wantAll(t, "hover on l.amount", h, "**amount**", "Column of dataset `billable_lines` (as `l`)",
		"`billable_lines.amount` passes on `order_lines.amount` (through `*`)",
		"`clean_orders.amount` is computed in `transformations/clean_orders.sql:16` as `cast(quantity AS INTEGER) * cast(unit_price AS DECIMAL(10, 2))`",
		"From: `orders.quantity` (expression), `orders.unit_price` (expression)")
	// an output column's alias: its readers downstream
	h = c.hoverText(t, u, text, "AS order_total", 0, 4)
	wantAll(t, "hover on the order_total alias", h, "Output column of `customer_orders`", "From: `billable_lines.amount` (aggregate)",
		"Read by: `customer_ranking.lifetime_value` (aggregate)")

	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, posOf(t, text, "l.amount", 0, 3)), &locs)
	if len(locs) != 1 || filepath.Base(locs[0].URI.Filename()) != "clean_orders.sql" || locs[0].Range.Start.Line != 15 {
		t.Errorf("definition of l.amount: %+v", locs)
	}

	bu, btext := c.open(t, filepath.Join(tr, "revenue.sql"))
	h = c.hoverText(t, bu, btext, "SELECT *", 0, 7)
	wantAll(t, "hover on *", h, "expands to 11 columns", "| amount |", "| discount |", "dataset `order_lines`")

	pu, ptext := c.open(t, filepath.Join(tr, "top_products.sql"))
	h = c.hoverText(t, pu, ptext, "FROM product_sales", 0, 6)
	wantAll(t, "hover on a CTE reference", h, "**product_sales** · common table expression", "top_products.sql:4", "Columns: product_id, product_name, category, units, revenue")
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(pu, posOf(t, ptext, "FROM product_sales", 0, 6)), &locs)
	if len(locs) != 1 || locs[0].Range.Start.Line != 3 || locs[0].Range.Start.Character != 5 {
		t.Errorf("definition of the CTE reference: %+v", locs)
	}
	// a column of a CTE: its expression in this query
	h = c.hoverText(t, pu, ptext, "units, revenue\nFROM ranked", 0, 1)
	wantAll(t, "hover on a CTE's column", h, "**units**", "Column of CTE `ranked`", "Computed in this query", "sum(quantity)", "`billable_lines.quantity` (aggregate)")
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(pu, posOf(t, ptext, "units, revenue\nFROM ranked", 0, 1)), &locs)
	if len(locs) != 1 || locs[0].Range.Start.Line != 8 {
		t.Errorf("definition of the CTE column units: %+v", locs)
	}
}

// TestColumnTypesAreSparks: once DuckDB has described the datasets, hover
// and completion give Spark's type names, the same in both.
func TestColumnTypesAreSparks(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, text := c.open(t, filepath.Join(tr, "customer_ranking.sql"))
	deadline := time.Now().Add(20 * time.Second)
	var h string
	for {
		h = c.hoverText(t, u, text, "customer_orders", 0, 3)
		if strings.Contains(h, "| units |") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no description of customer_orders:\n%s", h)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// sum(l.quantity) is HUGEINT on DuckDB, BIGINT on Spark
	wantAll(t, "dataset hover", h, "| units | BIGINT |", "| region | STRING |")
	if strings.Contains(h, "HUGEINT") || strings.Contains(h, "VARCHAR") {
		t.Errorf("DuckDB type names in the hover:\n%s", h)
	}
	wantAll(t, "column hover", c.hoverText(t, u, text, "sum(order_total)", 0, 5), "**order_total** · ")
	var list protocol.CompletionList
	c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "    region,\n    count(*)", 0, 4))}, &list)
	found := false
	for _, it := range list.Items {
		if it.Label == "units" {
			found = true
			if !strings.HasPrefix(it.Detail, "BIGINT") {
				t.Errorf("completion detail of units: %q", it.Detail)
			}
		}
	}
	if !found {
		t.Errorf("completion lacks units: %+v", list.Items)
	}
	ot := c.hoverText(t, u, text, "sum(order_total)", 0, 5)
	if !strings.Contains(ot, "**order_total** · DECIMAL(") {
		t.Errorf("order_total hover type: %s", ot)
	}
}

// TestColumnReferencesAndRename: references of a column across datasets,
// its rename through aliases, * and expectations, the refusals, and a
// CTE's rename.
func TestColumnReferencesAndRename(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, text := c.open(t, filepath.Join(tr, "order_lines.sql"))
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "o.amount,", 0, 3)),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs)
	files := map[string]int{}
	for _, l := range locs {
		files[filepath.Base(l.URI.Filename())]++
	}
	// the alias and the expectation's two names in clean_orders.sql, the
	// two o.amount, sum(amount) of daily_revenue and top_products,
	// sum(l.amount) of customer_orders
	want := map[string]int{"clean_orders.sql": 3, "order_lines.sql": 2, "revenue.sql": 1, "top_products.sql": 1, "customer_orders.sql": 1}
	for f, n := range want {
		if files[f] != n {
			t.Errorf("references in %s: %d, want %d (%v)", f, files[f], n, files)
		}
	}

	var prep map[string]any
	c.call(t, protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "o.amount,", 0, 3))}, &prep)
	if prep["placeholder"] != "amount" {
		t.Fatalf("prepareRename on o.amount: %v", prep)
	}
	var edit struct {
		DocumentChanges []json.RawMessage `json:"documentChanges"`
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "o.amount,", 0, 3)), NewName: "line_amount"}, &edit)
	edits := workspaceEdits(t, edit.DocumentChanges)
	for f, w := range map[string]string{
		"clean_orders.sql":    "line_amount IS NOT NULL AND line_amount > 0",
		"order_lines.sql":     "o.quantity - o.line_amount AS discount",
		"revenue.sql":         "round(sum(line_amount), 2) AS revenue",
		"customer_orders.sql": "sum(l.line_amount) AS order_total",
		"top_products.sql":    "sum(line_amount) AS revenue",
	} {
		b, err := os.ReadFile(filepath.Join(tr, f))
		if err != nil {
			t.Fatal(err)
		}
		got := applyEdits(t, string(b), edits[f])
		if !strings.Contains(got, w) {
			t.Errorf("%s after the rename lacks %q:\n%s", f, w, got)
		}
	}

	// billable_lines passes amount on from a *: renaming it there renames
	// it where its name is written, in order_lines, and the readers
	// through the *.
	ru, rtext := c.open(t, filepath.Join(tr, "revenue.sql"))
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(ru, posOf(t, rtext, "sum(amount)", 0, 5)), NewName: "line_total"}, &edit)
	edits = workspaceEdits(t, edit.DocumentChanges)
	for f, w := range map[string]string{"order_lines.sql": "  o.amount AS line_total,\n", "revenue.sql": "round(sum(line_total), 2) AS revenue"} {
		b, err := os.ReadFile(filepath.Join(tr, f))
		if err != nil {
			t.Fatal(err)
		}
		if got := applyEdits(t, string(b), edits[f]); !strings.Contains(got, w) {
			t.Errorf("%s after the rename through * lacks %q:\n%s", f, w, got)
		}
	}
	if _, ok := edits["clean_orders.sql"]; ok {
		t.Errorf("the rename through * edits clean_orders.sql: %v", edits["clean_orders.sql"])
	}
	// a source's column is refused, with the reason
	cu, ctext := c.open(t, filepath.Join(tr, "clean_orders.sql"))
	_, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename,
		&protocol.RenameParams{TextDocumentPositionParams: tdp(cu, posOf(t, ctext, "lower(status)", 0, 7)), NewName: "x"}, &edit)
	if err == nil || rpcCode(t, err) != RequestFailed || !strings.Contains(err.Error(), "status is a column of the source orders") {
		t.Errorf("rename of a source's column: %v", err)
	}
	// a taken name is refused
	_, err = c.conn.Call(context.Background(), protocol.MethodTextDocumentRename,
		&protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "o.amount,", 0, 3)), NewName: "quantity"}, &edit)
	if err == nil || !strings.Contains(err.Error(), "already has a column named quantity") {
		t.Errorf("rename onto quantity: %v", err)
	}

	// a CTE: references and rename within its query
	pu, ptext := c.open(t, filepath.Join(tr, "top_products.sql"))
	c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(pu, posOf(t, ptext, "WITH product_sales", 0, 6)),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs)
	if len(locs) != 3 {
		t.Errorf("references of the CTE product_sales: %+v", locs)
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(pu, posOf(t, ptext, "FROM product_sales", 0, 6)), NewName: "sales"}, &edit)
	got := applyEdits(t, ptext, workspaceEdits(t, edit.DocumentChanges)["top_products.sql"])
	wantAll(t, "top_products.sql after renaming the CTE", got, "WITH sales AS (", "sales.*,", "FROM sales\n")
	// a CTE's column: renamed with its readers in the query, and, as the
	// query passes it on, downstream (nothing reads top_products)
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(pu, posOf(t, ptext, "AS units", 0, 4)), NewName: "units_sold"}, &edit)
	got = applyEdits(t, ptext, workspaceEdits(t, edit.DocumentChanges)["top_products.sql"])
	wantAll(t, "top_products.sql after renaming units", got, "sum(quantity) AS units_sold", "product_name, units_sold, revenue")
}

// TestFlowTargetsAndOwnDataset: the targets of append flows (@target and
// CREATE FLOW ... INSERT INTO) are references of their dataset and follow
// its rename; a pragma-form dataset is hovered and renamed from its own
// file.
func TestFlowTargetsAndOwnDataset(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml":         "name: events\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/events.sql": "-- Every event, from all feeds.\n-- @kind: streaming_table\nSELECT id, kind FROM STREAM(raw_a)\n",
		"transformations/feed_b.sql": "-- @target: events\nSELECT id, kind FROM STREAM(raw_b)\n",
		"transformations/more.sql":   "CREATE FLOW feed_c AS INSERT INTO events BY NAME SELECT id, kind FROM STREAM(raw_c);\n",
		"transformations/report.sql": "SELECT kind, count(*) AS n FROM events GROUP BY kind\n",
		"samples/raw_a.csv":          "id,kind\n1,a\n",
		"samples/raw_b.csv":          "id,kind\n2,b\n",
		"samples/raw_c.csv":          "id,kind\n3,c\n",
	}
	for f, text := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	eu, etext := c.open(t, filepath.Join(tr, "events.sql"))
	// hover from the file's own header comment and its query's keyword
	wantAll(t, "hover on the header", c.hoverText(t, eu, etext, "Every event", 0, 2), "**events** · streaming table", "filled by 3 flows")
	wantAll(t, "hover on SELECT", c.hoverText(t, eu, etext, "SELECT", 0, 1), "**events**")
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(eu, posOf(t, etext, "SELECT", 0, 1))}, &locs)
	got := map[string]bool{}
	for _, l := range locs {
		got[filepath.Base(l.URI.Filename())] = true
	}
	for _, f := range []string{"feed_b.sql", "more.sql", "report.sql"} {
		if !got[f] {
			t.Errorf("references of events lack %s: %+v", f, locs)
		}
	}
	// definition from a target
	bu, btext := c.open(t, filepath.Join(tr, "feed_b.sql"))
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(bu, posOf(t, btext, "events", 0, 2)), &locs)
	if len(locs) != 1 || filepath.Base(locs[0].URI.Filename()) != "events.sql" {
		t.Errorf("definition from @target: %+v", locs)
	}
	wantAll(t, "hover on @target's value", c.hoverText(t, bu, btext, "events", 0, 2), "**events** · streaming table")
	// rename from the own file renames the file and every target
	var edit struct {
		DocumentChanges []json.RawMessage `json:"documentChanges"`
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(eu, posOf(t, etext, "SELECT", 0, 1)), NewName: "all_events"}, &edit)
	edits := workspaceEdits(t, edit.DocumentChanges)
	wantAll(t, "feed_b.sql after the rename", applyEdits(t, files["transformations/feed_b.sql"], edits["feed_b.sql"]), "-- @target: all_events")
	wantAll(t, "more.sql after the rename", applyEdits(t, files["transformations/more.sql"], edits["more.sql"]), "INSERT INTO all_events BY NAME")
	wantAll(t, "report.sql after the rename", applyEdits(t, files["transformations/report.sql"], edits["report.sql"]), "FROM all_events GROUP")
	renamed := false
	for _, raw := range edit.DocumentChanges {
		var ch struct {
			Kind   string `json:"kind"`
			NewURI string `json:"newUri"`
		}
		json.Unmarshal(raw, &ch)
		renamed = renamed || ch.Kind == "rename" && strings.HasSuffix(ch.NewURI, "all_events.sql")
	}
	if !renamed {
		t.Errorf("the rename does not rename events.sql: %s", edit.DocumentChanges)
	}
}

// TestLineageRequest: thund/lineage gives the column graph, and a
// column's upstream and downstream.
func TestLineageRequest(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "transformations", "revenue.sql"))
	var all LineageResult
	c.call(t, "thund/lineage", &LineageParams{URI: u}, &all)
	tables := map[string]LineageTable{}
	for _, tb := range all.Tables {
		tables[tb.ID] = tb
	}
	if tb := tables["daily_revenue"]; len(tb.Columns) != 5 || tb.Columns[3].Name != "revenue" || !tb.Complete {
		t.Errorf("daily_revenue in thund/lineage: %+v", tb)
	}
	if tb := tables["source:orders"]; tb.Kind != "source" || len(tb.Columns) != 7 {
		t.Errorf("the orders source in thund/lineage: %+v", tb)
	}
	kinds := map[string]bool{}
	for _, e := range all.Edges {
		kinds[string(e.Kind)] = true
	}
	for _, k := range []string{"passthrough", "expression", "aggregate", "filter", "join"} {
		if !kinds[k] {
			t.Errorf("no %s edge in %d edges", k, len(all.Edges))
		}
	}
	var one LineageResult
	c.call(t, "thund/lineage", &LineageParams{URI: u, Dataset: "clean_orders", Column: "amount"}, &one)
	if len(one.Tables) != 1 || one.Focus == nil {
		t.Fatalf("thund/lineage on clean_orders.amount: %+v", one)
	}
	var up, down []string
	for _, id := range one.Focus.Upstream {
		up = append(up, id.String())
	}
	for _, id := range one.Focus.Downstream {
		down = append(down, id.String())
	}
	wantAll(t, "upstream", strings.Join(up, " "), "orders.quantity", "orders.unit_price")
	wantAll(t, "downstream", strings.Join(down, " "), "order_lines.amount", "billable_lines.amount", "daily_revenue.revenue", "customer_ranking.lifetime_value")
	_, err := c.conn.Call(context.Background(), "thund/lineage", &LineageParams{URI: u, Dataset: "clean_orders", Column: "nope"}, &one)
	if err == nil || rpcCode(t, err) != RequestFailed || !strings.Contains(err.Error(), "order_id") {
		t.Errorf("thund/lineage on an unknown column: %v", err)
	}
}
