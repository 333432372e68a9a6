package sqlfront

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	// The DuckDB driver, for its parser (json_serialize_sql).
	_ "github.com/duckdb/duckdb-go/v2"
)

// duckDSN opens an in-memory database used only to parse: one thread, no
// file or network access, no extension loading.
const duckDSN = "?threads=1&enable_external_access=false&autoinstall_known_extensions=false&autoload_known_extensions=false"

var duck struct {
	once sync.Once
	db   *sql.DB
	err  error
}

// duckDB returns the shared parsing database, opened on first use. A
// *sql.DB is safe for concurrent use.
func duckDB() (*sql.DB, error) {
	duck.once.Do(func() {
		duck.db, duck.err = sql.Open("duckdb", duckDSN)
		if duck.err == nil {
			duck.db.SetMaxIdleConns(2)
		}
	})
	return duck.db, duck.err
}

// duckResult is DuckDB's reading of a query.
type duckResult struct {
	failed  bool
	hasPos  bool   // a parser error with a position
	pos     int    // character offset of the error
	message string // the parser's message
	// opaque is set when DuckDB read the query but cannot serialise its
	// tree (a PIVOT statement, for one).
	opaque bool
	stmt   any // the statement's JSON tree, when the parse succeeded
}

// duckParse parses sql with DuckDB's parser. err is set when DuckDB could
// not be asked; a parse failure is res.failed.
func duckParse(sql string) (duckResult, error) {
	db, err := duckDB()
	if err != nil {
		return duckResult{failed: true}, err
	}
	var out string
	if err := db.QueryRow("SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", sql).Scan(&out); err != nil {
		return duckResult{failed: true}, err
	}
	var head struct {
		Error        bool              `json:"error"`
		ErrorType    string            `json:"error_type"`
		ErrorMessage string            `json:"error_message"`
		Position     string            `json:"position"`
		Statements   []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &head); err != nil {
		return duckResult{failed: true}, err
	}
	if head.Error {
		res := duckResult{failed: true, message: head.ErrorMessage, opaque: head.ErrorType == "not implemented"}
		if p, err := strconv.Atoi(head.Position); err == nil && p >= 0 && head.ErrorType == "parser" {
			res.hasPos, res.pos = true, p
		}
		return res, nil
	}
	if len(head.Statements) != 1 {
		return duckResult{failed: true}, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(head.Statements[0])))
	dec.UseNumber()
	var stmt any
	if err := dec.Decode(&stmt); err != nil {
		return duckResult{failed: true}, err
	}
	return duckResult{stmt: stmt}, nil
}

// duckWalker collects table references and aggregation from DuckDB's JSON
// parse tree. n is the input's length, to reject bad locations.
type duckWalker struct {
	f *found
	n int
}

// loc returns a JSON query_location as an offset into the input, or -1.
func (w *duckWalker) loc(v any) int {
	num, ok := v.(json.Number)
	if !ok {
		return -1
	}
	i, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || i < 0 || i >= int64(w.n) {
		return -1
	}
	return int(i)
}

// minLoc returns the smallest query_location in v, or -1.
func (w *duckWalker) minLoc(v any) int {
	best := -1
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			for k, e := range x {
				if k == "query_location" {
					if l := w.loc(e); l >= 0 && (best < 0 || l < best) {
						best = l
					}
					continue
				}
				visit(e)
			}
		}
	}
	visit(v)
	return best
}

// walk visits a JSON value. expr is set inside expression subqueries.
// DuckDB compares names case-insensitively, so CTE scoping does too.
func (w *duckWalker) walk(v any, sc *scope, expr bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			w.walk(e, sc, expr)
		}
		return
	case map[string]any:
		w.object(x, sc, expr)
	}
}

func (w *duckWalker) object(x map[string]any, sc *scope, expr bool) {
	if x["class"] == "SUBQUERY" {
		expr = true
	}
	if cm, ok := x["cte_map"].(map[string]any); ok {
		if entries, ok := cm["map"].([]any); ok && len(entries) > 0 {
			var names []string
			var bodies []any
			var recursive []bool
			for _, e := range entries {
				em, _ := e.(map[string]any)
				key, _ := em["key"].(string)
				names = append(names, key)
				bodies = append(bodies, em["value"])
				rec := false
				if val, ok := em["value"].(map[string]any); ok {
					if q, ok := val["query"].(map[string]any); ok {
						if n, ok := q["node"].(map[string]any); ok {
							rec = n["type"] == "RECURSIVE_CTE_NODE"
						}
					}
				}
				recursive = append(recursive, rec)
			}
			for i, body := range bodies {
				visible := names[:i:i]
				if recursive[i] {
					visible = append(visible, names[i])
				}
				w.walk(body, &scope{names: visible, parent: sc}, expr)
			}
			sc = &scope{names: names, parent: sc}
		}
	}
	switch x["type"] {
	case "BASE_TABLE":
		table, _ := x["table_name"].(string)
		schema, _ := x["schema_name"].(string)
		catalog, _ := x["catalog_name"].(string)
		if schema == "" && catalog == "" && sc.has(table, true) {
			return
		}
		name := table
		if schema != "" {
			name = schema + "." + name
		}
		if catalog != "" {
			name = catalog + "." + name
		}
		w.f.refs = append(w.f.refs, foundRef{off: w.loc(x["query_location"]), name: name})
		return
	case "SELECT_NODE":
		if !expr {
			groups, _ := x["group_expressions"].([]any)
			sets, _ := x["group_sets"].([]any)
			switch {
			case len(groups) > 0:
				w.f.groups = append(w.f.groups, w.minLoc(groups))
			case len(sets) > 0 || x["aggregate_handling"] == "FORCE_AGGREGATES":
				w.f.groups = append(w.f.groups, -1)
			}
		}
	}
	if x["class"] == "FUNCTION" || x["class"] == "WINDOW" {
		children, _ := x["children"].([]any)
		w.f.funcs = append(w.f.funcs, foundFunc{off: w.loc(x["query_location"]), args: len(children)})
	}
	if x["class"] == "WINDOW" {
		w.f.windows = append(w.f.windows, w.loc(x["query_location"]))
	}
	if x["class"] == "FUNCTION" && !expr {
		if fn, ok := x["function_name"].(string); ok && aggregateFuncs[strings.ToLower(fn)] {
			if l := w.loc(x["query_location"]); l >= 0 {
				w.f.aggs = append(w.f.aggs, l)
			}
		}
	}
	for k, e := range x {
		if k != "cte_map" {
			w.walk(e, sc, expr)
		}
	}
}
