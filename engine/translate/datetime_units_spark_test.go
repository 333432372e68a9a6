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

// TestSparkDatetimeLA runs laCases on a real Spark Connect server under
// the session zone America/Los_Angeles (ANSI mode) and checks that Spark
// gives the rows or the error class the table records; TestDatetimeLA
// holds the translation to the same table.
func TestSparkDatetimeLA(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, set := range []string{"SET spark.sql.session.timeZone=America/Los_Angeles", "SET spark.sql.timeType.enabled=true"} {
		if err := c.SQL(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if err := c.SQL(ctx, "SET spark.sql.session.timeZone=UTC"); err != nil {
			t.Fatal(err)
		}
	}()
	for _, tc := range laCases {
		t.Run(tc.name, func(t *testing.T) {
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
