package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/internal/testutil"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// copyTree copies a testdata pipeline into a temp folder.
func copyTree(t *testing.T, src string) string {
	dst := t.TempDir()
	testutil.CopyTree(t, src, dst)
	return dst
}

func (c *client) call(t *testing.T, method string, params, out any) {
	t.Helper()
	if _, err := c.conn.Call(context.Background(), method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// open opens a file of the pipeline and returns its URI and text.
func (c *client) open(t *testing.T, path string) (protocol.DocumentURI, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := uri.File(path)
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "sql", Version: 1, Text: string(b)}})
	return u, string(b)
}

// posOf returns the LSP position of the n-th occurrence (0-based) of
// needle in text, plus delta characters (ASCII text).
func posOf(t *testing.T, text, needle string, n, delta int) protocol.Position {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(text[off+1:], needle)
		if j < 0 {
			t.Fatalf("%q not found %d times", needle, n+1)
		}
		off += 1 + j
	}
	off += delta
	line := strings.Count(text[:off], "\n")
	col := off - (strings.LastIndex(text[:off], "\n") + 1)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

func tdp(u protocol.DocumentURI, p protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p}
}

func TestHoverDefinitionReferences(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, text := c.open(t, filepath.Join(tr, "order_lines.sql"))

	// Hover on the reference to clean_orders: kind, file, lineage, backends.
	var h protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "clean_orders", 0, 3)), &h)
	for _, want := range []string{"**clean_orders** · materialized view", "transformations/clean_orders.sql", "Upstream: orders (source)", "Downstream: order_lines", "native: yes"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	// Hover on a source.
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "products", 0, 1)), &h)
	if !strings.Contains(h.Contents.Value, "source table") || !strings.Contains(h.Contents.Value, "samples/products.csv") {
		t.Errorf("source hover:\n%s", h.Contents.Value)
	}

	// Definition of clean_orders: its file (named after the dataset).
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, posOf(t, text, "clean_orders", 0, 0)), &locs)
	if len(locs) != 1 || locs[0].URI.Filename() != filepath.Join(tr, "clean_orders.sql") {
		t.Fatalf("definition: %+v", locs)
	}
	// Definition of a source: its sample file.
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, posOf(t, text, "products", 0, 0)), &locs)
	if len(locs) != 1 || locs[0].URI.Filename() != filepath.Join(root, "samples", "products.csv") {
		t.Fatalf("definition of a source: %+v", locs)
	}

	// References of billable_lines (defined in revenue.sql): every read,
	// across files, plus the declaration.
	ru, rtext := c.open(t, filepath.Join(tr, "revenue.sql"))
	var refs []protocol.Location
	c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(ru, posOf(t, rtext, "billable_lines", 0, 2)),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &refs)
	files := map[string]int{}
	for _, r := range refs {
		files[filepath.Base(r.URI.Filename())]++
	}
	if files["revenue.sql"] != 2 || files["customer_orders.sql"] != 1 || files["top_products.sql"] != 1 {
		t.Fatalf("references: %v", files)
	}

	// Document highlight in revenue.sql: the definition (write) and the read.
	var hl []protocol.DocumentHighlight
	c.call(t, protocol.MethodTextDocumentDocumentHighlight, tdp(ru, posOf(t, rtext, "billable_lines", 1, 0)), &hl)
	if len(hl) != 2 || hl[0].Kind != protocol.DocumentHighlightKindWrite {
		t.Fatalf("highlight: %+v", hl)
	}
}

func TestRenameDataset(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, text := c.open(t, filepath.Join(tr, "order_lines.sql"))

	var prep map[string]any
	c.call(t, protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "clean_orders", 0, 2))}, &prep)
	if prep["placeholder"] != "clean_orders" {
		t.Fatalf("prepareRename: %v", prep)
	}
	var edit struct {
		DocumentChanges []json.RawMessage `json:"documentChanges"`
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "clean_orders", 0, 2)), NewName: "orders_clean"}, &edit)
	var edited []string
	renamed := ""
	for _, raw := range edit.DocumentChanges {
		var ch struct {
			Kind         string `json:"kind"`
			OldURI       string `json:"oldUri"`
			NewURI       string `json:"newUri"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []protocol.TextEdit `json:"edits"`
		}
		json.Unmarshal(raw, &ch)
		if ch.Kind == "rename" {
			renamed = filepath.Base(uri.URI(ch.OldURI).Filename()) + " -> " + filepath.Base(uri.URI(ch.NewURI).Filename())
			continue
		}
		for _, e := range ch.Edits {
			if e.NewText != "orders_clean" {
				t.Fatalf("edit %+v", e)
			}
		}
		edited = append(edited, filepath.Base(uri.URI(ch.TextDocument.URI).Filename()))
	}
	if strings.Join(edited, ",") != "order_lines.sql" || renamed != "clean_orders.sql -> orders_clean.sql" {
		t.Fatalf("rename edited %v, renamed %q", edited, renamed)
	}
	// Renaming onto an existing dataset is refused.
	_, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "clean_orders", 0, 2)), NewName: "daily_revenue"}, &edit)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("rename onto daily_revenue: %v", err)
	}
	// A keyword is refused; the name it already has changes nothing.
	_, err = c.conn.Call(context.Background(), protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "clean_orders", 0, 2)), NewName: "Select"}, &edit)
	if err == nil || !strings.Contains(err.Error(), "keyword") {
		t.Fatalf("rename to Select: %v", err)
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "clean_orders", 0, 2)), NewName: "clean_orders"}, &edit)
	if len(edit.DocumentChanges) != 0 {
		t.Fatalf("rename to the same name: %d changes", len(edit.DocumentChanges))
	}
}

// TestRenameQualifiedDataset: a dataset defined as db.q is renamed in its
// last part, in the definition as in its reads, and keeps its qualifier.
func TestRenameQualifiedDataset(t *testing.T) {
	root := t.TempDir()
	text := "CREATE MATERIALIZED VIEW db.q AS SELECT 1 AS id;\nCREATE MATERIALIZED VIEW r AS SELECT * FROM db.q;\n"
	for name, body := range map[string]string{"thund.yaml": "backends: [native]\n", "a.sql": text} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "a.sql"))
	var prep struct {
		Range       protocol.Range `json:"range"`
		Placeholder string         `json:"placeholder"`
	}
	c.call(t, protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "db.q", 0, 3))}, &prep)
	if prep.Placeholder != "q" || prep.Range.Start != posOf(t, text, "db.q", 0, 3) || prep.Range.End != posOf(t, text, "db.q", 0, 4) {
		t.Fatalf("prepareRename: %+v", prep)
	}
	var edit struct {
		DocumentChanges []struct {
			Edits []protocol.TextEdit `json:"edits"`
		} `json:"documentChanges"`
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "db.q", 0, 3)), NewName: "q2"}, &edit)
	if len(edit.DocumentChanges) != 1 {
		t.Fatalf("rename: %+v", edit)
	}
	got := []byte(text)
	es := edit.DocumentChanges[0].Edits
	for i := len(es) - 1; i >= 0; i-- { // the edits are on line 0 and 1, in order
		e := es[i]
		lines := strings.SplitAfter(string(got), "\n")
		off := 0
		for _, l := range lines[:e.Range.Start.Line] {
			off += len(l)
		}
		start, end := off+int(e.Range.Start.Character), off+int(e.Range.End.Character)
		got = append(append(append([]byte(nil), got[:start]...), e.NewText...), got[end:]...)
	}
	want := strings.ReplaceAll(text, "db.q", "db.q2")
	if string(got) != want {
		t.Fatalf("after the rename:\n%s\nwant\n%s", got, want)
	}
	// A word only DuckDB reserves would break the native run: refused.
	_, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "db.q", 0, 3)), NewName: "summarize"}, &edit)
	if err == nil || !strings.Contains(err.Error(), "keyword") {
		t.Fatalf("rename to summarize: %v", err)
	}
}

func TestCompletionContexts(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	path := filepath.Join(root, "transformations", "scratch.sql")
	u := uri.File(path)
	text := "-- @\n-- @kind: \n-- @expect.x: a > 0 ON VIOLATION \nSELECT * FROM \n"
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "sql", Version: 1, Text: text}})
	labels := func(line, col uint32) []string {
		var list protocol.CompletionList
		c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(u, protocol.Position{Line: line, Character: col})}, &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	has := func(list []string, want ...string) bool {
		for _, w := range want {
			found := false
			for _, l := range list {
				found = found || l == w
			}
			if !found {
				return false
			}
		}
		return true
	}
	if got := labels(0, 4); !has(got, "kind", "expect", "trigger", "sample") {
		t.Errorf("pragma keys: %v", got)
	}
	if got := labels(1, 9); !has(got, "materialized_view", "streaming_table") {
		t.Errorf("kind values: %v", got)
	}
	if got := labels(2, 34); !has(got, "DROP ROW", "FAIL UPDATE") {
		t.Errorf("violation actions: %v", got)
	}
	if got := labels(3, 14); !has(got, "clean_orders", "daily_revenue", "orders", "products") {
		t.Errorf("tables after FROM: %v", got)
	}
	if got := labels(3, 14); has(got, "scratch") {
		t.Errorf("tables after FROM offer the file's own dataset (a cycle): %v", got)
	}
	// In a statement with CTEs, the CTEs come first (the query need not
	// parse yet).
	cte := "WITH recent AS (SELECT * FROM clean_orders), big AS (SELECT * FROM recent)\nSELECT * FROM \n"
	c.change(t, u, 2, cte)
	if got := labels(1, 14); len(got) < 2 || got[0] != "recent" || got[1] != "big" || !has(got, "clean_orders") {
		t.Errorf("tables after FROM with CTEs: %v", got)
	}
	// Inside a CTE's body only the CTEs defined before it are in scope.
	inner := "WITH recent AS (SELECT * FROM clean_orders), big AS (SELECT * FROM ), last AS (SELECT 1)\nSELECT * FROM big\n"
	c.change(t, u, 3, inner)
	if got := labels(0, 67); !has(got, "recent", "clean_orders") || has(got, "big") || has(got, "last") {
		t.Errorf("tables after FROM inside the CTE big: %v (want recent, not big itself or the later last)", got)
	}
}

func TestStructure(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "transformations", "revenue.sql"))
	doc := protocol.TextDocumentIdentifier{URI: u}

	var syms []protocol.DocumentSymbol
	c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: doc}, &syms)
	if len(syms) != 2 || syms[0].Name != "billable_lines" || syms[1].Name != "daily_revenue" || len(syms[1].Children) != 1 {
		t.Fatalf("document symbols: %+v", syms)
	}
	var ws []protocol.SymbolInformation
	c.call(t, protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: "revenue"}, &ws)
	if len(ws) != 2 {
		t.Fatalf("workspace symbols for 'revenue': %+v", ws)
	}
	var folds []protocol.FoldingRange
	c.call(t, protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": doc}, &folds)
	if len(folds) < 2 {
		t.Fatalf("folding ranges: %+v", folds)
	}
	var tokens struct {
		Data []uint32 `json:"data"`
	}
	c.call(t, "textDocument/semanticTokens/full", map[string]any{"textDocument": doc}, &tokens)
	// One pragma line: @expect (keyword), .positive_revenue (property), value (string).
	if len(tokens.Data) != 15 || tokens.Data[3] != 0 || tokens.Data[8] != 1 || tokens.Data[13] != 2 {
		t.Fatalf("semantic tokens: %v", tokens.Data)
	}
	var lenses []protocol.CodeLens
	c.call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: doc}, &lenses)
	if len(lenses) != 4 || lenses[0].Command.Title != "Preview" || lenses[1].Command.Title != "Run downstream" {
		t.Fatalf("code lenses: %+v", lenses)
	}
}

func TestPreviewGraphRun(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	u, _ := c.open(t, filepath.Join(tr, "clean_orders.sql"))

	var pr PreviewResult
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "clean_orders", Limit: 10}, &pr)
	if pr.TotalRows != 56 || len(pr.Rows) != 10 || len(pr.Columns) != 8 || pr.Diff == nil || !pr.Diff.First {
		t.Fatalf("preview: total %d rows %d cols %d diff %+v err %q", pr.TotalRows, len(pr.Rows), len(pr.Columns), pr.Diff, pr.Error)
	}
	statuses := map[string]string{}
	for _, e := range pr.Expectations {
		statuses[e.Name] = e.Status
	}
	if statuses["valid_amount"] != "dropped" || statuses["has_customer"] != "warned" || statuses["known_status"] != "passed" {
		t.Fatalf("expectations: %+v", pr.Expectations)
	}
	// Expectation results appear on their pragma lines.
	for {
		p := c.waitFor(t, filepath.Join(tr, "clean_orders.sql"))
		n := 0
		for _, d := range p.Diagnostics {
			if d.Code == "expectation-result" {
				n++
			}
		}
		if n == 3 {
			break
		}
	}
	// Change the filter: the second preview's diff lists the removed rows.
	b, _ := os.ReadFile(filepath.Join(tr, "clean_orders.sql"))
	changed := strings.Replace(string(b), "FROM orders", "FROM orders WHERE lower(status) <> 'cancelled'", 1)
	c.change(t, u, 2, changed)
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "clean_orders", Limit: 10}, &pr)
	if pr.Diff == nil || pr.Diff.First || len(pr.Diff.Added) != 0 || int64(len(pr.Diff.Removed)) != 56-pr.TotalRows || len(pr.Diff.Removed) == 0 {
		t.Fatalf("second preview: total %d, diff %+v", pr.TotalRows, pr.Diff)
	}

	var g GraphResult
	c.call(t, "thund/graph", map[string]any{"uri": u}, &g)
	if len(g.Nodes) != 11 || len(g.Edges) < 10 {
		t.Fatalf("graph: %d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}

	var rr RunResult
	c.call(t, "thund/run", &RunParams{URI: u, Dataset: "customer_orders"}, &rr)
	ran := map[string]string{}
	for _, d := range rr.Datasets {
		ran[d.Name] = d.Phase
	}
	if rr.Failed || ran["customer_orders"] != "completed" || ran["customer_ranking"] != "completed" || ran["revenue_by_region"] != "completed" || ran["top_products"] != "" {
		t.Fatalf("run downstream of customer_orders: %v", ran)
	}
}

func TestCancelRun(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "slow.sql"), []byte("SELECT count(*) AS n FROM range(100000000000) a\n"), 0o644)
	c := startServer(t)
	u := uri.File(filepath.Join(root, "slow.sql"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var rr RunResult
		_, err := c.conn.Call(ctx, "thund/run", &RunParams{URI: u}, &rr)
		done <- err
	}()
	// The jsonrpc2 client sends $/cancelRequest when its context ends.
	for i := 0; i < 50; i++ {
		var g GraphResult
		c.call(t, "thund/graph", map[string]any{"uri": u}, &g)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled run reported success")
		}
	case <-timeout(t):
		t.Fatal("thund/run did not stop after $/cancelRequest")
	}
}

// TestColumnsFromDescribe: after an edit settles, the server describes the
// datasets on DuckDB: hovers list columns, completion offers them, and a
// misspelt column is published as unknown-column at its range.
func TestColumnsFromDescribe(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	path := filepath.Join(tr, "top_products.sql")
	u, text := c.open(t, path)
	broken := strings.Replace(text, "category_rank", "category_rank, units_sold_typo", 1)
	if broken == text {
		t.Fatal("test setup: category_rank not found in top_products.sql")
	}
	c.change(t, u, 2, broken)
	for {
		p := c.waitFor(t, path)
		found := false
		for _, d := range p.Diagnostics {
			if d.Code == "unknown-column" && strings.Contains(d.Message, "units_sold_typo") {
				found = true
			}
		}
		if found {
			break
		}
	}
	// Hover on a dataset reference lists its columns once the description
	// on DuckDB is in (the unknown column above comes sooner, from the
	// analysis itself).
	ou, otext := c.open(t, filepath.Join(tr, "order_lines.sql"))
	var h protocol.Hover
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.call(t, protocol.MethodTextDocumentHover, tdp(ou, posOf(t, otext, "clean_orders", 0, 3)), &h)
		if strings.Contains(h.Contents.Value, "| order_id | INT |") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hover lacks columns:\n%s", h.Contents.Value)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Hover on a column: its type and the table it comes from.
	c.call(t, protocol.MethodTextDocumentHover, tdp(ou, posOf(t, otext, "o.unit_price", 0, 4)), &h)
	if !strings.Contains(h.Contents.Value, "**unit_price** · DECIMAL(10,2)") || !strings.Contains(h.Contents.Value, "clean_orders") {
		t.Fatalf("column hover:\n%s", h.Contents.Value)
	}
	// Completion after "o." offers clean_orders' columns.
	var list protocol.CompletionList
	c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(ou, posOf(t, otext, "o.order_date", 0, 2))}, &list)
	has := false
	for _, it := range list.Items {
		has = has || it.Label == "unit_price"
	}
	if !has {
		t.Fatalf("completion after o. lacks unit_price: %+v", list.Items)
	}
	// The same while the query does not parse, as it is being typed.
	typing := strings.Replace(otext, "o.order_date", "o.", 1)
	c.change(t, ou, 2, typing)
	c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(ou, posOf(t, typing, "o.,", 0, 2))}, &list)
	has = false
	for _, it := range list.Items {
		has = has || it.Label == "unit_price"
	}
	if !has {
		t.Fatalf("completion after o. in a query that does not parse lacks unit_price: %+v", list.Items)
	}
}

// TestFromItems reads FROM and JOIN items with their aliases from text
// that need not parse.
func TestFromItems(t *testing.T) {
	for stmt, want := range map[string]string{
		"SELECT p. FROM clean_orders JOIN products AS p ON true":     "clean_orders: products:p",
		"SELECT c. FROM clean_orders\nJOIN customers c USING (id)":   "clean_orders: customers:c",
		"SELECT p.\nFROM clean_orders o, products p WHERE":           "clean_orders:o products:p",
		"SELECT s. FROM (SELECT order_id FROM clean_orders) AS s":    "clean_orders:",
		"SELECT * FROM STREAM(clicks) c LEFT JOIN `db`.`t` ON c.id":  "clicks:c db.t:",
		"SELECT * FROM a WHERE x IN (SELECT y FROM b bb) ORDER BY 1": "a: b:bb",
	} {
		var got []string
		for _, it := range fromItems(stmt) {
			got = append(got, it.table+":"+it.alias)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: %v, want %s", stmt, got, want)
		}
	}
}

// TestSparkDryRunRefusesBeforeCalling: without a remote the request says
// how to set one; with one, a pipeline Spark cannot run (retail uses
// expectations) is refused with the analysis findings, before any call.
func TestSparkDryRunRefusesBeforeCalling(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "transformations", "clean_orders.sql"))
	var res SparkDryRunResult
	_, err := c.conn.Call(context.Background(), "thund/sparkDryRun", &SparkDryRunParams{URI: u}, &res)
	if err == nil || !strings.Contains(err.Error(), "sparkRemote") {
		t.Fatalf("without a remote: %v", err)
	}
	// A remote nobody listens on: refusal must come before any dial.
	c.notify(t, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"thund": map[string]any{"sparkRemote": "sc://127.0.0.1:1"}}})
	c.call(t, "thund/sparkDryRun", &SparkDryRunParams{URI: u}, &res)
	if res.OK || len(res.Problems) == 0 || !res.Problems[0].Refused || !strings.Contains(res.Problems[0].Message, "expectations") || res.Problems[0].URI == "" {
		t.Fatalf("dry run of retail: %+v", res)
	}
}

// TestRegistersFileWatchers: a client that can watch files is asked to
// watch the pipeline's files.
func TestRegistersFileWatchers(t *testing.T) {
	a, b := net.Pipe()
	go Serve(context.Background(), a, log.New(io.Discard, "", 0))
	got := make(chan string, 1)
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "client/registerCapability" {
			got <- string(req.Params())
		}
		return reply(ctx, nil, nil)
	})
	defer conn.Close()
	var res map[string]any
	if _, err := conn.Call(context.Background(), "initialize", map[string]any{"capabilities": map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}}, &res); err != nil {
		t.Fatal(err)
	}
	conn.Notify(context.Background(), "initialized", map[string]any{})
	select {
	case p := <-got:
		if !strings.Contains(p, "workspace/didChangeWatchedFiles") || !strings.Contains(p, "**/*.sql") || !strings.Contains(p, "**/*.py") {
			t.Fatalf("registration: %s", p)
		}
	case <-timeout(t):
		t.Fatal("no client/registerCapability")
	}
}

// TestPreviewBesideACycle: a cycle elsewhere does not stop a preview; a
// preview that needs the cycle fails with LSP's RequestFailed code (not
// jsonrpc2's code 0); a negative offset is InvalidParams.
func TestPreviewBesideACycle(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml": "backends: [native]\n", "base.sql": "SELECT 1 AS id\n",
		"cyc_a.sql": "SELECT * FROM cyc_b\n", "cyc_b.sql": "SELECT * FROM cyc_a\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "base.sql"))
	var pr PreviewResult
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "base"}, &pr)
	if pr.TotalRows != 1 || pr.Error != "" {
		t.Fatalf("preview of base beside a cycle: %+v", pr)
	}
	code := func(params *PreviewParams) jsonrpc2.Code {
		t.Helper()
		_, err := c.conn.Call(context.Background(), "thund/preview", params, &pr)
		var e *jsonrpc2.Error
		if !errors.As(err, &e) {
			t.Fatalf("preview %+v: error %v, want a JSON-RPC error", params, err)
		}
		return e.Code
	}
	if got := code(&PreviewParams{URI: u, Dataset: "cyc_a"}); got != RequestFailed {
		t.Errorf("preview on the cycle: code %d, want %d", got, RequestFailed)
	}
	if got := code(&PreviewParams{URI: u, Dataset: "base", Offset: -5}); got != jsonrpc2.InvalidParams {
		t.Errorf("negative offset: code %d, want %d", got, jsonrpc2.InvalidParams)
	}
}

// TestPreviewDoesNotRepublishOldText: a preview that ends after an edit
// must not publish the diagnostics of the text it started with under the
// edit's version.
func TestPreviewDoesNotRepublishOldText(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml": "backends: [native]\n",
		"slow.sql":   "SELECT count(*) AS n FROM range(400000000) a(x) WHERE a.x % 7 = 3\n",
		"e.sql":      "SELECT * FROM bad_ref\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	ePath := filepath.Join(root, "e.sql")
	eURI, _ := c.open(t, ePath)
	if p := c.waitFor(t, ePath); len(p.Diagnostics) != 1 {
		t.Fatalf("e.sql opened: %+v", p)
	}
	done := make(chan error, 1)
	go func() {
		var pr PreviewResult
		_, err := c.conn.Call(context.Background(), "thund/preview", &PreviewParams{URI: uri.File(filepath.Join(root, "slow.sql")), Dataset: "slow"}, &pr)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // the preview is running
	c.change(t, eURI, 2, "SELECT * FROM slow\n")
	if p := c.waitFor(t, ePath); p.Version != 2 || len(p.Diagnostics) != 0 {
		t.Fatalf("after the fix: %+v", p)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	deadline := time.After(DescribeDelay + 10*Debounce)
	for {
		select {
		case p := <-c.diags:
			if p.URI.Filename() == ePath && len(p.Diagnostics) != 0 {
				t.Fatalf("after the preview, e.sql got diagnostics of its old text: %+v", p)
			}
		case <-deadline:
			return
		}
	}
}

// TestColumnFindingsDoNotBlink: an edit in one file leaves another file's
// unknown-column error in place (it is not cleared and published again
// when the next description ends).
func TestColumnFindingsDoNotBlink(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	rPath := filepath.Join(tr, "revenue_by_region.sql")
	ru, rtext := c.open(t, rPath)
	bad := strings.Replace(rtext, "avg(order_total)", "avg(order_totl)", 1)
	if bad == rtext {
		t.Fatal("test setup: avg(order_total) not found")
	}
	c.change(t, ru, 2, bad)
	for {
		p := c.waitFor(t, rPath)
		if len(p.Diagnostics) > 0 && p.Diagnostics[0].Code == "unknown-column" {
			break
		}
	}
	tPath := filepath.Join(tr, "top_products.sql")
	tu, ttext := c.open(t, tPath)
	for v := int32(2); v < 5; v++ {
		c.change(t, tu, v, fmt.Sprintf("-- edit %d\n%s", v, ttext))
		time.Sleep(3 * Debounce)
	}
	deadline := time.After(DescribeDelay + 10*Debounce)
	for {
		select {
		case p := <-c.diags:
			if p.URI.Filename() == rPath {
				t.Fatalf("revenue_by_region.sql published again after edits elsewhere: %+v", p)
			}
		case <-deadline:
			return
		}
	}
}

// TestRenameOntoOwnQualifiedName: with database sales, renaming sales.own
// to clean_things is refused when clean_things exists (they would be one
// table).
func TestRenameOntoOwnQualifiedName(t *testing.T) {
	root := t.TempDir()
	text := "CREATE MATERIALIZED VIEW sales.own AS SELECT 1 AS id;\n"
	for name, body := range map[string]string{
		"spark-pipeline.yml":               "name: q\ndatabase: sales\nstorage: file:///tmp/q-storage\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql":            text,
		"transformations/clean_things.sql": "SELECT 2 AS id\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "transformations", "a.sql"))
	var edit json.RawMessage
	_, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "own", 0, 1)), NewName: "clean_things"}, &edit)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("rename onto clean_things: %v %s", err, edit)
	}
}

// TestSparkDryRunAsksBeforeLeavingTheMachine: a thund.yaml that names a
// Spark Connect server on another host gets an error the client turns
// into a question, and nothing is sent; a server on this machine needs
// no confirmation. (The request with allowRemote is not tried here: it
// would dial the other host.)
func TestSparkDryRunAsksBeforeLeavingTheMachine(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	yaml := filepath.Join(root, "thund.yaml")
	old, _ := os.ReadFile(yaml)
	cfg := "spark:\n  remote: sc://203.0.113.7:15002\n" + stripSpark(string(old))
	if err := os.WriteFile(yaml, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "transformations", "clean_orders.sql"))
	var res SparkDryRunResult
	_, err := c.conn.Call(context.Background(), "thund/sparkDryRun", &SparkDryRunParams{URI: u}, &res)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != CodeRemoteUnconfirmed || !strings.Contains(je.Message, "203.0.113.7") {
		t.Fatalf("a remote host from thund.yaml: %v", err)
	}
	for _, r := range []string{"sc://127.0.0.1:1", "sc://localhost:1", "sc://[::1]:1"} {
		if !loopbackRemote(r) {
			t.Errorf("%s is this machine", r)
		}
	}
	for _, r := range []string{"sc://203.0.113.7:15002", "sc://example.com:15002", "sc://127.0.0.1.example.com:1", "garbage"} {
		if loopbackRemote(r) {
			t.Errorf("%s is not this machine", r)
		}
	}
}

// stripSpark drops a top-level spark: section from a thund.yaml text.
func stripSpark(text string) string {
	var out []string
	skip := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "spark:") {
			skip = true
			continue
		}
		if skip && (strings.HasPrefix(line, " ") || line == "") {
			continue
		}
		skip = false
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
