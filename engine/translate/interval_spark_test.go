//go:build duckdb_arrow

package translate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkIntervalTraps runs the interval traps on a real Spark Connect
// server (ANSI mode, session time zone UTC) and checks that Spark gives
// what the table records: the types (DESCRIBE QUERY), every value cast
// to STRING, or the error class. A trap the translation refuses must
// fail on Spark too.
func TestSparkIntervalTraps(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, set := range []string{"SET spark.sql.session.timeZone=UTC", "SET spark.sql.timeType.enabled=true"} {
		if err := c.SQL(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range intervalTraps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noANSI {
				if err := c.SQL(ctx, "SET spark.sql.ansi.enabled=false"); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := c.SQL(ctx, "SET spark.sql.ansi.enabled=true"); err != nil {
						t.Fatal(err)
					}
				}()
			}
			if tc.errClass != "" || tc.finding != "" {
				_, err := sparkRows(ctx, c, tc.query)
				if err == nil {
					t.Fatalf("Spark runs the query; the table records that it fails")
				}
				if tc.errClass != "" && !strings.Contains(err.Error(), tc.errClass) {
					t.Fatalf("Spark fails with %v, the table records %s", err, tc.errClass)
				}
				return
			}
			desc, err := sparkRows(ctx, c, "DESCRIBE QUERY "+tc.query)
			if err != nil {
				t.Fatalf("Spark: %v", err)
			}
			types := make([]string, len(desc))
			for i, r := range desc {
				types[i] = r[1]
			}
			if strings.Join(types, ", ") != strings.Join(tc.types, ", ") {
				t.Errorf("Spark's types %v, the table's %v", types, tc.types)
			}
			casts := make([]string, len(tc.cols))
			for i, col := range tc.cols {
				casts[i] = "CAST(" + col + " AS STRING) AS " + col
			}
			rows, err := sparkRows(ctx, c, "SELECT "+strings.Join(casts, ", ")+" FROM ("+tc.query+")")
			if err != nil {
				t.Fatalf("Spark: %v", err)
			}
			if fmt.Sprint(rows) != fmt.Sprint(tc.rows) {
				t.Errorf("Spark's rows %q, the table's %q", rows, tc.rows)
			}
		})
	}
}
