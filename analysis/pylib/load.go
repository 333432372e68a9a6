package pylib

import (
	"strings"
)

// A load of files reads what Spark's DataFrameReader gives for its format
// and options, and the native engine reads the load's sample with
// DuckDB's own inference (the file's header, types detected from the
// values). Where the two differ and Thund can state Spark's reading in
// SQL over the sample, the load's SQL does; where it cannot, the load
// says why (Load.NotNative) and the native engine refuses the dataset
// before running, instead of computing something else than Spark:
//
//   - JSON, Parquet, ORC with a schema of scalar types: the schema's
//     fields by name, cast to its types (as Spark applies it);
//   - JSON without a schema: Spark infers one (fields sorted by name,
//     integers as BIGINT, other numbers as DOUBLE, dates and timestamps
//     as STRING), which DuckDB's inference does not give: refused;
//   - CSV: header is false unless set, and then Spark reads the first
//     line as a row with columns _c0, _c1...: refused. With a schema, the
//     columns are the schema's, by position (enforceSchema), with
//     nullValue read as NULL; dateFormat / timestampFormat other than
//     ISO's for a DATE or TIMESTAMP column: refused (the SQL must mean
//     the same over Spark's load). Without one, every column is STRING
//     unless inferSchema is true: refused (DuckDB infers types), as is an
//     inferred schema under nullValue, dateFormat or timestampFormat,
//     which change what Spark infers.

// loaded is what loadColumns gives for a load.
type loaded struct {
	// items is the select list over the load ("*" when the sample's
	// columns are read as they are); alias follows the load in FROM
	// (naming the columns by position), or is "".
	items, alias string
	// cols and types are the load's columns and Spark types when known.
	cols, types []string
	notNative   string
}

// loadColumns states a load of format with options and a DDL schema
// ("" when none) as Spark reads it (see above).
func loadColumns(format string, options map[string]string, schema string) loaded {
	opt := func(name string) (string, bool) {
		for k, v := range options {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
	yes := func(name string) bool {
		v, _ := opt(name)
		return strings.EqualFold(strings.TrimSpace(v), "true")
	}
	out := loaded{items: "*"}
	format = strings.ToLower(format)
	fields, scalar := ddlFields(schema)
	switch {
	case byName[format]:
		if schema == "" {
			if format == "json" {
				out.notNative = "Spark infers the schema of JSON files itself (fields sorted by name, integers as BIGINT, other numbers as DOUBLE, dates and timestamps kept as STRING) and the native engine's reading of the sample infers another (the file's field order, DATE and TIMESTAMP columns): give the load its schema with .schema(\"...\")"
			}
			return out
		}
		if !scalar {
			return out
		}
		var sel []string
		for _, f := range fields {
			sel = append(sel, "CAST("+quoteName(f[0])+" AS "+f[1]+") AS "+quoteName(f[0]))
			out.cols, out.types = append(out.cols, f[0]), append(out.types, canonicalType(f[1]))
		}
		out.items = strings.Join(sel, ", ")
		return out
	case format != "csv":
		return out
	}
	if !yes("header") {
		out.notNative = "Spark reads the first line of each CSV file as a row unless .option(\"header\", \"true\") is given (its columns then are _c0, _c1, ...), and the native engine reads the sample's first line as its header: set header to true (the sample keeps its header line)"
		return out
	}
	nullValue, hasNull := opt("nullValue")
	dateFormat, hasDate := opt("dateFormat")
	_, hasTS := opt("timestampFormat")
	if schema == "" {
		switch {
		case !yes("inferSchema"):
			out.notNative = "Spark reads every column of a CSV file as STRING unless .option(\"inferSchema\", \"true\") or a .schema(\"...\") is given, and the native engine's reading of the sample infers the columns' types: set inferSchema to true, or give the schema"
		case hasNull && nullValue != "", hasDate, hasTS:
			out.notNative = "with nullValue, dateFormat or timestampFormat Spark infers the CSV columns' types from the values those options read, which the native engine's reading of the sample does not: give the load its schema with .schema(\"...\")"
		}
		return out
	}
	if !scalar {
		out.notNative = "the load's schema has types Thund does not read natively from a CSV sample (only scalar types, with plain names): write the columns as name TYPE pairs"
		return out
	}
	// The same SQL goes to Spark over the load itself (a push sends it
	// with the load as a reference), where the columns already have the
	// schema's types: every expression here must give the same value
	// there. NULLIF does (Spark has read nullValue as NULL already);
	// parsing a date with dateFormat would not (Spark's DATE, written
	// as text, is yyyy-MM-dd), so another format is refused natively.
	for _, f := range fields {
		typ := canonicalType(f[1])
		if typ == "DATE" && hasDate && dateFormat != "yyyy-MM-dd" || (typ == "TIMESTAMP" || typ == "TIMESTAMP_NTZ") && hasTS {
			out.notNative = "the load parses its DATE or TIMESTAMP columns with dateFormat / timestampFormat, and the native engine reads a CSV sample's dates and timestamps only as yyyy-MM-dd and yyyy-MM-dd HH:mm:ss: write the sample's values in that form and drop the option"
			return out
		}
	}
	var sel, names []string
	for _, f := range fields {
		name, typ := quoteName(f[0]), canonicalType(f[1])
		x := name
		if hasNull && nullValue != "" {
			x = "NULLIF(CAST(" + x + " AS STRING), " + sqlString(nullValue) + ")"
		}
		sel = append(sel, "CAST("+x+" AS "+f[1]+") AS "+name)
		names = append(names, name)
		out.cols, out.types = append(out.cols, f[0]), append(out.types, typ)
	}
	// By position: the sample's columns take the schema's names, as
	// Spark applies a CSV schema (its header names are not compared).
	out.items = strings.Join(sel, ", ")
	out.alias = " AS csv_load(" + strings.Join(names, ", ") + ")"
	return out
}

// canonicalType is a DDL type as Spark names it in a schema (LONG is
// BIGINT, INTEGER is INT, DEC is DECIMAL...), upper case.
func canonicalType(t string) string {
	t = strings.ToUpper(strings.Join(strings.Fields(t), ""))
	switch t {
	case "LONG":
		return "BIGINT"
	case "INTEGER":
		return "INT"
	case "SHORT":
		return "SMALLINT"
	case "BYTE":
		return "TINYINT"
	case "REAL":
		return "FLOAT"
	case "DEC", "NUMERIC", "DECIMAL":
		return "DECIMAL(10,0)"
	}
	for _, p := range []string{"DEC(", "NUMERIC("} {
		if strings.HasPrefix(t, p) {
			t = "DECIMAL(" + strings.TrimPrefix(t, p)
		}
	}
	if strings.HasPrefix(t, "DECIMAL(") && !strings.Contains(t, ",") {
		t = strings.TrimSuffix(t, ")") + ",0)"
	}
	return t
}
