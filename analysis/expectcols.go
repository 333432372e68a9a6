package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// expectationColumns checks the column names of expectations against the
// columns they are evaluated on, out (the flow's complete output), for
// those written in file (whose text is text): a name
// that is none of them is an unknown-column error at its range, with the
// nearest column, as a run reports it (plain --check used to leave it to
// the run). Only plain names are checked: a qualified name, a lambda's
// variable or a subquery's column is not.
func expectationColumns(file, text string, exps []ir.Expectation, out []sema.Column) []ir.Diagnostic {
	if len(out) == 0 {
		return nil
	}
	have := make(map[string]bool, len(out))
	names := make([]string, len(out))
	for i, c := range out {
		have[strings.ToLower(c.Name)] = true
		names[i] = c.Name
	}
	var diags []ir.Diagnostic
	for _, e := range exps {
		loc := e.SQLLoc
		if loc.File != file || loc.End <= loc.Start || loc.End > len(text) || text[loc.Start:loc.End] != e.SQL {
			continue // not the text as written
		}
		x, errs := parser.ParseExpression(e.SQL, parser.Options{})
		if x == nil || len(errs) > 0 {
			continue
		}
		plain := true
		ast.Inspect(x, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.Lambda, *ast.Subquery, *ast.Exists:
				plain = false
			}
			return plain
		})
		if !plain {
			continue
		}
		ast.Inspect(x, func(n ast.Node) bool {
			c, ok := n.(*ast.Column)
			if !ok {
				return true
			}
			if len(c.Parts) != 1 || have[strings.ToLower(c.Parts[0].Name)] {
				return false
			}
			name := c.Parts[0].Name
			msg := fmt.Sprintf("unknown column `%s` in expectation %s: the rows it checks have the columns %s", name, e.Name, columnList(names))
			var sugg []string
			if near := Nearest(name, names); near != "" {
				msg = fmt.Sprintf("unknown column `%s` in expectation %s; did you mean `%s`?", name, e.Name, near)
				sugg = []string{near}
			}
			diags = append(diags, ir.Diagnostic{
				Loc:      ir.Loc{File: loc.File, Start: loc.Start + c.Start, End: loc.Start + c.End},
				Severity: ir.Error, Code: ir.CodeUnknownColumn, Message: msg, Suggestions: sugg,
			})
			return false
		})
	}
	return diags
}

// columnList writes up to eight column names in backquotes.
func columnList(names []string) string {
	q := make([]string, 0, min(len(names), 8))
	for i, n := range names {
		if i == 8 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-8))
			break
		}
		q = append(q, "`"+n+"`")
	}
	return strings.Join(q, ", ")
}

// expectationRules reports what Databricks states of a dataset's
// expectations and Thund would otherwise pass: a name used twice for one
// dataset ("an expectation name must be unique for a given dataset"),
// and a condition holding a subquery (a constraint cannot contain
// "subqueries referencing other tables", when the pipeline is checked
// against databricks). Two @expect pragmas of one name
// are the pragma check's (pragma-duplicate).
func expectationRules(p *ir.Pipeline) []ir.Diagnostic {
	var diags []ir.Diagnostic
	dbx := slices.Contains(p.Backends, ir.Databricks)
	for _, d := range p.Datasets {
		exps := append([]ir.Expectation(nil), d.Expectations...)
		for _, f := range p.FlowsInto(d.Name) {
			exps = append(exps, f.Expectations...)
		}
		first := map[string]ir.Expectation{}
		for _, e := range exps {
			k := strings.ToLower(e.Name)
			if prev, dup := first[k]; dup && (e.InSQL || prev.InSQL) && e.Loc != prev.Loc {
				diags = append(diags, ir.Diagnostic{
					Loc: e.Loc, Severity: ir.Error, Code: ir.CodeDuplicateExpectation,
					Message: fmt.Sprintf("%s has two expectations named %s, and Databricks requires an expectation name to be unique for a dataset: rename one", d.Name, e.Name),
					Related: []ir.Related{{Loc: prev.Loc, Message: "the first " + e.Name}},
				})
			} else if !dup {
				first[k] = e
			}
			if dbx && subqueryIn(e.SQL) {
				diags = append(diags, ir.Diagnostic{
					Loc: e.SQLLoc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: ir.Databricks,
					Message: fmt.Sprintf("expectation %s holds a subquery, which databricks cannot run: an expectation's condition cannot contain subqueries referencing other tables; check the rows against the other table with a join in the dataset's query, then expect on the joined column", e.Name),
				})
			}
		}
	}
	return diags
}

// subqueryIn reports a condition holding a subquery (IN (SELECT ...),
// EXISTS, a scalar subquery).
func subqueryIn(cond string) bool {
	x, errs := parser.ParseExpression(cond, parser.Options{})
	if x == nil || len(errs) > 0 {
		return false
	}
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Subquery, *ast.Exists:
			found = true
		case *ast.In:
			found = found || n.Query != nil
		}
		return !found
	})
	return found
}
