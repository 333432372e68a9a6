package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// TestNotebookCommandCell: a %sql cell of a Python notebook export that
// defines nothing (a `list` command) gets one info at its %sql and no
// statement error; a cell that defines a view keeps its dataset, and a
// cell whose definition does not parse keeps its syntax error.
func TestNotebookCommandCell(t *testing.T) {
	text := "# Databricks notebook source\nimport dlt\n\n@dlt.table\ndef a():\n    return spark.range(3)\n\n" +
		"# COMMAND ----------\n\n# MAGIC %sql\n# MAGIC list \"/databricks-datasets/retail-org/\"\n\n" +
		"# COMMAND ----------\n\n# MAGIC %sql\n# MAGIC CREATE OR REFRESH MATERIALIZED VIEW b AS SELECT * FROM a\n\n" +
		"# COMMAND ----------\n\n# MAGIC %sql\n# MAGIC CREAT MATERIALIZED VIEW c AS SELECT 1\n"
	res := analyseFile("nb.py", text, sqlfront.DialectSpark, nil)
	listAt := strings.Index(text, "%sql\n# MAGIC list")
	var infos, others []ir.Diagnostic
	for _, d := range res.diags {
		if d.Code == ir.CodeNotebookCell {
			infos = append(infos, d)
		} else {
			others = append(others, d)
		}
	}
	if len(infos) != 1 || infos[0].Severity != ir.Info || infos[0].Loc.Start != listAt || infos[0].Loc.End != listAt+len("%sql") {
		t.Errorf("the command cell's info: %+v (want one at offset %d)", infos, listAt)
	}
	for _, d := range others {
		if d.Code == ir.CodeSQLUnsupported || d.Loc.Start > listAt && d.Loc.Start < listAt+60 {
			t.Errorf("a statement error in the command cell: %+v", d)
		}
	}
	syntax := false
	for _, d := range others {
		syntax = syntax || d.Code == ir.CodeSQLSyntax && d.Loc.Start >= strings.Index(text, "CREAT ")
	}
	if !syntax {
		t.Errorf("the mistyped definition's syntax error is gone: %+v", others)
	}
	var names []string
	for _, d := range res.datasets {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("datasets %v, want a,b", names)
	}
}
