package lsp_test

// Security from the editor: thund/preview runs whatever SQL the open
// buffers hold, saved or not, on an engine session. Every way out of the
// pipeline folder must be refused there too, and no byte of a file outside
// may reach the client.

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/lsp"
)

const lspSecret = "TOPSECRET_lsp_51c2"

func TestPreviewRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "pipeline"), filepath.Join(base, "outside")
	for dir, files := range map[string]map[string]string{
		outside: {"secret.csv": "s\n" + lspSecret + "\n", "secret.txt": lspSecret},
		root:    {"thund.yaml": "backends: [native]\n", "samples/ok.csv": "a\n1\n", "inside.sql": "-- @kind: materialized_view\nSELECT * FROM ok\n"},
	} {
		for rel, text := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(root, "samples", "linked.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "samples", "linkdir")); err != nil {
		t.Fatal(err)
	}
	escapes := map[string]string{
		"etc_passwd":   "SELECT * FROM read_csv('/etc/passwd')",
		"abs_outside":  "SELECT * FROM read_csv_auto('" + filepath.Join(outside, "secret.csv") + "')",
		"dotdot":       "SELECT * FROM read_text('" + root + "/../outside/secret.txt')",
		"symlink_file": "SELECT * FROM read_csv_auto('" + root + "/samples/linked.csv')",
		"symlink_dir":  "SELECT * FROM read_text('" + root + "/samples/linkdir/secret.txt')",
		"symlink_glob": "SELECT * FROM glob('" + root + "/samples/linkdir/*')",
		"glob_etc":     "SELECT * FROM glob('/etc/*')",
		"parquet_scan": "SELECT * FROM parquet_scan('" + filepath.Join(outside, "x.parquet") + "')",
		"proc_environ": "SELECT * FROM read_text('/proc/self/environ')",
		"http_url":     "SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')",
		"https_url":    "SELECT * FROM read_text('https://example.com/')",
		"s3_url":       "SELECT * FROM read_parquet('s3://bucket/x.parquet')",
		"getenv":       "SELECT getenv('HOME') AS h",
	}

	a, b := net.Pipe()
	served := make(chan struct{})
	go func() {
		lsp.Serve(context.Background(), a, log.New(io.Discard, "", 0))
		close(served)
	}()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if strings.Contains(string(req.Params()), lspSecret) {
			t.Errorf("%s carries the secret from outside the pipeline", req.Method())
		}
		return reply(ctx, nil, nil)
	})
	defer func() {
		conn.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop when the client went away")
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var init protocol.InitializeResult
	if _, err := conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(root)}, &init); err != nil {
		t.Fatal(err)
	}
	conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{})

	// Each escape lives in an unsaved buffer: the file does not exist on
	// disk, only in the editor.
	for name, query := range escapes {
		u := uri.File(filepath.Join(root, "esc_"+name+".sql"))
		if err := conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: "sql", Version: 1, Text: "-- @kind: materialized_view\n" + query + "\n",
		}}); err != nil {
			t.Fatal(err)
		}
	}
	preview := func(file, dataset string) (map[string]any, string) {
		t.Helper()
		var res json.RawMessage
		_, err := conn.Call(ctx, "thund/preview", map[string]any{"uri": uri.File(filepath.Join(root, file)), "dataset": dataset}, &res)
		if err != nil {
			return nil, err.Error()
		}
		if strings.Contains(string(res), lspSecret) {
			t.Errorf("preview of %s returned the secret: %s", dataset, res)
		}
		var m map[string]any
		json.Unmarshal(res, &m)
		return m, ""
	}
	if m, err := preview("inside.sql", "inside"); err != "" || m["error"] != nil || m["total_rows"] != float64(1) {
		t.Fatalf("preview inside the root: %v %v", m, err)
	}
	for name := range escapes {
		m, err := preview("esc_"+name+".sql", "esc_"+name)
		if err != "" {
			t.Errorf("%s: the request failed instead of reporting the dataset's error: %s", name, err)
			continue
		}
		msg, _ := m["error"].(string)
		// getenv is refused before anything runs: by analysis (Spark has
		// no function of that name), the translator or the guard.
		if !strings.Contains(msg, "refused by the sandbox") && !(name == "getenv" && (strings.Contains(msg, "getenv() is not available in a pipeline") ||
			strings.Contains(msg, "Thund does not translate the function getenv") || strings.Contains(msg, "[UNRESOLVED_ROUTINE] Spark has no function getenv"))) {
			t.Errorf("%s: preview error %q, want the sandbox's refusal", name, msg)
		}
	}
	if ents, err := os.ReadDir(outside); err != nil || len(ents) != 2 {
		t.Errorf("the folder outside changed: %v %v", ents, err)
	}
}
