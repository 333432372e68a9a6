package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestConfigCatalogAndSchema checks thund.yaml's databricks.catalog and
// databricks.schema: they name the pipeline's defaults in a folder with
// no spec or bundle, and a spec's own names win with a warning at the
// thund.yaml key that disagrees.
func TestConfigCatalogAndSchema(t *testing.T) {
	open := func(files map[string]string) *Project {
		t.Helper()
		root := t.TempDir()
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := open(map[string]string{"thund.yaml": "dialect: databricks\ndatabricks:\n  catalog: dev\n  schema: bronze\n"})
	if p.Spec.Catalog != "dev" || p.Spec.Database != "bronze" || len(p.Diags) != 0 {
		t.Fatalf("catalog %q, schema %q, diagnostics %v; want dev, bronze and none", p.Spec.Catalog, p.Spec.Database, p.Diags)
	}
	p = open(map[string]string{
		"thund.yaml":         "databricks:\n  catalog: dev\n  schema: bronze\n",
		"spark-pipeline.yml": "name: p\ncatalog: dev\ndatabase: silver\nlibraries:\n  - glob:\n      include: '**/*.sql'\n",
	})
	if p.Spec.Catalog != "dev" || p.Spec.Database != "silver" {
		t.Fatalf("catalog %q, schema %q; want the spec's dev and silver", p.Spec.Catalog, p.Spec.Database)
	}
	var warned []ir.Diagnostic
	for _, d := range p.Diags {
		if d.Code == ir.CodeConfigError && strings.Contains(d.Message, "databricks.schema `bronze` is not used: spark-pipeline.yml names `silver`") {
			warned = append(warned, d)
		}
	}
	if len(warned) != 1 || warned[0].Severity != ir.Warning || warned[0].Loc.File != "thund.yaml" {
		t.Fatalf("want one warning at thund.yaml's databricks.schema, got %v (all: %v)", warned, p.Diags)
	}
}
