package capab

import (
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Syntax features: SQL constructs that only some backends read. Analysis
// records each use on the dataset or flow (ir.Construct, whose Name is
// the feature), and the matrix below says who reads it. The Databricks
// cells follow Databricks' public SQL reference for Lakeflow Declarative
// Pipelines ("CREATE STREAMING TABLE (pipelines)", "CREATE MATERIALIZED
// VIEW (pipelines)", "Manage data quality with pipeline expectations",
// "AUTO CDC INTO (pipelines)", "APPLY CHANGES INTO", "read_files table-
// valued function", "LIVE schema (legacy)"); the Spark cells were checked
// against Spark's own parser (4.1.4 and 4.3.0, docs/format.md §6).
const (
	SynOrRefresh    Feature = "CREATE OR REFRESH"
	SynPrivate      Feature = "CREATE PRIVATE"
	SynTemporary    Feature = "a TEMPORARY streaming table or materialized view"
	SynLive         Feature = "a LIVE table or view"
	SynLiveRef      Feature = "a LIVE.x reference"
	SynExpect       Feature = "CONSTRAINT ... EXPECT"
	SynPyExpect     Feature = "an @expect decorator"
	SynApplyChanges Feature = "APPLY CHANGES INTO"
	SynAutoCDC      Feature = "AUTO CDC"
	SynTruncateWhen Feature = "APPLY AS TRUNCATE WHEN"
	SynIgnoreNulls  Feature = "IGNORE NULL UPDATES"
	SynTrackHistory Feature = "TRACK HISTORY ON"
	SynOnce         Feature = "INSERT INTO ONCE"
	SynReadFiles    Feature = "read_files(...)"
	SynCloudFiles   Feature = "cloud_files(...)"
	SynReadKafka    Feature = "read_kafka(...)"
	// SynClusterAuto is Databricks' CLUSTER BY AUTO (automatic liquid
	// clustering) or CLUSTER BY NONE on a streaming table or
	// materialized view; Spark's CLUSTER BY takes a column list only.
	SynClusterAuto Feature = "CLUSTER BY AUTO | NONE"
	// SynFlowReplaceWhere is a streaming table's own FLOW REPLACE WHERE
	// predicate BY NAME query, which replaces the rows matching the
	// predicate on each update.
	SynFlowReplaceWhere Feature = "FLOW REPLACE WHERE ... BY NAME"
	// SynIdentityColumn and SynGeneratedColumn are a declared column
	// GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY, and one GENERATED
	// ALWAYS AS (expr), of a pipeline dataset.
	SynIdentityColumn  Feature = "an IDENTITY column"
	SynGeneratedColumn Feature = "a GENERATED ALWAYS AS (...) column"
	// SynQualify is a query's QUALIFY clause, which Spark reads from 4.2
	// on (SPARK-31561; pyspark 4.1.4's parser refuses it, 4.2.1's and
	// 4.3.0's read it) and Databricks SQL reads too.
	SynQualify Feature = "QUALIFY"
	// SynOrReplaceMV and SynOrReplaceST are CREATE OR REPLACE on a
	// materialized view or streaming table, which no backend reads:
	// Spark's grammar has no OR REPLACE there, a Databricks pipeline
	// writes OR REFRESH.
	SynOrReplaceMV Feature = "CREATE OR REPLACE MATERIALIZED VIEW"
	SynOrReplaceST Feature = "CREATE OR REPLACE STREAMING TABLE"
	// SynCellNoSemicolon is a statement of a notebook export that ends at
	// a cell boundary with no ';' while another statement follows.
	SynCellNoSemicolon Feature = "a notebook cell ending without ';'"
)

// onDatabricks names Databricks as the backend that reads a construct,
// for the Spark cells' reasons.
const onDatabricks = " (it is Databricks SQL: check against the databricks backend, or run natively)"

// syntaxRows are the syntax features' cells: native's, each Spark
// version's and Databricks'.
var syntaxRows = map[Feature]map[ir.Backend]Support{
	SynOrRefresh: dbxOnly(no("Spark's grammar has no CREATE OR REFRESH (Spark refreshes every dataset on each run): write CREATE MATERIALIZED VIEW or CREATE STREAMING TABLE" + onDatabricks)),
	// Spark 4.1.4's spark-pipelines dry-run: PARSE_SYNTAX_ERROR at
	// MATERIALIZED (QA13 v10).
	SynOrReplaceMV: {
		ir.Native:     no("a materialized view is recomputed on each run, so there is nothing to replace, and no pipeline platform reads OR REPLACE here: write plain CREATE MATERIALIZED VIEW (a Databricks pipeline also reads CREATE OR REFRESH MATERIALIZED VIEW)"),
		ir.Spark41:    no(orReplaceSpark("MATERIALIZED VIEW")),
		ir.Spark42:    no(orReplaceSpark("MATERIALIZED VIEW")),
		ir.Spark43:    no(orReplaceSpark("MATERIALIZED VIEW")),
		ir.Databricks: no(orReplaceDatabricks("MATERIALIZED VIEW")),
	},
	SynOrReplaceST: {
		ir.Native:     no("no pipeline platform reads OR REPLACE on a streaming table: write plain CREATE STREAMING TABLE (a Databricks pipeline also reads CREATE OR REFRESH STREAMING TABLE)"),
		ir.Spark41:    no(orReplaceSpark("STREAMING TABLE")),
		ir.Spark42:    no(orReplaceSpark("STREAMING TABLE")),
		ir.Spark43:    no(orReplaceSpark("STREAMING TABLE")),
		ir.Databricks: no(orReplaceDatabricks("STREAMING TABLE")),
	},
	SynPrivate:   dbxOnly(no("Spark's grammar has no PRIVATE datasets: write CREATE TEMPORARY VIEW for a dataset only the pipeline reads, or drop PRIVATE" + onDatabricks)),
	SynTemporary: dbxOnly(no("Spark has no temporary streaming tables or materialized views: write CREATE TEMPORARY VIEW, or drop TEMPORARY" + onDatabricks)),
	SynLive:      dbxOnly(no("Spark's grammar has no LIVE tables or views: write CREATE MATERIALIZED VIEW for LIVE TABLE, CREATE STREAMING TABLE for STREAMING LIVE TABLE, CREATE TEMPORARY VIEW for LIVE VIEW" + onDatabricks)),
	SynLiveRef:   dbxOnly(no("Spark has no LIVE schema, so LIVE.x names a table x in a schema called LIVE (TABLE_OR_VIEW_NOT_FOUND): read the dataset by its own name" + onDatabricks)),
	SynExpect:    dbxOnly(no("open-source Spark Declarative Pipelines have no expectations: CONSTRAINT ... EXPECT is in none of the Spark 4.1 to 4.3 grammars; remove the constraint, or restrict the dataset with `-- @backends: native`" + onDatabricks)),
	// An @expect decorator is in a .py file, which takes no `-- @...`
	// pragma: the fix is the decorator itself or thund.yaml's backends.
	SynPyExpect: dbxOnly(no("open-source Spark Declarative Pipelines have no expectations: pyspark.pipelines (Spark 4.1 to 4.3) has no expect, expect_or_drop or expect_or_fail decorator; remove the decorator, " +
		"or check the pipeline only where expectations run, with thund.yaml `backends: [native, databricks]` (a Python file has no per-dataset `@backends` pragma; Databricks' dlt module has the decorators: check against the databricks backend, or run natively)")),
	SynApplyChanges: {
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.1 has no apply-changes flows, in SQL or otherwise: target spark-4.3 (CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (...) SEQUENCE BY ...) or databricks, or run natively"),
		ir.Spark42:    no("Spark 4.2 has no CDC in SQL (its apply-changes flows come over Spark Connect only): target spark-4.3, which writes it CREATE FLOW f AS AUTO CDC INTO t ..., or databricks, or run natively"),
		ir.Spark43:    no("Spark 4.3 writes it CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (...) SEQUENCE BY ...; APPLY CHANGES INTO is Databricks SQL" + onDatabricks),
		ir.Databricks: yes,
	},
	SynAutoCDC: {
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.3 accepts AUTO CDC INTO; Spark 4.1 has no CDC: target spark-4.3 or databricks, or run natively"),
		ir.Spark42:    no("Spark 4.3 accepts AUTO CDC INTO; Spark 4.2 has no CDC in SQL: target spark-4.3 or databricks, or run natively"),
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
	SynTruncateWhen: dbxOnly(no("Spark's AUTO CDC has no APPLY AS TRUNCATE WHEN (Databricks SQL, SCD type 1 only): leave it out" + onDatabricks)),
	// IGNORE NULL UPDATES runs natively for SCD 1 (analysis warns for
	// SCD 2).
	SynIgnoreNulls: dbxOnly(no("Spark's AUTO CDC has no IGNORE NULL UPDATES (Databricks SQL): leave it out" + onDatabricks)),
	// TRACK HISTORY ON is in Spark 4.3's AUTO CDC; on 4.1 and 4.2 the
	// AUTO CDC or APPLY CHANGES error already refuses the flow.
	SynTrackHistory: {
		ir.Native:     yes,
		ir.Spark41:    yes,
		ir.Spark42:    yes,
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
	SynOnce: dbxOnly(no("Spark has no one-time flows (INSERT INTO ONCE is Databricks SQL): write CREATE FLOW f AS INSERT INTO t over a stream, or load the backfill into a source" + onDatabricks)),
	SynReadFiles: dbxOnly(no("Spark has no read_files table function (Databricks SQL): a materialized view reads the files as format.`path` (SELECT * FROM json.`/data/orders/`); " +
		"a streaming table cannot stream files in Spark SQL (STREAM format.`path` is a batch relation, INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE), so define it in Python, @dp.table returning spark.readStream.format(\"json\").schema(\"id BIGINT, ...\").load(\"/data/orders/\")" + onDatabricks)),
	// Spark 4.1.4 and 4.3.0 (spark.sql's CREATE TABLE t (a INT) CLUSTER BY
	// AUTO and spark-pipelines dry-run of a materialized view with it):
	// PARSE_SYNTAX_ERROR at AUTO or NONE, "missing '('". 4.2 has the same
	// clusterBySpec rule. Clustering changes how the table is stored,
	// never its rows, so a native run ignores it.
	SynClusterAuto: dbxOnly(no("Spark's CLUSTER BY takes a parenthesised column list only (PARSE_SYNTAX_ERROR at AUTO or NONE: missing '('): leave the clause out, clustering changes no rows; CLUSTER BY (col, ...) names the columns (Spark 4.1's pipelines refuse that too)" + onDatabricks)),
	// Spark 4.1.4's spark-pipelines run of a materialized view: with the
	// column in the query the table holds the query's value (b INT
	// GENERATED ALWAYS AS (a + 1) kept 5 for a = 1; an identity column
	// kept 7), without it the run fails (the column number of the
	// existing table doesn't match the data schema). The native engine
	// numbers an identity column's rows, and refuses a generated one when
	// it runs (engine/run.go).
	SynIdentityColumn:  dbxOnly(no(generatedSpark("an identity column", "the IDENTITY clause"))),
	SynGeneratedColumn: dbxOnly(no(generatedSpark("a generated column", "the expression"))),
	// Spark 4.1.4 stops at FLOW, 4.3.0 at REPLACE (PARSE_SYNTAX_ERROR,
	// spark-pipelines dry-run).
	SynFlowReplaceWhere: {
		ir.Native:     no("the native engine does not run REPLACE WHERE flows (Databricks replaces the table's rows matching the predicate on each update): check this dataset against databricks only, with `-- @backends: databricks`, or write FLOW INSERT BY NAME query to append instead"),
		ir.Spark41:    no(replaceWhereSpark),
		ir.Spark42:    no(replaceWhereSpark),
		ir.Spark43:    no(replaceWhereSpark),
		ir.Databricks: yes,
	},
	// Spark 4.1.4: PARSE_SYNTAX_ERROR at '=>' in STREAM read_kafka(...);
	// 4.3.0 parses it and fails with UNRESOLVABLE_TABLE_VALUED_FUNCTION
	// (spark.sql and spark-pipelines dry-run).
	SynReadKafka: dbxOnly(no("Spark SQL has no read_kafka table function (Spark 4.1: PARSE_SYNTAX_ERROR at '=>'; 4.3: UNRESOLVABLE_TABLE_VALUED_FUNCTION): define the stream in Python, " +
		"@dp.table returning spark.readStream.format(\"kafka\").option(\"kafka.bootstrap.servers\", ...).option(\"subscribe\", topic).load(), with Spark's Kafka connector (spark-sql-kafka) on the server" + onDatabricks)),
	SynCloudFiles: dbxOnly(no("Spark has no cloud_files (Databricks Auto Loader), and a streaming table cannot stream files in Spark SQL (STREAM format.`path` is a batch relation, INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE): define it in Python, @dp.table returning spark.readStream.format(...).schema(...).load(path), with the files' own format" + onDatabricks)),
	// The native engine's Spark-to-DuckDB translation does not carry
	// QUALIFY yet, and a run without the filter would give other rows.
	// Spark's pipelines read a .sql file as statements split at ';'
	// (SqlGraphRegistrationContext.splitSqlFileIntoQueries); Databricks
	// runs a notebook's cells one by one.
	SynCellNoSemicolon: dbxOnly(no("Spark reads a .sql file as statements split at ';' only: it knows no notebook cells (`-- COMMAND ----------` is a comment to it), so this statement and the next cell's are read as one, a PARSE_SYNTAX_ERROR: end the statement with ';' (Databricks runs a notebook's cells one by one: check against the databricks backend, or run natively)")),
	SynQualify: {
		// The native engine runs it as DuckDB's QUALIFY (translate).
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.1's grammar has no QUALIFY clause (Spark 4.2 and Databricks read it; Spark 4.1 takes QUALIFY for a table alias and fails with PARSE_SYNTAX_ERROR after it): filter the window function in an outer query, SELECT * FROM (SELECT ..., row_number() OVER (...) AS rn FROM t) WHERE rn = 1, or target spark-4.2, spark-4.3 or databricks"),
		ir.Spark42:    yes,
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
}

// replaceWhereSpark is why Spark refuses FLOW REPLACE WHERE.
const replaceWhereSpark = "Spark's CREATE STREAMING TABLE has no FLOW REPLACE WHERE clause (PARSE_SYNTAX_ERROR; Databricks SQL): Spark's flows only append, " +
	"so write CREATE STREAMING TABLE t; and CREATE FLOW f AS INSERT INTO t BY NAME query, or a materialized view recomputed on each run" + onDatabricks

// generatedSpark is why Spark refuses what, a column the table computes
// with how.
func generatedSpark(what, how string) string {
	return "Spark's pipelines do not compute " + what + ": the table holds what the query gives (Spark ignores " + how + "), and a materialized view's run fails when its query does not give the column " +
		"(the column number of the existing table doesn't match the data schema; Spark 4.1.4): compute the value in the query and declare a plain column" + onDatabricks
}

// orReplaceSpark is why Spark refuses CREATE OR REPLACE kind: its
// grammar has CREATE OR REPLACE for tables and views, not for the
// pipeline datasets, and CREATE OR REFRESH is Databricks SQL, so only the
// plain form is offered.
func orReplaceSpark(kind string) string {
	return "Spark's grammar has no OR REPLACE for a " + strings.ToLower(kind) + " (PARSE_SYNTAX_ERROR at " + strings.Fields(kind)[0] +
		"; Spark's pipelines refresh every dataset on each run): write plain CREATE " + kind
}

// orReplaceDatabricks is why a Databricks pipeline refuses CREATE OR
// REPLACE kind: its form is CREATE [OR REFRESH] kind.
func orReplaceDatabricks(kind string) string {
	return "a Databricks pipeline's CREATE " + kind + " takes OR REFRESH, not OR REPLACE: write CREATE OR REFRESH " + kind + " or plain CREATE " + kind
}

// dbxOnly is a row natively run and read by Databricks that every Spark
// version refuses with s.
func dbxOnly(s Support) map[ir.Backend]Support {
	return map[ir.Backend]Support{ir.Native: yes, ir.Spark41: s, ir.Spark42: s, ir.Spark43: s, ir.Databricks: yes}
}

// pragmaOnDatabricks ends the reason Databricks cannot run a pragma:
// Databricks reads a `-- @...` line as the comment it is.
const pragmaOnDatabricks = "Databricks reads the pragma as a comment, so its pipeline would run without it: "

// databricksCells are the Databricks cells of the features the Spark
// matrix lists: what a Databricks pipeline runs of Thund's pragmas and
// query syntax.
var databricksCells = map[Feature]Support{
	Expectations:       no(pragmaOnDatabricks + "write the expectation in the statement, CONSTRAINT name EXPECT (cond) [ON VIOLATION DROP ROW | FAIL UPDATE]"),
	OutputModeUpdate:   no("Databricks streaming tables only append; use a materialized view for an aggregate that updates"),
	OutputModeComplete: no("Databricks streaming tables only append; a materialized view gives the complete result"),
	CDCFlow:            no(pragmaOnDatabricks + "write the flow as AUTO CDC INTO (or APPLY CHANGES INTO) target FROM STREAM(source) KEYS (...) SEQUENCE BY ..."),
	CDCSCD2:            no(pragmaOnDatabricks + "write the flow as AUTO CDC INTO ... STORED AS SCD TYPE 2"),
	SinkDataset:        no("Databricks defines sinks only from Python (create_sink), not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`"),
	WatermarkSetting:   no(pragmaOnDatabricks + "write the query's own WATERMARK col DELAY OF INTERVAL ... clause"),
	PersistentView:     yes,
	TriggerInterval:    differs("Databricks sets triggers for the whole pipeline (triggered or continuous mode), not per flow; the interval is ignored there"),
	DuckDBSyntax:       differs("only DuckDB's parser accepts this query (EXCLUDE, FROM-first, ...), and Databricks SQL will likely reject it; rewrite it in Spark SQL, or restrict the dataset with `-- @backends: native`"),
	SparkSyntax:        yes,
}

func init() {
	for f, s := range databricksCells {
		if cells, ok := Matrix[f]; ok {
			cells[ir.Databricks] = s
		}
	}
	for f, cells := range syntaxRows {
		Matrix[f] = cells
	}
}

// sqlCDC reports whether a flow's CDC spec comes from its statement
// (APPLY CHANGES INTO, AUTO CDC) rather than from an `@cdc` pragma.
func sqlCDC(f *ir.Flow) bool {
	for _, c := range f.Syntax {
		if c.Name == string(SynApplyChanges) || c.Name == string(SynAutoCDC) {
			return true
		}
	}
	return false
}

// cdcForm names how flow f applies changes, for messages: its SQL
// statement (APPLY CHANGES INTO, AUTO CDC) or the `@cdc` pragma.
func cdcForm(f *ir.Flow) string {
	for _, c := range f.Syntax {
		switch c.Name {
		case string(SynApplyChanges):
			return "APPLY CHANGES INTO"
		case string(SynAutoCDC):
			return "AUTO CDC"
		}
	}
	if f.CDC != nil && strings.HasSuffix(f.CDC.Loc.File, ".py") {
		return "a Python CDC flow"
	}
	return "@cdc"
}

// unreadCDC drops the findings about CDC flows whose statement b does
// not read (APPLY CHANGES INTO on Spark, AUTO CDC before 4.3): b stops at
// the statement, so the statement's error is the whole story.
func unreadCDC(p *ir.Pipeline, b ir.Backend, fs []Finding) []Finding {
	unread := map[ir.Loc]bool{}
	for _, f := range p.Flows {
		for _, c := range f.Syntax {
			if c.Name != string(SynApplyChanges) && c.Name != string(SynAutoCDC) {
				continue
			}
			if s, ok := Matrix[Feature(c.Name)][b]; ok && !s.OK {
				unread[c.Loc] = true
			}
		}
	}
	if len(unread) == 0 {
		return fs
	}
	out := fs[:0:0]
	for _, f := range fs {
		if !unread[f.Diagnostic.Loc] {
			out = append(out, f)
		}
	}
	return out
}

// WrittenForDatabricks reports whether the pipeline uses a construct only
// Databricks reads (every syntax feature but Spark 4.3's AUTO CDC and
// TRACK HISTORY ON), so that it was written for Lakeflow Declarative
// Pipelines.
func WrittenForDatabricks(p *ir.Pipeline) bool {
	dbx := func(cs []ir.Construct) bool {
		for _, c := range cs {
			if sparkRefusals[Feature(c.Name)] {
				continue
			}
			if s, ok := Matrix[Feature(c.Name)][ir.Spark43]; ok && !s.OK {
				return true
			}
		}
		return false
	}
	for _, d := range p.Datasets {
		if dbx(d.Syntax) {
			return true
		}
	}
	for _, f := range p.Flows {
		if dbx(f.Syntax) {
			return true
		}
	}
	return false
}
