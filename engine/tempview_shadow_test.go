package engine

import (
	"testing"
)

// TestTemporaryViewReadAsStreamStays: a temporary view a streaming flow
// reads as a stream (APPLY CHANGES FROM STREAM(src), a stream of the
// view's source) is still there after the run, with its rows, for the
// preview: the stream's shadow took its place during the flow and used to
// drop it ("Table with name src does not exist").
func TestTemporaryViewReadAsStreamStays(t *testing.T) {
	for name, sql := range map[string]string{
		"cdc": "CREATE TEMPORARY VIEW src AS SELECT * FROM STREAM(landing);\n" +
			"CREATE OR REFRESH STREAMING TABLE target;\n" +
			"APPLY CHANGES INTO target FROM STREAM(src) KEYS (id) SEQUENCE BY ts;\n",
		"append": "CREATE TEMPORARY VIEW src AS SELECT * FROM STREAM(landing);\n" +
			"CREATE OR REFRESH STREAMING TABLE target AS SELECT * FROM STREAM(src);\n",
	} {
		t.Run(name, func(t *testing.T) {
			s, res := runFiles(t, t.TempDir(), map[string]string{
				"thund.yaml":          "dialect: databricks\n",
				"samples/landing.csv": "id,v,ts\n1,2,3\n2,5,4\n",
				"p.sql":               sql,
			})
			for _, k := range []string{"src", "target"} {
				if d := res.Datasets[k]; d == nil || d.Phase != Completed {
					t.Fatalf("%s = %+v", k, d)
				}
			}
			var n int
			if err := s.DB().QueryRow("SELECT count(*) FROM " + s.RelationSQL("src")).Scan(&n); err != nil || n != 2 {
				t.Fatalf("the view src after the run: %d rows, %v", n, err)
			}
		})
	}
}
