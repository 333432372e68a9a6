package lsp

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
)

// TestCDCRefusedForSpark42: in the editor, testdata/cdc with spark-4.2
// among its backends and as its Spark version gets an error at the @cdc
// value naming spark-4.2 (no table format merges there), and the Spark dry
// run refuses the apply-changes flows before connecting (spark-4.2 once
// took them as plain appends).
func TestCDCRefusedForSpark42(t *testing.T) {
	root := copyTree(t, "../testdata/cdc")
	if err := os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native, spark-4.2]\nspark:\n  version: \"4.2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	path := filepath.Join(root, "customers_scd1.sql")
	u, text := c.open(t, path)
	value := "keys=(customer_id) sequence_by=seq scd=1"
	start := posOf(t, text, value, 0, 0)
	want := protocol.Range{Start: start, End: protocol.Position{Line: start.Line, Character: start.Character + uint32(len(value))}}
	found := false
	for _, d := range c.waitFor(t, path).Diagnostics {
		if strings.Contains(d.Message, "applies changes (@cdc), which spark-4.2 does only into a table that supports row-level operations") {
			found = true
			if d.Range != want || d.Severity != protocol.DiagnosticSeverityError {
				t.Errorf("diagnostic %+v, want an error at %+v", d, want)
			}
		}
	}
	if !found {
		t.Fatal("no spark-4.2 CDC error published for customers_scd1.sql")
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	remote := "sc://" + l.Addr().String()
	c.notify(t, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"thund": map[string]any{"sparkRemote": remote}}})
	var res SparkDryRunResult
	c.call(t, "thund/sparkDryRun", &SparkDryRunParams{URI: u}, &res)
	if res.Backend != "spark-4.2" || res.OK || len(res.Problems) != 2 {
		t.Fatalf("dry run %+v, want two refusals for spark-4.2", res)
	}
	for _, p := range res.Problems {
		if !p.Refused || p.URI == "" || !strings.Contains(p.Message, "spark-4.2") || !strings.Contains(p.Message, "CDC") && !strings.Contains(p.Message, "@cdc") {
			t.Errorf("problem %+v, want a refused CDC flow at its file", p)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connection(s) to the Spark server: the refused pipeline was sent", n)
	}
}
