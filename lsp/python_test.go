package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestPythonFiles: in the spark-pipelines init layout, hover and
// definition work on the Python dataset's name and from the SQL read of
// it, references of the Python dataset include the SQL read, a syntax
// error in the .py file is published at its line, and the .py file has
// document symbols.
func TestPythonFiles(t *testing.T) {
	root := copyTree(t, "../testdata/python_init")
	c := startServer(t)
	tr := filepath.Join(root, "transformations")
	pyPath := filepath.Join(tr, "example_python_materialized_view.py")
	pu, ptext := c.open(t, pyPath)
	su, stext := c.open(t, filepath.Join(tr, "example_sql_materialized_view.sql"))

	var h protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(pu, posOf(t, ptext, "example_python_materialized_view", 0, 2)), &h)
	if !strings.Contains(h.Contents.Value, "**example_python_materialized_view** · materialized view") || !strings.Contains(h.Contents.Value, "example_sql_materialized_view") {
		t.Errorf("hover on the Python name:\n%s", h.Contents.Value)
	}
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(su, posOf(t, stext, "example_python_materialized_view", 0, 1)), &locs)
	if len(locs) != 1 || locs[0].URI.Filename() != pyPath || locs[0].Range.Start != posOf(t, ptext, "example_python_materialized_view", 0, 0) {
		t.Fatalf("definition from SQL: %+v", locs)
	}
	var refs []protocol.Location
	c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(pu, posOf(t, ptext, "example_python_materialized_view", 0, 1)),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &refs)
	files := map[string]int{}
	for _, r := range refs {
		files[filepath.Base(r.URI.Filename())]++
	}
	if files["example_sql_materialized_view.sql"] != 1 || files["example_python_materialized_view.py"] != 1 {
		t.Errorf("references: %v", files)
	}
	var syms []protocol.DocumentSymbol
	c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: pu}}, &syms)
	if len(syms) == 0 || syms[0].Name != "example_python_materialized_view" {
		t.Errorf("document symbols: %+v", syms)
	}

	// A syntax error: a warning at its line, in the .py file.
	broken := strings.Replace(ptext, "return spark.range(10)", "return spark.range(10", 1)
	c.change(t, pu, 2, broken)
	for {
		p := c.waitFor(t, pyPath)
		if p.Version != 2 {
			continue
		}
		found := false
		for _, d := range p.Diagnostics {
			if strings.Contains(d.Message, "Python syntax error") && d.Severity == protocol.DiagnosticSeverityWarning {
				found = true
			}
		}
		if !found {
			t.Errorf("diagnostics for the broken .py: %+v", p.Diagnostics)
		}
		break
	}
}

// TestPythonHoverSettingsAndStandIn: a hover on a Python dataset gives
// its table settings and, for a body Thund does not run, why and the
// sample that stands in for its rows.
func TestPythonHoverSettingsAndStandIn(t *testing.T) {
	c := startServer(t)
	frames := copyTree(t, "../testdata/python_frames")
	bu, btext := c.open(t, filepath.Join(frames, "transformations", "bronze.py"))
	var h protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(bu, posOf(t, btext, `f"orders_{shop}"`, 0, 3)), &h)
	if v := h.Contents.Value; !strings.Contains(v, "partition_cols: `order_date`") || !strings.Contains(v, "table_properties: `pipelines.quality` = `bronze`") {
		t.Errorf("hover on a bronze table:\n%s", v)
	}
	su, stext := c.open(t, filepath.Join(frames, "transformations", "silver.py"))
	h = protocol.Hover{}
	c.call(t, protocol.MethodTextDocumentHover, tdp(su, posOf(t, stext, `f"daily_{metric}"`, 0, 3)), &h)
	if v := h.Contents.Value; !strings.Contains(v, "spark_conf: `spark.sql.shuffle.partitions` = `4`") || strings.Contains(v, "not run") {
		t.Errorf("hover on a daily view:\n%s", v)
	}
	mixed := copyTree(t, "../testdata/python_mixed")
	ru, rtext := c.open(t, filepath.Join(mixed, "transformations", "ingest", "raw_readings.py"))
	h = protocol.Hover{}
	c.call(t, protocol.MethodTextDocumentHover, tdp(ru, posOf(t, rtext, `"raw_readings"`, 0, 3)), &h)
	if v := h.Contents.Value; !strings.Contains(v, "Its Python body is not run (") || !strings.Contains(v, "its rows come from `samples/raw_readings.csv`") {
		t.Errorf("hover on an opaque dataset:\n%s", v)
	}
}

// TestPythonRenameLoopNames: a dataset named by a loop's f-string is not
// renamed (replacing the f-string would rename every dataset it makes):
// the refusal names the place; a dataset named by its function is
// renamed exactly, in the .py and in every reader.
func TestPythonRenameLoopNames(t *testing.T) {
	c := startServer(t)
	frames := copyTree(t, "../testdata/python_frames")
	tr := filepath.Join(frames, "transformations")
	su, stext := c.open(t, filepath.Join(tr, "silver.py"))
	var edit struct {
		DocumentChanges []json.RawMessage `json:"documentChanges"`
	}
	_, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename,
		&protocol.RenameParams{TextDocumentPositionParams: tdp(su, posOf(t, stext, `"orders_north"`, 0, 3)), NewName: "north"}, &edit)
	if err == nil || rpcCode(t, err) != RequestFailed || !strings.Contains(err.Error(), `orders_north is named at transformations/bronze.py:`) ||
		!strings.Contains(err.Error(), `f"orders_{shop}"`) {
		t.Errorf("rename of a loop-made name: %v", err)
	}
	var prep map[string]any
	_, err = c.conn.Call(context.Background(), protocol.MethodTextDocumentPrepareRename,
		&protocol.PrepareRenameParams{TextDocumentPositionParams: tdp(su, posOf(t, stext, `f"daily_{metric}"`, 0, 4))}, &prep)
	if err == nil || !strings.Contains(err.Error(), "does not rename") {
		t.Errorf("prepareRename of a factory-made name: %v %v", err, prep)
	}
	c.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp(su, posOf(t, stext, `"products"`, 0, 3)), NewName: "catalogue"}, &edit)
	edits := workspaceEdits(t, edit.DocumentChanges)
	for f, w := range map[string]string{"bronze.py": "def catalogue():", "silver.py": `spark.read.table("catalogue")`} {
		b, err := os.ReadFile(filepath.Join(tr, f))
		if err != nil {
			t.Fatal(err)
		}
		if got := applyEdits(t, string(b), edits[f]); !strings.Contains(got, w) {
			t.Errorf("%s after the rename lacks %q:\n%s", f, w, got)
		}
	}
}
