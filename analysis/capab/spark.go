package capab

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Finding is a diagnostic about one dataset.
type Finding struct {
	// Dataset is the dataset the diagnostic refuses.
	Dataset    string
	Diagnostic ir.Diagnostic
}

// isSpark reports whether b is a Spark backend.
func isSpark(b ir.Backend) bool { return ir.IsSpark(b) }

// SparkRules finds what a Spark backend refuses about how datasets fit
// together, beyond the features of the matrix: a persistent view reading
// a temporary view, a table stored as files filled by several streaming
// flows, and an apply-changes flow into a table format that cannot merge.
// Datasets whose @backends exclude b are not checked. It returns nothing
// for a backend that is not Spark. Check includes these findings; sdplower
// refuses a graph that has any.
func SparkRules(p *ir.Pipeline, b ir.Backend) []Finding {
	if !isSpark(b) {
		return nil
	}
	var out []Finding
	out = append(out, viewOnTempView(p, b)...)
	out = append(out, streamsIntoFiles(p, b)...)
	out = append(out, cdcFormats(p, b)...)
	return out
}

// MergeFormats are, per Spark backend, the table formats an apply-changes
// (AUTO CDC) flow can write: Spark applies changes only into a target
// whose connector supports row-level operations (MERGE). A format is
// listed once testdata/cdc ran into it on a real server of that version,
// row for row as natively. None qualifies yet (noMerge says why).
var MergeFormats = map[ir.Backend][]string{
	ir.Spark42: {},
	ir.Spark43: {},
}

// noMerge says, per Spark backend, why MergeFormats lists no format:
// what each candidate did on a real server of that version (Spark 4.2.1,
// 4.3.0; scripts/spark.sh's table_format, sdplower's TestSparkCDCFacts).
var noMerge = map[ir.Backend]string{
	ir.Spark42: "on Spark 4.2.1 the dry run passes and the run refuses parquet, the default, and Delta Lake 4.4.0 (the Delta release that loads into 4.2) alike with AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE, as Delta tables are no row-level connector to Spark, and Iceberg's runtime (1.11.0, built for Spark 4.1) does not load into 4.2",
	ir.Spark43: "on Spark 4.3.0 no format that merges loads: Delta Lake 4.3.0 fails to create a table and 4.4.0 to merge into one (NoSuchMethodError), Iceberg 1.11.0 fails to load its catalog (IncompatibleClassChangeError), and the default, parquet, cannot merge (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE)",
}

// cdcFormats refuses an apply-changes flow whose target's format cannot
// merge on b. Backends without apply-changes flows at all, and SCD 2 where
// b has no SCD 2, are left to the matrix.
func cdcFormats(p *ir.Pipeline, b ir.Backend) []Finding {
	if s, ok := Matrix[CDCFlow][b]; ok && !s.OK {
		return nil
	}
	var out []Finding
	for _, d := range p.Datasets {
		if !runsOn(d, b) {
			continue
		}
		for _, f := range p.FlowsInto(d.Name) {
			if f.CDC == nil {
				continue
			}
			if s, ok := Matrix[CDCSCD2][b]; f.CDC.SCD == 2 && ok && !s.OK {
				break
			}
			format := strings.ToLower(d.Format)
			ok := false
			for _, m := range MergeFormats[b] {
				ok = ok || m == format
			}
			if ok {
				break
			}
			shown := d.Format
			if shown == "" {
				shown = "parquet, the default"
			}
			var fix string
			switch ms := MergeFormats[b]; len(ms) {
			case 0:
				fix = "no format Thund can choose for it merges there (" + noMerge[b] + "); " + runCDCNatively
			default:
				fix = "choose one that merges: `-- @format: " + ms[0] + "`"
				if len(ms) > 1 {
					fix += " (or " + strings.Join(ms[1:], ", ") + ")"
				}
			}
			out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
				Loc: f.CDC.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
				Message: fmt.Sprintf("%s applies changes (@cdc), which %s does only into a table that supports row-level operations (MERGE), and its table format, %s, does not: %s",
					d.Name, b, shown, fix),
			}})
			break
		}
	}
	return out
}

func runsOn(d *ir.Dataset, b ir.Backend) bool {
	return len(Backends([]ir.Backend{b}, d)) > 0
}

// viewOnTempView: Spark refuses a persistent view that reads a temporary
// view (INVALID_TEMP_OBJ_REFERENCE, checked on Spark 4.1.4).
func viewOnTempView(p *ir.Pipeline, b ir.Backend) []Finding {
	var out []Finding
	for _, f := range p.Flows {
		v := p.Dataset(f.Target)
		if v == nil || v.Kind != ir.View || !runsOn(v, b) {
			continue
		}
		for _, r := range f.Reads {
			if d := p.Resolve(r.Name); d != nil && d.Kind == ir.TemporaryView {
				out = append(out, Finding{Dataset: v.Name, Diagnostic: ir.Diagnostic{
					Loc: r.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
					Message: fmt.Sprintf("%s is a persistent view and reads the temporary view %s, which %s refuses (INVALID_TEMP_OBJ_REFERENCE): make %s a temporary view, or %s a materialized view",
						v.Name, d.Name, b, v.Name, d.Name),
				}})
			}
		}
	}
	return out
}

// FileFormats are the table formats Spark writes through its file sink,
// whose one write log per table is shared by every stream writing it (""
// is the default, parquet).
var FileFormats = map[string]bool{"": true, "parquet": true, "orc": true, "json": true, "csv": true, "text": true, "avro": true}

// streamsIntoFiles refuses a table filled by more than one streaming flow
// in a file format: Spark 4.1's file sink keeps one batch log per table,
// so the second stream's batch 0 is taken as already written and its rows
// are silently dropped (checked on Spark 4.1.4 with parquet: two flows of
// two rows and one row leave one row).
func streamsIntoFiles(p *ir.Pipeline, b ir.Backend) []Finding {
	var out []Finding
	for _, d := range p.Datasets {
		if !runsOn(d, b) || !FileFormats[strings.ToLower(d.Format)] {
			continue
		}
		// A flow defined twice under one name is one flow here: the
		// duplicate-flow error already covers the copy.
		var streams []*ir.Flow
		seen := map[string]bool{}
		for _, f := range p.FlowsInto(d.Name) {
			if f.Streaming && !seen[ir.NameKey(f.Name)] {
				seen[ir.NameKey(f.Name)] = true
				streams = append(streams, f)
			}
		}
		if len(streams) < 2 {
			continue
		}
		format := d.Format
		if format == "" {
			format = "parquet, the default"
		}
		for _, f := range streams[1:] {
			loc := f.TargetLoc
			if loc.IsZero() {
				loc = f.QueryLoc
			}
			out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
				Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
				Message: fmt.Sprintf("%s is filled by %d streaming flows (%s and %s...), and on %s a table stored as files (%s) keeps one write log for all of them, so the rows of all but one flow are silently dropped: fill %s from one flow (UNION ALL the sources), or give each flow its own table",
					d.Name, len(streams), streams[0].Name, f.Name, b, format, d.Name),
			}})
		}
	}
	return out
}

// DatasetErrors returns the errors backend b gives dataset d before any
// run: the matrix features it uses that b cannot run, and the Spark rules
// above. A dataset whose @backends exclude b has none (it is not run
// there).
func DatasetErrors(p *ir.Pipeline, d *ir.Dataset, b ir.Backend) []ir.Diagnostic {
	if !runsOn(d, b) {
		return nil
	}
	var out []ir.Diagnostic
	uses := Uses(p, d)
	for _, u := range uses {
		if s, ok := cell(uses, u, b); ok && !s.OK && s.Severity == ir.Error {
			out = append(out, ir.Diagnostic{
				Loc: u.Loc, Severity: s.Severity, Code: ir.CodeUnsupported, Backend: b,
				Message: fmt.Sprintf("%s uses %s, which %s cannot run: %s", d.Name, u.Feature, b, s.Reason),
			})
		}
	}
	for _, f := range SparkRules(p, b) {
		if ir.NameKey(f.Dataset) == ir.NameKey(d.Name) {
			out = append(out, f.Diagnostic)
		}
	}
	return out
}
