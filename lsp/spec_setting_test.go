package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
)

// specFolder writes a pipeline whose spec has a name spark-pipelines does
// not look for (pipeline.yml), so only a spec setting makes it the root.
func specFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"pipeline.yml":              "name: p\nstorage: file:///tmp/thund-spec-setting\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql":     "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n",
		"transformations/sub/b.sql": "CREATE MATERIALIZED VIEW b AS SELECT x FROM a;\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// definitionOfA is where definition on the `a` of b.sql's FROM a leads
// ("" when nowhere).
func definitionOfA(t *testing.T, c *client, u protocol.DocumentURI, text string) string {
	t.Helper()
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, posOf(t, text, "FROM a", 0, 5)), &locs)
	if len(locs) != 1 {
		return ""
	}
	return filepath.Base(locs[0].URI.Filename())
}

// TestSpecSettingNamesTheRoot: with the spec setting (initialization
// option, relative to the workspace folder) a file under the spec's folder
// is analysed in that pipeline, so b reads dataset a; without it, b.sql's
// folder is a pipeline of its own, where a is unknown.
func TestSpecSettingNamesTheRoot(t *testing.T) {
	dir := specFolder(t)
	b := filepath.Join(dir, "transformations", "sub", "b.sql")

	plain, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir))})
	pu, ptext := plain.open(t, b)
	if d := find(plain.diagnosticsWith(t, b, "unknown-reference"), "unknown-reference"); d.Code == "" {
		t.Fatal("without the spec setting, a should be unknown in b.sql")
	}
	if got := definitionOfA(t, plain, pu, ptext); got != "" {
		t.Fatalf("without the spec setting, definition of a leads to %s", got)
	}

	c, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir)), "initializationOptions": map[string]any{"spec": "pipeline.yml"}})
	u, text := c.open(t, b)
	if got := definitionOfA(t, c, u, text); got != "a.sql" {
		t.Fatalf("with the spec setting, definition of a should lead to a.sql, got %q", got)
	}
}

// TestSpecSettingChange: turning the spec setting on later moves an open
// file into the spec's pipeline and clears what its old root said.
func TestSpecSettingChange(t *testing.T) {
	dir := specFolder(t)
	b := filepath.Join(dir, "transformations", "sub", "b.sql")
	c, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir))})
	u, text := c.open(t, b)
	if d := find(c.diagnosticsWith(t, b, "unknown-reference"), "unknown-reference"); d.Code == "" {
		t.Fatal("without the spec setting a should be unknown in b.sql")
	}
	c.notify(t, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"thund": map[string]any{"spec": filepath.Join(dir, "pipeline.yml")}}})
	if got := c.waitFor(t, b); len(got.Diagnostics) != 0 {
		t.Fatalf("the old root's diagnostics should be cleared; got %+v", got.Diagnostics)
	}
	if got := definitionOfA(t, c, u, text); got != "a.sql" {
		t.Fatalf("after the spec setting, definition of a should lead to a.sql, got %q", got)
	}
}

func protocolDir(dir string) protocol.DocumentURI {
	return protocol.DocumentURI("file://" + filepath.ToSlash(dir))
}
