package sdplower

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// A Python step over a load naming the load's hidden _metadata column is
// refused before any call: Thund sends such a step as SQL over the load,
// and Spark resolves no _metadata through that SQL's reference
// (TestSparkMetadataThroughReference). Steps that do not name it, and
// a string that merely says "_metadata", are sent.
func TestLowerPythonRefusesMetadataThroughSQL(t *testing.T) {
	_, p, txt := analyse(t, map[string]string{
		"transformations/a.py": pyHeader + "from pyspark.sql.functions import col\n\n" +
			"@dp.materialized_view\ndef tagged():\n    return spark.read.format(\"json\").load(\"/landing/ev/\").select(\"id\", col(\"_metadata.file_name\").alias(\"f\"))\n\n" +
			"@dp.materialized_view\ndef plain():\n    return spark.read.format(\"json\").load(\"/landing/more/\").where(\"kind = '_metadata'\")\n",
		"samples/ev/1.json":   "{\"id\": 1, \"kind\": \"a\"}\n",
		"samples/more/1.json": "{\"id\": 1, \"kind\": \"a\"}\n",
	})
	g, errs := LowerWith(p, ir.Spark41, Options{Texts: txt})
	if g != nil || len(errs) != 1 {
		t.Fatalf("want one refusal, got graph %v, %+v", g != nil, errs)
	}
	e := errs[0]
	if e.Severity != ir.Error || e.Backend != ir.Spark41 || !strings.Contains(e.Message, "tagged names the hidden _metadata column") ||
		!strings.Contains(e.Message, "UNRESOLVED_COLUMN.WITH_SUGGESTION") || !strings.Contains(e.Message, "spark-pipelines run") {
		t.Errorf("refusal: %+v", e)
	}
	if at := txt[e.Loc.File][e.Loc.Start:e.Loc.End]; !strings.HasPrefix(at, "spark.read.format(\"json\").load(\"/landing/ev/\")") {
		t.Errorf("refusal at %q, want the load", at)
	}
	for sql, want := range map[string]bool{
		"SELECT id, _metadata.file_name AS f FROM ev":      true,
		"SELECT `_metadata`.file_path FROM ev":             true,
		"SELECT * FROM ev WHERE kind = '_metadata'":        false,
		"SELECT my_metadata, _metadata_x FROM ev":          false,
		"SELECT * FROM ev WHERE kind = \"it's _metadata\"": false,
	} {
		if got := namesMetadata(sql); got != want {
			t.Errorf("namesMetadata(%q) = %v", sql, got)
		}
	}
}

// TestSparkMetadataThroughReference: on a real server, the relation the
// refusal above avoids, SQL naming _metadata over a load sent as a
// WithRelations reference, fails the pipeline with UNRESOLVED_COLUMN (as
// pyspark's spark.sql("... {df}", df=load) does, Spark 4.1.4), while the
// same pipeline without _metadata runs: the refusal stays true of the
// server. The graph is lowered from a step without _metadata, then its
// SQL is made to name it, as Thund would have sent it.
func TestSparkMetadataThroughReference(t *testing.T) {
	dir := t.TempDir()
	root := writePipelineIn(t, dir, map[string]string{
		"transformations/a.py": pyHeader +
			"@dp.materialized_view\ndef tagged():\n    return spark.read.format(\"json\").load(\"" + dir + "/in/ev/\").select(\"id\")\n",
		"samples/ev/1.json": "{\"id\": 1, \"kind\": \"a\"}\n",
		"in/ev/1.json":      "{\"id\": 1, \"kind\": \"a\"}\n",
	})
	s := load(t, root)
	backend := sparktest.Backend(t)
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i, withMetadata := range []bool{false, true} {
		g, diags := LowerWith(s.Pipeline, backend, Options{Texts: texts(s)})
		if g == nil {
			t.Fatalf("Lower refused: %v", diags)
		}
		sql := relationOf(t, g, "tagged").Relation.GetWithRelations().GetRoot().GetSql()
		if sql == nil || !strings.HasPrefix(sql.Query, "SELECT ") || !strings.Contains(sql.Query, "FROM ev") {
			t.Fatalf("tagged is not sent as SQL over its load: %v", relationOf(t, g, "tagged").Relation)
		}
		if withMetadata {
			sql.Query = "SELECT _metadata.file_name AS f, " + strings.TrimPrefix(sql.Query, "SELECT ")
		}
		db := fmt.Sprintf("thund_pymeta_%d_%d", time.Now().UnixNano(), i)
		if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
		g.Database = db
		_, events, err := push(t, g, Run{Storage: "file://" + t.TempDir() + "/storage"})
		var said []string
		for _, e := range events {
			said = append(said, e.Message)
		}
		all := fmt.Sprint(err) + strings.Join(said, "\n")
		switch {
		case !withMetadata && err != nil:
			t.Fatalf("the SQL without _metadata: %v\n%s", err, all)
		case withMetadata && (err == nil || !strings.Contains(all, "UNRESOLVED_COLUMN")):
			t.Errorf("SQL naming _metadata through the reference: want UNRESOLVED_COLUMN, got %v\n%s", err, all)
		}
	}
}
