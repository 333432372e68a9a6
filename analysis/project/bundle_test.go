package project

import (
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A bundle in the shape `databricks bundle init` and public projects use:
// variables with defaults, targets overriding them, the pipeline in an
// included resources file, libraries as files, notebooks (named without
// their extension) and globs, relative to the file that lists them.
var bundleTexts = map[string][]byte{
	"databricks.yml": []byte(`bundle:
  name: shop
include:
  - resources/*.yml
variables:
  catalog:
    default: dev_cat
  volume:
    description: landing volume
    default: /Volumes/dev/raw
targets:
  dev:
    mode: development
    default: true
    variables:
      catalog: dev_override
  prod:
    variables:
      catalog: prod_cat
`),
	"resources/shop.pipeline.yml": []byte(`resources:
  pipelines:
    shop_etl:
      name: shop-etl-${bundle.target}
      catalog: ${var.catalog}
      schema: sales
      configuration:
        source_path: ${var.volume}/orders
        spark.sql.ansi.enabled: "true"
      libraries:
        - notebook:
            path: ../src/bronze
        - file:
            path: ../src/silver.py
        - glob:
            include: ../src/gold/**
        - file:
            path: /Workspace/Shared/other.sql
        - file:
            path: ../src/missing.sql
        - whl: ./dist/x.whl
`),
	"resources/other.yml": []byte(`resources:
  jobs:
    nightly:
      name: nightly
`),
}

var bundleFiles = []string{
	"databricks.yml", "resources/other.yml", "resources/shop.pipeline.yml",
	"src/bronze.sql", "src/gold/a.sql", "src/gold/b.py", "src/gold/notes.md",
	"src/silver.py", "src/unlisted.sql",
}

func TestParseBundle(t *testing.T) {
	b, diags := ParseBundle("databricks.yml", bundleTexts, "", "")
	if b == nil {
		t.Fatalf("no bundle pipeline read; diags %v", diags)
	}
	if b.Pipeline != "shop_etl" || b.Target != "dev" {
		t.Errorf("pipeline %q target %q, want shop_etl and the default target dev", b.Pipeline, b.Target)
	}
	if b.Name != "shop-etl-dev" || b.Catalog != "dev_override" || b.Schema != "sales" {
		t.Errorf("name %q catalog %q schema %q: the target's variables and ${bundle.target} must be substituted", b.Name, b.Catalog, b.Schema)
	}
	if got := b.Configuration["source_path"]; got != "/Volumes/dev/raw/orders" {
		t.Errorf("configuration source_path = %q", got)
	}
	libs, ldiags := b.bundleLibraries(bundleFiles)
	want := []string{"src/bronze.sql", "src/gold/a.sql", "src/gold/b.py", "src/silver.py"}
	if !reflect.DeepEqual(libs, want) {
		t.Errorf("libraries = %v, want %v", libs, want)
	}
	var msgs []string
	for _, d := range ldiags {
		msgs = append(msgs, d.Loc.File+": "+d.Message)
	}
	joined := strings.Join(msgs, "\n")
	for _, w := range []string{
		"resources/shop.pipeline.yml: library `/Workspace/Shared/other.sql` is a workspace path",
		"resources/shop.pipeline.yml: library `../src/missing.sql` matches no file",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("library diagnostics lack %q:\n%s", w, joined)
		}
	}
	if len(ldiags) != 2 {
		t.Errorf("want 2 library diagnostics, got %d:\n%s", len(ldiags), joined)
	}
}

func TestParseBundleChoices(t *testing.T) {
	texts := map[string][]byte{"databricks.yml": []byte(`bundle: {name: two}
targets:
  dev: {default: true}
  prod:
    resources:
      pipelines:
        gold:
          catalog: prod_cat
resources:
  pipelines:
    bronze:
      libraries: [{file: {path: bronze.sql}}]
    gold:
      catalog: dev_cat
      libraries: [{file: {path: gold.sql}}]
`)}
	b, diags := ParseBundle("databricks.yml", texts, "", "")
	if b.Pipeline != "bronze" || !reflect.DeepEqual(b.Pipelines, []string{"bronze", "gold"}) {
		t.Fatalf("pipeline %q of %v, want the first, bronze", b.Pipeline, b.Pipelines)
	}
	if len(diags) != 1 || diags[0].Severity != ir.Info || !strings.Contains(diags[0].Message, "`databricks: {pipeline: <key>}`") {
		t.Errorf("two pipelines and no choice: want one info saying how to choose, got %v", diags)
	}
	b, diags = ParseBundle("databricks.yml", texts, "gold", "prod")
	if b.Pipeline != "gold" || b.Catalog != "prod_cat" || b.Name != "gold" || len(diags) != 0 {
		t.Errorf("chosen gold on prod: pipeline %q catalog %q name %q diags %v", b.Pipeline, b.Catalog, b.Name, diags)
	}
	_, diags = ParseBundle("databricks.yml", texts, "silver", "staging")
	if len(diags) != 2 || !strings.Contains(diags[0].Message, "its targets: dev, prod") || !strings.Contains(diags[1].Message, "its pipelines: bronze, gold") {
		t.Errorf("unknown choices must be named with the alternatives: %v", diags)
	}
	if b, _ := ParseBundle("databricks.yml", map[string][]byte{"databricks.yml": []byte("bundle: {name: jobs_only}\n")}, "", ""); b != nil {
		t.Errorf("a bundle without pipelines is not a pipeline: got %+v", b)
	}
	if b, diags := ParseBundle("databricks.yml", map[string][]byte{"databricks.yml": []byte("bundle: [\n")}, "", ""); b != nil || len(diags) == 0 || diags[0].Loc.File != "databricks.yml" {
		t.Errorf("a bundle with a YAML error: want the error at the file, got %v %v", b, diags)
	}
}

func TestProjectFromBundle(t *testing.T) {
	texts := map[string][]byte{}
	for k, v := range bundleTexts {
		texts[k] = v
	}
	p := FromTexts("/x", texts)
	if p.Bundle == nil || p.BundleFile != "databricks.yml" {
		t.Fatalf("the bundle was not read: %+v", p)
	}
	if p.Config.Dialect != "databricks" || !reflect.DeepEqual(p.Config.CheckedBackends(), []ir.Backend{ir.Native, ir.Databricks}) {
		t.Errorf("a bundle is a Databricks pipeline: dialect %q backends %v", p.Config.Dialect, p.Config.CheckedBackends())
	}
	if p.Spec.Catalog != "dev_override" || p.Spec.Database != "sales" || p.Spec.Name != "shop-etl-dev" {
		t.Errorf("spec from the bundle: %+v", p.Spec)
	}
	libs, _ := p.Libraries(bundleFiles)
	if len(libs) != 4 {
		t.Errorf("libraries %v", libs)
	}
	// thund.yaml chooses the target and may set another dialect.
	texts[ConfigName] = []byte("dialect: spark\ndatabricks:\n  target: prod\n  pipelin: x\n")
	p = FromTexts("/x", texts)
	if p.Spec.Catalog != "prod_cat" || p.Config.Dialect != "spark" {
		t.Errorf("thund.yaml's choices: catalog %q dialect %q", p.Spec.Catalog, p.Config.Dialect)
	}
	found := false
	for _, d := range p.Diags {
		found = found || strings.Contains(d.Message, "unknown key `pipelin` in `databricks` of thund.yaml") && strings.Contains(d.Message, "did you mean `pipeline`")
	}
	if !found {
		t.Errorf("a misspelt databricks key must be named with its fix: %v", p.Diags)
	}
	// A spark-pipeline.yml wins over the bundle.
	texts[SpecYML] = []byte("name: p\nstorage: file:///tmp/s\nlibraries:\n  - glob: {include: src/**}\n")
	if p = FromTexts("/x", texts); p.Bundle != nil {
		t.Errorf("with a spark-pipeline.yml the SDP spec is the project, not the bundle")
	}
}
