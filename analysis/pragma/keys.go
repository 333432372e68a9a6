package pragma

import (
	"strings"

	"github.com/thund-dev/thund/internal/editdist"
)

// KeyDoc documents one pragma key, for hover and completion.
type KeyDoc struct {
	// Key is the key as written after '@' (for a dotted family, the part
	// before the dot).
	Key string
	// Dotted marks a family written `@key.NAME: value`.
	Dotted bool
	// Values lists the allowed words, or the forms the value takes.
	Values []string
	// Doc says what the key means, in one or two sentences.
	Doc string
}

// Keys documents every pragma key of FORMAT.md §3, in the order of its table.
var Keys = []KeyDoc{
	{Key: "kind", Values: []string{"materialized_view", "table", "streaming_table", "view", "temporary_view", "sink"},
		Doc: "The dataset's kind. Default: materialized_view, or streaming_table when the query reads STREAM(...)."},
	{Key: "name", Values: []string{"IDENTIFIER"},
		Doc: "The dataset's name (default: the file's stem). An identifier, or a `backticked` name."},
	{Key: "comment", Values: []string{"TEXT"},
		Doc: "The dataset's comment. Without it, the first paragraph of the header's other comments is the comment."},
	{Key: "flow", Values: []string{"IDENTIFIER"},
		Doc: "The flow's name (default: the dataset's name)."},
	{Key: "target", Values: []string{"DATASET"},
		Doc: "Makes this file an append flow into another dataset, like CREATE FLOW ... INSERT INTO."},
	{Key: "expect", Dotted: true, Values: []string{"EXPR", "EXPR ON VIOLATION DROP ROW", "EXPR ON VIOLATION FAIL UPDATE"},
		Doc: "A data-quality rule named NAME: a SQL boolean over the output rows. Without ON VIOLATION it warns (rows kept, violations counted); DROP ROW drops violating rows; FAIL UPDATE stops the update."},
	{Key: "source", Values: []string{"kafka topic=T [bootstrap=H] [format=json]", "files path=P format=csv|json|parquet|ndjson", "cdc table=T"},
		Doc: "The unbounded source a streaming flow reads. In SQL it is the table named T, or the last segment of the files path without extension."},
	{Key: "trigger", Values: []string{"available_now", "processing_time 'INTERVAL'", "continuous", "once"},
		Doc: "The streaming trigger (default available_now). processing_time takes an interval such as '10 seconds'."},
	{Key: "output_mode", Values: []string{"append", "update", "complete"},
		Doc: "The streaming output mode (default append)."},
	{Key: "watermark", Values: []string{"COLUMN, INTERVAL"},
		Doc: "Event-time watermark, e.g. `event_time, 10 minutes`: rows later than the delay are dropped and windows closed."},
	{Key: "cdc", Values: []string{"keys=(a, b) sequence_by=COL [scd=1|2] [deletes=(PREDICATE)]"},
		Doc: "Makes the flow apply changes from a changelog carrying _change_type (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE), keyed by keys and ordered by sequence_by; SCD type 1 (default) or 2."},
	{Key: "sample", Dotted: true, Values: []string{"PATH", "GLOB", "FOLDER/"},
		Doc: "Sample rows for the source table NAME: a csv, json, ndjson or parquet file, a glob, or a folder read as a stream of micro-batches (one file per batch, in name order)."},
	{Key: "partition_by", Values: []string{"a, b", "(a, b)"},
		Doc: "Columns the table is partitioned by."},
	{Key: "cluster_by", Values: []string{"a, b", "(a, b)"},
		Doc: "Columns the table is clustered by."},
	{Key: "format", Values: []string{"parquet", "delta"},
		Doc: "The table format on Spark (a word such as parquet or delta)."},
	{Key: "property", Dotted: true, Values: []string{"VALUE"},
		Doc: "Table property NAME, e.g. `@property.delta.appendOnly: true`."},
	{Key: "conf", Dotted: true, Values: []string{"VALUE"},
		Doc: "SQL conf NAME for this flow, e.g. `@conf.spark.sql.shuffle.partitions: 4`."},
	{Key: "backends", Values: []string{"native", "spark-4.1", "spark-4.2"},
		Doc: "Restricts where this dataset is meant to run: a comma-separated list of backend names."},
}

// LookupKey returns the documentation of key, or false when it is unknown.
func LookupKey(key string) (KeyDoc, bool) {
	for _, k := range Keys {
		if k.Key == key {
			return k, true
		}
	}
	return KeyDoc{}, false
}

// keyNames lists every key as users write it (dotted families as
// "expect.NAME").
func keyNames() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Key
		if k.Dotted {
			out[i] += ".NAME"
		}
	}
	return out
}

// nearest returns the option closest to word by edit distance (ignoring
// case), when it is close enough to be a plausible typo: within a third of
// the word's length (at least 2), or a prefix of the other one.
func nearest(word string, options []string) (string, bool) {
	if len(word) > maxSuggestLen {
		return "", false
	}
	lw := strings.ToLower(word)
	best, bestD := "", -1
	for _, o := range options {
		d := editdist.Distance(lw, strings.ToLower(o), editdist.Unbounded)
		if bestD < 0 || d < bestD {
			best, bestD = o, d
		}
	}
	if bestD < 0 || lw == "" {
		return "", false
	}
	if bestD <= max(2, len(lw)/3) && bestD < max(len(lw), len(best)) {
		return best, true
	}
	for _, o := range options {
		lo := strings.ToLower(o)
		if len(lw) >= 3 && (strings.HasPrefix(lo, lw) || strings.HasPrefix(lw, lo)) {
			return o, true
		}
	}
	return "", false
}

// maxSuggestLen bounds the words nearest compares, keeping suggestions
// cheap on pathological input; no key or value is that long.
const maxSuggestLen = 64
