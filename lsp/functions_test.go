package lsp

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/ir"
)

// startServerWith starts a server like startServer, with its own
// initialize params, and returns the initialize result too.
func startServerWith(t *testing.T, init map[string]any) (*client, map[string]any) {
	t.Helper()
	a, b := net.Pipe()
	c := &client{diags: make(chan protocol.PublishDiagnosticsParams, 100), done: make(chan struct{})}
	go func() {
		Serve(context.Background(), a, log.New(io.Discard, "", 0))
		close(c.done)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			c.diags <- p
		}
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() { c.conn.Close() })
	var res map[string]any
	if _, err := c.conn.Call(context.Background(), protocol.MethodInitialize, init, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, res
}

func TestFunctionCatalogGenerated(t *testing.T) {
	cs, err := loadCatalogs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 || cs[0].SparkVersion != "4.1.4" {
		t.Fatalf("catalogs: want the Spark 4.1.4 catalog first, got %d", len(cs))
	}
	c := cs[0]
	if len(c.Functions) < 400 {
		t.Fatalf("Spark 4.1.4 has hundreds of built-in functions; the catalog holds %d", len(c.Functions))
	}
	for _, f := range c.Functions {
		if len(f.Usages) == 0 || f.Usages[0].Signature == "" {
			t.Errorf("%s: no usage", f.Name)
		}
	}
	df := c.Lookup("DATE_FORMAT")
	if df == nil || df.Usages[0].Signature != "date_format(timestamp, fmt)" || df.Example == nil || !strings.Contains(df.Example.Query, "date_format(") {
		t.Fatalf("date_format: %+v", df)
	}
	// Both spark backends get a catalog: 4.2 falls back to the newest
	// older release until one is generated.
	for _, b := range [][]ir.Backend{{ir.Native}, {ir.Spark41}, {ir.Native, ir.Spark42}} {
		if catalogFor(b) == nil {
			t.Errorf("no catalog for %v", b)
		}
	}
}

func TestSignatureParams(t *testing.T) {
	for sig, want := range map[string][]string{
		"date_format(timestamp, fmt)":                                          {"timestamp", "fmt"},
		"window(time_column, window_duration[, slide_duration[, start_time]])": {"time_column", "window_duration", "slide_duration", "start_time"},
		"count(*)":                    {"*"},
		"coalesce(expr1, expr2, ...)": {"expr1", "expr2"},
		"count(expr[, expr...])":      {"expr", "expr"},
		"expr1 + expr2":               nil,
		"current_date()":              nil,
	} {
		if got := signatureParams(sig); !reflect.DeepEqual(got, want) {
			t.Errorf("signatureParams(%q) = %q, want %q", sig, got, want)
		}
	}
}

func TestNativeSupport(t *testing.T) {
	// A Spark SQL query: what the translator does with the call.
	if ns := nativeSupport("log", false); ns.Status != "translated" {
		t.Errorf("log in Spark SQL: %+v, want translated (a run writes Spark's natural logarithm)", ns)
	}
	if ns := nativeSupport("months_between", false); ns.Status != "refused" || !strings.Contains(ns.Note, "months_between") {
		t.Errorf("months_between in Spark SQL: %+v, want refused with the translator's reason", ns)
	}
	if ns := nativeSupport("bitmap_count", false); ns.Status != "refused" || !strings.Contains(ns.Note, "does not translate") {
		t.Errorf("bitmap_count in Spark SQL: %+v, want refused (not translated)", ns)
	}
	// A duckdb-dialect query runs as written.
	if ns := nativeSupport("log", true); ns.Status != "differs" || !strings.Contains(ns.Note, "natural logarithm") {
		t.Errorf("log in DuckDB SQL: %+v", ns)
	}
	if ns := nativeSupport("date_format", true); ns.Status != "mapped" {
		t.Errorf("date_format in DuckDB SQL: %+v", ns)
	}
	if ns := nativeSupport("bitmap_count", true); ns.Status != "unknown" {
		t.Errorf("bitmap_count in DuckDB SQL: %+v, want unknown (never compared)", ns)
	}
}

// TestFunctionHelpOverProtocol: hover, signature help and completion of
// Spark's built-in functions in a query of testdata/retail.
func TestFunctionHelpOverProtocol(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	u, text := c.open(t, filepath.Join(root, "transformations", "order_lines.sql"))
	text = strings.Replace(text, "  o.order_date,\n", "  date_format(o.order_date, 'yyyy-MM') AS month,\n  log(o.amount) AS l,\n", 1)
	c.change(t, u, 2, text)

	var h protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "date_format", 0, 3)), &h)
	for _, want := range []string{"date_format(timestamp, fmt)", "Converts `timestamp`", "SELECT date_format('2016-04-08', 'y');", "**Native (DuckDB):** translated with Spark's meaning", "Spark 4.3.0"} { // native only: the newest catalog
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("date_format hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "log(", 0, 1)), &h)
	// A Spark SQL query's log(x) is translated to Spark's natural
	// logarithm (DuckDB's own log is base 10: a duckdb-dialect query's
	// hover says it differs).
	if !strings.Contains(h.Contents.Value, "translated with Spark's meaning, runs as ln(x)") {
		t.Errorf("log hover:\n%s", h.Contents.Value)
	}
	// A hover elsewhere still answers as before (a dataset).
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "clean_orders", 0, 2)), &h)
	if !strings.Contains(h.Contents.Value, "clean_orders") || strings.Contains(h.Contents.Value, "Native (DuckDB)") {
		t.Errorf("dataset hover:\n%s", h.Contents.Value)
	}

	var sh protocol.SignatureHelp
	c.call(t, protocol.MethodTextDocumentSignatureHelp, tdp(u, posOf(t, text, "'yyyy-MM'", 0, 1)), &sh)
	if len(sh.Signatures) != 1 || sh.Signatures[0].Label != "date_format(timestamp, fmt)" || sh.ActiveParameter != 1 ||
		len(sh.Signatures[0].Parameters) != 2 || sh.Signatures[0].Parameters[1].Label != "fmt" {
		t.Fatalf("signature help in the second argument: %+v", sh)
	}
	var first protocol.SignatureHelp
	c.call(t, protocol.MethodTextDocumentSignatureHelp, tdp(u, posOf(t, text, "o.order_date, 'yyyy", 0, 2)), &first)
	if len(first.Signatures) != 1 || first.ActiveParameter != 0 {
		t.Errorf("first argument: %+v", first)
	}
	// Outside any call: none.
	var none *protocol.SignatureHelp
	c.call(t, protocol.MethodTextDocumentSignatureHelp, tdp(u, posOf(t, text, "o.customer_id", 0, 1)), &none)
	if none != nil {
		t.Errorf("signature help outside a call: %+v", none)
	}

	var list protocol.CompletionList
	c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(u, posOf(t, text, "  o.status", 0, 2))}, &list)
	found := false
	for _, it := range list.Items {
		if it.Label == "date_format" {
			found = it.Kind == protocol.CompletionItemKindFunction && it.Detail == "date_format(timestamp, fmt)"
			// The documentation comes with completionItem/resolve.
			var full struct {
				Documentation protocol.MarkupContent `json:"documentation"`
			}
			c.call(t, protocol.MethodCompletionItemResolve, it, &full)
			if !strings.Contains(full.Documentation.Value, "Converts `timestamp`") || !strings.Contains(full.Documentation.Value, "Native (DuckDB)") {
				t.Errorf("resolved date_format: %+v", full)
			}
		}
		if it.Label == "+" {
			t.Errorf("operators are no completion items")
		}
	}
	if !found {
		t.Errorf("completion in the select list lacks the function date_format (%d items)", len(list.Items))
	}
}
