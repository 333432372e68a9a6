package engine

import (
	"context"
	"database/sql"
)

// installCompat defines DuckDB macros for Spark SQL functions DuckDB lacks
// or names differently, so a pipeline's Spark SQL runs natively.
func installCompat(ctx context.Context, conn *sql.Conn) error {
	for _, m := range []string{
		"CREATE OR REPLACE MACRO nvl(a, b) AS coalesce(a, b)",
		"CREATE OR REPLACE MACRO nvl2(a, b, c) AS CASE WHEN a IS NOT NULL THEN b ELSE c END",
	} {
		if _, err := conn.ExecContext(ctx, m); err != nil {
			return err
		}
	}
	return nil
}
