//go:build duckdb_arrow

package translate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkTraps runs every trap of the table on a real Spark Connect
// server (ANSI mode, session time zone UTC) and checks that Spark still
// gives what the table records: the columns' types (DESCRIBE QUERY), the
// rows (each value cast to STRING by Spark) or the error class. TestTraps
// holds the translation to the same table, so each trap is checked on
// both engines. A trap the translation refuses records Spark's value in
// prose only; its query must still run on Spark.
func TestSparkTraps(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.SQL(ctx, "SET spark.sql.timeType.enabled=true"); err != nil { // the TIME traps; off by default on 4.1
		t.Fatal(err)
	}
	if err := c.SQL(ctx, "SET spark.sql.session.timeZone=UTC"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range traps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.errClass != "" {
				_, err := sparkRows(ctx, c, tc.query)
				if err == nil || !strings.Contains(err.Error(), tc.errClass) {
					t.Fatalf("Spark gives %v, the table records the error class %s", err, tc.errClass)
				}
				return
			}
			rows, err := sparkRows(ctx, c, "DESCRIBE QUERY "+tc.query)
			if err != nil {
				if tc.finding != "" && tc.types == nil && strings.Contains(tc.spark, "[") {
					// The table records that Spark fails (its class in
					// brackets in the note).
					if _, err := sparkRows(ctx, c, tc.query); err == nil {
						t.Fatalf("Spark runs the query; the note says it fails: %s", tc.spark)
					}
					return
				}
				t.Fatalf("Spark: %v", err)
			}
			if tc.finding != "" && tc.types == nil {
				return
			}
			names := make([]string, len(rows))
			types := make([]string, len(rows))
			for i, r := range rows {
				names[i], types[i] = r[0], r[1]
			}
			if strings.Join(types, ", ") != strings.Join(tc.types, ", ") {
				t.Errorf("Spark's types %v, the table's %v", types, tc.types)
			}
			cols := make([]string, len(names))
			for i, n := range names {
				cols[i] = "CAST(`" + strings.ReplaceAll(n, "`", "``") + "` AS STRING)"
			}
			got, err := sparkRows(ctx, c, "SELECT "+strings.Join(cols, ", ")+" FROM ("+tc.query+")")
			if err != nil {
				t.Fatalf("Spark: %v", err)
			}
			want := tc.rows
			if !strings.Contains(tc.query, "ORDER BY") {
				got, want = sorted(got), sorted(want)
			}
			if len(got) != len(want) {
				t.Fatalf("Spark's rows %q, the table's %q", got, want)
			}
			for i := range got {
				for j := range got[i] {
					if j >= len(want[i]) || !sameText(got[i][j], want[i][j], types[j]) {
						t.Errorf("Spark's rows %q, the table's %q", got, want)
						return
					}
				}
			}
		})
	}
}

// sameText compares Spark's text of a value (CAST AS STRING) with the
// table's: the table writes a NULL inside an array as NULL where Spark's
// cast writes null, and a DOUBLE as Go prints it (1e+10 for Spark's
// 1.0E10); the rest is the same text.
func sameText(spark, table, typ string) bool {
	if spark == table {
		return true
	}
	if strings.HasPrefix(typ, "array<") && strings.ReplaceAll(spark, "null", "NULL") == table {
		return true
	}
	if typ == "double" || typ == "float" {
		return strings.TrimSuffix(spark, ".0") == table
	}
	return false
}

// sparkRows runs q on Spark and returns its rows, each value as text
// (NULL for a null), the columns being strings.
func sparkRows(ctx context.Context, c *sparkconnect.Client, q string) ([][]string, error) {
	rr, err := c.QueryArrow(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out [][]string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for j := range row {
				col := rec.Column(j)
				switch {
				case col.IsNull(i):
					row[j] = "NULL"
				default:
					if s, ok := col.(*array.String); ok {
						row[j] = s.Value(i)
					} else {
						row[j] = col.ValueStr(i)
					}
				}
			}
			out = append(out, row)
		}
	}
	return out, rr.Err()
}
