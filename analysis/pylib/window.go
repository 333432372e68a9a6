package pylib

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file maps window functions: F.row_number().over(w) and an
// aggregate's .over(w), where w is Window.partitionBy(...).orderBy(...)
// (with rowsBetween / rangeBetween), written in place or bound to a name
// in the body or the module. pyspark's window spec is SQL's OVER clause
// word for word: the same default frame (RANGE UNBOUNDED PRECEDING to
// CURRENT ROW with an order, the whole partition without), and an order
// ascending with NULLs first unless it says otherwise.

// rankFuncs are the ranking functions of no argument.
var rankFuncs = map[string]bool{"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true}

// windowFunc maps a ranking or offset function (row_number(), ntile(n),
// lag(col, offset, default), lead(...)); ok is false for any other f.
func (r *reader) windowFunc(f string, args []*sitter.Node, kw map[string]*sitter.Node) (colx, string, bool) {
	switch {
	case rankFuncs[f]:
		if len(args) > 0 || len(kw) > 0 {
			return colx{}, fmt.Sprintf("%s takes no argument", f), true
		}
		return colx{sql: f + "()"}, "", true
	case f == "ntile":
		n, ok := r.integer(arg(args, kw, 0, "n"))
		if !ok || len(args)+len(kw) != 1 {
			return colx{}, "ntile is given a number Thund does not read as an integer literal", true
		}
		return colx{sql: fmt.Sprintf("ntile(%d)", n)}, "", true
	case f == "lag" || f == "lead":
		c := arg(args, kw, 0, "col")
		if c == nil || len(args)+len(kw) > 3 {
			return colx{}, fmt.Sprintf("%s takes a column, an offset and a default", f), true
		}
		x, w := r.colExpr(c, true)
		if w != "" {
			return colx{}, w, true
		}
		offset := int64(1)
		if o := arg(args, kw, 1, "offset"); o != nil {
			v, ok := r.integer(o)
			if !ok {
				return colx{}, fmt.Sprintf("%s is given an offset Thund does not read as an integer literal", f), true
			}
			offset = v
		}
		parts := []string{x.sql, fmt.Sprint(offset)}
		if d := arg(args, kw, 2, "default"); d != nil && r.srcOf(d) != "None" {
			s, _, ok := r.sqlValue(r.constant(d))
			if !ok {
				return colx{}, fmt.Sprintf("%s is given a default Thund does not read as a literal", f), true
			}
			parts = append(parts, s)
		}
		return colx{sql: f + "(" + strings.Join(parts, ", ") + ")"}, "", true
	}
	return colx{}, "", false
}

// isWindowSpec reports whether n is a chain of calls on pyspark's Window
// (Window.partitionBy(...)...).
func (r *reader) isWindowSpec(n *sitter.Node) bool {
	for i := 0; i < 16; i++ {
		n = unparen(n)
		fn, _, _, _, ok := r.call(n)
		if !ok {
			return false
		}
		fn = unparen(fn)
		if fn == nil || fn.Kind() != "attribute" {
			return false
		}
		obj := unparen(fn.ChildByFieldName("object"))
		if obj != nil && obj.Kind() == "identifier" && r.isWindowClass(obj) {
			return true
		}
		n = obj
	}
	return false
}

// isWindowClass reports whether the identifier n names pyspark's Window
// (from pyspark.sql import Window; from pyspark.sql.window import
// Window; or a file that does not say where it comes from).
func (r *reader) isWindowClass(n *sitter.Node) bool {
	name := r.srcOf(n)
	if full, ok := r.imp.foreign[name]; ok {
		return full == "pyspark.sql.Window" || full == "pyspark.sql.window.Window"
	}
	return name == "Window"
}

// over maps x.over(w) to x OVER (...).
func (r *reader) over(x colx, w *sitter.Node) (colx, string) {
	spec, why := r.windowSpec(w)
	if why != "" {
		return colx{}, why
	}
	return colx{sql: x.sql + " OVER (" + spec + ")"}, ""
}

// windowSpec maps a window spec (in place, or a name bound to one in the
// body or at the module's level) to the inside of an OVER clause.
func (r *reader) windowSpec(n *sitter.Node) (string, string) {
	n = unparen(n)
	if n != nil && n.Kind() == "identifier" {
		if w := r.windows[r.srcOf(n)]; w != nil {
			n = w
		} else {
			n = unparen(r.constant(n))
		}
	}
	if n == nil || !r.isWindowSpec(n) {
		return "", fmt.Sprintf(".over(%s): Thund reads a window written as Window.partitionBy(...).orderBy(...)", clip(r.srcOf(n)))
	}
	var calls []*sitter.Node
	for cur := n; ; {
		fn, _, _, _, ok := r.call(cur)
		if !ok {
			break
		}
		calls = append([]*sitter.Node{cur}, calls...)
		cur = unparen(unparen(fn).ChildByFieldName("object"))
	}
	var partition, order []string
	frame := ""
	for _, c := range calls {
		fn, args, kw, _, _ := r.call(c)
		method := r.srcOf(unparen(fn).ChildByFieldName("attribute"))
		if len(kw) > 0 {
			return "", fmt.Sprintf("Window.%s with keyword arguments", method)
		}
		switch method {
		case "partitionBy":
			for _, a := range spread(args) {
				x, w := r.colExpr(a, true)
				if w != "" {
					return "", w
				}
				partition = append(partition, x.sql)
			}
		case "orderBy":
			for _, a := range spread(args) {
				item, explicit, w := r.sortItem(a)
				if w != "" {
					return "", w
				}
				if !explicit {
					item += " ASC NULLS FIRST"
				}
				order = append(order, item)
			}
		case "rowsBetween", "rangeBetween":
			if len(args) != 2 {
				return "", fmt.Sprintf("Window.%s takes a start and an end", method)
			}
			lo, w := r.frameBound(args[0])
			if w != "" {
				return "", w
			}
			hi, w := r.frameBound(args[1])
			if w != "" {
				return "", w
			}
			frame = map[string]string{"rowsBetween": "ROWS", "rangeBetween": "RANGE"}[method] + " BETWEEN " + lo + " AND " + hi
		default:
			return "", fmt.Sprintf("it calls Window.%s, which Thund does not map to SQL", method)
		}
	}
	var parts []string
	if len(partition) > 0 {
		parts = append(parts, "PARTITION BY "+strings.Join(partition, ", "))
	}
	if len(order) > 0 {
		parts = append(parts, "ORDER BY "+strings.Join(order, ", "))
	}
	if frame != "" {
		parts = append(parts, frame)
	}
	return strings.Join(parts, " "), ""
}

// frameBound maps a frame boundary: Window.unboundedPreceding,
// Window.unboundedFollowing, Window.currentRow, or an integer (negative:
// PRECEDING, positive: FOLLOWING, 0: CURRENT ROW).
func (r *reader) frameBound(n *sitter.Node) (string, string) {
	n = unparen(n)
	if n.Kind() == "attribute" {
		if obj := unparen(n.ChildByFieldName("object")); obj != nil && obj.Kind() == "identifier" && r.isWindowClass(obj) {
			switch r.srcOf(n.ChildByFieldName("attribute")) {
			case "unboundedPreceding":
				return "UNBOUNDED PRECEDING", ""
			case "unboundedFollowing":
				return "UNBOUNDED FOLLOWING", ""
			case "currentRow":
				return "CURRENT ROW", ""
			}
		}
	}
	v, ok := r.integer(n)
	if !ok {
		return "", fmt.Sprintf("a window frame bound Thund does not read (%s)", clip(r.srcOf(n)))
	}
	switch {
	case v == 0:
		return "CURRENT ROW", ""
	case v < 0:
		return fmt.Sprintf("%d PRECEDING", -v), ""
	}
	return fmt.Sprintf("%d FOLLOWING", v), ""
}
