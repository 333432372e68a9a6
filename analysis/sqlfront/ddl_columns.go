package sqlfront

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/ir"
)

// ColumnDecl is one column of a CREATE MATERIALIZED VIEW or CREATE
// STREAMING TABLE column list: the dataset's declared schema, which
// Spark merges with its query's (see SchemaErrors).
type ColumnDecl struct {
	Name    string
	NameLoc Span
	// Type is the column's type as Spark writes it in a schema's
	// simpleString ("int", "bigint", "decimal(10,2)", "array<string>",
	// "struct<a:int>"), "" for a type Thund does not compare (CHAR,
	// VARCHAR, intervals, an unknown name). TypeText is the type as
	// written, TypeLoc its range.
	Type, TypeText string
	TypeLoc        Span
	NotNull        bool
	// Generated: GENERATED ALWAYS AS (expr) or AS IDENTITY (Identity).
	Generated, Identity bool
	Comment             string
	// Span is the whole definition.
	Span
}

// declaredColumns reads the column definitions of the statement's
// column list with Spark's grammar. A list Spark's grammar does not read
// gives none (the statement's syntax error says why).
func (p *stmtParser) declaredColumns() {
	st, _ := p.parseWhole()
	c, ok := st.(*ast.Create)
	if !ok || c == nil {
		return
	}
	for _, col := range c.Columns {
		if col == nil || col.Name == nil || col.Type == nil {
			continue
		}
		d := ColumnDecl{
			Name:     col.Name.Name,
			NameLoc:  Span{col.Name.Start, col.Name.End},
			Type:     sparkTypeName(col.Type),
			TypeText: p.text[col.Type.Start:col.Type.End],
			TypeLoc:  Span{col.Type.Start, col.Type.End},
			NotNull:  col.NotNull,
			Span:     Span{col.Start, col.End},
		}
		d.Generated, d.Identity = col.Generated != nil || col.Identity, col.Identity
		if col.Comment != nil {
			d.Comment = col.Comment.Value
		}
		p.st.Declared = append(p.st.Declared, d)
	}
}

// sparkTypeName writes a data type as Spark's simpleString does: the
// aliases Spark's parser maps to one type (INTEGER, LONG, DEC, ...)
// become that type's name, DECIMAL without parameters is decimal(10,0).
// It returns "" for a type it does not know, or one whose stored form is
// not a plain type name (CHAR, VARCHAR, intervals, TIME).
func sparkTypeName(t *ast.DataType) string {
	if t == nil {
		return ""
	}
	switch strings.ToUpper(t.Name) {
	case "BOOLEAN":
		return "boolean"
	case "TINYINT", "BYTE":
		return "tinyint"
	case "SMALLINT", "SHORT":
		return "smallint"
	case "INT", "INTEGER":
		return "int"
	case "BIGINT", "LONG":
		return "bigint"
	case "FLOAT", "REAL":
		return "float"
	case "DOUBLE":
		return "double"
	case "STRING":
		if t.Qualifier != "" { // STRING COLLATE x
			return ""
		}
		return "string"
	case "BINARY":
		return "binary"
	case "DATE":
		return "date"
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		if t.Qualifier != "" {
			return ""
		}
		return "timestamp"
	case "TIMESTAMP_NTZ":
		return "timestamp_ntz"
	case "VOID":
		return "void"
	case "DECIMAL", "DEC", "NUMERIC":
		switch len(t.Params) {
		case 0:
			return "decimal(10,0)"
		case 1:
			return fmt.Sprintf("decimal(%d,0)", t.Params[0])
		case 2:
			return fmt.Sprintf("decimal(%d,%d)", t.Params[0], t.Params[1])
		}
		return ""
	case "ARRAY":
		if e := sparkTypeName(t.Elem); e != "" {
			return "array<" + e + ">"
		}
	case "MAP":
		k, v := sparkTypeName(t.Key), sparkTypeName(t.Value)
		if k != "" && v != "" {
			return "map<" + k + "," + v + ">"
		}
	case "STRUCT":
		parts := make([]string, 0, len(t.Fields))
		for _, f := range t.Fields {
			if f == nil || f.Name == nil {
				return ""
			}
			ft := sparkTypeName(f.Type)
			if ft == "" {
				return ""
			}
			parts = append(parts, f.Name.Name+":"+ft)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return ""
}

// DeclaredColumns returns a statement's declared columns as the IR keeps
// them, with locations in file.
func DeclaredColumns(file string, cols []ColumnDecl) []ir.DeclaredColumn {
	if len(cols) == 0 {
		return nil
	}
	out := make([]ir.DeclaredColumn, len(cols))
	for i, c := range cols {
		out[i] = ir.DeclaredColumn{Name: c.Name, Type: c.Type, TypeText: c.TypeText, NotNull: c.NotNull, Generated: c.Generated, Identity: c.Identity, Comment: c.Comment,
			Loc: c.Span.Loc(file), NameLoc: c.NameLoc.Loc(file), TypeLoc: c.TypeLoc.Loc(file)}
	}
	return out
}

// qualifiedTempView records the qualifier of a temporary view's name,
// written at sp: SESSION.v, which Spark 4.2 and later read, or any other,
// which no Spark version takes (capab.SynTempViewSession and
// SynTempViewQualified).
func (p *stmtParser) qualifiedTempView(sp Span) {
	name := p.st.Name
	dot := strings.LastIndexByte(name, '.')
	feature := capab.SynTempViewQualified
	if strings.EqualFold(name[:dot], "session") || strings.EqualFold(name[:dot], "system.session") {
		// SESSION.v is the temporary view v (Spark 4.2 and later).
		feature = capab.SynTempViewSession
		p.st.Name = name[dot+1:]
	}
	p.syntax(feature, sp.Start, sp.End)
}

// pathFormats are the data source formats Spark reads a path with as a
// relation, format.`path` (SQL on files; delta where Delta Lake is
// loaded, as on Databricks).
var pathFormats = map[string]bool{"PARQUET": true, "JSON": true, "CSV": true, "ORC": true, "TEXT": true, "AVRO": true, "DELTA": true}

// pathRead reads a format.`path` relation at token k (w its upper-case
// word): the format, a dot, and a backquoted name holding a '/'.
func pathRead(text string, toks []token, k int, w string, punct func(int, byte) bool, relation func(int) bool) (FileRead, bool) {
	if !pathFormats[w] || !punct(k+1, '.') || k+2 >= len(toks) || !relation(k) {
		return FileRead{}, false
	}
	t := toks[k+2]
	if t.kind != tkQuoted || t.open || text[t.start] != '`' {
		return FileRead{}, false
	}
	path := unquoteIdent(text[t.start:t.end])
	if !strings.ContainsAny(path, "/\\") {
		return FileRead{}, false
	}
	f := strings.ToLower(w)
	return FileRead{Call: Span{toks[k].start, t.end}, Func: text[toks[k].start:toks[k].end], Path: path, Format: f, Name: FileSourceName(path)}, true
}
