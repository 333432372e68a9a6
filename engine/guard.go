package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Expressions from pragmas (an expectation, a CDC deletes predicate) are
// pasted into the engine's own statements, inside parentheses. The sandbox
// lets a pipeline write into its own folder, so an expression that closed
// those parentheses and added a statement of its own (`x > 0), false);
// COPY ... TO 'root/.git/hooks/...'; SELECT ((1`) would run it. Before
// any is used, DuckDB's own parser must read it, pasted exactly as the
// engine pastes it, as one SELECT statement: no lexer of ours to disagree
// with DuckDB's about quotes, comments or dollar strings.

// pastedExpressions lists the expressions of f that the engine pastes.
func pastedExpressions(f *ir.Flow) []pastedExpr {
	var out []pastedExpr
	for _, e := range f.Expectations {
		out = append(out, pastedExpr{what: "expectation " + e.Name, sql: e.SQL})
	}
	if f.CDC != nil && strings.TrimSpace(f.CDC.Deletes) != "" {
		out = append(out, pastedExpr{what: "cdc deletes predicate", sql: strings.TrimSpace(f.CDC.Deletes)})
	}
	return out
}

type pastedExpr struct{ what, sql string }

// checkPasted refuses f when one of its pasted expressions is not exactly
// one expression.
func checkPasted(ctx context.Context, conn *sql.Conn, f *ir.Flow) error {
	for _, e := range pastedExpressions(f) {
		if err := singleExpression(ctx, conn, e.sql); err != nil {
			return &flowError{f.Name, fmt.Errorf("%s: %s (%s): %w", f.Name, e.what, e.sql, err)}
		}
	}
	return nil
}

// singleExpression reports an error unless "SELECT coalesce((expr),
// false)" parses as exactly one SELECT statement.
func singleExpression(ctx context.Context, conn *sql.Conn, expr string) error {
	var out string
	q := "SELECT coalesce((" + expr + "), false)"
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", q).Scan(&out); err != nil {
		return fmt.Errorf("parse: %w", explain(err))
	}
	var head struct {
		Error      bool              `json:"error"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &head); err != nil {
		return fmt.Errorf("read DuckDB's parse: %w", err)
	}
	switch {
	case head.Error && strings.Contains(head.Message, "Only SELECT"):
		return fmt.Errorf("it contains a statement of its own; write one boolean expression, without ';'")
	case head.Error:
		return fmt.Errorf("it is not an expression: %s", head.Message)
	case len(head.Statements) != 1:
		return fmt.Errorf("it holds %d statements; write one boolean expression, without ';'", len(head.Statements))
	}
	return nil
}
