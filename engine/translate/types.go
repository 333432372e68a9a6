package translate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// Kind is the kind of a Spark type.
type Kind uint8

// The kinds of type the translator tells apart. Unknown is a type it could
// not infer.
const (
	Unknown Kind = iota
	Null
	Boolean
	TinyInt
	SmallInt
	Int
	BigInt
	Decimal
	Float
	Double
	String
	Binary
	Date
	Timestamp
	TimestampNTZ
	IntervalKind
	Array
	Map
	Struct
	// Time is Spark 4.1's TIME(6), a time of day to the microsecond
	// (DuckDB's TIME); TIME(p) with another precision is not modelled.
	Time
)

// Type is a Spark data type.
type Type struct {
	Kind Kind
	// P and S are a DECIMAL's precision and scale.
	P, S int
	// Elem is an ARRAY's element type; Key and Val a MAP's.
	Elem, Key, Val *Type
	Fields         []Field
	// Start and End are an ANSI interval's first and last fields (YEAR
	// TO MONTH, DAY TO SECOND, HOUR, ...); both zero for an interval of
	// no known ANSI type (Spark's legacy CalendarInterval, or a column
	// DuckDB describes only as INTERVAL). See interval.go.
	Start, End IntervalField
}

// Field is one field of a STRUCT.
type Field struct {
	Name string
	Type *Type
}

var (
	tUnknown = &Type{Kind: Unknown}
	tNull    = &Type{Kind: Null}
	tBool    = &Type{Kind: Boolean}
	tInt     = &Type{Kind: Int}
	tBigInt  = &Type{Kind: BigInt}
	tDouble  = &Type{Kind: Double}
	tString  = &Type{Kind: String}
	tDate    = &Type{Kind: Date}
	tTS      = &Type{Kind: Timestamp}
	tBinary  = &Type{Kind: Binary}
	tIntvl   = &Type{Kind: IntervalKind}
	tTime    = &Type{Kind: Time}
)

func decimalOf(p, s int) *Type { return &Type{Kind: Decimal, P: p, S: s} }
func arrayOf(e *Type) *Type    { return &Type{Kind: Array, Elem: e} }

func (ty *Type) known() bool    { return ty != nil && ty.Kind != Unknown }
func (ty *Type) is(k Kind) bool { return ty != nil && ty.Kind == k }

// integral reports a TINYINT, SMALLINT, INT or BIGINT.
func (ty *Type) integral() bool {
	return ty != nil && (ty.Kind == TinyInt || ty.Kind == SmallInt || ty.Kind == Int || ty.Kind == BigInt)
}

// fractional reports FLOAT or DOUBLE.
func (ty *Type) fractional() bool { return ty != nil && (ty.Kind == Float || ty.Kind == Double) }

// numeric reports any number type.
// has reports a type that is of kind k or holds one (an array's element,
// a map's key or value, a struct's field).
func (ty *Type) has(k Kind) bool {
	if ty == nil {
		return false
	}
	if ty.Kind == k {
		return true
	}
	if ty.Elem.has(k) || ty.Key.has(k) || ty.Val.has(k) {
		return true
	}
	for _, f := range ty.Fields {
		if f.Type.has(k) {
			return true
		}
	}
	return false
}

func (ty *Type) numeric() bool { return ty.integral() || ty.fractional() || ty.is(Decimal) }

// String returns the type as Spark writes it (int, decimal(10,2), ...).
func (ty *Type) String() string {
	if ty == nil {
		return "unknown"
	}
	switch ty.Kind {
	case Null:
		return "void"
	case Boolean:
		return "boolean"
	case TinyInt:
		return "tinyint"
	case SmallInt:
		return "smallint"
	case Int:
		return "int"
	case BigInt:
		return "bigint"
	case Decimal:
		return fmt.Sprintf("decimal(%d,%d)", ty.P, ty.S)
	case Float:
		return "float"
	case Double:
		return "double"
	case String:
		return "string"
	case Binary:
		return "binary"
	case Date:
		return "date"
	case Timestamp:
		return "timestamp"
	case TimestampNTZ:
		return "timestamp_ntz"
	case Time:
		return "time(6)"
	case IntervalKind:
		return intervalName(ty)
	case Array:
		return "array<" + ty.Elem.String() + ">"
	case Map:
		return "map<" + ty.Key.String() + "," + ty.Val.String() + ">"
	case Struct:
		var b strings.Builder
		b.WriteString("struct<")
		for i, f := range ty.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(f.Name + ":" + f.Type.String())
		}
		b.WriteString(">")
		return b.String()
	}
	return "unknown"
}

// HasTimestampNTZ reports a type that is TIMESTAMP_NTZ or holds one.
func (ty *Type) HasTimestampNTZ() bool { return ty.has(TimestampNTZ) }

// HasVoid reports a type that is VOID (NULL alone) or holds one.
func (ty *Type) HasVoid() bool { return ty.has(Null) }

// Stored returns the type as a DuckDB column holds it and [SparkType]
// names it back: a TIMESTAMP_NTZ is a TIMESTAMP there, a VOID an
// INTEGER.
func (ty *Type) Stored() *Type {
	if ty == nil {
		return nil
	}
	c := *ty
	switch c.Kind {
	case TimestampNTZ:
		c.Kind = Timestamp
	case Null:
		c.Kind = Int
	}
	c.Elem, c.Key, c.Val = ty.Elem.Stored(), ty.Key.Stored(), ty.Val.Stored()
	if len(ty.Fields) > 0 {
		c.Fields = make([]Field, len(ty.Fields))
		for i, f := range ty.Fields {
			c.Fields[i] = Field{Name: f.Name, Type: f.Type.Stored()}
		}
	}
	return &c
}

// duck returns the DuckDB spelling of the type, or "" when DuckDB has none.
func (ty *Type) duck() string {
	if ty == nil {
		return ""
	}
	switch ty.Kind {
	case Boolean:
		return "BOOLEAN"
	case TinyInt:
		return "TINYINT"
	case SmallInt:
		return "SMALLINT"
	case Int:
		return "INTEGER"
	case BigInt:
		return "BIGINT"
	case Decimal:
		return fmt.Sprintf("DECIMAL(%d, %d)", ty.P, ty.S)
	case Float:
		return "FLOAT"
	case Double:
		return "DOUBLE"
	case String:
		return "VARCHAR"
	case Binary:
		return "BLOB"
	case Date:
		return "DATE"
	case Timestamp, TimestampNTZ:
		return "TIMESTAMP"
	case Time:
		return "TIME"
	case IntervalKind:
		return "INTERVAL"
	case Array:
		if e := ty.Elem.duck(); e != "" {
			return e + "[]"
		}
	case Map:
		k, v := ty.Key.duck(), ty.Val.duck()
		if k != "" && v != "" {
			return "MAP(" + k + ", " + v + ")"
		}
	case Struct:
		parts := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			d := f.Type.duck()
			if d == "" {
				return ""
			}
			parts[i] = quoteIdent(f.Name) + " " + d
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	return ""
}

// typeOfAST converts a parsed Spark data type; ok is false for a type
// DuckDB cannot hold (VARIANT, TIME, OBJECT, ...).
func typeOfAST(dt *ast.DataType) (*Type, bool) {
	if dt == nil {
		return tUnknown, false
	}
	switch dt.Name {
	case "BOOLEAN":
		return tBool, true
	case "TINYINT", "BYTE":
		return &Type{Kind: TinyInt}, true
	case "SMALLINT", "SHORT":
		return &Type{Kind: SmallInt}, true
	case "INT", "INTEGER":
		return tInt, true
	case "BIGINT", "LONG":
		return tBigInt, true
	case "FLOAT", "REAL":
		return &Type{Kind: Float}, true
	case "DOUBLE":
		return tDouble, true
	case "DECIMAL", "DEC", "NUMERIC":
		p, s := 10, 0
		if len(dt.Params) > 0 {
			p = dt.Params[0]
		}
		if len(dt.Params) > 1 {
			s = dt.Params[1]
		}
		return decimalOf(p, s), true
	case "STRING", "VARCHAR", "CHAR", "CHARACTER":
		if strings.Contains(dt.Qualifier, "COLLATE") {
			return tString, false
		}
		return tString, true
	case "BINARY":
		return tBinary, true
	case "DATE":
		return tDate, true
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		if strings.Contains(dt.Qualifier, "WITHOUT") {
			return &Type{Kind: TimestampNTZ}, true
		}
		return tTS, true
	case "TIMESTAMP_NTZ":
		return &Type{Kind: TimestampNTZ}, true
	case "TIME":
		// TIME(p) holds p digits of the fraction; only TIME(6), the
		// default, has DuckDB's TIME's type name on Spark.
		if len(dt.Params) > 0 && dt.Params[0] != 6 {
			return tTime, false
		}
		return tTime, true
	case "INTERVAL":
		return intervalOfQualifier(dt.Qualifier), true
	case "VOID":
		return tNull, false
	case "ARRAY":
		e, ok := typeOfAST(dt.Elem)
		return arrayOf(e), ok
	case "MAP":
		k, ok1 := typeOfAST(dt.Key)
		v, ok2 := typeOfAST(dt.Value)
		return &Type{Kind: Map, Key: k, Val: v}, ok1 && ok2
	case "STRUCT":
		st := &Type{Kind: Struct}
		ok := true
		for _, f := range dt.Fields {
			ft, fok := typeOfAST(f.Type)
			ok = ok && fok && f.Name != nil
			name := ""
			if f.Name != nil {
				name = f.Name.Name
			}
			st.Fields = append(st.Fields, Field{Name: name, Type: ft})
		}
		return st, ok
	}
	return tUnknown, false
}

// ParseSparkType reads a Spark type as sema's catalog columns write it
// ("bigint", "decimal(10,2)", "array<struct<a:int>>"); unknown for "" or a
// type the translator does not know.
func ParseSparkType(s string) *Type {
	if strings.TrimSpace(s) == "" {
		return tUnknown
	}
	dt, errs := parser.ParseDataType(s, parser.Options{})
	if len(errs) > 0 {
		return tUnknown
	}
	ty, _ := typeOfAST(dt)
	return ty
}

// SparkType returns the Spark type (as Spark writes it) of a DuckDB type
// name as DuckDB's DESCRIBE writes it ("INTEGER", "DECIMAL(18,3)",
// "VARCHAR[]", "STRUCT(a INTEGER, b VARCHAR)", "MAP(VARCHAR, BIGINT)"),
// or "" when Spark has no such type.
func SparkType(duck string) string {
	ty := duckType(strings.TrimSpace(duck))
	if !ty.known() {
		return ""
	}
	return ty.String()
}

// duckType parses a DuckDB type name.
func duckType(s string) *Type {
	u := strings.ToUpper(s)
	if strings.HasSuffix(u, "[]") {
		e := duckType(s[:len(s)-2])
		if !e.known() {
			return tUnknown
		}
		return arrayOf(e)
	}
	switch u {
	case "BOOLEAN", "BOOL":
		return tBool
	case "TINYINT", "INT1":
		return &Type{Kind: TinyInt}
	case "SMALLINT", "INT2", "UTINYINT":
		return &Type{Kind: SmallInt}
	case "INTEGER", "INT", "INT4", "USMALLINT":
		return tInt
	case "BIGINT", "INT8", "UINTEGER":
		return tBigInt
	case "HUGEINT", "UBIGINT":
		return decimalOf(38, 0)
	case "FLOAT", "REAL", "FLOAT4":
		return &Type{Kind: Float}
	case "DOUBLE", "FLOAT8":
		return tDouble
	case "VARCHAR", "TEXT", "STRING":
		return tString
	case "BLOB":
		return tBinary
	case "DATE":
		return tDate
	case "TIMESTAMP", "TIMESTAMP_US", "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", "TIMESTAMP_MS", "TIMESTAMP_S", "TIMESTAMP_NS":
		return tTS
	case "INTERVAL":
		return tIntvl
	case "TIME":
		return tTime
	case "\"NULL\"", "NULL":
		return tNull
	}
	switch {
	case strings.HasPrefix(u, "DECIMAL(") && strings.HasSuffix(u, ")"):
		ps := strings.Split(u[len("DECIMAL("):len(u)-1], ",")
		if len(ps) == 2 {
			p, e1 := strconv.Atoi(strings.TrimSpace(ps[0]))
			sc, e2 := strconv.Atoi(strings.TrimSpace(ps[1]))
			if e1 == nil && e2 == nil {
				return decimalOf(p, sc)
			}
		}
	case strings.HasPrefix(u, "MAP(") && strings.HasSuffix(u, ")"):
		parts := splitTop(s[len("MAP(") : len(s)-1])
		if len(parts) == 2 {
			k, v := duckType(parts[0]), duckType(parts[1])
			if k.known() && v.known() {
				return &Type{Kind: Map, Key: k, Val: v}
			}
		}
	case strings.HasPrefix(u, "STRUCT(") && strings.HasSuffix(u, ")"):
		st := &Type{Kind: Struct}
		for _, p := range splitTop(s[len("STRUCT(") : len(s)-1]) {
			p = strings.TrimSpace(p)
			var name, rest string
			if strings.HasPrefix(p, `"`) {
				j := strings.Index(p[1:], `"`)
				if j < 0 {
					return tUnknown
				}
				name, rest = p[1:j+1], p[j+2:]
			} else {
				i := strings.IndexByte(p, ' ')
				if i < 0 {
					return tUnknown
				}
				name, rest = p[:i], p[i+1:]
			}
			ft := duckType(strings.TrimSpace(rest))
			if !ft.known() {
				return tUnknown
			}
			st.Fields = append(st.Fields, Field{Name: name, Type: ft})
		}
		return st
	}
	return tUnknown
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// widen is the common type of two types, as Spark's type coercion finds it
// for numbers (unknown when either is unknown or they do not meet).
func widen(a, b *Type) *Type {
	if a.is(Null) {
		return b
	}
	if b.is(Null) {
		return a
	}
	if !a.known() || !b.known() {
		return tUnknown
	}
	if a.is(IntervalKind) && b.is(IntervalKind) {
		return widenInterval(a, b)
	}
	if a.Kind == b.Kind && a.Kind != Decimal && a.Kind != Array && a.Kind != Map && a.Kind != Struct {
		return a
	}
	if a.numeric() && b.numeric() {
		if a.fractional() || b.fractional() {
			if a.is(Double) || b.is(Double) || a.is(Decimal) || b.is(Decimal) {
				return tDouble
			}
			return &Type{Kind: Float}
		}
		if a.is(Decimal) || b.is(Decimal) {
			da, db := asDecimal(a), asDecimal(b)
			s := max(da.S, db.S)
			p := max(da.P-da.S, db.P-db.S) + s
			return boundedDecimal(p, s)
		}
		if a.Kind > b.Kind {
			return a
		}
		return b
	}
	if (a.is(Date) && b.is(Timestamp)) || (a.is(Timestamp) && b.is(Date)) {
		return tTS
	}
	if a.is(Array) && b.is(Array) {
		return arrayOf(widen(a.Elem, b.Elem))
	}
	if a.is(Map) && b.is(Map) {
		return &Type{Kind: Map, Key: widen(a.Key, b.Key), Val: widen(a.Val, b.Val)}
	}
	if a.is(Struct) && b.is(Struct) && len(a.Fields) == len(b.Fields) {
		st := &Type{Kind: Struct}
		for i, f := range a.Fields {
			st.Fields = append(st.Fields, Field{Name: f.Name, Type: widen(f.Type, b.Fields[i].Type)})
		}
		return st
	}
	if a.is(String) || b.is(String) {
		return tString
	}
	return tUnknown
}

// asDecimal is the decimal an integral type widens to.
func asDecimal(t *Type) *Type {
	switch t.Kind {
	case TinyInt:
		return decimalOf(3, 0)
	case SmallInt:
		return decimalOf(5, 0)
	case Int:
		return decimalOf(10, 0)
	case BigInt:
		return decimalOf(20, 0)
	case Decimal:
		return t
	}
	return decimalOf(38, 18)
}

// boundedDecimal caps a decimal at 38 digits, as Spark does without
// precision loss adjustment.
func boundedDecimal(p, s int) *Type {
	return decimalOf(min(p, 38), min(s, 38))
}

// adjustedDecimal is Spark's DecimalType.adjustPrecisionScale (precision
// loss allowed, the default): past 38 digits the scale shrinks, keeping
// at least 6 digits after the point.
func adjustedDecimal(p, s int) *Type {
	if p <= 38 {
		return decimalOf(p, s)
	}
	intDigits := p - s
	minScale := min(s, 6)
	adj := max(38-intDigits, minScale)
	return decimalOf(38, adj)
}
