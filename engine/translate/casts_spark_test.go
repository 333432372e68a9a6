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

// TestSparkCasts runs castCases on a real Spark Connect server (session
// time zone UTC, ANSI mode unless the case says otherwise); TestCasts
// holds the translation to the same table.
func TestSparkCasts(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.SQL(ctx, "SET spark.sql.session.timeZone=UTC"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range castCases {
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
			rows, err := sparkRows(ctx, c, tc.query)
			if tc.errClass != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errClass) {
					t.Fatalf("Spark gives %v (rows %v), the table records the error class %s", err, rows, tc.errClass)
				}
				return
			}
			if err != nil {
				t.Fatalf("Spark: %v", err)
			}
			if got, want := fmt.Sprint(rows), fmt.Sprint([][]string{tc.want}); got != want {
				t.Errorf("Spark's rows %s, the table's %s", got, want)
			}
		})
	}
}
