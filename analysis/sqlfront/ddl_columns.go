package sqlfront

import (
	"fmt"
	"regexp"
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
	st, errs := p.parseWhole()
	c, ok := st.(*ast.Create)
	if !ok || c == nil {
		return
	}
	more := "; the column list declares the dataset's columns, which are not checked until it reads"
	if expectWord.MatchString(p.st.Columns) {
		more = "; the column list holds expectations, which are not applied until it reads"
	}
	if p.listError(errs, more) {
		return
	}
	p.constraints(c)
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
		switch {
		case col.Identity:
			p.syntax(capab.SynIdentityColumn, col.Start, col.End)
		case col.Generated != nil:
			p.syntax(capab.SynGeneratedColumn, col.Start, col.End)
		}
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

// constraintOptions blanks, for Spark's grammar (parseWhole), the parts
// of the key constraints in the column list between tokens open and close
// that only Databricks' CONSTRAINT clause has: FOREIGN KEY before a
// column's REFERENCES, the options DEFERRABLE, NOT DEFERRABLE, INITIALLY
// DEFERRED | IMMEDIATE, ENABLE NOVALIDATE, MATCH FULL, ON UPDATE | DELETE
// NO ACTION, and TIMESERIES after a primary key column. The constraint
// itself is recorded by declaredColumns (capab.SynKeyConstraint), so
// every Spark backend refuses it whatever options it has.
func (p *stmtParser) constraintOptions(open, close int) {
	depth := 0
	inKey := false                // from a constraint's start to the element's end
	blank := func(from, to int) { // tokens from..to inclusive
		p.blankWhole(p.toks[from].start, p.toks[to].end)
	}
	for k := open + 1; k < close; k++ {
		switch {
		case p.punct(k, '('):
			depth++
			continue
		case p.punct(k, ')'):
			depth--
			continue
		case depth == 0 && p.punct(k, ','):
			inKey = false
			continue
		}
		if depth == 0 && (p.kw(k, "PRIMARY") && p.kw(k+1, "KEY") || p.kw(k, "FOREIGN") && p.kw(k+1, "KEY") ||
			p.kw(k, "REFERENCES") || p.kw(k, "UNIQUE")) {
			if p.kw(k, "FOREIGN") && p.kw(k+2, "REFERENCES") {
				// a column's [CONSTRAINT c] FOREIGN KEY REFERENCES t
				// (a table constraint's has its columns before
				// REFERENCES): Spark writes REFERENCES t
				blank(k, k+1)
			}
			inKey = true
			continue
		}
		if !inKey {
			continue
		}
		switch {
		case depth == 1 && p.kw(k, "TIMESERIES"):
			blank(k, k)
		case depth == 0 && p.kw(k, "DEFERRABLE"):
			blank(k, k)
		case depth == 0 && p.kw(k, "NOT") && p.kw(k+1, "DEFERRABLE"),
			depth == 0 && p.kw(k, "INITIALLY") && (p.kw(k+1, "DEFERRED") || p.kw(k+1, "IMMEDIATE")),
			depth == 0 && p.kw(k, "ENABLE") && p.kw(k+1, "NOVALIDATE"),
			depth == 0 && p.kw(k, "MATCH") && p.kw(k+1, "FULL"):
			blank(k, k+1)
			k++
		case depth == 0 && p.kw(k, "ON") && (p.kw(k+1, "UPDATE") || p.kw(k+1, "DELETE")) && p.kw(k+2, "NO") && p.kw(k+3, "ACTION"):
			blank(k, k+3)
			k += 3
		}
	}
}

// expectWord finds an expectation in a column list's text.
var expectWord = regexp.MustCompile(`(?i)\bEXPECT\b`)

// constraintRefusal reports whether e is Spark's refusal of a constraint
// on a pipeline dataset, which is the backends' to say (the constraint is
// recorded, capab.SynKeyConstraint and SynCheckConstraint).
func constraintRefusal(e *ast.SyntaxError) bool {
	return e.Class == "_LEGACY_ERROR_TEMP_0035" && strings.Contains(e.Message, "column constraints")
}

// listError reports Spark's syntax error in the statement's column list,
// if it has one, its message followed by more, once per statement: a
// list Spark's grammar stops in is otherwise cut where it stops, without
// a word. Spark's refusal of constraints is not such an error.
func (p *stmtParser) listError(errs []*ast.SyntaxError, more string) bool {
	if len(errs) == 0 || constraintRefusal(errs[0]) || p.st.Columns == "" {
		return false
	}
	from := p.st.NameLoc.End
	i := strings.Index(p.text[min(from, len(p.text)):], p.st.Columns)
	if i < 0 || errs[0].Start < from+i || errs[0].Start >= from+i+len(p.st.Columns) {
		return false
	}
	if p.whole != nil && !p.whole.reported {
		p.whole.reported = true
		p.sparkErr(errs[0], more)
	}
	return true
}

// constraints records the CHECK, PRIMARY KEY, FOREIGN KEY and UNIQUE
// constraints of c's column list (its own and its columns'), each at its
// first line: Databricks reads the key constraints (informational, not
// enforced), Spark refuses every constraint on a pipeline dataset.
func (p *stmtParser) constraints(c *ast.Create) {
	all := append([]*ast.Constraint(nil), c.Constraints...)
	for _, col := range c.Columns {
		if col != nil {
			all = append(all, col.Constraints...)
		}
	}
	for _, k := range all {
		if k == nil || k.Kind == "EXPECT" || k.End <= k.Start {
			continue
		}
		f := capab.SynKeyConstraint
		if k.Kind == "CHECK" {
			f = capab.SynCheckConstraint
		}
		start, end := p.constraintSpan(k.Start, k.End)
		p.syntax(f, start, lineEnd(p.text, start, end))
	}
}

// constraintSpan widens the range [start, end) of a constraint as Spark's
// grammar read it over the Databricks parts constraintOptions blanked: a
// column's FOREIGN KEY before it, the options after it.
func (p *stmtParser) constraintSpan(start, end int) (int, int) {
	k := 0
	for k < len(p.toks) && p.toks[k].start < start {
		k++
	}
	if k >= 2 && p.kw(k-2, "FOREIGN") && p.kw(k-1, "KEY") && p.kw(k, "REFERENCES") {
		start = p.toks[k-2].start
	}
	for k < len(p.toks) && p.toks[k].start < end {
		k++
	}
	for k < len(p.toks) {
		n := 0
		switch {
		case p.kw(k, "DEFERRABLE"):
			n = 1
		case p.kw(k, "NOT") && p.kw(k+1, "DEFERRABLE"), p.kw(k, "INITIALLY") && (p.kw(k+1, "DEFERRED") || p.kw(k+1, "IMMEDIATE")),
			p.kw(k, "ENABLE") && p.kw(k+1, "NOVALIDATE"), p.kw(k, "MATCH") && p.kw(k+1, "FULL"):
			n = 2
		case p.kw(k, "ON") && (p.kw(k+1, "UPDATE") || p.kw(k+1, "DELETE")) && p.kw(k+2, "NO") && p.kw(k+3, "ACTION"):
			n = 4
		case p.kw(k, "ENFORCED"), p.kw(k, "RELY"), p.kw(k, "NORELY"):
			n = 1
		case p.kw(k, "NOT") && p.kw(k+1, "ENFORCED"):
			n = 2
		}
		if n == 0 {
			break
		}
		end = p.toks[k+n-1].end
		k += n
	}
	return start, end
}
