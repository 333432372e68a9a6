package engine

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	sparkparser "github.com/thund-dev/thund/analysis/sparksql/parser"
)

// volatileFuncs are the functions whose value differs from one run of
// the same query to the next: the clock, random numbers, identifiers.
// A flow that finds its new rows by running its query again over every
// input row and taking away the rows it emitted before (a join or union
// of streams, an aggregation in update mode) must compare rows without
// the columns they compute, or every earlier row looks new again (Spark
// evaluates them once per row, when the row is emitted).
var volatileFuncs = map[string]bool{
	"current_timestamp": true, "now": true, "current_date": true, "curdate": true,
	"localtimestamp": true, "current_time": true, "rand": true, "randn": true,
	"random": true, "uuid": true, "shuffle": true, "randstr": true, "uniform": true,
	"monotonically_increasing_id": true,
}

// volatileColumns returns, for a flow's query as written (Spark SQL), the
// output columns among cols whose value calls a volatile function: by
// position where the SELECT lists have no *, else by alias in the
// leftmost SELECT. Nil when there are none or the query does not parse.
func volatileColumns(query string, cols []string) map[int]bool {
	st, errs := sparkparser.ParseStatement(query, sparkparser.Options{Databricks: true})
	if len(errs) > 0 {
		return nil
	}
	qs, ok := st.(*ast.QueryStmt)
	if !ok || qs.Query == nil {
		return nil
	}
	out := map[int]bool{}
	markVolatile(qs.Query.Body, cols, out, true)
	if len(out) == 0 {
		return nil
	}
	return out
}

// markVolatile marks in out the columns body computes with a volatile
// function; leftmost says body names the output columns.
func markVolatile(body ast.QueryExpr, cols []string, out map[int]bool, leftmost bool) {
	switch b := body.(type) {
	case *ast.SetOp:
		markVolatile(b.L, cols, out, leftmost)
		markVolatile(b.R, cols, out, false)
	case *ast.ParenQuery:
		if b.Query != nil {
			markVolatile(b.Query.Body, cols, out, leftmost)
		}
	case *ast.Select:
		star := false
		for _, it := range b.Items {
			if _, ok := it.X.(*ast.Star); ok {
				star = true
			}
		}
		for i, it := range b.Items {
			if !callsVolatile(it.X) {
				continue
			}
			switch {
			case !star && i < len(cols):
				out[i] = true
			case leftmost && it.Alias != nil:
				for j, c := range cols {
					if strings.EqualFold(c, it.Alias.Name) {
						out[j] = true
					}
				}
			}
		}
	}
}

// callsVolatile reports whether x calls a volatile function.
func callsVolatile(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if c, ok := n.(*ast.Call); ok && c.Name != nil && len(c.Name.Parts) > 0 {
			if volatileFuncs[strings.ToLower(c.Name.Parts[len(c.Name.Parts)-1].Name)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// newRowsQuery is the query of res's rows that prev does not hold, as
// multisets: all columns compared, or, when some are volatile, the
// others only (the n-th copy of a row is new when prev holds fewer than
// n copies of it).
func newRowsQuery(res, prev string, cols []string, volatile map[int]bool) string {
	if len(volatile) == 0 {
		return "SELECT * FROM " + res + " EXCEPT ALL SELECT * FROM " + prev
	}
	var keys, match []string
	for i, c := range cols {
		if volatile[i] {
			continue
		}
		q := quoteIdent(c)
		keys = append(keys, q)
		match = append(match, "__thund_r."+q+" IS NOT DISTINCT FROM __thund_p."+q)
	}
	part, on := "", "true"
	if len(keys) > 0 {
		part = "PARTITION BY " + strings.Join(keys, ", ")
		on = strings.Join(match, " AND ")
	}
	group := "SELECT count(*) AS __thund_c FROM " + prev
	if len(keys) > 0 {
		group = "SELECT " + strings.Join(keys, ", ") + ", count(*) AS __thund_c FROM " + prev + " GROUP BY " + strings.Join(keys, ", ")
	}
	return "SELECT __thund_r.* EXCLUDE (__thund_n) FROM (SELECT *, row_number() OVER (" + part + ") AS __thund_n FROM " + res +
		") AS __thund_r LEFT JOIN (" + group + ") AS __thund_p ON " + on +
		" WHERE __thund_r.__thund_n > coalesce(__thund_p.__thund_c, 0)"
}
