package capab

import "github.com/thund-dev/thund/ir"

// Python-API features whose support differs between backends. Analysis
// records each use on the flow (ir.Construct, whose Name is the feature)
// when it reads a .py library (analysis/python.go).
const (
	// SynPyTableBatch is an @dp.table / @dlt.table function whose body
	// Thund reads in full (a query it states in SQL) and which reads no
	// stream. pyspark's pipelines client registers every @table as a
	// streaming table, and Spark fails a streaming table whose flow is a
	// batch relation (checked with spark-pipelines run on Spark 4.1.4:
	// INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE).
	// Databricks decides by the query: an @dlt.table over a batch read is
	// a materialized view there (Databricks' Python language reference:
	// "the @table decorator can be used to define both materialized views
	// and streaming tables"), and the native engine computes it as one.
	SynPyTableBatch Feature = "an @table whose query reads no stream"
)

// pyTableBatchReason is why Spark refuses SynPyTableBatch.
const pyTableBatchReason = "pyspark.pipelines registers every @table as a streaming table, and a streaming table's flow must read a stream: " +
	"Spark fails the run with INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE (a batch relation written to a streaming table); " +
	"define a batch result with @dp.materialized_view, or read the input as a stream (spark.readStream.table(...), dp.read_stream(...)) " +
	"(Databricks makes an @dlt.table over a batch read a materialized view: check against the databricks backend, or run natively)"

// pythonRows are the Python-API features' cells.
var pythonRows = map[Feature]map[ir.Backend]Support{
	SynPyTableBatch: dbxOnly(no(pyTableBatchReason)),
}

func init() {
	for f, cells := range pythonRows {
		Matrix[f] = cells
	}
}

// SynPyNotebookSQL is a dataset or flow written in a `# MAGIC %sql` cell
// of a Databricks notebook exported as a .py file. Spark's pipelines
// import the file as Python, where the cell's lines are comments, so
// Spark defines nothing from it; Databricks runs one language per
// pipeline source file (Databricks' "Develop pipeline code": "each file
// can only contain one language"; SQL in a Python notebook is written
// spark.sql("...")). Only the native engine runs it.
const SynPyNotebookSQL Feature = "a %sql cell of a Python notebook"

func init() {
	spark := no("spark-pipelines imports a .py file as Python, where the `# MAGIC` lines of the cell are comments, so Spark defines nothing from it: move the statement into a .sql file, or return spark.sql(\"...\") from a @dp.materialized_view function")
	Matrix[SynPyNotebookSQL] = map[ir.Backend]Support{
		ir.Native: yes, ir.Spark41: spark, ir.Spark42: spark, ir.Spark43: spark,
		ir.Databricks: no("Databricks runs one language per pipeline source file, so a %sql cell of a Python notebook is not part of the pipeline: move the cell into a SQL notebook or a .sql file, or return spark.sql(\"...\") from a @dlt.table function"),
	}
}
