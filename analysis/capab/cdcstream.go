package capab

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/ir"
)

// A streaming read of the target of an apply-changes flow (AUTO CDC,
// APPLY CHANGES, @cdc, create_auto_cdc_flow). The flow updates and
// deletes the target's rows, and a stream of a table gives only the rows
// its commits append: Databricks fails such a read at the first commit
// that updates or deletes rows unless the read skips those commits
// (Databricks' "AUTO CDC ... advanced": streaming needs an append-only
// source; set skipChangeCommits when reading a streaming table with
// changes, and the transactions that modify or delete rows are then
// ignored). The native engine has no commits to skip: it would give the
// target's current rows on each run, what a materialized view gives,
// which neither platform computes. So the read is refused natively and on
// Databricks unless it skips change commits; Spark refuses the CDC flow
// itself on every version Thund targets (no apply-changes flows on 4.1,
// no table format that merges on 4.2 and 4.3: cdcFormats), which is the
// whole story there: Spark 4.3.0's spark-pipelines dry-run completes such
// a pipeline (STREAM(target) and STREAM(target) WITH
// ('skipChangeCommits' = 'true') alike), and its run fails at the CDC
// flow with AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE before any read of the
// target.

// cdcStreamRead is one streaming read of an apply-changes target.
type cdcStreamRead struct {
	flow   *ir.Flow // the reading flow
	ref    ir.Ref   // the STREAM read
	target *ir.Dataset
	cdc    *ir.Flow // the apply-changes flow into target
	// skips is set when the read asks for skipChangeCommits.
	skips bool
}

// cdcStreamReads lists the streaming reads of apply-changes targets made
// by the flows into d.
func cdcStreamReads(p *ir.Pipeline, d *ir.Dataset) []cdcStreamRead {
	var out []cdcStreamRead
	for _, f := range p.FlowsInto(d.Name) {
		if f.SQL == "" {
			// A Python body Thund does not state in SQL (a reader
			// given options first, spark.readStream.option(...).table,
			// is one): its options are unknown, and the native run
			// does not compute it.
			continue
		}
		for _, r := range f.Reads {
			if !r.Streaming || r.Path != "" {
				continue
			}
			t := p.Resolve(r.Name)
			if t == nil {
				continue
			}
			cdc := cdcFlowInto(p, t)
			if cdc == nil || cdc == f {
				continue
			}
			out = append(out, cdcStreamRead{flow: f, ref: r, target: t, cdc: cdc, skips: skipsChangeCommits(f, r)})
		}
	}
	return out
}

// cdcFlowInto is the first apply-changes flow into t, nil when none.
func cdcFlowInto(p *ir.Pipeline, t *ir.Dataset) *ir.Flow {
	for _, f := range p.FlowsInto(t.Name) {
		if f.CDC != nil {
			return f
		}
	}
	return nil
}

// skipsChangeCommits reports whether flow f's streaming read r sets the
// read option skipChangeCommits to true: STREAM(t) WITH
// ('skipChangeCommits' = 'true') in the query's SQL. A flow whose SQL
// does not parse, or has none, sets none that Thund knows of.
func skipsChangeCommits(f *ir.Flow, r ir.Ref) bool {
	if f.SQL == "" {
		return false
	}
	st, errs := parser.ParseStatement(f.SQL, parser.Options{Version: parser.Spark43, Databricks: true})
	if st == nil || len(errs) > 0 {
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		t, ok := n.(*ast.Table)
		if !ok || found {
			return !found
		}
		if t.Stream && ir.NameKey(t.Name.String()) == ir.NameKey(r.Name) {
			for _, o := range t.Options {
				if strings.EqualFold(o.Key, "skipChangeCommits") && o.Value != nil && optionTrue(f.SQL, o.Value.Span()) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// optionTrue reports whether the option value at r of text is true
// (true, 'true' or "true", any case).
func optionTrue(text string, r ast.Range) bool {
	if r.Start < 0 || r.End > len(text) || r.Start > r.End {
		return false
	}
	v := strings.Trim(strings.TrimSpace(text[r.Start:r.End]), `'"`)
	return strings.EqualFold(v, "true")
}

// cdcStreamDiagnostics are the findings about the streaming reads of
// apply-changes targets by the flows into d, on each of d's backends.
func cdcStreamDiagnostics(p *ir.Pipeline, d *ir.Dataset, backends []ir.Backend) []ir.Diagnostic {
	reads := cdcStreamReads(p, d)
	if len(reads) == 0 {
		return nil
	}
	var out []ir.Diagnostic
	for _, b := range backends {
		for _, r := range reads {
			if msg := cdcStreamMessage(d, r, b); msg != "" {
				out = append(out, ir.Diagnostic{Loc: r.ref.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b, Message: msg})
			}
		}
	}
	return out
}

// cdcStreamMessage is what backend b says of read r by a flow into d, ""
// when b has nothing to say.
func cdcStreamMessage(d *ir.Dataset, r cdcStreamRead, b ir.Backend) string {
	what := fmt.Sprintf("%s reads %s as a stream, and %s is the target of the apply-changes flow %s, which updates and deletes its rows", d.Name, r.ref.Name, r.target.Name, r.cdc.Name)
	py := inPython(r.ref.Loc.File)
	inFull := fmt.Sprintf("read %s in full, without STREAM, in a materialized view (CREATE MATERIALIZED VIEW %s AS SELECT ... FROM %s)", r.target.Name, d.Name, r.ref.Name)
	skip := fmt.Sprintf("FROM STREAM(%s) WITH ('skipChangeCommits' = 'true')", r.ref.Name)
	if py {
		inFull = fmt.Sprintf("read %s in full, spark.read.table(%q), in a @dp.materialized_view (@dlt.table on Databricks)", r.target.Name, r.ref.Name)
		skip = fmt.Sprintf("spark.readStream.option(\"skipChangeCommits\", \"true\").table(%q)", r.ref.Name)
	}
	switch {
	case b == ir.Native:
		if r.skips {
			return fmt.Sprintf("%s: the read skips change commits (skipChangeCommits), so on Databricks it gives only the rows of the commits that update or delete nothing, and the native engine, which has no commits to tell apart, would give the current rows of %s on each run instead: "+
				"the native engine refuses the read; %s", what, r.target.Name, inFull)
		}
		return fmt.Sprintf("%s: a stream of a table gives only the rows its commits append, so Databricks fails this read at the first update or delete, while the native engine would give the current rows of %s on each run: "+
			"the native engine refuses the read; %s", what, r.target.Name, inFull)
	case b == ir.Databricks:
		if r.skips {
			return ""
		}
		return fmt.Sprintf("%s: Databricks streams only an append-only source, so the read fails at the first commit of %s that updates or deletes a row: %s, or skip those commits, %s (the updated and deleted rows then never reach %s)",
			what, r.cdc.Name, inFull, skip, d.Name)
	}
	return "" // Spark refuses the apply-changes flow itself (cdcFormats, the matrix)
}
