package capab

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
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
// flows, an apply-changes flow into a table format that cannot merge, and
// an append-mode aggregate whose grouping keys lose its watermark.
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
	out = append(out, cdcFlowsPerTarget(p, b)...)
	out = append(out, cdcFormats(p, b)...)
	out = append(out, appendWatermark(p, b)...)
	out = append(out, withoutFlow(p, b)...)
	out = append(out, multipartFlows(p, b)...)
	out = append(out, onlyTemporary(p, b)...)
	return unreadCDC(p, b, out)
}

// onlyTemporary refuses a pipeline whose datasets that run on b are all
// temporary views, as Spark does (Spark 4.1.4's spark-pipelines dry-run:
// RUN_EMPTY_PIPELINE, "Pipelines are expected to have at least one
// non-temporary dataset defined (tables, persisted views)"). The finding
// is at the first temporary view; a pipeline with no dataset at all has
// no place for one and is not reported here.
func onlyTemporary(p *ir.Pipeline, b ir.Backend) []Finding {
	var first *ir.Dataset
	for _, d := range p.Datasets {
		if !runsOn(d, b) {
			continue
		}
		if d.Kind != ir.TemporaryView {
			return nil
		}
		if first == nil {
			first = d
		}
	}
	if first == nil {
		return nil
	}
	loc := first.NameLoc
	if loc.IsZero() {
		loc = first.Loc
	}
	return []Finding{{Dataset: first.Name, Diagnostic: ir.Diagnostic{
		Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
		Message: fmt.Sprintf("the pipeline defines only temporary views, which %s refuses to run (RUN_EMPTY_PIPELINE: pipelines are expected to have at least one non-temporary dataset defined (tables, persisted views)): "+
			"make one a materialized view (CREATE MATERIALIZED VIEW %s AS ...)", b, first.Name),
	}}}
}

// withoutFlow refuses a streaming table no flow writes, as Spark's graph
// validation does (Spark 4.1.4's spark-pipelines dry-run:
// PIPELINE_DATASET_WITHOUT_FLOW, "Pipeline dataset ... does not have any
// defined flows").
func withoutFlow(p *ir.Pipeline, b ir.Backend) []Finding {
	var out []Finding
	for _, d := range p.Datasets {
		if d.Kind != ir.StreamingTable || d.Unfinished || !runsOn(d, b) || len(p.FlowsInto(d.Name)) > 0 {
			continue
		}
		loc := d.NameLoc
		if loc.IsZero() {
			loc = d.Loc
		}
		out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
			Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
			Message: fmt.Sprintf("streaming table %s has no flow, which %s refuses (PIPELINE_DATASET_WITHOUT_FLOW: pipeline dataset %s does not have any defined flows): "+
				"give it a query (CREATE STREAMING TABLE %s AS SELECT * FROM STREAM(source)) or a flow (CREATE FLOW f AS INSERT INTO %s SELECT * FROM STREAM(source))",
				d.Name, b, d.Name, d.Name, d.Name),
		}})
	}
	return out
}

// multipartFlows refuses a flow written with a qualified name (CREATE
// FLOW db.f AS INSERT INTO t ...), as Spark's graph registration does
// (Spark 4.1.4's spark-pipelines dry-run: MULTIPART_FLOW_NAME_NOT_SUPPORTED,
// "Flow with multipart name 'db.f' is not supported"). A dataset's own
// flow takes the dataset's name, which may be qualified, and is not one
// (it has no TargetLoc).
func multipartFlows(p *ir.Pipeline, b ir.Backend) []Finding {
	var out []Finding
	for _, f := range p.Flows {
		d := p.Dataset(f.Target)
		if f.TargetLoc.IsZero() || !strings.Contains(f.Name, ".") || (d != nil && !runsOn(d, b)) {
			continue
		}
		target := f.Target
		if d != nil {
			target = d.Name
		}
		short := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
		out = append(out, Finding{Dataset: target, Diagnostic: ir.Diagnostic{
			Loc: f.TargetLoc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
			Message: fmt.Sprintf("flow %s into %s has a qualified name, which %s refuses (MULTIPART_FLOW_NAME_NOT_SUPPORTED: flow with multipart name '%s' is not supported): "+
				"name it with one part, CREATE FLOW %s AS INSERT INTO %s ...", f.Name, target, b, f.Name, short, target),
		}})
	}
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
	ir.Spark42: "Spark 4.2.1 refuses parquet, the default, and Delta Lake 4.4.0 alike (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE), and no Iceberg runtime loads into Spark 4.2",
	ir.Spark43: "Spark 4.3.0 cannot merge into parquet, the default (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE), and no release of Delta Lake or Iceberg runs on Spark 4.3 yet",
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
				fix = "no format Thund can choose for it merges there (" + noMerge[b] + "); "
				if sqlCDC(f) || strings.HasSuffix(f.CDC.Loc.File, ".py") {
					fix += "target databricks, whose Delta tables merge, or "
				}
				fix += runCDCNativelyAt(f.CDC.Loc.File)
			default:
				fix = "choose one that merges: `-- @format: " + ms[0] + "`"
				if len(ms) > 1 {
					fix += " (or " + strings.Join(ms[1:], ", ") + ")"
				}
			}
			out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
				Loc: f.CDC.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
				Message: fmt.Sprintf("%s applies changes (%s), which %s does only into a table that supports row-level operations (MERGE), and its table format, %s, does not: %s",
					d.Name, cdcForm(f), b, shown, fix),
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
		if len(streams) < 2 || hasCDCFlow(p.FlowsInto(d.Name)) {
			// A CDC target with more flows is refused on its own
			// (cdcFlowsPerTarget, and sharedCDCTarget for other flows).
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

// hasCDCFlow reports whether one of flows applies changes.
func hasCDCFlow(flows []*ir.Flow) bool {
	for _, f := range flows {
		if f.CDC != nil {
			return true
		}
	}
	return false
}

// cdcFlowsPerTarget refuses, on Spark 4.3, a streaming table that more
// than one AUTO CDC flow writes: Spark's graph validation takes exactly
// one flow into a CDC target (AUTOCDC_MULTIPLE_FLOWS_TO_TARGET, Spark
// 4.3.0's error-conditions.json). Databricks takes several AUTO CDC flows
// into one table, and so does the native engine, each applying its own
// feed. A CDC target that other flows append to is refused on every
// backend by sharedCDCTarget; Spark 4.1 and 4.2 refuse the CDC flows
// themselves.
func cdcFlowsPerTarget(p *ir.Pipeline, b ir.Backend) []Finding {
	if b != ir.Spark43 {
		return nil
	}
	var out []Finding
	for _, d := range p.Datasets {
		if !runsOn(d, b) {
			continue
		}
		var cdc []*ir.Flow
		seen := map[string]bool{}
		mixed := false
		for _, f := range p.FlowsInto(d.Name) {
			if f.CDC == nil {
				mixed = true
				continue
			}
			if !seen[ir.NameKey(f.Name)] {
				seen[ir.NameKey(f.Name)] = true
				cdc = append(cdc, f)
			}
		}
		if len(cdc) < 2 || mixed {
			continue
		}
		names := make([]string, len(cdc))
		for i, f := range cdc {
			names[i] = f.Name
		}
		for _, f := range cdc[1:] {
			loc := f.TargetLoc
			if loc.IsZero() {
				loc = f.CDC.Loc
			}
			out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
				Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
				Message: fmt.Sprintf("%s is the target of %d AUTO CDC flows (%s), which %s refuses (AUTOCDC_MULTIPLE_FLOWS_TO_TARGET: an AutoCDC target table must have exactly one flow writing to it): "+
					"apply one change feed, the sources' rows united in a streaming view (CREATE TEMPORARY VIEW changes AS SELECT * FROM STREAM(a) UNION ALL SELECT * FROM STREAM(b)), or target databricks, which takes several AUTO CDC flows into one table, or run natively",
					d.Name, len(cdc), strings.Join(names, ", "), b),
				Related: []ir.Related{{Loc: cdc[0].CDC.Loc, Message: "the first AUTO CDC flow"}},
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

// appendWatermark refuses what Spark's streaming checker refuses in
// append mode, which is every Spark pipeline's streaming table: an
// aggregate emits a group only once the watermark has passed it, and
// Spark knows when that is only when the aggregate groups by the
// watermarked column itself or by a window(...) or session_window(...)
// of it (those keep the column's watermark). Grouped by anything else,
// date_trunc('minute', col) included, the flow fails with
// STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION (Spark 4.1.4 and 4.3.0,
// testdata/clickstream). The finding is at the GROUP BY. A query the
// check cannot follow (GROUP BY ALL, ROLLUP, a name it cannot trace to
// the stream) is left alone: only a certain refusal is reported.
func appendWatermark(p *ir.Pipeline, b ir.Backend) []Finding {
	var out []Finding
	for _, f := range p.Flows {
		d := p.Dataset(f.Target)
		if d == nil || !runsOn(d, b) || f.Watermark == nil || !f.Aggregates || f.CDC != nil || !f.Streaming {
			continue
		}
		if f.OutputMode != "" && f.OutputMode != ir.Append {
			continue
		}
		where, ok := groupsWithoutWatermark(f, parserVersion(b), p.Configuration)
		if !ok {
			continue
		}
		loc := aggAnchor(f)
		if where.End > where.Start {
			loc = ir.Loc{File: f.QueryLoc.File, Start: f.QueryLoc.Start + where.Start, End: f.QueryLoc.Start + where.End}
		}
		w := f.Watermark.Column
		fix := fmt.Sprintf("group by window(%s, '1 minute') and select window.start, or run it natively (`-- @backends: native`)", w)
		if inPython(f.QueryLoc.File) {
			fix = fmt.Sprintf("group by F.window(%q, \"1 minute\") (pyspark.sql.functions) and select window.start, or run it natively (thund.yaml `backends: [native]`: a Python file has no per-dataset `@backends` pragma)", w)
		}
		out = append(out, Finding{Dataset: d.Name, Diagnostic: ir.Diagnostic{
			Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: b,
			Message: fmt.Sprintf("%s aggregates a stream in append mode grouped by neither its watermark column %s nor a window(...) or session_window(...) of it, so %s cannot tell when a group is final and refuses the flow (STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION: Invalid streaming output mode: append, not supported for streaming aggregations without watermark): %s, which also closes date_trunc and time_bucket groups",
				d.Name, w, b, fix),
		}})
	}
	return out
}

// parserVersion is the grammar of Spark backend b.
func parserVersion(b ir.Backend) parser.Version {
	switch b {
	case ir.Spark42:
		return parser.Spark42
	case ir.Spark43:
		return parser.Spark43
	}
	return parser.Spark41
}

// tri is what the watermark check knows of a grouping key: it keeps the
// watermark, it does not, or the check cannot tell.
type tri int

const (
	unknown tri = iota
	keeps
	loses
)

// groupsWithoutWatermark parses f's query and reports whether its
// aggregate certainly groups by no key that keeps f's watermark, and the
// range (offsets in f.SQL) of its GROUP BY, empty for an aggregate
// without one.
func groupsWithoutWatermark(f *ir.Flow, v parser.Version, vars map[string]string) (ast.Range, bool) {
	st, errs := parser.ParseStatement(f.SQL, parser.Options{Version: v, Vars: vars})
	qs, ok := st.(*ast.QueryStmt)
	if len(errs) > 0 || !ok || qs.Query == nil {
		return ast.Range{}, false
	}
	w := &wmTrace{column: f.Watermark.Column, inSQL: f.Watermark.InSQL, ctes: map[string]*ast.Query{}}
	var agg *ast.Select
	ast.Inspect(qs.Query, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CTE:
			if n.Name != nil && n.Query != nil {
				w.ctes[strings.ToLower(n.Name.Name)] = n.Query
			}
		case *ast.Select:
			if n.GroupBy != nil && (agg == nil || n.GroupBy.Start < agg.GroupBy.Start) {
				agg = n
			}
		}
		return true
	})
	if agg == nil {
		// No GROUP BY: a global aggregate (which Spark refuses too), or
		// what the front-end took for one; left alone.
		return ast.Range{}, false
	}
	if len(agg.GroupBy.GroupingSets) > 0 || agg.GroupBy.With != "" {
		return ast.Range{}, false
	}
	for _, g := range agg.GroupBy.Items {
		if g.Kind != "" {
			return ast.Range{}, false
		}
		switch w.key(g.X, agg, true) {
		case keeps, unknown:
			return ast.Range{}, false
		}
	}
	return agg.GroupBy.Range, true
}

// wmTrace follows a grouping key back to the relation carrying the
// watermark: the one STREAM read the pragma is written after, or the
// relation with the query's own WATERMARK clause.
type wmTrace struct {
	column string
	inSQL  bool
	ctes   map[string]*ast.Query
	depth  int
}

// key classifies grouping expression x of SELECT s; aliases says whether
// a name may be one of s's own output aliases (GROUP BY an alias).
func (w *wmTrace) key(x ast.Expr, s *ast.Select, aliases bool) tri {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 64 {
		return unknown
	}
	switch x := x.(type) {
	case *ast.Paren:
		return w.key(x.X, s, aliases)
	case *ast.Literal:
		if x.Kind == ast.LitInteger && aliases {
			var i int
			if _, err := fmt.Sscan(x.Text, &i); err == nil && i >= 1 && i <= len(s.Items) {
				return w.key(s.Items[i-1].X, s, false)
			}
		}
		return unknown
	case *ast.Column:
		if len(x.Parts) == 0 {
			return unknown
		}
		name := x.Parts[len(x.Parts)-1].Name
		if len(x.Parts) == 1 && strings.EqualFold(name, "all") && !x.Parts[0].Quoted {
			return unknown // GROUP BY ALL
		}
		if len(x.Parts) == 1 && aliases {
			// An input column of the name wins over an alias; the check
			// follows the alias only when the input has no such column
			// it can see.
			if t := w.input(s, name); t != loses {
				return t
			}
			for _, it := range s.Items {
				if it.Alias != nil && strings.EqualFold(it.Alias.Name, name) {
					return w.key(it.X, s, false)
				}
			}
			return loses
		}
		return w.input(s, name)
	case *ast.Call:
		if x.Name == nil || len(x.Name.Parts) != 1 || x.Over != nil {
			return unknown
		}
		switch strings.ToLower(x.Name.Parts[0].Name) {
		case "window", "session_window":
			if len(x.Args) == 0 {
				return unknown
			}
			if c, ok := x.Args[0].(*ast.Column); ok {
				return w.key(c, s, false)
			}
			return unknown
		}
		return loses
	case *ast.Star, *ast.Subquery, *ast.Param, *ast.BadExpr:
		return unknown
	}
	// Any other expression computes a new value, which has no watermark.
	return loses
}

// input classifies the column name as read from s's FROM clause.
func (w *wmTrace) input(s *ast.Select, name string) tri {
	if s.From == nil || len(s.From.LateralViews) > 0 || s.From.Pivot != nil || s.From.Unpivot != nil || len(s.LateralViews) > 0 {
		return unknown
	}
	if len(s.From.Relations) == 1 {
		return w.relation(s.From.Relations[0], name)
	}
	// Several relations: the watermarked one is read by name only.
	for _, r := range s.From.Relations {
		if !w.plain(r) {
			return unknown
		}
	}
	return w.byName(name)
}

// plain reports whether relation r reads only tables by name, none of
// them a CTE, so that a column keeps its name through it.
func (w *wmTrace) plain(r ast.Relation) bool {
	ok := true
	ast.Inspect(r, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SubqueryRel, *ast.ParenRel, *ast.TableFunc:
			ok = false
		case *ast.Table:
			if n.Name != nil && len(n.Name.Parts) == 1 && w.ctes[strings.ToLower(n.Name.Parts[0].Name)] != nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func (w *wmTrace) byName(name string) tri {
	if strings.EqualFold(name, w.column) {
		return keeps
	}
	return loses
}

// relation classifies name as a column of relation r.
func (w *wmTrace) relation(r ast.Relation, name string) tri {
	switch r := r.(type) {
	case *ast.Table:
		if w.carries(r.Watermark, r.Stream) {
			return w.byName(name)
		}
		if r.Name != nil && len(r.Name.Parts) == 1 {
			if q, ok := w.ctes[strings.ToLower(r.Name.Parts[0].Name)]; ok {
				return w.query(q, name)
			}
		}
		// Another table's columns have no watermark.
		return loses
	case *ast.SubqueryRel:
		if r.Watermark != nil {
			return w.byName(name)
		}
		if r.Query == nil {
			return unknown
		}
		return w.query(r.Query, name)
	case *ast.Join:
		// A join keeps the watermark of its sides: the name is the
		// watermarked column's, or not.
		if !w.plain(r) {
			return unknown
		}
		return w.byName(name)
	}
	return unknown
}

// carries reports whether a table read holds the flow's watermark.
func (w *wmTrace) carries(clause *ast.Watermark, stream bool) bool {
	if w.inSQL {
		return clause != nil
	}
	return stream
}

// query classifies name as an output column of q.
func (w *wmTrace) query(q *ast.Query, name string) tri {
	s, ok := q.Body.(*ast.Select)
	if !ok || s.GroupBy != nil || s.Transform != nil {
		return unknown
	}
	star := false
	for _, it := range s.Items {
		if _, ok := it.X.(*ast.Star); ok {
			star = true
			continue
		}
		out := ""
		switch {
		case it.Alias != nil:
			out = it.Alias.Name
		default:
			if c, ok := it.X.(*ast.Column); ok && len(c.Parts) > 0 {
				out = c.Parts[len(c.Parts)-1].Name
			}
		}
		if strings.EqualFold(out, name) {
			return w.key(it.X, s, false)
		}
	}
	if star {
		return w.input(s, name)
	}
	return unknown
}
