package pylib

import (
	"fmt"
	"strings"
)

// A load of files reads what Spark's DataFrameReader gives for its format
// and options. The native engine reads the load's sample as Spark reads
// the files (engine/python.go): with the schema given, or else the schema
// Spark infers from the sample (InferJSON, InferCSV: header, sep,
// nullValue, inferSchema). The load's SQL reads that relation:
//
//   - JSON, Parquet, ORC with a schema of scalar types: the schema's
//     fields by name, cast to its types (as Spark applies it);
//   - JSON without a schema: the inferred columns as they are, unless an
//     option changes what Spark infers in a way Thund does not model
//     (multiLine, inferTimestamp, prefersDecimal...): refused;
//   - CSV: read with header, sep, nullValue and inferSchema as Spark
//     reads them (without a header, the columns are _c0, _c1, ...); with
//     a schema, the columns are the schema's, by position (enforceSchema),
//     cast to its types; dateFormat other than yyyy-MM-dd, timestampFormat
//     and the other options Thund does not apply (CSVReading): refused,
//     since the SQL must mean the same over Spark's load.

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
	out := loaded{items: "*"}
	format = strings.ToLower(format)
	fields, scalar := ddlFields(schema)
	switch {
	case byName[format]:
		if schema == "" {
			if format == "json" {
				if _, err := InferJSON(nil, options); err != nil {
					out.notNative = fmt.Sprintf("Spark infers the schema of JSON files itself, and the native engine infers it as Spark does only without that option (%v): give the load its schema with .schema(\"...\")", err)
				}
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
	if _, err := CSVReading(options); err != nil {
		out.notNative = fmt.Sprintf("the native engine reads a CSV sample as Spark reads the files with header, sep, nullValue and inferSchema only (%v): drop the option, or give the sample's values in Spark's default form", err)
		return out
	}
	nullValue, hasNull := opt("nullValue")
	if schema == "" {
		// The sample is read as Spark reads the files (InferCSV: the
		// header line or _c0, _c1, ...; STRING or, with inferSchema, the
		// types Spark infers), by the run and by the description alike
		// (engine's LoadReading).
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
