package sqlfront

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// A declared column list is the dataset's schema. Spark's pipeline graph
// merges it with the schema of the dataset's query (StructType.merge,
// the declared schema first) and refuses the dataset when the merge
// fails or differs from what was declared
// (USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE, checked with Spark
// 4.1.4's spark-pipelines run, docs/format.md §2b): a query column the
// list does not declare, a type that is not the declared one (Spark does
// not cast: INT is not BIGINT), and a nullable value for a NOT NULL
// column all fail; a DECIMAL of the declared scale and a smaller
// precision widens to the declared one, and the query's column order
// does not matter (the table takes the declared order).

// schemaClass is Spark's error class for a query that does not fit its
// dataset's declared columns.
const schemaClass = "USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE"

// SchemaErrors compares dataset d's declared columns with out, the
// output columns of its own query q (complete, in order; nil when not
// known), and reports, at the query's column when it can be found and
// else at the query, each difference Spark refuses. Only certain
// differences are reported: a type is compared when both sides' are
// known (out's, or a literal's or CAST's in q's select list).
func SchemaErrors(d *ir.Dataset, q *ast.Query, queryLoc ir.Loc, out []sema.Column) []ir.Diagnostic {
	if d == nil || len(d.Declared) == 0 || out == nil {
		return nil
	}
	items := outputItems(q, len(out))
	declared := make(map[string]int, len(d.Declared))
	for i, c := range d.Declared {
		declared[strings.ToLower(c.Name)] = i
	}
	var diags []ir.Diagnostic
	at := func(i int) ir.Loc {
		if items != nil {
			r := items[i].Range
			return ir.Loc{File: queryLoc.File, Start: r.Start, End: r.End}
		}
		return queryLoc
	}
	list := declaredList(d)
	for i, c := range out {
		k, ok := declared[strings.ToLower(c.Name)]
		if !ok {
			diags = append(diags, ir.Diagnostic{
				Loc: at(i), Severity: ir.Error, Code: ir.CodeDeclaredSchema,
				Message: fmt.Sprintf("the query of %s gives the column %s, which its column list (%s) does not declare, so Spark refuses the dataset (%s): declare %s in the list, or leave it out of the query",
					d.Name, c.Name, list, sparkSays(d), c.Name),
				Related: []ir.Related{{Loc: d.Declared[0].Loc, Message: "the declared columns start here"}},
			})
			continue
		}
		dc := d.Declared[k]
		typ := c.Type
		var x ast.Expr
		if items != nil {
			x = items[i].X
		}
		if typ == "" && x != nil {
			typ = exprType(x)
		}
		if dc.Type != "" && typ != "" && typ != "void" && !fitsDeclared(typ, dc.Type) {
			fix := fmt.Sprintf("cast it in the query, CAST(... AS %s) AS %s", strings.ToUpper(dc.Type), dc.Name)
			if isScalarType(typ) {
				fix += fmt.Sprintf(", or declare %s %s", dc.Name, strings.ToUpper(typ))
			}
			diags = append(diags, ir.Diagnostic{
				Loc: at(i), Severity: ir.Error, Code: ir.CodeDeclaredSchema,
				Message: fmt.Sprintf("the query of %s gives %s as %s but its column list declares %s %s, and Spark does not cast a query to its declared schema (%s): %s",
					d.Name, c.Name, strings.ToUpper(typ), dc.Name, dc.TypeText, sparkSays(d), fix),
				Related: []ir.Related{{Loc: dc.TypeLoc, Message: "the declared type"}},
			})
			continue
		}
		if dc.NotNull && x != nil && certainlyNullable(x) {
			diags = append(diags, ir.Diagnostic{
				Loc: at(i), Severity: ir.Error, Code: ir.CodeDeclaredSchema,
				Message: fmt.Sprintf("the query of %s gives %s a value that may be NULL but its column list declares %s NOT NULL, so Spark refuses the dataset (%s): compute a value that is never NULL (coalesce(..., default)), or drop NOT NULL",
					d.Name, c.Name, dc.Name, sparkSays(d)),
				Related: []ir.Related{{Loc: dc.Loc, Message: "the NOT NULL column"}},
			})
		}
	}
	if d.Kind == ir.MaterializedView {
		diags = append(diags, missingDeclared(d, out, queryLoc)...)
	}
	return diags
}

// missingDeclared reports each declared column of materialized view d
// that its query's output out does not give. Spark's graph accepts the
// merged schema, but writing the view's rows then fails (checked with
// Spark 4.1.4 and 4.3.0's spark-pipelines run): the view is written as
// a batch into the table of the declared columns, and Spark's batch write
// wants every column. A streaming table takes NULL for such a column
// instead (engine's fitDeclared), so only materialized views are checked.
func missingDeclared(d *ir.Dataset, out []sema.Column, queryLoc ir.Loc) []ir.Diagnostic {
	have := make(map[string]bool, len(out))
	for _, c := range out {
		have[strings.ToLower(c.Name)] = true
	}
	var diags []ir.Diagnostic
	for _, c := range d.Declared {
		if have[strings.ToLower(c.Name)] || c.Generated {
			// A generated or identity column is the table's to compute.
			continue
		}
		typ := strings.ToUpper(c.TypeText)
		if typ == "" {
			typ = "STRING"
		}
		diags = append(diags, ir.Diagnostic{
			Loc: c.NameLoc, Severity: ir.Error, Code: ir.CodeDeclaredSchema,
			Message: fmt.Sprintf("the column list of %s declares %s, which its query does not give, so Spark's run fails writing the view (the column number of the existing table %s (%s) doesn't match the data schema): give it in the query (CAST(NULL AS %s) AS %s), or leave it out of the list",
				d.Name, c.Name, d.Name, declaredStruct(d), typ, c.Name),
			Related: []ir.Related{{Loc: queryLoc, Message: "the query"}},
		})
	}
	return diags
}

// declaredStruct writes d's declared schema as Spark prints a struct
// type: struct<id:bigint,name:string>.
func declaredStruct(d *ir.Dataset) string {
	parts := make([]string, len(d.Declared))
	for i, c := range d.Declared {
		t := c.Type
		if t == "" {
			t = strings.ToLower(c.TypeText)
		}
		parts[i] = c.Name + ":" + t
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

// sparkSays is Spark's error for d's schema, class and message (Spark
// 4.1.4's error-conditions.json).
func sparkSays(d *ir.Dataset) string {
	return fmt.Sprintf("%s: table '%s' has a user-specified schema that is incompatible with the schema inferred from its query", schemaClass, d.Name)
}

// declaredList writes d's declared column names for a message.
func declaredList(d *ir.Dataset) string {
	names := make([]string, len(d.Declared))
	for i, c := range d.Declared {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// outputItems returns the select items of q's main SELECT when each
// gives exactly one of its n output columns, in order (no star, no
// multi-name alias), else nil.
func outputItems(q *ast.Query, n int) []*ast.SelectItem {
	if q == nil {
		return nil
	}
	s, ok := q.Body.(*ast.Select)
	if !ok || s == nil || len(s.Items) != n || s.Transform != nil {
		return nil
	}
	for _, it := range s.Items {
		if it == nil || it.X == nil || len(it.Aliases) > 0 {
			return nil
		}
		if _, star := it.X.(*ast.Star); star {
			return nil
		}
	}
	return s.Items
}

// exprType is the Spark type of x when it is certain from x alone (a
// literal, a CAST, a typed literal), else "".
func exprType(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Paren:
		return exprType(x.X)
	case *ast.Cast:
		return sparkTypeName(x.Type)
	case *ast.TypedLiteral:
		switch strings.ToUpper(x.Type) {
		case "DATE":
			return "date"
		case "TIMESTAMP", "TIMESTAMP_LTZ":
			return "timestamp"
		case "TIMESTAMP_NTZ":
			return "timestamp_ntz"
		case "X":
			return "binary"
		}
	case *ast.Literal:
		return literalType(x)
	}
	return ""
}

// literalType is the Spark type of a literal (Spark 4.1's default, ANSI
// or not, which type literals alike).
func literalType(l *ast.Literal) string {
	switch l.Kind {
	case ast.LitNull:
		return "void"
	case ast.LitTrue, ast.LitFalse:
		return "boolean"
	case ast.LitString:
		return "string"
	case ast.LitInteger:
		// An integer literal beyond INT's range is a BIGINT, beyond
		// BIGINT's a DECIMAL.
		if _, err := strconv.ParseInt(l.Text, 10, 32); err == nil {
			return "int"
		}
		if _, err := strconv.ParseInt(l.Text, 10, 64); err == nil {
			return "bigint"
		}
		return ""
	case ast.LitBigInt:
		return "bigint"
	case ast.LitSmallInt:
		return "smallint"
	case ast.LitTinyInt:
		return "tinyint"
	case ast.LitDouble, ast.LitExponent:
		return "double"
	case ast.LitFloat:
		return "float"
	case ast.LitDecimal:
		// 1.50 is DECIMAL(3,2): its digits are the precision, those
		// after the point the scale.
		t := strings.TrimLeft(l.Text, "+-")
		dot := strings.IndexByte(t, '.')
		if dot < 0 || strings.ContainsAny(t, "eE") {
			return ""
		}
		intPart := strings.TrimLeft(t[:dot], "0")
		scale := len(t) - dot - 1
		prec := len(intPart) + scale
		if prec < scale || prec == 0 {
			prec = max(scale, 1)
		}
		if prec > 38 {
			return ""
		}
		return fmt.Sprintf("decimal(%d,%d)", prec, scale)
	}
	return ""
}

// certainlyNullable reports whether x is a value Spark types as nullable
// without looking at its inputs: NULL, or a CAST of NULL.
func certainlyNullable(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Paren:
		return certainlyNullable(x.X)
	case *ast.Cast:
		return certainlyNullable(x.X)
	case *ast.Literal:
		return x.Kind == ast.LitNull
	}
	return false
}

// fitsDeclared reports whether a query column of Spark type got merges
// into a declared column of type want without changing it: the same
// type, or a DECIMAL of the same scale and no larger precision.
func fitsDeclared(got, want string) bool {
	if got == want {
		return true
	}
	gp, gs, ok1 := decimalParams(got)
	wp, ws, ok2 := decimalParams(want)
	return ok1 && ok2 && gs == ws && gp <= wp
}

// decimalParams reads "decimal(p,s)".
func decimalParams(t string) (p, s int, ok bool) {
	if !strings.HasPrefix(t, "decimal(") || !strings.HasSuffix(t, ")") {
		return 0, 0, false
	}
	ps := strings.Split(t[len("decimal("):len(t)-1], ",")
	if len(ps) != 2 {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(ps[0])
	s, err2 := strconv.Atoi(ps[1])
	return p, s, err1 == nil && err2 == nil
}

// isScalarType reports whether t is a type without nested types.
func isScalarType(t string) bool {
	return !strings.ContainsAny(t, "<")
}

// DeclaredOutput is the schema readers of a dataset with declared
// columns see: the declared columns, in their order, with their types
// where Thund knows them (else the query's).
func DeclaredOutput(d *ir.Dataset, out []sema.Column) []sema.Column {
	if d == nil || len(d.Declared) == 0 {
		return out
	}
	types := make(map[string]string, len(out))
	for _, c := range out {
		types[strings.ToLower(c.Name)] = c.Type
	}
	cols := make([]sema.Column, len(d.Declared))
	for i, c := range d.Declared {
		t := c.Type
		if t == "" {
			t = types[strings.ToLower(c.Name)]
		}
		cols[i] = sema.Column{Name: c.Name, Type: t}
	}
	return cols
}

// declaredCase records, for a statement with a declared column list and
// its own query, each query column whose name is a declared column's in
// another case (ID declared, id queried): Spark 4.1's pipeline graph
// merges the two schemas case-sensitively and refuses the dataset
// (USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE, the inferred
// schema holding both ID and id), Spark 4.3 matches the names
// case-insensitively and keeps the declared spelling (both checked with
// spark-pipelines run); capab's matrix says which backend refuses it.
// Only names certain from the select list are compared: an alias, or a
// column reference's last part.
func (p *stmtParser) declaredCase() {
	if len(p.st.Declared) == 0 || p.st.Query == nil || p.st.Query.Spark == nil {
		return
	}
	s, ok := p.st.Query.Spark.Body.(*ast.Select)
	if !ok || s == nil {
		return
	}
	for _, it := range s.Items {
		name := selectName(it)
		if name == "" {
			continue
		}
		for _, c := range p.st.Declared {
			if c.Name != name && strings.EqualFold(c.Name, name) {
				p.syntax(capab.SynDeclaredCase, it.Start, it.End)
				break
			}
		}
	}
}

// selectName is the output name of a select item when the item alone
// says it (an alias, or a column reference's last part), else "".
func selectName(it *ast.SelectItem) string {
	if it == nil || len(it.Aliases) > 0 {
		return ""
	}
	if it.Alias != nil {
		return it.Alias.Name
	}
	if c, ok := it.X.(*ast.Column); ok && len(c.Parts) > 0 && c.Parts[len(c.Parts)-1] != nil {
		return c.Parts[len(c.Parts)-1].Name
	}
	return ""
}

// LayoutErrors reports each PARTITIONED BY and CLUSTER BY column of
// dataset d that out, the dataset's output columns (complete; nil when
// not known), does not hold. Spark creates the table with the query's
// columns and fails the flow at that point: "[COLUMN_NOT_DEFINED_IN_TABLE]
// partition column `x` is not defined in table ..." (Spark 4.1.4's
// spark-pipelines run; its registration refuses CLUSTER BY altogether,
// "Invalid partitioning transform (cluster_by(x))", so a clustering
// column is reported for what it is, a column the table lacks). Names
// compare case-insensitively, as Spark's default resolution does; a
// nested name (a.b), a transform (years(ts), an empty range) and a name
// without a range (a pragma's) are not checked.
func LayoutErrors(d *ir.Dataset, out []sema.Column) []ir.Diagnostic {
	if d == nil || out == nil {
		return nil
	}
	have := make(map[string]bool, len(out))
	names := make([]string, 0, len(out))
	for _, c := range out {
		have[strings.ToLower(c.Name)] = true
		names = append(names, c.Name)
	}
	var diags []ir.Diagnostic
	check := func(what string, partition bool, cols []string, locs []ir.Loc) {
		for i, c := range cols {
			if i >= len(locs) || locs[i].Start == locs[i].End || strings.Contains(c, ".") || have[strings.ToLower(c)] {
				continue
			}
			fix := "name a column the query gives, or add " + c + " to its select list"
			var sugg []string
			if near := sema.Nearest(c, names); near != "" {
				fix = "did you mean " + near + "?"
				sugg = []string{near}
			}
			why := "so the table cannot be clustered by it"
			if partition {
				why = fmt.Sprintf("so Spark fails the flow when it creates the table ([COLUMN_NOT_DEFINED_IN_TABLE] partition column `%s` is not defined in table)", c)
			}
			diags = append(diags, ir.Diagnostic{
				Loc: locs[i], Severity: ir.Error, Code: ir.CodeUnknownColumn,
				Message: fmt.Sprintf("%s %s names the column %s, which %s does not have (its columns: %s), %s: %s",
					what, d.Name, c, d.Name, columnNames(names), why, fix),
				Suggestions: sugg,
			})
		}
	}
	check("PARTITIONED BY of", true, d.PartitionBy, d.PartitionLocs)
	check("CLUSTER BY of", false, d.ClusterBy, d.ClusterLocs)
	return diags
}

// columnNames lists names for a message, the first eight of them.
func columnNames(names []string) string {
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return strings.Join(names, ", ")
}
