package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestUseSchemaAndCatalog: USE SCHEMA / USE CATALOG / SET CATALOG make
// the names after them in their file read as Spark reads them (checked on
// Spark 4.1.4: USE SCHEMA other; ... FROM x reads other.x, QA14 v2): the
// datasets defined there are in that schema, their reads resolve there, a
// temporary view (in no schema) is read as written, the column check
// finds the upstream's columns, and a file without USE is unaffected.
// With a catalog in the spec, a name USE CATALOG puts elsewhere is not the
// pipeline's.
func TestUseSchemaAndCatalog(t *testing.T) {
	s, err := Load(writeTree(t, map[string]string{
		"a.sql": "CREATE MATERIALIZED VIEW other.x AS SELECT 1 AS id;\n" +
			"CREATE MATERIALIZED VIEW plain AS SELECT 2 AS id;\n",
		"b.sql": "USE SCHEMA other;\n" +
			"CREATE TEMPORARY VIEW tv AS SELECT id FROM x;\n" +
			"CREATE MATERIALIZED VIEW y AS SELECT idd FROM x;\n" +
			"CREATE MATERIALIZED VIEW z AS SELECT id FROM tv;\n" +
			"USE CATALOG dev;\n" +
			"CREATE MATERIALIZED VIEW w AS SELECT * FROM other.y;\n" +
			"SET CATALOG spark_catalog;\n" +
			"USE default;\n" +
			"CREATE MATERIALIZED VIEW v AS SELECT id FROM plain;\n",
		"c.sql": "CREATE MATERIALIZED VIEW c AS SELECT * FROM other.y JOIN plain;\n",
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pipeline
	edges := map[string]bool{}
	for _, d := range p.Datasets {
		for _, e := range p.Graph().In(ir.NameKey(d.Name)) {
			edges[e.From+">"+e.To] = true
		}
	}
	for _, want := range []string{"other.x>tv", "other.x>other.y", "tv>other.z", "other.y>c", "plain>c", "plain>spark_catalog.default.v"} {
		if !edges[want] {
			t.Errorf("missing edge %s; edges %v", want, edges)
		}
	}
	if d := p.Dataset("dev.default.w"); d == nil {
		t.Errorf("USE CATALOG dev: w should be dev.default.w; datasets %v", names(p))
	}
	var unknownCol, unknownRef []string
	for _, d := range s.Diagnostics {
		switch d.Code {
		case ir.CodeUnknownColumn:
			unknownCol = append(unknownCol, d.Message)
		case ir.CodeUnknownRef:
			unknownRef = append(unknownRef, d.Message)
		}
	}
	if len(unknownCol) != 1 || !strings.Contains(unknownCol[0], "`idd`") {
		t.Errorf("the column check should find idd unknown in other.x, and nothing else: %v", unknownCol)
	}
	// after USE CATALOG dev, other.y is dev.other.y: the spec names no
	// catalog, so the pipeline's own may be dev (ir: anyCatalog)
	if len(unknownRef) != 0 || !edges["other.y>dev.default.w"] {
		t.Errorf("unknown references: %v, want none and an edge other.y > dev.default.w", unknownRef)
	}
}

func TestUseCatalogOtherThanTheSpecs(t *testing.T) {
	s, err := Load(writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///tmp/thund-use\ncatalog: main\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.sql":            "CREATE MATERIALIZED VIEW other.y AS SELECT 1 AS id;\n",
		"t/b.sql":            "USE CATALOG dev;\nCREATE MATERIALIZED VIEW w AS SELECT * FROM other.y;\n",
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range s.Diagnostics {
		found = found || (d.Code == ir.CodeUnknownRef && strings.Contains(d.Message, "dev.other.y"))
	}
	if !found {
		t.Errorf("catalog main in the spec, USE CATALOG dev: other.y is dev.other.y, not a dataset; diagnostics %v", s.Diagnostics)
	}
}

func names(p *ir.Pipeline) []string {
	var out []string
	for _, d := range p.Datasets {
		out = append(out, d.Name)
	}
	return out
}

// TestComputedNameIsNotAnEmptyPipeline: a Python definition whose name is
// computed at run time may well be a dataset (Spark 4.1.4 runs
// name=f"m{n}" with n from the environment, QA13 v12), so a pipeline of
// only such definitions is not called empty; one with none is.
func TestComputedNameIsNotAnEmptyPipeline(t *testing.T) {
	spec := "name: p\nstorage: file:///tmp/thund-empty\nlibraries:\n  - glob:\n      include: t/**\n"
	empty := func(files map[string]string) bool {
		s, err := Load(writeTree(t, files), Options{Backends: []ir.Backend{ir.Spark41}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Diagnostics {
			if strings.Contains(d.Message, "RUN_EMPTY_PIPELINE") {
				return true
			}
		}
		return false
	}
	computed := "import os\nfrom pyspark import pipelines as dp\n\n@dp.materialized_view(name=os.environ[\"N\"])\ndef m():\n    return spark.range(1)\n"
	if empty(map[string]string{"spark-pipeline.yml": spec, "t/p.py": computed}) {
		t.Error("a definition with a computed name: the pipeline is not known to be empty")
	}
	if !empty(map[string]string{"spark-pipeline.yml": spec, "t/p.py": "x = 1\n"}) {
		t.Error("a pipeline defining nothing should be RUN_EMPTY_PIPELINE on spark-4.1")
	}
}
