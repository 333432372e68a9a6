package pylib

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file maps spark.createDataFrame of rows written in the file (a
// list of tuples or lists of literals) with a DDL schema string or a list
// of column names: a VALUES table whose columns have the types pyspark
// gives them. Only the values each type takes as they are (and an int
// for a DOUBLE or FLOAT, which Spark Connect converts exactly) are read;
// a schema or a value Thund does not read leaves the body opaque.

// maxRows bounds the rows of a createDataFrame Thund states in SQL.
const maxRows = 10000

// pyKinds are the Python literal kinds each Spark type takes as it is
// in createDataFrame, and intRanges the integer types' ranges (a value
// past them fails on Spark Connect: checked with pyspark 4.1.4).
var pyKinds = map[string]string{
	"STRING": "str", "BIGINT": "int", "LONG": "int", "INT": "int", "INTEGER": "int", "SMALLINT": "int", "SHORT": "int",
	"TINYINT": "int", "BYTE": "int", "DOUBLE": "float", "FLOAT": "float", "REAL": "float", "BOOLEAN": "bool",
}

var intRanges = map[string][2]int64{
	"INT": {-1 << 31, 1<<31 - 1}, "INTEGER": {-1 << 31, 1<<31 - 1}, "SMALLINT": {-1 << 15, 1<<15 - 1}, "SHORT": {-1 << 15, 1<<15 - 1},
	"TINYINT": {-128, 127}, "BYTE": {-128, 127},
}

// createDataFrame maps spark.createDataFrame(rows, schema).
func (r *reader) createDataFrame(args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	data, schema := arg(args, kw, 0, "data"), arg(args, kw, 1, "schema")
	if data == nil || schema == nil || len(args) > 2 || len(kw) > 2 {
		return frame{}, "spark.createDataFrame without a schema (a DDL string or a list of column names) is not read"
	}
	rows := unparen(r.constant(data))
	if rows == nil || rows.Kind() != "list" && rows.Kind() != "tuple" {
		return frame{}, "spark.createDataFrame is given rows computed at run time"
	}
	var names, types []string
	inferred := false
	if lit, ok := r.literal(schema); ok {
		fields, ok := ddlFields(lit.Value)
		if !ok {
			return frame{}, fmt.Sprintf("spark.createDataFrame's schema %q is not one Thund reads (name TYPE, ... of scalar types)", lit.Value)
		}
		for _, f := range fields {
			names, types = append(names, f[0]), append(types, f[1])
		}
	} else if l := unparen(r.constant(schema)); l != nil && (l.Kind() == "list" || l.Kind() == "tuple") {
		for _, c := range children(l) {
			v, ok := r.literal(c)
			if !ok {
				return frame{}, "spark.createDataFrame is given a column name computed at run time"
			}
			names = append(names, v.Value)
		}
		types, inferred = make([]string, len(names)), true
	} else {
		return frame{}, "spark.createDataFrame's schema is not a DDL string or a list of column names (a StructType is not read)"
	}
	items := children(rows)
	if len(items) == 0 || len(items) > maxRows {
		return frame{}, fmt.Sprintf("spark.createDataFrame with %d rows (Thund reads 1 to %d)", len(items), maxRows)
	}
	var values [][]string
	for _, it := range items {
		it = unparen(it)
		if it.Kind() != "tuple" && it.Kind() != "list" || len(children(it)) != len(names) {
			return frame{}, fmt.Sprintf("spark.createDataFrame: the row %s is not a tuple of %d values", clip(r.srcOf(it)), len(names))
		}
		var row []string
		for i, v := range children(it) {
			sql, kind, ok := r.rowValue(v)
			if !ok {
				return frame{}, fmt.Sprintf("spark.createDataFrame: %s is not a literal Thund reads (a number, a string, True, False, None)", clip(r.srcOf(v)))
			}
			if kind != "none" {
				if inferred && types[i] == "" {
					types[i] = map[string]string{"str": "STRING", "int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN"}[kind]
				}
				if w := fits(kind, sql, types[i], names[i]); w != "" {
					return frame{}, w
				}
			}
			row = append(row, sql)
		}
		values = append(values, row)
	}
	for i, t := range types {
		if t == "" {
			return frame{}, fmt.Sprintf("spark.createDataFrame: column %s is None in every row, so Spark cannot infer its type (CANNOT_DETERMINE_TYPE)", names[i])
		}
	}
	var sel, tuples []string
	for i, n := range names {
		sel = append(sel, fmt.Sprintf("CAST(col%d AS %s) AS %s", i+1, types[i], quoteName(n)))
	}
	for _, row := range values {
		tuples = append(tuples, "("+strings.Join(row, ", ")+")")
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM VALUES " + strings.Join(tuples, ", ")
	canon := make([]string, len(types))
	for i, t := range types {
		canon[i] = canonicalType(t)
	}
	return frame{query: q, cols: names, types: canon}, ""
}

// rowValue is a row's literal in SQL and its Python kind (str, int,
// float, bool, none).
func (r *reader) rowValue(n *sitter.Node) (sql, kind string, ok bool) {
	c := unparen(r.constant(n))
	if c == nil {
		return "", "", false
	}
	if _, isInt := r.integer(c); isInt {
		s, _, _ := r.sqlValue(c)
		return s, "int", true
	}
	if v, isText := r.literal(c); isText {
		return sqlString(v.Value), "str", true
	}
	switch c.Kind() {
	case "true", "false":
		s, _, _ := r.sqlValue(c)
		return s, "bool", true
	case "none":
		return "NULL", "none", true
	case "float", "unary_operator":
		if s, _, ok := r.sqlValue(c); ok {
			return s, "float", true
		}
	}
	return "", "", false
}

// fits says why Thund does not read a value of kind for a field of
// type typ, or "".
func fits(kind, sql, typ, name string) string {
	want := pyKinds[strings.ToUpper(typ)]
	if want == "" {
		return fmt.Sprintf("spark.createDataFrame: column %s is %s, whose values Thund does not read from Python literals", name, typ)
	}
	if kind == "int" && want == "float" {
		// Spark Connect converts the int exactly (1 is 1.0: checked with
		// pyspark 4.1.4), as the cast does.
		return ""
	}
	if kind != want {
		return fmt.Sprintf("spark.createDataFrame: column %s is %s and a row gives it a Python %s, which Thund does not convert (pyspark's classic client refuses it, FIELD_DATA_TYPE_UNACCEPTABLE): write the value as the column's type", name, typ, kind)
	}
	if rg, ok := intRanges[strings.ToUpper(typ)]; ok {
		var v int64
		fmt.Sscan(sql, &v)
		if v < rg[0] || v > rg[1] {
			return fmt.Sprintf("spark.createDataFrame: column %s is %s and a row gives it %s, out of its range, which Spark fails on", name, typ, sql)
		}
	}
	return ""
}
