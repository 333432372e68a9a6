package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// specFolder writes a pipeline whose spec has a name spark-pipelines does
// not look for (pipeline.yml), so only a spec setting makes it the
// pipeline's spec: its libraries leave scratch/ out, where a second
// definition of a lies (a scratch copy).
func specFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"pipeline.yml":              "name: p\nstorage: file:///tmp/thund-spec-setting\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql":     "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n",
		"transformations/sub/b.sql": "CREATE MATERIALIZED VIEW b AS SELECT x FROM a;\n",
		"scratch/a.sql":             "CREATE MATERIALIZED VIEW a AS SELECT 2 AS x;\n",
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
// option, relative to the workspace folder) the spec's libraries make the
// pipeline, so b reads the a of transformations/; without it, the folder
// is read whole (no file marks it), where a is defined twice.
func TestSpecSettingNamesTheRoot(t *testing.T) {
	dir := specFolder(t)
	b := filepath.Join(dir, "transformations", "sub", "b.sql")

	plain, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir))})
	plain.open(t, b)
	if f := duplicateIn(t, plain); f == "" {
		t.Fatal("without the spec setting, scratch/a.sql should be read too, defining a twice")
	}

	c, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir)), "initializationOptions": map[string]any{"spec": "pipeline.yml"}})
	u, text := c.open(t, b)
	var locs []protocol.Location
	c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, posOf(t, text, "FROM a", 0, 5)), &locs)
	if len(locs) != 1 || locs[0].URI.Filename() != filepath.Join(dir, "transformations", "a.sql") {
		t.Fatalf("with the spec setting, definition of a should lead to transformations/a.sql only, got %+v", locs)
	}
}

// TestSpecSettingChange: turning the spec setting on later re-reads the
// pipeline by its spec and clears what the old reading said.
func TestSpecSettingChange(t *testing.T) {
	dir := specFolder(t)
	b := filepath.Join(dir, "transformations", "sub", "b.sql")
	c, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir))})
	u, text := c.open(t, b)
	f := duplicateIn(t, c)
	if f == "" {
		t.Fatal("without the spec setting a should be defined twice")
	}
	c.notify(t, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"thund": map[string]any{"spec": filepath.Join(dir, "pipeline.yml")}}})
	if got := c.waitFor(t, f); len(got.Diagnostics) != 0 {
		t.Fatalf("the old reading's diagnostics should be cleared; got %+v", got.Diagnostics)
	}
	if got := definitionOfA(t, c, u, text); got != "a.sql" {
		t.Fatalf("after the spec setting, definition of a should lead to a.sql, got %q", got)
	}
}

// TestUnmarkedWorkspaceFolderIsTheRoot: a folder no pipeline file marks (a
// Lakeflow editor's layout: transformations/ and samples/, no spec) is one
// pipeline when opened as the workspace folder, as thund-watch --check DIR
// reads DIR: a file in another subfolder reads a dataset of transformations/
// and the sample at the folder's top.
func TestUnmarkedWorkspaceFolderIsTheRoot(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"transformations/a.sql": "CREATE MATERIALIZED VIEW a AS SELECT * FROM src;\n",
		"more/b.sql":            "CREATE MATERIALIZED VIEW b AS SELECT x FROM a;\n",
		"samples/src.csv":       "x\n1\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := startServerWith(t, map[string]any{"rootUri": string(protocolDir(dir))})
	b := filepath.Join(dir, "more", "b.sql")
	u, text := c.open(t, b)
	if got := definitionOfA(t, c, u, text); got != "a.sql" {
		t.Fatalf("definition of a in more/b.sql should lead to transformations/a.sql, got %q", got)
	}
	a := filepath.Join(dir, "transformations", "a.sql")
	au, _ := c.open(t, a)
	var g GraphResult
	c.call(t, "thund/graph", map[string]any{"uri": au}, &g)
	if len(g.Nodes) != 3 || len(g.Edges) != 2 {
		t.Fatalf("the workspace folder's pipeline is src -> a -> b; thund/graph gave %d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}
}

// duplicateIn waits for a duplicate-dataset diagnostic in any file and
// returns that file ("" when none came).
func duplicateIn(t *testing.T, c *client) string {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case p := <-c.diags:
			for _, d := range p.Diagnostics {
				if d.Code == "duplicate-dataset" {
					return p.URI.Filename()
				}
			}
		case <-deadline:
			return ""
		}
	}
}

func protocolDir(dir string) protocol.DocumentURI {
	return protocol.DocumentURI("file://" + filepath.ToSlash(dir))
}
