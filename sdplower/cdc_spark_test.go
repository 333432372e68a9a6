package sdplower

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// cdcSetup creates a database with a parquet changelog `changes` (two
// keys: an insert, an update as before and after images, a delete) and a
// pipeline folder in that database whose one table applies it, stored as
// format with SCD type scd.
func cdcSetup(t *testing.T, c *sparkconnect.Client, format string, scd int) (db string, g *Graph) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db = fmt.Sprintf("thund_cdc_%d", time.Now().UnixNano())
	for _, q := range []string{
		"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".changes (id INT, v STRING, seq INT, _change_type STRING) USING parquet",
		"INSERT INTO " + db + ".changes VALUES (1, 'a', 1, 'INSERT'), (2, 'b', 2, 'INSERT'), " +
			"(1, 'a', 3, 'UPDATE_BEFORE'), (1, 'z', 3, 'UPDATE_AFTER'), (2, 'b', 4, 'DELETE')",
	} {
		if err := c.SQL(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
	dir := writePipeline(t, map[string]string{
		"thund.yaml":          "backends: [native]\n",
		"samples/changes.csv": "id,v,seq,_change_type\n",
		"transformations/cur.sql": fmt.Sprintf("-- @kind: streaming_table\n-- @format: %s\n-- @cdc: keys=(id) sequence_by=seq scd=%d\n", format, scd) +
			"SELECT * FROM STREAM(changes)\n",
	})
	s := load(t, dir)
	b := sparktest.Backend(t)
	// As if the format merged here: what Spark itself says is the test.
	saved := capab.MergeFormats[b]
	capab.MergeFormats[b] = []string{format}
	t.Cleanup(func() { capab.MergeFormats[b] = saved })
	saved2 := capab.Matrix[capab.CDCSCD2]
	cells := map[ir.Backend]capab.Support{}
	for k, v := range saved2 {
		cells[k] = v
	}
	cells[b] = capab.Support{OK: true}
	capab.Matrix[capab.CDCSCD2] = cells
	t.Cleanup(func() { capab.Matrix[capab.CDCSCD2] = saved2 })
	g, diags := LowerWith(s.Pipeline, b, Options{Texts: texts(s)})
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	g.Database = db
	return db, g
}

// TestSparkCDCFacts pins what Spark 4.2 and 4.3 do with the lowering's
// AutoCdcFlowDetails (issue 18): the dry run accepts an SCD 1 flow, so the
// message is well formed; the run refuses a target that is no row-level
// (MERGE) connector, a parquet table and a Delta table alike
// (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE); 4.2, whose SCDType has no
// SCD_TYPE_2, refuses SCD 2 ("Unsupported AutoCDC SCD type"). These are why the matrix refuses CDC on
// every Spark version here (capab.MergeFormats is empty): if a release or
// a format changes them, this fails.
func TestSparkCDCFacts(t *testing.T) {
	sparktest.NeedVersion(t, "4.2", "4.3")
	c := sparktest.Client(t)
	formats := []string{"parquet"}
	if fmtOut := serverFormat(t, c); fmtOut != "" {
		formats = append(formats, fmtOut)
	}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			_, g := cdcSetup(t, c, format, 1)
			if _, events, err := push(t, g, Run{Dry: true}); err != nil {
				for _, e := range events {
					t.Logf("event: %s", e.Message)
				}
				t.Fatalf("dry run of an SCD 1 AutoCdcFlowDetails flow: %v", err)
			}
			_, _, err := push(t, g, Run{})
			if err == nil || !strings.Contains(err.Error(), "AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE") {
				t.Fatalf("run into %s: %v; want AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE (if it now merges, add %s to capab.MergeFormats and check the rows)", format, err, format)
			}
		})
	}
	if sparktest.Release() != "" && sparkconnect.MinorVersion(sparktest.Release()) == "4.2" {
		t.Run("scd2", func(t *testing.T) {
			_, g := cdcSetup(t, c, "parquet", 2)
			_, _, errDry := push(t, g, Run{Dry: true})
			_, _, errRun := push(t, g, Run{})
			if !strings.Contains(fmt.Sprint(errDry), "Unsupported AutoCDC SCD type") || !strings.Contains(fmt.Sprint(errRun), "Unsupported AutoCDC SCD type") {
				t.Fatalf("SCD 2 on 4.2: dry run %v, run %v; want both refused (Unsupported AutoCDC SCD type)", errDry, errRun)
			}
		})
	}
}

// serverFormat is the MERGE-capable format the server has loaded for
// this test, "" when none: Delta when its catalog is the session's.
func serverFormat(t *testing.T, c *sparkconnect.Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := fmt.Sprintf("thund_fmt_%d", time.Now().UnixNano())
	if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	defer c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE")
	if err := c.SQL(ctx, "CREATE TABLE "+db+".probe (id INT) USING delta"); err != nil {
		return ""
	}
	return "delta"
}
