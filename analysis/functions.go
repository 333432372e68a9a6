package analysis

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/sparkfuncs"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// readsFiles are the table functions Thund reads as file reads
// (read_files, cloud_files): Databricks', not in Spark's catalogs, and
// checked per backend as constructs of their own.
var readsFiles = map[string]bool{"read_files": true, "cloud_files": true}

// unknownFunction reports whether a call's function name (as written,
// qualified or not) is a built-in name that no Spark release Thund knows
// has: Spark fails such a query with UNRESOLVED_ROUTINE. A name
// qualified by anything but builtin / system.builtin is a catalog's
// function and not checked.
func unknownFunction(written string) bool {
	name := strings.ToLower(written)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		q := name[:i]
		if q != "builtin" && q != "system.builtin" {
			return false
		}
		name = name[i+1:]
	}
	name = strings.Trim(name, "`")
	if name == "" || readsFiles[name] {
		return false
	}
	return !sparkfuncs.Known(name)
}

// unknownFunctionDiag is the finding for a call of a function no Spark
// release has: an error (Spark's UNRESOLVED_ROUTINE) with the nearest
// Spark function. Where the name may still exist, it is milder: a
// pipeline with Python files may register it as a UDF (a warning), and
// Databricks SQL has functions Spark lacks (checked against databricks
// alone, only a name close to a Spark function is reported, as a
// warning). ok is false when nothing is reported.
func unknownFunctionDiag(backends []ir.Backend, c sqlfront.FuncRef, python bool) (ir.Diagnostic, bool) {
	spark, dbx := false, false
	for _, b := range backends {
		switch {
		case b == ir.Databricks:
			dbx = true
		case strings.HasPrefix(string(b), "spark-"):
			spark = true
		}
	}
	name := c.Name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	near := Nearest(strings.ToLower(name), sparkfuncs.Names())
	releases := ""
	if cs, _ := sparkfuncs.Catalogs(); len(cs) > 0 {
		releases = fmt.Sprintf(" (no release from %s to %s)", cs[0].SparkVersion, cs[len(cs)-1].SparkVersion)
	}
	msg := fmt.Sprintf("[UNRESOLVED_ROUTINE] Spark has no function %s%s", name, releases)
	if near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	} else {
		msg += ": check the name against Spark's built-in functions (hover a function for its documentation)"
	}
	d := ir.Diagnostic{Loc: c.Loc, Severity: ir.Error, Code: ir.CodeBinder, Message: msg}
	switch {
	case dbx && !spark:
		if near == "" {
			return ir.Diagnostic{}, false
		}
		d.Severity = ir.Warning
		d.Message += " (a warning: Databricks SQL has functions Spark lacks, and this may be one of them)"
	case python:
		d.Severity = ir.Warning
		d.Message += " (a warning: a Python file of this pipeline may register it as a function)"
	}
	if near != "" {
		d.Suggestions = []string{near}
	}
	return d, true
}
