package capab

import "github.com/thund-dev/thund/ir"

// Registration features: clauses Spark's parser reads but its pipeline
// graph registration (spark-pipelines dry-run and run) refuses, and the
// Databricks pipeline clauses beyond SDP's grammar. Analysis records each
// use on its dataset or flow like the other syntax features, so --check,
// the editor and the Spark push refuse them per backend at their place.
// The Spark cells were checked with Spark 4.1.4's spark-pipelines (each
// statement alone in a pipeline folder, docs/format.md §2b; the AUTO CDC
// column list with 4.3.0); the Databricks cells follow the grammar of
// Databricks' public reference pages "CREATE MATERIALIZED VIEW
// (pipelines)", "CREATE STREAMING TABLE (pipelines)", "ROW FILTER clause"
// and "Column mask clause", and were not run on Databricks.
const (
	SynLocation           Feature = "LOCATION"
	SynPartitionTransform Feature = "a PARTITIONED BY transform"
	SynClusterBy          Feature = "CLUSTER BY in SQL"
	SynTempViewQualified  Feature = "a qualified temporary view name"
	SynTempViewSession    Feature = "a SESSION.v temporary view name"
	SynAutoCDCColumns     Feature = "a column list on a FLOW AUTO CDC streaming table"
	SynRowFilter          Feature = "WITH ROW FILTER"
	SynColumnMask         Feature = "a column MASK"
	SynSchedule           Feature = "SCHEDULE"
	SynRefreshPolicy      Feature = "REFRESH POLICY"
	SynFlowInsert         Feature = "FLOW INSERT ... BY NAME"
	SynSnapshotCDC        Feature = "AUTO CDC ... FROM SNAPSHOT"
	SynDeclaredCase       Feature = "a query column named like a declared column in another case"
	// SynKeyConstraint is a PRIMARY KEY, FOREIGN KEY (REFERENCES) or
	// UNIQUE constraint in a dataset's column list; SynCheckConstraint a
	// CHECK constraint there.
	SynKeyConstraint   Feature = "a PRIMARY KEY, FOREIGN KEY or UNIQUE constraint"
	SynCheckConstraint Feature = "a CHECK constraint"
	// SynStreamFilePath is STREAM format.`path` (STREAM json.`/data/x`)
	// in a streaming table's query: Spark resolves a path read to a batch
	// relation, STREAM or not (ResolveSQLOnFile), which a streaming table
	// refuses. Recorded for file formats, not delta.`path`.
	SynStreamFilePath Feature = "STREAM format.`path` (a file read by path)"
)

// registrationRows are the registration features' cells.
var registrationRows = map[Feature]map[ir.Backend]Support{
	SynLocation: {
		ir.Native:     yes,
		ir.Spark41:    no(locationReason),
		ir.Spark42:    no(locationReason),
		ir.Spark43:    no(locationReason),
		ir.Databricks: yes,
	},
	SynPartitionTransform: {
		ir.Native:  yes,
		ir.Spark41: no(transformReason),
		ir.Spark42: no(transformReason),
		ir.Spark43: no(transformReason),
		ir.Databricks: no("a Databricks pipeline's PARTITIONED BY takes column names only (PARTITIONED BY (col [, ...])), not transforms: " +
			"compute the value in the query and partition by that column, or use CLUSTER BY"),
	},
	// Spark 4.1.4's SQL registration turns CLUSTER BY (cols) into a
	// cluster_by transform and refuses it like a partition transform,
	// whatever the column (spark-pipelines run, 2026-12-03); 4.2 and 4.3
	// were not run, so they are not refused. A Python dataset's cluster_by
	// goes through DefineOutput's clustering columns instead.
	SynClusterBy: {
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.1's pipeline registration refuses CLUSTER BY in a SQL file (PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR: Invalid partitioning transform (cluster_by(...))): leave the clause out, or partition by plain columns (PARTITIONED BY (col))"),
		ir.Spark42:    yes,
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
	SynTempViewQualified: {
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.1 refuses a qualified temporary view name (TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS): a temporary view lives in the session, not in a schema; write CREATE TEMPORARY VIEW v with a one-part name"),
		ir.Spark42:    no("Spark 4.2 takes a temporary view name with one part, or qualified by SESSION only (TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS): write CREATE TEMPORARY VIEW v"),
		ir.Spark43:    no("Spark 4.3 takes a temporary view name with one part, or qualified by SESSION only (TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS): write CREATE TEMPORARY VIEW v"),
		ir.Databricks: no("a temporary view lives in the session, not in a schema, so its name takes no catalog or schema (TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS): write CREATE TEMPORARY VIEW v"),
	},
	SynTempViewSession: {
		ir.Native:     yes,
		ir.Spark41:    no("Spark 4.1 takes a temporary view name with one part only (TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS; Spark 4.2 and later read SESSION.v): write CREATE TEMPORARY VIEW v"),
		ir.Spark42:    yes,
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
	// On 4.1 and 4.2 the AUTO CDC statement itself is refused.
	SynAutoCDCColumns: {
		ir.Native:     yes,
		ir.Spark41:    yes,
		ir.Spark42:    yes,
		ir.Spark43:    no("Spark 4.3 refuses a column list on CREATE STREAMING TABLE ... FLOW AUTO CDC (PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR: explicit column lists are not supported for AUTO CDC streaming tables): omit the column list and let the schema be inferred from the flow, choosing columns with its COLUMNS clause"),
		ir.Databricks: yes,
	},
	SynRowFilter:     dbxOnly(no("open-source Spark has no row filters (WITH ROW FILTER is Unity Catalog's, in Databricks SQL): filter the rows in the query (WHERE ...), or leave the clause out" + onDatabricks)),
	SynColumnMask:    dbxOnly(no("open-source Spark has no column masks (MASK is Unity Catalog's, in Databricks SQL): compute the masked value in the query, or leave the clause out" + onDatabricks)),
	SynRefreshPolicy: dbxOnly(no("Spark's grammar has no REFRESH POLICY (Databricks' incremental refresh of a materialized view; Spark recomputes it on each run): leave the clause out" + onDatabricks)),
	SynFlowInsert:    dbxOnly(no("Spark's CREATE STREAMING TABLE has no FLOW INSERT clause (Databricks SQL): write CREATE STREAMING TABLE t; and CREATE FLOW f AS INSERT INTO t BY NAME query" + onDatabricks)),
	SynSchedule: {
		ir.Native:     differs("SCHEDULE refreshes a Databricks SQL streaming table or materialized view on a timer; a run ignores it"),
		ir.Spark41:    no(scheduleSpark),
		ir.Spark42:    no(scheduleSpark),
		ir.Spark43:    no(scheduleSpark),
		ir.Databricks: no("SCHEDULE and TRIGGER ON UPDATE are clauses of Databricks SQL's CREATE STREAMING TABLE and CREATE MATERIALIZED VIEW outside a pipeline; a pipeline's datasets refresh when the pipeline runs (schedule the pipeline, or its job, instead): leave the clause out"),
	},
	// Spark 4.1.4, 4.2.1 and 4.3.0 checked with spark-pipelines run: 4.1
	// and 4.2 refuse it, 4.3 keeps the declared spelling. Databricks matches names case-insensitively
	// (its reference; not run there).
	SynDeclaredCase: {
		ir.Native:     yes,
		ir.Spark41:    no(declaredCaseReason),
		ir.Spark42:    no(declaredCaseReason),
		ir.Spark43:    yes,
		ir.Databricks: yes,
	},
	// Spark 4.1's parser refuses every constraint on CREATE MATERIALIZED
	// VIEW and CREATE STREAMING TABLE (_LEGACY_ERROR_TEMP_0035). On
	// Databricks a pipeline dataset takes informational primary and
	// foreign keys (the "CONSTRAINT clause" page, with its options), never
	// enforced; CHECK constraints are added with ALTER TABLE only.
	SynKeyConstraint: {
		ir.Native:     yes, // informational: nothing to enforce
		ir.Spark41:    no(keyConstraintReason),
		ir.Spark42:    no(keyConstraintReason),
		ir.Spark43:    no(keyConstraintReason),
		ir.Databricks: yes,
	},
	SynCheckConstraint: {
		ir.Native:     no("a CHECK constraint is not enforced natively, and no backend takes one on a pipeline dataset: write it as an expectation, CONSTRAINT name EXPECT (cond) ON VIOLATION FAIL UPDATE (Databricks), or `-- @expect.name: cond ON VIOLATION FAIL UPDATE`"),
		ir.Spark41:    no(checkConstraintReason),
		ir.Spark42:    no(checkConstraintReason),
		ir.Spark43:    no(checkConstraintReason),
		ir.Databricks: no("a Databricks pipeline dataset takes no CHECK constraint in its column list (Databricks adds CHECK constraints to Delta tables with ALTER TABLE ... ADD CONSTRAINT only): write it as an expectation, CONSTRAINT name EXPECT (cond) ON VIOLATION FAIL UPDATE"),
	},
	// Spark 4.1.4 and 4.3.0 checked with spark-pipelines dry-run (STREAM
	// json.`path` and STREAM(json.`path`) are refused; the Python
	// readStream fix completes on both). Databricks' reference streams
	// files with STREAM read_files (Auto Loader) and lists no path read
	// as a streaming source; not run there, so a warning.
	SynStreamFilePath: {
		ir.Native:  yes,
		ir.Spark41: no(streamFilePathReason),
		ir.Spark42: no(streamFilePathReason),
		ir.Spark43: no(streamFilePathReason),
		ir.Databricks: differs("Databricks streams files with STREAM read_files(...) (Auto Loader); its reference lists no path read (format.`path`) as a streaming source, and Spark resolves one to a batch relation, which a streaming table refuses " +
			"(INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE, an error class Databricks has too): write FROM STREAM read_files('path', format => '...')"),
	},
	SynSnapshotCDC: {
		ir.Native:     no("Thund's native engine applies change feeds (FROM STREAM(source)) only, not snapshots: run the flow on Databricks, or turn the snapshots into a change feed with an operation column and use AUTO CDC ... FROM STREAM(changes)"),
		ir.Spark41:    no("open-source Spark has no snapshot CDC (AUTO CDC ... FROM SNAPSHOT is Databricks SQL; Spark 4.3's AUTO CDC reads a change feed, FROM STREAM(source)): target databricks"),
		ir.Spark42:    no("open-source Spark has no snapshot CDC (AUTO CDC ... FROM SNAPSHOT is Databricks SQL; Spark 4.3's AUTO CDC reads a change feed, FROM STREAM(source)): target databricks"),
		ir.Spark43:    no("Spark 4.3's AUTO CDC reads a change feed (FROM STREAM(source)), not snapshots (FROM SNAPSHOT is Databricks SQL): target databricks, or feed the changes as a stream"),
		ir.Databricks: yes,
	},
}

const (
	locationReason = "Spark refuses LOCATION on a pipeline dataset (_LEGACY_ERROR_TEMP_0035: specifying location is not supported for CREATE MATERIALIZED VIEW and CREATE STREAMING TABLE statements): " +
		"the pipeline manages its datasets' storage (the spec's storage and catalog); remove the clause"
	transformReason = "Spark's pipeline registration refuses a PARTITIONED BY transform (PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR: invalid partitioning transform): " +
		"a pipeline dataset is partitioned by plain columns only; compute the value in the query (year(ts) AS ts_year) and partition by that column"
	declaredCaseReason = "Spark before 4.3 merges a dataset's declared schema with its query's case-sensitively, so a query column named like a declared one in another case is a second column and the dataset is refused (USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE: the inferred schema holds both names); Spark 4.3 matches them: " +
		"spell the column in the query as it is declared (... AS name), or target spark-4.3"
	streamFilePathReason = "Spark resolves a read of files by path (format.`path`) to a batch relation even under STREAM, and a streaming table refuses it (INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE: streaming tables may only be defined by streaming relations); Spark SQL has no streaming file read: " +
		"define the table in Python, @dp.table returning spark.readStream.format(\"json\").schema(\"id BIGINT, ...\").load(\"/path\") (a file stream needs its schema), stream from a table (STREAM(t)), or make the dataset a materialized view over format.`path` without STREAM"
	keyConstraintReason   = "Spark refuses constraints on a pipeline dataset (_LEGACY_ERROR_TEMP_0035: pipeline datasets do not currently support column constraints): remove the constraint (Databricks reads primary and foreign keys, as information only)" + onDatabricks
	checkConstraintReason = "Spark refuses constraints on a pipeline dataset (_LEGACY_ERROR_TEMP_0035: pipeline datasets do not currently support column constraints): remove the CHECK constraint; Spark has no expectations either, so filter the rows in the query or check them downstream"
	scheduleSpark         = "Spark's grammar has no SCHEDULE clause (Databricks SQL, outside pipelines): Spark refreshes every dataset when the pipeline runs; leave the clause out" + onDatabricks
)

// sparkRefusals are the registration features that say nothing about
// which dialect a pipeline was written in.
var sparkRefusals = map[Feature]bool{
	SynLocation: true, SynPartitionTransform: true, SynTempViewQualified: true, SynTempViewSession: true, SynAutoCDCColumns: true,
	SynDeclaredCase: true, SynCheckConstraint: true, SynStreamFilePath: true,
	SynOrReplaceMV: true, SynOrReplaceST: true,
}

func init() {
	for f, cells := range registrationRows {
		Matrix[f] = cells
	}
}

// snapshotCDC reports whether f applies changes from snapshots (AUTO CDC
// ... FROM SNAPSHOT), which read their source in full, not as a stream.
func snapshotCDC(f *ir.Flow) bool {
	for _, c := range f.Syntax {
		if c.Name == string(SynSnapshotCDC) {
			return true
		}
	}
	return false
}

// EmptyPipeline refuses, on each Spark backend of backends, a pipeline
// that defines no dataset at all, as Spark 4.1.4's spark-pipelines does
// (RUN_EMPTY_PIPELINE; a pipeline of temporary views only is
// onlyTemporary's, at the first view). spec is where the finding goes:
// the pipeline's spec file, which selected the files that define nothing.
func EmptyPipeline(p *ir.Pipeline, backends []ir.Backend, spec ir.Loc) []ir.Diagnostic {
	if len(p.Datasets) > 0 {
		return nil
	}
	var out []ir.Diagnostic
	for _, b := range backends {
		if !isSpark(b) {
			continue
		}
		out = append(out, ir.Diagnostic{
			Loc: spec, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
			Message: "the pipeline defines no dataset, which " + string(b) + " refuses to run (RUN_EMPTY_PIPELINE: pipelines are expected to have at least one non-temporary dataset defined (tables, persisted views) but no non-temporary datasets were found in your pipeline): " +
				"check that the spec's libraries include your source files, and that they define a table (CREATE MATERIALIZED VIEW name AS ...)",
		})
	}
	return out
}
