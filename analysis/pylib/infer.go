package pylib

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Spark's DataFrameReader infers a schema from the files it loads when it
// is given none. The native engine reads a load's sample with the schema
// Spark would infer from the same file (InferJSON, InferCSV), so a load
// computes the same columns, in the same order, with the same types, as
// on Spark. What is modelled (checked against Spark 4.1.4's answers on
// the files of infer_test.go):
//
//   - JSON (one record a line): fields sorted by name; integers BIGINT
//     (DECIMAL(p,0) beyond BIGINT, DOUBLE beyond 38 digits), other
//     numbers DOUBLE, true/false BOOLEAN, strings STRING (dates and
//     timestamps too: inferTimestamp is off by default), arrays and
//     objects ARRAY and STRUCT of the merged element types; a field that
//     is only ever null, or an empty array's element, STRING; a field
//     whose values disagree (a number and a string) STRING; an object
//     with no field is dropped; a line that is no JSON object adds
//     _corrupt_record. primitivesAsString reads every scalar as STRING.
//   - CSV: header (false unless set: the first line is a row, the
//     columns are _c0, _c1, ...), sep / delimiter, nullValue, and
//     inferSchema (false unless set: every column STRING; set: INT,
//     BIGINT, DECIMAL(p,0), DOUBLE, DATE (yyyy-MM-dd: preferDate is on),
//     TIMESTAMP, BOOLEAN or STRING, from the values that are not null). Header names that repeat are
//     suffixed with their position, an empty one is _c<position>.

// Field is one column of an inferred schema.
type Field struct {
	Name string
	Type *Type
}

// Type is a Spark data type as the inference gives it.
type Type struct {
	// Kind is null, boolean, int, bigint, decimal, double, timestamp,
	// string, array or struct.
	Kind string
	// Precision is a decimal's (its scale is 0 here).
	Precision int
	// Elem is an array's element type; Fields a struct's fields.
	Elem   *Type
	Fields []Field
}

// Spark is the type as Spark's DDL writes it (BIGINT, ARRAY<STRING>,
// STRUCT<a: BIGINT>).
func (t *Type) Spark() string {
	switch t.Kind {
	case "array":
		return "ARRAY<" + t.Elem.Spark() + ">"
	case "struct":
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = quoteDDL(f.Name) + ": " + f.Type.Spark()
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case "decimal":
		return fmt.Sprintf("DECIMAL(%d,0)", t.Precision)
	case "null":
		return "STRING"
	}
	return strings.ToUpper(t.Kind)
}

// DuckDB is the DuckDB type the native engine reads the column as.
func (t *Type) DuckDB() string {
	switch t.Kind {
	case "array":
		return t.Elem.DuckDB() + "[]"
	case "struct":
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `" ` + f.Type.DuckDB()
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case "decimal":
		return fmt.Sprintf("DECIMAL(%d,0)", t.Precision)
	case "int":
		return "INTEGER"
	case "string", "null":
		return "VARCHAR"
	}
	return strings.ToUpper(t.Kind)
}

func quoteDDL(name string) string {
	if plainIdent(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

var (
	tNull   = &Type{Kind: "null"}
	tString = &Type{Kind: "string"}
	tBool   = &Type{Kind: "boolean"}
	tInt    = &Type{Kind: "int"}
	tLong   = &Type{Kind: "bigint"}
	tDouble = &Type{Kind: "double"}
	tTS     = &Type{Kind: "timestamp"}
	tDate   = &Type{Kind: "date"}
)

// CorruptRecord is the column Spark adds for lines it cannot read (its
// default columnNameOfCorruptRecord).
const CorruptRecord = "_corrupt_record"

// ErrNotInferred marks options whose inference Thund does not model.
var ErrNotInferred = errors.New("not inferred natively")

// option returns a reader option by name, ignoring case.
func option(options map[string]string, names ...string) (string, bool) {
	for _, name := range names {
		for k, v := range options {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
	}
	return "", false
}

func optionTrue(options map[string]string, name string) bool {
	v, _ := option(options, name)
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

// InferJSON infers the schema Spark's JSON reader gives data (the text of
// one or more JSON Lines files) with options, as described above.
func InferJSON(data []byte, options map[string]string) ([]Field, error) {
	for _, o := range []string{"multiLine", "inferTimestamp", "prefersDecimal", "allowNumericLeadingZeros", "allowNonNumericNumbers"} {
		if optionTrue(options, o) {
			return nil, fmt.Errorf("%w: the JSON option %s", ErrNotInferred, o)
		}
	}
	prims := optionTrue(options, "primitivesAsString")
	var row *Type
	corrupt := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			corrupt = true
			continue
		}
		var recs []any
		switch x := v.(type) {
		case map[string]any:
			recs = []any{x}
		case []any:
			recs = x
		default:
			corrupt = true
			continue
		}
		for _, r := range recs {
			obj, ok := r.(map[string]any)
			if !ok {
				corrupt = true
				continue
			}
			row = merge(row, jsonType(obj, prims))
		}
	}
	var fields []Field
	if row != nil {
		row = canonical(row)
		if row != nil {
			fields = row.Fields
		}
	}
	if corrupt {
		fields = append(fields, Field{Name: CorruptRecord, Type: tString})
		sort.SliceStable(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	}
	seen := map[string]string{}
	for _, f := range fields {
		if other, ok := seen[strings.ToLower(f.Name)]; ok {
			// Spark's names are not case-sensitive: COLUMN_ALREADY_EXISTS.
			return nil, fmt.Errorf("the fields %s and %s differ only in case, and Spark refuses the load (COLUMN_ALREADY_EXISTS): rename one in the sample, or give the load its schema", other, f.Name)
		}
		seen[strings.ToLower(f.Name)] = f.Name
	}
	return fields, nil
}

// jsonType is the type Spark infers for one JSON value.
func jsonType(v any, prims bool) *Type {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		if prims {
			return tString
		}
		return tBool
	case string:
		return tString
	case json.Number:
		if prims {
			return tString
		}
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			return tDouble
		}
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return tLong
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return tDouble
		}
		if digits := len(strings.TrimPrefix(n.String(), "-")); digits <= 38 {
			return &Type{Kind: "decimal", Precision: digits}
		}
		return tDouble
	case []any:
		var elem *Type
		for _, e := range x {
			elem = merge(elem, jsonType(e, prims))
		}
		if elem == nil {
			elem = tNull
		}
		return &Type{Kind: "array", Elem: elem}
	case map[string]any:
		t := &Type{Kind: "struct"}
		for k, e := range x {
			t.Fields = append(t.Fields, Field{Name: k, Type: jsonType(e, prims)})
		}
		sort.Slice(t.Fields, func(i, j int) bool { return t.Fields[i].Name < t.Fields[j].Name })
		return t
	}
	return tString
}

// merge is Spark's JSON compatibleType of two inferred types.
func merge(a, b *Type) *Type {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.Kind == "null":
		return b
	case b.Kind == "null":
		return a
	case a.Kind == b.Kind && a.Kind == "struct":
		t := &Type{Kind: "struct"}
		i, j := 0, 0
		for i < len(a.Fields) || j < len(b.Fields) {
			switch {
			case j >= len(b.Fields) || i < len(a.Fields) && a.Fields[i].Name < b.Fields[j].Name:
				t.Fields = append(t.Fields, a.Fields[i])
				i++
			case i >= len(a.Fields) || b.Fields[j].Name < a.Fields[i].Name:
				t.Fields = append(t.Fields, b.Fields[j])
				j++
			default:
				t.Fields = append(t.Fields, Field{Name: a.Fields[i].Name, Type: merge(a.Fields[i].Type, b.Fields[j].Type)})
				i++
				j++
			}
		}
		return t
	case a.Kind == b.Kind && a.Kind == "array":
		return &Type{Kind: "array", Elem: merge(a.Elem, b.Elem)}
	case a.Kind == b.Kind && a.Kind == "decimal":
		return &Type{Kind: "decimal", Precision: max(a.Precision, b.Precision)}
	case a.Kind == b.Kind:
		return a
	}
	if t, ok := numeric(a, b); ok {
		return t
	}
	return tString
}

// numeric widens two numeric types as Spark does (an integer and a
// double are a double; an integer and a decimal a decimal wide enough),
// or says they are not both numeric.
func numeric(a, b *Type) (*Type, bool) {
	rank := map[string]int{"int": 1, "bigint": 2, "decimal": 3, "double": 4}
	ra, rb := rank[a.Kind], rank[b.Kind]
	if ra == 0 || rb == 0 {
		return nil, false
	}
	if ra < rb {
		a, b, ra, rb = b, a, rb, ra
	}
	if a.Kind == "decimal" {
		digits := map[string]int{"int": 10, "bigint": 20}[b.Kind]
		if p := max(a.Precision, digits); p <= 38 {
			return &Type{Kind: "decimal", Precision: p}, true
		}
		return tDouble, true
	}
	return a, true
}

// canonical is a type as Spark keeps it at the end of inference: null as
// STRING, an empty struct dropped (nil), inside arrays and structs too.
func canonical(t *Type) *Type {
	switch t.Kind {
	case "null":
		return tString
	case "array":
		e := canonical(t.Elem)
		if e == nil {
			return nil
		}
		return &Type{Kind: "array", Elem: e}
	case "struct":
		out := &Type{Kind: "struct"}
		for _, f := range t.Fields {
			if ft := canonical(f.Type); ft != nil {
				out.Fields = append(out.Fields, Field{Name: f.Name, Type: ft})
			}
		}
		if len(out.Fields) == 0 {
			return nil
		}
		return out
	}
	return t
}

// CSVOptions are the CSV reader options the native engine applies.
type CSVOptions struct {
	Header      bool
	Sep         string
	NullValue   string
	InferSchema bool
}

// CSVReading reads a load's CSV options as Spark does (header and
// inferSchema false, sep ",", nullValue ""), or says which option the
// native engine does not apply.
func CSVReading(options map[string]string) (CSVOptions, error) {
	o := CSVOptions{Header: optionTrue(options, "header"), Sep: ",", InferSchema: optionTrue(options, "inferSchema")}
	if v, ok := option(options, "sep", "delimiter"); ok {
		if v == `\t` {
			v = "\t"
		}
		if len([]rune(v)) != 1 || v == `"` || v == "\n" || v == "\r" {
			return o, fmt.Errorf("%w: the CSV separator %q (one character, not a quote, is read natively)", ErrNotInferred, v)
		}
		o.Sep = v
	}
	if v, ok := option(options, "nullValue"); ok {
		o.NullValue = v
	}
	for _, k := range []string{"quote", "escape", "comment", "multiLine", "lineSep", "encoding", "charset", "samplingRatio", "enforceSchema", "ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace", "emptyValue", "nanValue", "positiveInf", "negativeInf", "dateFormat", "timestampFormat", "timestampNTZFormat", "preferDate", "locale", "mode", "columnNameOfCorruptRecord", "unescapedQuoteHandling"} {
		if v, ok := option(options, k); ok {
			if k == "quote" && v == `"` || k == "escape" && v == `\` || k == "mode" && strings.EqualFold(v, "PERMISSIVE") ||
				k == "multiLine" && !strings.EqualFold(v, "true") || k == "dateFormat" && v == "yyyy-MM-dd" || k == "enforceSchema" && strings.EqualFold(v, "true") {
				continue
			}
			return o, fmt.Errorf("%w: the CSV option %s", ErrNotInferred, k)
		}
	}
	return o, nil
}

// CSVRows splits CSV text into its records with sep.
func CSVRows(data []byte, sep string) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = []rune(sep)[0]
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("read CSV: %w", err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		rows = append(rows, rec)
	}
}

// InferCSV infers the columns Spark's CSV reader gives data with o: their
// names (header or _c0, _c1...) and types (STRING, or inferred).
func InferCSV(data []byte, o CSVOptions) ([]Field, error) {
	rows, err := CSVRows(data, o.Sep)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	first := rows[0]
	fields := make([]Field, len(first))
	seen := map[string]int{}
	for i, h := range first {
		name := fmt.Sprintf("_c%d", i)
		if o.Header && h != "" {
			name = h
		}
		fields[i] = Field{Name: name, Type: tString}
		seen[strings.ToLower(name)]++
	}
	if o.Header {
		// Spark suffixes a repeated header name with its position.
		for i := range fields {
			if first[i] != "" && seen[strings.ToLower(first[i])] > 1 {
				fields[i].Name = fmt.Sprintf("%s%d", first[i], i)
			}
		}
		rows = rows[1:]
	}
	if !o.InferSchema {
		return fields, nil
	}
	types := make([]*Type, len(fields))
	for _, row := range rows {
		for i := range fields {
			if i >= len(row) || row[i] == "" || row[i] == o.NullValue {
				continue
			}
			types[i] = mergeCSV(types[i], csvType(row[i]))
		}
	}
	for i := range fields {
		if types[i] != nil {
			fields[i].Type = types[i]
		}
	}
	return fields, nil
}

// csvType is the type Spark's CSV inference gives one value.
func csvType(s string) *Type {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return tInt
		}
		return tLong
	}
	if n, ok := new(big.Int).SetString(s, 10); ok {
		if digits := len(strings.TrimPrefix(n.String(), "-")); digits <= 38 {
			return &Type{Kind: "decimal", Precision: digits}
		}
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") {
		return tDouble
	}
	if isDate(s) {
		return tDate // preferDate is on by default
	}
	if csvTimestamp(s) {
		return tTS
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return tBool
	}
	return tString
}

// csvTimestamp reports whether s is a timestamp Spark's inference reads:
// yyyy-MM-dd, then a space or T and HH:mm[:ss[.fraction]], optionally a
// zone (Z or +hh:mm).
func csvTimestamp(s string) bool {
	if len(s) < 16 || !isDate(s[:10]) || s[10] != ' ' && s[10] != 'T' {
		return false
	}
	rest := s[11:]
	if len(rest) < 5 || !digits2(rest[0:2]) || rest[2] != ':' || !digits2(rest[3:5]) {
		return false
	}
	rest = rest[5:]
	if len(rest) >= 3 && rest[0] == ':' && digits2(rest[1:3]) {
		rest = rest[3:]
		if len(rest) > 1 && rest[0] == '.' {
			k := 1
			for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
				k++
			}
			rest = rest[k:]
		}
	}
	switch {
	case rest == "" || rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits2(rest[1:3]) && rest[3] == ':' && digits2(rest[4:6]):
		return true
	}
	return false
}

func isDate(s string) bool {
	return len(s) == 10 && digits2(s[0:2]) && digits2(s[2:4]) && s[4] == '-' && digits2(s[5:7]) && s[7] == '-' && digits2(s[8:10])
}

func digits2(s string) bool {
	return len(s) == 2 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'
}

// mergeCSV is Spark's CSV compatibleType: numbers widen, a timestamp
// and anything else, or a boolean and a number, are STRING.
func mergeCSV(a, b *Type) *Type {
	switch {
	case a == nil:
		return b
	case a.Kind == b.Kind && a.Kind == "decimal":
		return &Type{Kind: "decimal", Precision: max(a.Precision, b.Precision)}
	case a.Kind == b.Kind:
		return a
	}
	if t, ok := numeric(a, b); ok {
		return t
	}
	if a.Kind == "date" && b.Kind == "timestamp" || a.Kind == "timestamp" && b.Kind == "date" {
		return tTS
	}
	return tString
}

// SchemaFields reads a load's DDL schema ("a INT, b STRING") as name and
// type pairs; ok is false when it is not a list of scalar columns Thund
// reads (see ddlFields).
func SchemaFields(ddl string) (fields [][2]string, ok bool) {
	return ddlFields(ddl)
}

// CanonicalType is a DDL type as Spark names it in a schema (LONG is
// BIGINT, INTEGER is INT...), upper case.
func CanonicalType(t string) string { return canonicalType(t) }

// ValueFits reports whether Spark's CSV reader parses the text s as a
// value of the scalar type typ (canonical, CanonicalType) rather than
// reading it as NULL: integers in range, numbers, true/false, dates as
// yyyy-MM-dd and timestamps in ISO form; any text fits a STRING.
func ValueFits(s, typ string) bool {
	bits := map[string]int{"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
	switch {
	case bits[typ] > 0:
		_, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits[typ])
		return err == nil
	case typ == "DOUBLE" || typ == "FLOAT":
		_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return err == nil || s == "NaN" || s == "Inf" || s == "-Inf"
	case strings.HasPrefix(typ, "DECIMAL"):
		_, ok := new(big.Float).SetString(strings.TrimSpace(s))
		return ok
	case typ == "BOOLEAN":
		return strings.EqualFold(s, "true") || strings.EqualFold(s, "false")
	case typ == "DATE":
		return isDate(s)
	case typ == "TIMESTAMP" || typ == "TIMESTAMP_NTZ":
		return isDate(s) || csvTimestamp(s)
	}
	return true
}

// JSONFits reports whether an inferred JSON type t is one Spark reads
// into the scalar schema type typ (canonical) without NULLs for
// mismatched values.
func JSONFits(t *Type, typ string) bool {
	switch k := t.Kind; {
	case typ == "STRING" || k == "null":
		return true
	case typ == "TINYINT" || typ == "SMALLINT" || typ == "INT" || typ == "BIGINT":
		return k == "bigint" || k == "int"
	case typ == "DOUBLE" || typ == "FLOAT" || strings.HasPrefix(typ, "DECIMAL"):
		return k == "bigint" || k == "int" || k == "double" || k == "decimal"
	case typ == "BOOLEAN":
		return k == "boolean"
	case typ == "DATE" || typ == "TIMESTAMP" || typ == "TIMESTAMP_NTZ":
		return k == "string"
	}
	return true
}
