package engine

import "testing"

// TestCSVLoadTimestampOffsets: a Python load of a CSV file with header
// and inferSchema reads a timestamp with Z or an offset as the instant it
// names, in UTC, as Spark does (checked on Spark 4.1.4:
// spark.read.csv(path, header=True, inferSchema=True) gave TIMESTAMP
// columns and 2025-01-01 08:00:00 for 2025-01-01T10:00:00+02:00,
// 2025-01-01 15:30:00 for 2025-01-01T10:00:00-05:30); DuckDB's reader
// alone kept the wall-clock time and dropped the offset.
func TestCSVLoadTimestampOffsets(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"spark-pipeline.yml":   "name: p\nstorage: file:///tmp/p\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"samples/ts.csv":       "z,off,neg,plain,day\n2025-01-01T10:00:00Z,2025-01-01T10:00:00+02:00,2025-01-01T10:00:00-05:30,2025-01-01 10:00:00,2025-01-05\n",
		"transformations/p.py": "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef pts():\n    return spark.read.csv(\"/data/ts.csv\", header=True, inferSchema=True)\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "types", rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE pts)"),
		[]string{"z TIMESTAMP; off TIMESTAMP; neg TIMESTAMP; plain TIMESTAMP; day DATE"})
	sameRows(t, "rows", rowsOf(t, s, "SELECT CAST(z AS VARCHAR), CAST(off AS VARCHAR), CAST(neg AS VARCHAR), CAST(plain AS VARCHAR), CAST(day AS VARCHAR) FROM pts"),
		[]string{"2025-01-01 10:00:00|2025-01-01 08:00:00|2025-01-01 15:30:00|2025-01-01 10:00:00|2025-01-05"})
}
