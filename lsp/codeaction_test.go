package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// wireDiag is a published diagnostic as the client sees it, data
// included.
type wireDiag struct {
	Range           protocol.Range         `json:"range"`
	Code            string                 `json:"code"`
	Source          string                 `json:"source"`
	Message         string                 `json:"message"`
	CodeDescription *struct{ Href string } `json:"codeDescription"`
	Data            json.RawMessage        `json:"data"`
}

// wireAction is a code action as the client sees it.
type wireAction struct {
	Title       string `json:"title"`
	Kind        string `json:"kind"`
	IsPreferred bool   `json:"isPreferred"`
	Edit        struct {
		Changes         map[string][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage              `json:"documentChanges"`
	} `json:"edit"`
}

// diagnosticsWith waits for a publication for file holding a diagnostic
// of code, and returns it as sent (re-encoded from what the client got).
func (c *client) diagnosticsWith(t *testing.T, file, code string) []wireDiag {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case p := <-c.diags:
			if p.URI.Filename() != file {
				continue
			}
			b, _ := json.Marshal(p.Diagnostics)
			var out []wireDiag
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			for _, d := range out {
				if d.Code == code {
					return out
				}
			}
		case <-deadline:
			t.Fatalf("no %s diagnostic published for %s", code, file)
		}
	}
}

// actionsFor asks for the code actions of one diagnostic, as a client
// does: the diagnostic (with its data) in the context.
func (c *client) actionsFor(t *testing.T, u protocol.DocumentURI, d wireDiag) []wireAction {
	t.Helper()
	var out []wireAction
	c.call(t, protocol.MethodTextDocumentCodeAction, map[string]any{
		"textDocument": map[string]any{"uri": u}, "range": d.Range,
		"context": map[string]any{"diagnostics": []any{d}},
	}, &out)
	return out
}

func find(ds []wireDiag, code string) wireDiag {
	for _, d := range ds {
		if d.Code == code {
			return d
		}
	}
	return wireDiag{}
}

// apply applies the text edits of an action to one document's text.
func apply(t *testing.T, text string, edits []protocol.TextEdit) string {
	t.Helper()
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		lo, hi := offsetOf(text, e.Range.Start), offsetOf(text, e.Range.End)
		text = text[:lo] + e.NewText + text[hi:]
	}
	return text
}

func offsetOf(text string, p protocol.Position) int {
	off := 0
	for i := uint32(0); i < p.Line; i++ {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	return off + int(p.Character)
}

func TestQuickFixUnknownColumn(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	file := filepath.Join(root, "transformations", "order_lines.sql")
	u, text := c.open(t, file)
	bad := strings.Replace(text, "  o.quantity,\n", "  o.quantiy,\n", 1)
	c.change(t, u, 2, bad)
	ds := c.diagnosticsWith(t, file, "unknown-column")
	d := find(ds, "unknown-column")
	if d.CodeDescription == nil || d.CodeDescription.Href != DiagnosticsDocs+"#unknown-column" {
		t.Errorf("codeDescription: %+v", d.CodeDescription)
	}
	if !strings.Contains(string(d.Data), `"o.quantity"`) {
		t.Errorf("data: %s", d.Data)
	}
	acts := c.actionsFor(t, u, d)
	if len(acts) != 1 || acts[0].Kind != "quickfix" || !acts[0].IsPreferred || acts[0].Title != "Change to o.quantity" {
		t.Fatalf("actions: %+v", acts)
	}
	if got := apply(t, bad, acts[0].Edit.Changes[string(u)]); got != text {
		t.Fatalf("the fix does not restore the text:\n%s", got)
	}
	// A client that drops data gets the same fix (matched by range and code).
	d.Data = nil
	if again := c.actionsFor(t, u, d); len(again) != 1 || again[0].Title != acts[0].Title {
		t.Fatalf("without data: %+v", again)
	}
}

func TestQuickFixUnknownTableAndSample(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	file := filepath.Join(root, "transformations", "order_lines.sql")
	u, text := c.open(t, file)
	bad := strings.Replace(text, "FROM clean_orders AS o", "FROM clean_ordrs AS o", 1)
	c.change(t, u, 2, bad)
	d := find(c.diagnosticsWith(t, file, "unknown-reference"), "unknown-reference")
	acts := c.actionsFor(t, u, d)
	if len(acts) != 2 {
		t.Fatalf("want a did-you-mean and a new sample, got %+v", acts)
	}
	if acts[0].Title != "Change to clean_orders" || !acts[0].IsPreferred || apply(t, bad, acts[0].Edit.Changes[string(u)]) != text {
		t.Errorf("did-you-mean: %+v", acts[0])
	}
	if acts[1].Title != "Create sample samples/clean_ordrs.csv" || acts[1].IsPreferred || len(acts[1].Edit.DocumentChanges) != 2 {
		t.Fatalf("sample: %+v", acts[1])
	}
	var create struct{ Kind, URI string }
	json.Unmarshal(acts[1].Edit.DocumentChanges[0], &create)
	var insert struct {
		Edits []protocol.TextEdit `json:"edits"`
	}
	json.Unmarshal(acts[1].Edit.DocumentChanges[1], &insert)
	if create.Kind != "create" || create.URI != string(uri.File(filepath.Join(root, "samples", "clean_ordrs.csv"))) || len(insert.Edits) != 1 {
		t.Fatalf("sample edit: %s", acts[1].Edit.DocumentChanges)
	}
	// The header: the columns the query reads through the alias o.
	want := "order_id,order_date,customer_id,status,product_id,quantity,unit_price,amount\n"
	if insert.Edits[0].NewText != want {
		t.Errorf("sample header %q, want %q", insert.Edits[0].NewText, want)
	}
}

func TestQuickFixPragmaKeyValueAndKeyword(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	file := filepath.Join(root, "transformations", "extra.sql")
	if err := os.WriteFile(file, []byte(""), 0o644); err != nil {
		t.Fatal(err)
	}
	u, _ := c.open(t, file)
	for _, tc := range []struct{ code, text, fixed string }{
		{"pragma-unknown-key", "-- @kindd: table\nSELECT order_id FROM clean_orders\n", "-- @kind: table\nSELECT order_id FROM clean_orders\n"},
		{"pragma-bad-value", "-- @kind: materialised_view\nSELECT order_id FROM clean_orders\n", "-- @kind: materialized_view\nSELECT order_id FROM clean_orders\n"},
		{"sql-syntax", "SELECT order_id FORM clean_orders\n", "SELECT order_id FROM clean_orders\n"},
	} {
		c.change(t, u, 2, tc.text)
		d := find(c.diagnosticsWith(t, file, tc.code), tc.code)
		acts := c.actionsFor(t, u, d)
		if len(acts) != 1 || !acts[0].IsPreferred {
			t.Errorf("%s: %s: actions %+v", tc.code, d.Message, acts)
			continue
		}
		if got := apply(t, tc.text, acts[0].Edit.Changes[string(u)]); got != tc.fixed {
			t.Errorf("%s: fixed text %q, want %q", tc.code, got, tc.fixed)
		}
	}
}

func TestQuickFixSparkFindings(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c, _ := startServerWith(t, map[string]any{"initializationOptions": map[string]any{"backends": []string{"native", "spark-4.1"}}})
	// In a pipeline written in DuckDB's syntax a double-quoted name is a
	// name natively and a string on Spark: backquote it. (In Spark SQL it
	// is a string natively too, so there is nothing to fix.)
	duck := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml":         "dialect: duckdb\nbackends: [native, spark-4.1]\n",
		"samples/orders.csv": "id,status\n1,NEW\n",
		"order_status.sql":   "SELECT id,\n  o.status,\n  1 AS n\nFROM orders AS o\n",
	} {
		p := filepath.Join(duck, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(duck, "order_status.sql")
	u, text := c.open(t, file)
	bad := strings.Replace(text, "  o.status,\n", "  \"status\",\n", 1)
	c.change(t, u, 2, bad)
	d := find(c.diagnosticsWith(t, file, "not-portable-to-spark"), "not-portable-to-spark")
	acts := c.actionsFor(t, u, d)
	if len(acts) != 1 || !acts[0].IsPreferred || apply(t, bad, acts[0].Edit.Changes[string(u)]) != strings.Replace(text, "  o.status,", "  `status`,", 1) {
		t.Fatalf("double-quoted name: %+v", acts)
	}

	// clean_orders has expectations, which spark-4.1 cannot run: restrict
	// the dataset, or stop checking spark-4.1.
	cf := filepath.Join(root, "transformations", "clean_orders.sql")
	cu, ctext := c.open(t, cf)
	d = find(c.diagnosticsWith(t, cf, "unsupported-on-backend"), "unsupported-on-backend")
	acts = c.actionsFor(t, cu, d)
	if len(acts) != 2 {
		t.Fatalf("capability fixes: %+v", acts)
	}
	restricted := apply(t, ctext, acts[0].Edit.Changes[string(cu)])
	if !strings.HasPrefix(acts[0].Title, "Restrict clean_orders to native") || !strings.Contains(restricted, "-- @backends: native\n") {
		t.Errorf("restrict: %q\n%s", acts[0].Title, restricted)
	}
	cfg := filepath.Join(root, "thund.yaml")
	cfgText, _ := os.ReadFile(cfg)
	newCfg := apply(t, string(cfgText), acts[1].Edit.Changes[string(uri.File(cfg))])
	if !strings.Contains(newCfg, "backends: [native]\n") {
		t.Errorf("thund.yaml fix %q:\n%s", acts[1].Title, newCfg)
	}
	// After the first fix, the finding is gone.
	c.change(t, cu, 2, restricted)
	for deadline := time.After(10 * time.Second); ; {
		select {
		case p := <-c.diags:
			if p.URI.Filename() != cf {
				continue
			}
			gone := true
			for _, d := range p.Diagnostics {
				if d.Code == "unsupported-on-backend" {
					gone = false
				}
			}
			if gone {
				return
			}
		case <-deadline:
			t.Fatal("the capability finding stays after the fix")
		}
	}
}

func TestQuickFixStreaming(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("spark-pipeline.yml", "name: s\nlibraries:\n  - glob:\n      include: transformations/**\n")
	write("samples/events/001.csv", "user_id,event_time\n1,2025-01-01 00:00:00\n")
	agg := "CREATE STREAMING TABLE per_user AS\nSELECT user_id, window(event_time, '5 minutes') AS w, count(*) AS n\nFROM STREAM(events)\nGROUP BY user_id, window(event_time, '5 minutes');\n"
	write("transformations/per_user.sql", agg)
	c := startServer(t)
	file := filepath.Join(root, "transformations", "per_user.sql")
	u, _ := c.open(t, file)
	d := find(c.diagnosticsWith(t, file, "stream-aggregate-needs-watermark"), "stream-aggregate-needs-watermark")
	acts := c.actionsFor(t, u, d)
	if len(acts) != 1 || acts[0].Title != "Add -- @watermark: event_time, 10 minutes" {
		t.Fatalf("watermark fix: %+v", acts)
	}
	fixed := apply(t, agg, acts[0].Edit.Changes[string(u)])
	if !strings.HasPrefix(fixed, "-- @watermark: event_time, 10 minutes\nCREATE STREAMING TABLE") {
		t.Fatalf("fixed:\n%s", fixed)
	}
	c.change(t, u, 2, fixed)
	for deadline := time.After(10 * time.Second); ; {
		p := c.waitFor(t, file)
		ok := true
		for _, d := range p.Diagnostics {
			if d.Code == "stream-aggregate-needs-watermark" {
				ok = false
			}
		}
		if ok {
			break
		}
		select {
		case <-deadline:
			t.Fatal("the watermark finding stays after the fix")
		default:
		}
	}

	// complete output without an aggregate: switch the output mode.
	plain := "-- @output_mode: complete\nCREATE STREAMING TABLE per_user AS\nSELECT user_id FROM STREAM(events);\n"
	c.change(t, u, 3, plain)
	d = find(c.diagnosticsWith(t, file, "stream-complete-needs-aggregate"), "stream-complete-needs-aggregate")
	acts = c.actionsFor(t, u, d)
	if len(acts) != 2 || !acts[0].IsPreferred || apply(t, plain, acts[0].Edit.Changes[string(u)]) != strings.Replace(plain, "complete", "append", 1) {
		t.Fatalf("output mode fixes: %+v", acts)
	}
}
