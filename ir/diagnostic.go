package ir

import (
	"fmt"
	"sort"
)

// Backend names an execution backend diagnostics are checked against.
type Backend string

// Backends Thund knows.
const (
	Native  Backend = "native"
	Spark41 Backend = "spark-4.1"
	Spark42 Backend = "spark-4.2"
	Spark43 Backend = "spark-4.3"
	// Databricks is Lakeflow Declarative Pipelines (formerly Delta Live
	// Tables) SQL: Spark SQL with Databricks' pipeline statements
	// (CREATE OR REFRESH, LIVE, CONSTRAINT ... EXPECT, APPLY CHANGES,
	// read_files). Thund checks against it and runs its pipelines
	// natively; it pushes nothing to Databricks.
	Databricks Backend = "databricks"
)

// AllBackends lists every backend, in documentation order.
var AllBackends = []Backend{Native, Spark41, Spark42, Spark43, Databricks}

// SparkBackends lists the Spark backends, oldest first; the last is the
// one a push targets when thund.yaml names no `spark: version:`.
var SparkBackends = []Backend{Spark41, Spark42, Spark43}

// IsSpark reports whether b is a Spark backend.
func IsSpark(b Backend) bool {
	for _, s := range SparkBackends {
		if b == s {
			return true
		}
	}
	return false
}

// DefaultBackends are checked when thund.yaml does not say: native and
// the newest Spark backend (the last of SparkBackends).
var DefaultBackends = []Backend{Native, Spark43}

// ParseBackend returns the backend named s, or false.
func ParseBackend(s string) (Backend, bool) {
	for _, b := range AllBackends {
		if string(b) == s {
			return b, true
		}
	}
	return "", false
}

// Severity of a diagnostic, ordered as in LSP (Error is the most severe).
type Severity int

// Severities.
const (
	Error Severity = iota + 1
	Warning
	Info
	Hint
)

// String returns "error", "warning", "info" or "hint".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Related is a secondary location of a diagnostic.
type Related struct {
	Loc     Loc
	Message string
}

// Diagnostic is one finding about a pipeline, at an exact range.
type Diagnostic struct {
	Loc      Loc
	Severity Severity
	// Code is a stable identifier, documented in docs/diagnostics.md.
	Code Code
	// Message says what is wrong and how to fix it.
	Message string
	// Backend is set when the finding holds for one backend only.
	Backend Backend
	Related []Related
	// Suggestions are the likely intended replacements of the text at Loc
	// (a did-you-mean finding's names, nearest first), for editors' quick
	// fixes.
	Suggestions []string
}

// Code is a stable diagnostic code.
type Code string

// Diagnostic codes. Each is documented in docs/diagnostics.md; a test keeps
// the two in step.
const (
	// Project files.
	CodeSpecError     Code = "spec-error"
	CodeSpecUnknown   Code = "spec-unknown-key"
	CodeSpecAmbiguous Code = "spec-ambiguous"
	CodeConfigError   Code = "config-error"
	CodeLibraryPython Code = "library-not-analysed"
	// CodeLibraryExcluded is a folder of .sql or .py files the project's
	// layout leaves out of the pipeline (explorations/ in the Lakeflow
	// editor's layout): nothing in it defines or reads a dataset.
	CodeLibraryExcluded Code = "library-not-in-pipeline"
	CodeLibraryEmpty    Code = "library-no-match"
	CodePathEscape      Code = "path-outside-root"
	CodeFileRead        Code = "file-unreadable"
	CodeFileEncoding    Code = "file-encoding"
	// CodeNotebookCell is a cell of a Databricks notebook export in
	// another language than SQL (%python, %scala, %r), which is not
	// analysed.
	CodeNotebookCell Code = "notebook-cell-not-analysed"

	// Pragma headers.
	CodePragmaUnknown   Code = "pragma-unknown-key"
	CodePragmaDuplicate Code = "pragma-duplicate-key"
	CodePragmaValue     Code = "pragma-bad-value"
	CodePragmaSyntax    Code = "pragma-syntax"
	CodePragmaMisplaced Code = "pragma-misplaced"

	// SQL.
	CodeSQLSyntax       Code = "sql-syntax"
	CodeSQLUnsupported  Code = "sql-unsupported-statement"
	CodeSQLEmpty        Code = "sql-empty"
	CodeSQLMultiQuery   Code = "sql-multiple-queries"
	CodeSQLNotQuery     Code = "sql-not-a-query"
	CodeUnknownRef      Code = "unknown-reference"
	CodeDuplicate       Code = "duplicate-dataset"
	CodeDuplicateFlow   Code = "duplicate-flow"
	CodeUnknownTarget   Code = "unknown-flow-target"
	CodeCycle           Code = "cycle"
	CodeMissingSample   Code = "missing-sample"
	CodeUnusedSample    Code = "unused-sample"
	CodeSampleConflicts Code = "sample-conflict"
	// CodeSampleShape is a sample CSV file whose rows or micro-batch
	// headers do not fit its header (found when the engine reads it).
	CodeSampleShape Code = "sample-shape"

	// Capabilities, per backend.
	CodeUnsupported Code = "unsupported-on-backend"

	// Streaming semantics.
	CodeStreamAggNoWatermark Code = "stream-aggregate-needs-watermark"
	CodeStreamCompleteNoAgg  Code = "stream-complete-needs-aggregate"
	CodeStreamInMV           Code = "stream-in-materialized-view"
	CodeStreamNoStream       Code = "streaming-table-without-stream"
	CodeStreamJoinWatermark  Code = "stream-join-needs-watermarks"
	CodeStreamSettingBatch   Code = "stream-setting-on-batch"
	// CodeDuplicateExpectation is a second expectation of one name for
	// a dataset.
	CodeDuplicateExpectation Code = "duplicate-expectation"
	// CodeStreamUnsupportedOp is an operation Structured Streaming
	// refuses on a stream: a window function (OVER), an ORDER BY.
	CodeStreamUnsupportedOp Code = "stream-unsupported-operation"
	CodeCDCNotStreaming     Code = "cdc-target-not-streaming-table"
	CodeCDCSharedTarget     Code = "cdc-target-shared"
	// CodeCDCSequenceTies is a warning: an apply-changes flow's changes
	// tie on their sequence value (same key, same value), which
	// Databricks applies in no defined order.
	CodeCDCSequenceTies Code = "cdc-sequence-ties"

	// Portability and columns (engine-backed analysis).
	CodeNotPortable   Code = "not-portable-to-spark"
	CodeUnknownColumn Code = "unknown-column"
	// CodeAmbiguousColumn is a column name that more than one input has.
	CodeAmbiguousColumn Code = "ambiguous-column"
	// CodeMissingAggregation is a column of a grouping query that is
	// neither grouped nor aggregated.
	CodeMissingAggregation Code = "missing-aggregation"
	CodeBinder             Code = "sql-binder"
	CodeRefusedSQL         Code = "sql-refused"

	// CodeDeclaredSchema: a dataset's query does not fit its declared
	// column list.
	CodeDeclaredSchema Code = "declared-schema-mismatch"

	// Results of the last run, shown on expectation pragmas in editors.
	CodeExpectationResult Code = "expectation-result"
)

// Codes lists every code, for documentation checks.
var Codes = []Code{
	CodeSpecError, CodeSpecUnknown, CodeSpecAmbiguous, CodeConfigError,
	CodeLibraryPython, CodeLibraryExcluded, CodeLibraryEmpty, CodePathEscape, CodeFileRead, CodeFileEncoding, CodeNotebookCell,
	CodePragmaUnknown, CodePragmaDuplicate, CodePragmaValue, CodePragmaSyntax, CodePragmaMisplaced,
	CodeSQLSyntax, CodeSQLUnsupported, CodeSQLEmpty, CodeSQLMultiQuery, CodeSQLNotQuery,
	CodeUnknownRef, CodeDuplicate, CodeDuplicateFlow, CodeUnknownTarget, CodeCycle,
	CodeMissingSample, CodeUnusedSample, CodeSampleConflicts, CodeSampleShape,
	CodeUnsupported,
	CodeStreamAggNoWatermark, CodeStreamCompleteNoAgg, CodeStreamInMV, CodeStreamNoStream,
	CodeStreamJoinWatermark, CodeStreamSettingBatch, CodeStreamUnsupportedOp, CodeCDCNotStreaming, CodeCDCSharedTarget, CodeCDCSequenceTies,
	CodeNotPortable, CodeUnknownColumn, CodeAmbiguousColumn, CodeMissingAggregation, CodeBinder, CodeDeclaredSchema, CodeRefusedSQL, CodeExpectationResult, CodeDuplicateExpectation,
}

// SortDiagnostics orders diagnostics by file, start, end, severity, code,
// backend and message, so output is stable.
func SortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Loc.File != b.Loc.File {
			return a.Loc.File < b.Loc.File
		}
		if a.Loc.Start != b.Loc.Start {
			return a.Loc.Start < b.Loc.Start
		}
		if a.Loc.End != b.Loc.End {
			return a.Loc.End < b.Loc.End
		}
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.Backend != b.Backend {
			return a.Backend < b.Backend
		}
		return a.Message < b.Message
	})
}
