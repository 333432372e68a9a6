package preview

import "strings"

// SparkType writes a column type the way Spark names it, from DuckDB's
// name for it (as DESCRIBE, information_schema or TypeName write it:
// INTEGER, VARCHAR, HUGEINT, DECIMAL(18, 3), VARCHAR[], STRUCT(a INTEGER),
// MAP(VARCHAR, BIGINT)) or from a Spark name in any case (bigint,
// array<int>, struct<a:int>). It is the one mapping behind every type a
// user sees: hover, completion, thund/preview and thund/lineage, the
// terminal and HTML tables of previews, and thund-watch --check --lineage.
//
// DuckDB's HUGEINT is BIGINT: DuckDB gives it to a sum of integers, which
// Spark types BIGINT. Its TIMESTAMP is Spark's TIMESTAMP (Thund runs
// Spark's TIMESTAMP and TIMESTAMP_NTZ both as DuckDB's TIMESTAMP). Unsigned
// integers take the smallest Spark type holding them. A name neither knows
// is returned upper-cased, as it is.
func SparkType(name string) string {
	t := strings.TrimSpace(name)
	up := strings.ToUpper(t)
	switch {
	case up == "":
		return ""
	case strings.HasSuffix(up, "[]"):
		return "ARRAY<" + SparkType(t[:len(t)-2]) + ">"
	case strings.HasPrefix(up, "ARRAY<") && strings.HasSuffix(up, ">"):
		return "ARRAY<" + SparkType(t[len("ARRAY<"):len(t)-1]) + ">"
	case strings.HasPrefix(up, "LIST(") && strings.HasSuffix(up, ")"):
		return "ARRAY<" + SparkType(t[len("LIST("):len(t)-1]) + ">"
	case strings.HasPrefix(up, "STRUCT(") && strings.HasSuffix(up, ")"),
		strings.HasPrefix(up, "STRUCT<") && strings.HasSuffix(up, ">"):
		var fields []string
		for _, f := range splitTypeList(t[len("STRUCT(") : len(t)-1]) {
			name, typ := fieldOf(f)
			fields = append(fields, name+": "+SparkType(typ))
		}
		return "STRUCT<" + strings.Join(fields, ", ") + ">"
	case strings.HasPrefix(up, "MAP(") && strings.HasSuffix(up, ")"),
		strings.HasPrefix(up, "MAP<") && strings.HasSuffix(up, ">"):
		if kv := splitTypeList(t[len("MAP(") : len(t)-1]); len(kv) == 2 {
			return "MAP<" + SparkType(kv[0]) + ", " + SparkType(kv[1]) + ">"
		}
		return up
	case strings.HasPrefix(up, "DECIMAL") || strings.HasPrefix(up, "NUMERIC"):
		d := strings.ReplaceAll(up, " ", "")
		if rest, ok := strings.CutPrefix(d, "NUMERIC"); ok {
			d = "DECIMAL" + rest
		}
		if d == "DECIMAL" {
			return "DECIMAL(10,0)" // Spark's default precision and scale
		}
		return d
	case strings.HasPrefix(up, "VARCHAR(") || strings.HasPrefix(up, "CHAR("):
		return "STRING"
	}
	switch up {
	case "INTEGER", "INT4", "INT", "SIGNED", "USMALLINT":
		return "INT"
	case "BIGINT", "INT8", "LONG", "HUGEINT", "UINTEGER", "INT128":
		return "BIGINT"
	case "SMALLINT", "INT2", "SHORT", "UTINYINT":
		return "SMALLINT"
	case "TINYINT", "INT1", "BYTE":
		return "TINYINT"
	case "UBIGINT":
		return "DECIMAL(20,0)"
	case "UHUGEINT":
		return "DECIMAL(38,0)"
	case "DOUBLE", "FLOAT8":
		return "DOUBLE"
	case "FLOAT", "FLOAT4", "REAL":
		return "FLOAT"
	case "VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR", "UUID", "JSON", "ENUM":
		return "STRING"
	case "BOOLEAN", "BOOL", "LOGICAL":
		return "BOOLEAN"
	case "DATE":
		return "DATE"
	case "TIMESTAMP", "DATETIME", "TIMESTAMP_US", "TIMESTAMP_MS", "TIMESTAMP_S", "TIMESTAMP_NS",
		"TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", "TIMESTAMP_LTZ":
		return "TIMESTAMP"
	case "TIMESTAMP_NTZ":
		return "TIMESTAMP_NTZ"
	case "BLOB", "BYTEA", "BINARY", "VARBINARY":
		return "BINARY"
	case "INTERVAL":
		return "INTERVAL"
	case "NULL", `"NULL"`, "VOID":
		return "VOID"
	}
	return up
}

// fieldOf splits a struct field, "name TYPE" (DuckDB, the name maybe
// double-quoted) or "name: TYPE" / "name:TYPE" (Spark, maybe backquoted).
func fieldOf(f string) (string, string) {
	f = strings.TrimSpace(f)
	if f != "" && (f[0] == '"' || f[0] == '`') {
		if end := strings.IndexByte(f[1:], f[0]); end >= 0 {
			name, rest := f[1:1+end], strings.TrimSpace(f[2+end:])
			return name, strings.TrimSpace(strings.TrimPrefix(rest, ":"))
		}
	}
	i := strings.IndexAny(f, ": ")
	if i < 0 {
		return f, ""
	}
	return f[:i], strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f[i:]), ":"))
}

// splitTypeList splits a list of types or fields at its top-level commas.
func splitTypeList(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == '(' || c == '<' || c == '[':
			depth++
		case c == ')' || c == '>' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
