package sqlfront

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/thund-dev/thund/ir"
)

// CheckExpression checks a boolean expression written in a pragma (an
// expectation, what), whose text in the file is at loc: it must parse as
// one SQL expression, and use neither aggregates nor window functions,
// since it is evaluated on each row. The engine pastes the same text into
// its statements, so without this check the mistake shows only when the
// dataset runs, without a position.
func CheckExpression(what, expr string, loc ir.Loc) []ir.Diagnostic {
	const prefix = "SELECT ("
	input := sanitize(prefix + expr + ") AS thund_check")
	// at maps an offset of input to a range of the expression in the file,
	// from there to its end (the expression as a whole if the file text
	// is not the expression byte for byte).
	at := func(off int) ir.Loc {
		off -= len(prefix)
		if loc.End-loc.Start != len(expr) || off < 0 || off > len(expr) {
			return loc
		}
		if off == len(expr) && off > 0 {
			off--
		}
		return ir.Loc{File: loc.File, Start: loc.Start + off, End: loc.End}
	}
	var f found
	tree, pgErr := pg_query.Parse(input)
	switch {
	case pgErr == nil && len(tree.Stmts) == 1 && tree.Stmts[0].Stmt.GetSelectStmt() != nil:
		w := pgWalker{f: &f}
		w.sel(tree.Stmts[0].Stmt.GetSelectStmt(), nil, false)
	default:
		res, err := duckParse(input)
		if err != nil || res.failed {
			msg, pos := "it is not an expression", -1
			var pe *parser.Error
			if errors.As(pgErr, &pe) {
				msg = pe.Message
				if pe.Cursorpos > 0 {
					pos = charToByte(input, int(pe.Cursorpos)-1)
					if pos-len(prefix) >= len(expr) {
						// At the wrapper's closing parenthesis: the
						// expression stops short.
						msg = "it ends too early"
					}
				}
			}
			d := ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeSQLSyntax,
				Message: fmt.Sprintf("%s is not a valid SQL expression (%s); write one boolean expression, such as amount > 0", what, msg)}
			if pos >= 0 {
				d.Loc = at(pos)
			}
			return []ir.Diagnostic{d}
		}
		w := duckWalker{f: &f, n: len(input)}
		w.walk(res.stmt, nil, false)
	}
	// call narrows at's range to the function name at off.
	call := func(off int) ir.Loc {
		l := at(off)
		if rel := off - len(prefix); l.Start == loc.Start+rel {
			if _, end, ok := scanName(expr, rel, len(expr)); ok {
				l.End = loc.Start + end
			}
		}
		return l
	}
	var out []ir.Diagnostic
	for _, off := range f.aggs {
		out = append(out, ir.Diagnostic{Loc: call(off), Severity: ir.Error, Code: ir.CodeSQLSyntax,
			Message: fmt.Sprintf("%s calls an aggregate: an expectation is checked on each row, so it cannot aggregate; check totals in a dataset of their own", what)})
	}
	for _, off := range f.windows {
		out = append(out, ir.Diagnostic{Loc: call(off), Severity: ir.Error, Code: ir.CodeSQLSyntax,
			Message: fmt.Sprintf("%s calls a window function: an expectation is checked on each row, so it cannot use OVER; compute the value in the dataset's query and check that column", what)})
	}
	return out
}
