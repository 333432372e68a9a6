package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// grouping is what the engine understands of a streaming aggregate's
// GROUP BY, read from DuckDB's parse tree of the flow's query.
type grouping struct {
	// keys are the output column positions of the grouping expressions;
	// keysOK is false when some grouping expression is not an output
	// column (or the query's shape was not understood), and keys are then
	// unusable as an upsert key.
	keys   []int
	keysOK bool
	// window, when set, is the output column holding the start of an
	// event-time window on the watermark column, with the SQL interval
	// that gives the window's end from its start.
	window *windowKey
}

// windowKey is a grouping key that buckets the watermark column. field,
// when set, is the field of the column (a struct, Spark's window) that
// holds the window's start.
type windowKey struct {
	col   int
	width string
	field string
}

// aggregateFuncs are the aggregate function names DuckDB's parser leaves
// as plain function calls; GROUP BY ALL groups by the select items that
// call none of them.
var aggregateFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`count count_star sum avg mean min max first last any_value arbitrary
		arg_max arg_min argmax argmin max_by min_by list array_agg string_agg group_concat listagg
		approx_count_distinct approx_quantile median mode quantile quantile_cont quantile_disc
		stddev stddev_pop stddev_samp variance var_pop var_samp bool_and bool_or every bit_and
		bit_or bit_xor histogram product fsum sumkahan kahan_sum entropy kurtosis skewness corr
		covar_pop covar_samp count_if countif collect_list collect_set bitstring_agg favg reservoir_quantile`) {
		aggregateFuncs[n] = true
	}
}

// parseQueryTree returns the top query node of DuckDB's JSON parse tree
// of query, or nil when DuckDB cannot serialise it.
func parseQueryTree(ctx context.Context, conn *sql.Conn, query string) (map[string]any, error) {
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", query).Scan(&out); err != nil {
		return nil, explain(err)
	}
	var head struct {
		Error      bool   `json:"error"`
		Message    string `json:"error_message"`
		Statements []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&head); err != nil {
		return nil, fmt.Errorf("read parse tree: %w", err)
	}
	if head.Error || len(head.Statements) != 1 {
		return nil, nil
	}
	return head.Statements[0].Node, nil
}

// outerJoin returns the kind of the first outer join (LEFT, RIGHT, FULL)
// in a parse tree, or "".
func outerJoin(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "JOIN" {
			switch jt, _ := x["join_type"].(string); jt {
			case "LEFT", "RIGHT", "FULL":
				return jt
			case "OUTER":
				return "FULL"
			}
		}
		for _, e := range x {
			if k := outerJoin(e); k != "" {
				return k
			}
		}
	case []any:
		for _, e := range x {
			if k := outerJoin(e); k != "" {
				return k
			}
		}
	}
	return ""
}

// analyzeGrouping reads the GROUP BY of a streaming aggregate. outCols
// are the query's output column names; wmCol is the watermark column (""
// for none). Grouping expressions are matched to output columns by
// position (GROUP BY 1), alias, or the same expression in the select
// list; GROUP BY ALL groups by the items that call no aggregate. Supported
// window forms, where X mentions the watermark column: date_trunc('unit',
// X) (end = start + 1 unit) and time_bucket(WIDTH, X[, offset or origin])
// with WIDTH any expression without columns, such as INTERVAL 5 MINUTE
// (end = start + WIDTH). A query DuckDB cannot serialise, or whose top level is
// not a plain SELECT, yields a zero grouping.
func analyzeGrouping(ctx context.Context, conn *sql.Conn, query, wmCol string, outCols []string) (grouping, error) {
	node, err := parseQueryTree(ctx, conn, query)
	if err != nil || node == nil || node["type"] != "SELECT_NODE" {
		return grouping{}, err
	}
	items, _ := node["select_list"].([]any)
	star := false
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && (m["class"] == "STAR" || m["type"] == "STAR") {
			star = true
		}
	}
	var groups []any
	if node["aggregate_handling"] == "FORCE_AGGREGATES" {
		// GROUP BY ALL: every select item without an aggregate call.
		for _, it := range items {
			if !callsAggregate(it) {
				groups = append(groups, it)
			}
		}
	} else {
		groups, _ = node["group_expressions"].([]any)
	}
	g := grouping{keysOK: len(groups) > 0}
	seen := map[int]bool{}
	for _, ge := range groups {
		idx := matchGroup(ge, items, star, outCols)
		// Spark's window(...) as translated: the output holds the struct
		// itself or its start or end (SELECT window.start).
		wstart, wfield := windowStart(ge), ""
		if wstart != nil && !star {
			if idx >= 0 {
				wfield = "start"
			} else {
				idx, wfield = matchWindowField(ge, items)
			}
		}
		if idx < 0 || idx >= len(outCols) {
			g.keysOK = false
			continue
		}
		if !seen[idx] {
			seen[idx] = true
			g.keys = append(g.keys, idx)
		}
		if g.window != nil || wmCol == "" {
			continue
		}
		expr := ge
		if !star {
			expr = items[idx]
		}
		field := ""
		if wstart != nil {
			expr = wstart
		}
		width := windowWidth(ctx, conn, expr, wmCol)
		switch {
		case width == "" || wstart == nil:
		case wfield == "start" && windowStart(items[idx]) != nil:
			field = "start" // the column is the window struct
		case wfield == "end":
			width = "INTERVAL 0 SECOND" // the column is the window's end
		}
		if width != "" {
			var ok bool
			if err := conn.QueryRowContext(ctx, "SELECT try_cast("+width+" AS INTERVAL) IS NOT NULL").Scan(&ok); err == nil && ok {
				g.window = &windowKey{col: idx, width: width, field: field}
			}
		}
	}
	return g, nil
}

// windowStart returns the start of a window struct, struct_pack(start :=
// ..., end := ...) (Spark's window(...) as the translation writes it), or
// nil when v is not one.
func windowStart(v any) any {
	m, _ := v.(map[string]any)
	if m == nil || m["class"] != "FUNCTION" || !strings.EqualFold(jsonStr(m["function_name"]), "struct_pack") {
		return nil
	}
	args, _ := m["children"].([]any)
	if len(args) != 2 {
		return nil
	}
	s, _ := args[0].(map[string]any)
	e, _ := args[1].(map[string]any)
	if s == nil || e == nil || jsonStr(s["alias"]) != "start" || jsonStr(e["alias"]) != "end" {
		return nil
	}
	return s
}

// matchWindowField returns the output position of a select item that is
// the start or the end of the window struct ge (window.start), and which,
// or -1.
func matchWindowField(ge any, items []any) (int, string) {
	want := canonicalExpr(ge)
	for i, it := range items {
		m, _ := it.(map[string]any)
		if m == nil || m["type"] != "STRUCT_EXTRACT" {
			continue
		}
		args, _ := m["children"].([]any)
		if len(args) != 2 || canonicalExpr(args[0]) != want {
			continue
		}
		if f, ok := constString(args[1]); ok && (f == "start" || f == "end") {
			return i, f
		}
	}
	return -1, ""
}

// matchGroup returns the output position of grouping expression ge, or -1.
func matchGroup(ge any, items []any, star bool, outCols []string) int {
	m, _ := ge.(map[string]any)
	if m == nil {
		return -1
	}
	// GROUP BY 2: a positional reference.
	if m["class"] == "CONSTANT" && !star {
		if v, ok := m["value"].(map[string]any); ok {
			if n, ok := v["value"].(json.Number); ok {
				if i, err := strconv.Atoi(string(n)); err == nil && i >= 1 && i <= len(items) {
					return i - 1
				}
			}
		}
	}
	if m["class"] == "POSITIONAL_REFERENCE" && !star {
		if n, ok := m["index"].(json.Number); ok {
			if i, err := strconv.Atoi(string(n)); err == nil && i >= 1 && i <= len(items) {
				return i - 1
			}
		}
	}
	name := ""
	if m["class"] == "COLUMN_REF" {
		if parts, ok := m["column_names"].([]any); ok && len(parts) > 0 {
			name, _ = parts[len(parts)-1].(string)
		}
	}
	if star {
		// Output positions are not select positions; match by name only.
		for i, c := range outCols {
			if name != "" && strings.EqualFold(c, name) {
				return i
			}
		}
		return -1
	}
	// GROUP BY alias.
	if name != "" {
		for i, it := range items {
			if im, ok := it.(map[string]any); ok && strings.EqualFold(jsonStr(im["alias"]), name) {
				return i
			}
		}
	}
	// The same expression in the select list.
	want := canonicalExpr(ge)
	for i, it := range items {
		if canonicalExpr(it) == want {
			return i
		}
	}
	// GROUP BY page with SELECT c.page.
	if name != "" {
		for i, it := range items {
			im, _ := it.(map[string]any)
			if im == nil || im["class"] != "COLUMN_REF" || jsonStr(im["alias"]) != "" {
				continue
			}
			if parts, ok := im["column_names"].([]any); ok && len(parts) > 0 && strings.EqualFold(jsonStr(parts[len(parts)-1]), name) {
				return i
			}
		}
	}
	return -1
}

// canonicalExpr renders an expression tree without aliases and locations, so
// two spellings of one expression compare equal.
func canonicalExpr(v any) string {
	b, _ := json.Marshal(stripLoc(v))
	return string(b)
}

func stripLoc(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "alias" || k == "query_location" {
				continue
			}
			out[k] = stripLoc(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripLoc(e)
		}
		return out
	case string:
		return strings.ToLower(x)
	}
	return v
}

func jsonStr(v any) string {
	s, _ := v.(string)
	return s
}

// callsAggregate reports whether an expression calls an aggregate
// function outside a window.
func callsAggregate(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if x["class"] == "WINDOW" || x["class"] == "SUBQUERY" {
			return false
		}
		if x["class"] == "FUNCTION" && aggregateFuncs[strings.ToLower(jsonStr(x["function_name"]))] {
			return true
		}
		for _, e := range x {
			if callsAggregate(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if callsAggregate(e) {
				return true
			}
		}
	}
	return false
}

// mentionsColumn reports whether an expression refers to column name.
func mentionsColumn(v any, name string) bool {
	switch x := v.(type) {
	case map[string]any:
		if x["class"] == "COLUMN_REF" {
			if parts, ok := x["column_names"].([]any); ok && len(parts) > 0 && strings.EqualFold(jsonStr(parts[len(parts)-1]), name) {
				return true
			}
		}
		for _, e := range x {
			if mentionsColumn(e, name) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if mentionsColumn(e, name) {
				return true
			}
		}
	}
	return false
}

// windowWidth returns the SQL interval of a window bucketing the
// watermark column, or "" when expr is not one. A time_bucket width is
// any expression without column references, rendered back to SQL by
// DuckDB.
func windowWidth(ctx context.Context, conn *sql.Conn, expr any, wmCol string) string {
	m := stripTimeCasts(expr)
	if m == nil || m["class"] != "FUNCTION" {
		return ""
	}
	args, _ := m["children"].([]any)
	if len(args) < 2 || !mentionsColumn(args[1], wmCol) {
		return ""
	}
	switch strings.ToLower(jsonStr(m["function_name"])) {
	case "date_trunc", "datetrunc":
		if unit, ok := constString(args[0]); ok && len(args) == 2 {
			return "CAST(" + quoteString("1 "+unit) + " AS INTERVAL)"
		}
	case "time_bucket":
		if hasColumnRef(args[0]) {
			return ""
		}
		if w, err := renderExpr(ctx, conn, args[0]); err == nil && w != "" {
			return "(" + w + ")"
		}
	}
	return ""
}

// stripTimeCasts returns expr without the casts to a date or timestamp
// type around it: the translation of Spark's date_trunc(unit, ts) is
// CAST(date_trunc(unit, CAST(ts AS TIMESTAMP)) AS TIMESTAMP), which still
// starts a window of the unit's width. Nil when expr is not an expression.
func stripTimeCasts(expr any) map[string]any {
	m, _ := expr.(map[string]any)
	for m != nil && m["class"] == "CAST" {
		if try, _ := m["try_cast"].(bool); try {
			return m
		}
		ct, _ := m["cast_type"].(map[string]any)
		id := strings.ToUpper(jsonStr(ct["id"]))
		if id != "DATE" && !strings.HasPrefix(id, "TIMESTAMP") {
			return m
		}
		m, _ = m["child"].(map[string]any)
	}
	return m
}

// hasColumnRef reports whether an expression refers to any column (or is
// a subquery).
func hasColumnRef(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if x["class"] == "COLUMN_REF" || x["class"] == "SUBQUERY" || x["class"] == "STAR" {
			return true
		}
		for _, e := range x {
			if hasColumnRef(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasColumnRef(e) {
				return true
			}
		}
	}
	return false
}

// renderExpr turns an expression tree back into SQL, through DuckDB's
// json_deserialize_sql on a one-item SELECT.
func renderExpr(ctx context.Context, conn *sql.Conn, expr any) (string, error) {
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql('SELECT 1')::VARCHAR").Scan(&out); err != nil {
		return "", explain(err)
	}
	var tree map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return "", err
	}
	stmts, _ := tree["statements"].([]any)
	if len(stmts) != 1 {
		return "", nil
	}
	stmt, _ := stmts[0].(map[string]any)
	node, _ := stmt["node"].(map[string]any)
	if node == nil {
		return "", nil
	}
	node["select_list"] = []any{expr}
	b, err := json.Marshal(tree)
	if err != nil {
		return "", err
	}
	var q string
	if err := conn.QueryRowContext(ctx, "SELECT json_deserialize_sql(?::JSON)", string(b)).Scan(&q); err != nil {
		return "", explain(err)
	}
	rest, ok := strings.CutPrefix(q, "SELECT ")
	if !ok {
		return "", nil
	}
	return rest, nil
}

func constString(v any) (string, bool) {
	m, _ := v.(map[string]any)
	if m == nil || m["class"] != "CONSTANT" {
		return "", false
	}
	val, _ := m["value"].(map[string]any)
	if val == nil {
		return "", false
	}
	s, ok := val["value"].(string)
	return s, ok
}

// withMaxEvent returns query with one more select item, max(wmCol) AS
// name, added to its top-level SELECT (DuckDB re-renders the query), or
// "" when the query's shape does not allow it.
func withMaxEvent(ctx context.Context, conn *sql.Conn, query, wmCol, name string) (string, error) {
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", query).Scan(&out); err != nil {
		return "", explain(err)
	}
	var tree map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return "", fmt.Errorf("read parse tree: %w", err)
	}
	stmts, _ := tree["statements"].([]any)
	if e, _ := tree["error"].(bool); e || len(stmts) != 1 {
		return "", nil
	}
	stmt, _ := stmts[0].(map[string]any)
	node, _ := stmt["node"].(map[string]any)
	if node == nil || node["type"] != "SELECT_NODE" {
		return "", nil
	}
	items, _ := node["select_list"].([]any)
	item := map[string]any{
		"class": "FUNCTION", "type": "FUNCTION", "alias": name, "query_location": json.Number("18446744073709551615"),
		"function_name": "max", "schema": "", "catalog": "",
		"children": []any{map[string]any{
			"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "query_location": json.Number("18446744073709551615"),
			"column_names": []any{wmCol},
		}},
		"filter": nil, "order_bys": map[string]any{"type": "ORDER_MODIFIER", "orders": []any{}},
		"distinct": false, "is_operator": false, "export_state": false,
	}
	node["select_list"] = append(items, item)
	b, err := json.Marshal(tree)
	if err != nil {
		return "", err
	}
	var q string
	if err := conn.QueryRowContext(ctx, "SELECT json_deserialize_sql(?::JSON)", string(b)).Scan(&q); err != nil {
		return "", explain(err)
	}
	return q, nil
}
