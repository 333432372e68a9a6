package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// stackRows translates stack(n, e1, ..., ek) as a FROM item: n rows of
// ceil(k/n) columns (col0, col1, ... unless the alias names them), the
// values in row order, NULL where the values run out. Spark wants n a
// constant INT and the values of one column of one type (NULL aside);
// the rows are a UNION ALL of SELECTs, which may read the columns of the
// FROM items before a LATERAL stack.
func (t *tr) stackRows(tf *ast.TableFunc, alias string) frag {
	c := tf.Call
	if len(c.Args) < 2 {
		t.typeError(c, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `stack` requires > 1 parameters but the actual number is %d. Please, refer to '%s/sql-ref-functions.html' for a fix. SQLSTATE: 42605", len(c.Args), "https://spark.apache.org/docs/latest")
		return at(tf, nil, cat("(SELECT NULL)"))
	}
	n, ok := stackCount(c.Args[0])
	if !ok {
		t.refuse(c.Args[0], "stack runs natively with a positive integer literal as its number of rows only")
		return at(tf, nil, cat("(SELECT NULL)"))
	}
	vals := c.Args[1:]
	width := (len(vals) + n - 1) / n
	cols := make([]string, width)
	for i := range cols {
		cols[i] = "col" + strconv.Itoa(i)
	}
	if tf.Alias != nil && len(tf.Alias.Columns) > 0 {
		if len(tf.Alias.Columns) != width {
			t.typeError(tf, "NUM_TABLE_VALUE_ALIASES_MISMATCH", "Number of given aliases does not match number of output columns. Function name: `stack`; number of aliases: %d; number of output columns: %d. SQLSTATE: 42826", len(tf.Alias.Columns), width)
			return at(tf, nil, cat("(SELECT NULL)"))
		}
		for i, id := range tf.Alias.Columns {
			cols[i] = id.Name
		}
	}
	fs := make([]frag, len(vals))
	types := make([]*Type, width)
	for i, v := range vals {
		if hasGenerator(v) {
			t.typeError(c, "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS", "The generator is not supported: nested in expressions \"%s\". SQLSTATE: 42K0E", t.text(c))
			return at(tf, nil, cat("(SELECT NULL)"))
		}
		fs[i] = t.expr(v)
		j := i % width
		ty := fs[i].typ
		switch {
		case !ty.known():
			t.refuse(v, "the type of this value of stack is not known here, and Spark wants the values of a column of one type")
			return at(tf, nil, cat("(SELECT NULL)"))
		case ty.is(Null):
		case types[j] == nil || types[j].is(Null):
			types[j] = ty
		case types[j].String() != ty.String():
			t.typeError(c, "DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: The data type of the column (%d) do not have the same type: \"%s\" <> \"%s\". SQLSTATE: 42K09",
				t.text(c), j, strings.ToUpper(types[j].String()), strings.ToUpper(ty.String()))
			return at(tf, nil, cat("(SELECT NULL)"))
		}
		if types[j] == nil {
			types[j] = ty
		}
	}
	for j, ty := range types {
		if ty == nil || ty.has(Null) {
			t.refuse(c, "a column of stack holding NULL alone has Spark's type VOID, which the native engine cannot give; give its values a type: CAST(NULL AS INT)")
			return at(tf, nil, cat("(SELECT NULL)"))
		}
		if ty.has(IntervalKind) {
			t.refuse(vals[j], "an interval value of stack does not run natively")
			return at(tf, nil, cat("(SELECT NULL)"))
		}
	}
	rows := make([]frag, n)
	for r := 0; r < n; r++ {
		items := make([]frag, width)
		for j := 0; j < width; j++ {
			v := cat("NULL")
			if k := r*width + j; k < len(vals) {
				v = fs[k]
			}
			items[j] = cat("CAST(", v, " AS "+types[j].duck()+") AS ", quoteIdent(cols[j]))
		}
		rows[r] = cat("SELECT ", items)
	}
	t.relCols[tf] = types
	name := alias
	if tf.Alias != nil {
		name = " AS " + quoteIdent(tf.Alias.Name.Name)
	}
	return at(tf, nil, cat("(", join(rows, " UNION ALL "), ")", name))
}

// stackCount reads stack's number of rows: a positive INT literal.
func stackCount(x ast.Expr) (int, bool) {
	l, ok := unparenExpr(x).(*ast.Literal)
	if !ok || l.Kind != ast.LitInteger {
		return 0, false
	}
	n, err := strconv.Atoi(l.Text)
	if err != nil || n < 1 || n > 10000 {
		return 0, false
	}
	return n, true
}

// hasGenerator reports a generator call (explode, ...) in x.
func hasGenerator(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if c, ok := n.(*ast.Call); ok && generator(c) != "" {
			found = true
		}
		return !found
	})
	return found
}
