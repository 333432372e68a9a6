// Package conformance measures Thund's Spark SQL parser against Spark's
// own SQL test corpus: the sql-tests/ folder of spark-sql's test jar on
// Maven Central, whose golden files record, for every query Spark's
// SQLQueryTestSuite runs, whether Spark's parser accepted it.
//
// The corpus is downloaded on first use into
// $THUND_CACHE/spark-sql-tests/<version>/ (~/.cache/thund by default),
// checked against Maven Central's SHA-1 and extracted once. It is Spark's
// text, read as test data only: nothing here writes a query's text into
// the repository; queries are named "file.sql#ordinal".
//
// ParseGolden reads a golden file, FileSettings and Settings.After work out
// the parser settings each query ran under, Run compares Thund's verdict
// with Spark's, and the report is written as docs/conformance.md
// (WriteMarkdown) and as the ratchet of known disagreements
// (testdata/known-disagreements.txt, WriteKnown) that TestSample holds the
// parser to. `make conformance` runs the whole corpus (cmd/thund-conformance).
package conformance
