//go:build duckdb_arrow

package engine

import (
	"context"
	"database/sql"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
)

// clicksCatalog knows the table clicks(page STRING, ts TIMESTAMP).
type clicksCatalog struct{}

func (clicksCatalog) Table(parts []string) ([]sema.Column, bool) {
	if len(parts) > 0 && parts[len(parts)-1] == "clicks" {
		return []sema.Column{{Name: "page", Type: "string"}, {Name: "ts", Type: "timestamp"}}, true
	}
	return nil, false
}

// TestStreamingSparkWindowGrouping: the translation of an aggregate
// grouped by Spark's window(ts, '1 minute') is read as a window of the
// watermark column, so that append mode emits a window once the
// watermark passes its end (as Spark does), not once a group's latest
// event is behind the watermark: the output column may be window.start,
// window.end or the window struct itself.
func TestStreamingSparkWindowGrouping(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE clicks (page VARCHAR, ts TIMESTAMP); INSERT INTO clicks VALUES ('/a', TIMESTAMP '2026-01-01 10:00:05'), ('/a', TIMESTAMP '2026-01-01 10:00:59'), ('/b', NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, sel   string
		col         int
		field       string // the window key's field (the column is the struct)
		closedAt    string // the earliest watermark that closes the window
		notClosedAt string
	}{
		{name: "start", sel: "window.start AS w, page", col: 0, closedAt: "2026-01-01 10:01:00", notClosedAt: "2026-01-01 10:00:59"},
		{name: "end", sel: "window.end AS w, page", col: 0, closedAt: "2026-01-01 10:01:00", notClosedAt: "2026-01-01 10:00:59"},
		{name: "struct", sel: "window, page", col: 0, field: "start", closedAt: "2026-01-01 10:01:00", notClosedAt: "2026-01-01 10:00:59"},
		{name: "after the page", sel: "page, window.start AS w", col: 1, closedAt: "2026-01-01 10:01:00", notClosedAt: "2026-01-01 10:00:59"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := "SELECT " + tc.sel + ", count(*) AS n FROM clicks GROUP BY window(ts, '1 minute'), page"
			if tc.col == 1 {
				q = "SELECT " + tc.sel + ", count(*) AS n FROM clicks GROUP BY page, window(ts, '1 minute')"
			}
			r := translate.TranslateText(q, translate.Options{Catalog: clicksCatalog{}})
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s", r.Findings[0].Message)
			}
			rows, err := conn.QueryContext(ctx, "SELECT * FROM ("+r.SQL+") LIMIT 0")
			if err != nil {
				t.Fatalf("%v\n%s", err, r.SQL)
			}
			cols, _ := rows.Columns()
			rows.Close()
			g, err := analyzeGrouping(ctx, conn, r.SQL, "ts", cols)
			if err != nil {
				t.Fatal(err)
			}
			if g.window == nil || g.window.col != tc.col || g.window.field != tc.field {
				t.Fatalf("window key %+v, want column %d field %q\n%s", g.window, tc.col, tc.field, r.SQL)
			}
			if !g.keysOK || len(g.keys) != 2 {
				t.Errorf("keys %v (ok %v), want both grouping columns", g.keys, g.keysOK)
			}
			// The closing condition closedGroups writes, on the result.
			start := quoteIdent(cols[g.window.col])
			if g.window.field != "" {
				start = "(" + start + ")." + quoteIdent(g.window.field)
			}
			for wm, want := range map[string]bool{tc.closedAt: true, tc.notClosedAt: false} {
				var n int
				cond := start + " + " + g.window.width + " <= TIMESTAMP '" + wm + "'"
				if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM ("+r.SQL+") WHERE "+cond).Scan(&n); err != nil {
					t.Fatalf("%v\n%s", err, cond)
				}
				if (n == 1) != want {
					t.Errorf("at watermark %s: %d windows closed, want closed=%v (%s)", wm, n, want, cond)
				}
			}
		})
	}
}
