package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// Hovering ${key} shows the value Spark substitutes for it and where it
// is set; an unset key says Spark substitutes empty text.
func TestParamHover(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml":    "name: p\nstorage: file:///tmp/p\nconfiguration:\n  min_fare: \"20\"\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql": "CREATE MATERIALIZED VIEW a AS SELECT ${min_fare} AS m, ${nope} AS n;\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := files["transformations/a.sql"]
	at := func(sub string) string {
		md, loc, ok := paramHover(docPos{snap: snap, root: root, rel: "transformations/a.sql", off: strings.Index(text, sub) + 3})
		if !ok {
			t.Fatalf("%s: no hover", sub)
		}
		if got := text[loc.Start:loc.End]; got != sub {
			t.Errorf("%s: range %q", sub, got)
		}
		return md
	}
	if md := at("${min_fare}"); !strings.Contains(md, "`${min_fare}` = `20`") || !strings.Contains(md, "spark-pipeline.yml") {
		t.Errorf("set key: %q", md)
	}
	if md := at("${nope}"); !strings.Contains(md, "empty text") {
		t.Errorf("unset key: %q", md)
	}
	if _, _, ok := paramHover(docPos{snap: snap, root: root, rel: "transformations/a.sql", off: strings.Index(text, "AS m")}); ok {
		t.Error("a hover outside any reference")
	}
}
