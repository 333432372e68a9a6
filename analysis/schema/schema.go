// Package schema finds the columns of every dataset of a pipeline without
// running it, and reports the column-aware diagnostics that need them: a
// column a query names that its inputs do not have (ir.CodeUnknownColumn),
// and anything else DuckDB's binder refuses (ir.CodeBinder), at the range
// of the .sql file DuckDB points at.
//
// Each dataset, in dependency order, is bound by DuckDB over the sample
// sources and the datasets before it and made an empty table on the
// session's describing connection (engine.Describer), so no row is read
// beyond what DuckDB sniffs from the sample files, and nothing the session
// has run is touched.
package schema

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/typecheck"
	"github.com/thund-dev/thund/ir"
)

// Status says what became of a dataset.
type Status string

// Statuses.
const (
	// Described: the dataset's columns are known.
	Described Status = "described"
	// Failed: a query into the dataset does not bind (see the
	// diagnostics), or DuckDB cannot read it natively (Reason says why).
	Failed Status = "failed"
	// Skipped: the dataset reads something that could not be described
	// (an upstream dataset that failed or was skipped, a source without
	// sample data), or nothing flows into it. Skipped datasets get no
	// diagnostics, so one mistake is reported once, where it is.
	Skipped Status = "skipped"
)

// Dataset is the description of one dataset.
type Dataset struct {
	Name    string
	Status  Status
	Columns []engine.Column
	// Reason says why a dataset failed or was skipped.
	Reason string
}

// Result is the description of a pipeline.
type Result struct {
	// Datasets by name key (ir.NameKey), for every dataset.
	Datasets map[string]*Dataset
	// Order holds the dataset keys in dependency order (empty when the
	// pipeline has a cycle: then every dataset is skipped).
	Order []string
	// Sources holds the columns read from each source's sample, by name
	// key; a source whose sample could not be read is missing.
	Sources map[string][]engine.Column
	// Diagnostics holds the unknown-column and sql-binder findings, sorted.
	Diagnostics []ir.Diagnostic
}

// Columns returns the columns of the dataset or source named name, or nil.
func (r *Result) Columns(name string) []engine.Column {
	if d, ok := r.Datasets[ir.NameKey(name)]; ok {
		return d.Columns
	}
	return r.Sources[ir.NameKey(name)]
}

// Describe describes every dataset of snap's pipeline on session s (which
// must be open on the same root). It returns an error only when the
// session cannot describe at all, or ctx ends; a dataset that does not bind
// is a Failed dataset with diagnostics.
func Describe(ctx context.Context, s *engine.Session, snap *analysis.Snapshot) (*Result, error) {
	p := snap.Pipeline
	res := &Result{Datasets: map[string]*Dataset{}, Sources: map[string][]engine.Column{}}
	for _, d := range p.Datasets {
		if _, dup := res.Datasets[ir.NameKey(d.Name)]; !dup {
			res.Datasets[ir.NameKey(d.Name)] = &Dataset{Name: d.Name, Status: Skipped}
		}
	}
	order, err := p.Graph().TopoOrder()
	if err != nil {
		for _, d := range res.Datasets {
			d.Reason = "the pipeline has a cycle"
		}
		return res, nil
	}
	desc, err := s.Describer(ctx)
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	defer desc.Close()

	srcFailed := desc.RegisterSources(ctx, p)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, src := range p.Sources {
		key := ir.NameKey(src.Name)
		if src.Sample == "" || srcFailed[key] != nil {
			continue
		}
		cols, err := desc.Columns(ctx, src.Name)
		if err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
		res.Sources[key] = cols
	}
	ds := &describer{snap: snap, p: p, desc: desc, res: res, srcFailed: srcFailed}
	for _, key := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Order = append(res.Order, key)
		if err := ds.dataset(ctx, p.Dataset(key)); err != nil {
			return nil, err
		}
	}
	res.Diagnostics = withoutStaticTwins(res.Diagnostics, snap)
	ir.SortDiagnostics(res.Diagnostics)
	return res, nil
}

// withoutStaticTwins drops the findings of DuckDB's binder (and of the
// translation) that the analysis already reported at the same range, and
// those on a query whose column errors the analysis already reported from the Spark
// semantic model (analysis/columns.go): the same mistake twice, once in
// DuckDB's words, would only be noise. The binder stops at the first error
// of a query, so a static column error anywhere in the same query is its
// twin.
func withoutStaticTwins(found []ir.Diagnostic, snap *analysis.Snapshot) []ir.Diagnostic {
	// The semantic model's other analysis errors (a function's argument
	// types) are found again by the translation, at the same range.
	same := map[ir.Loc]ir.Code{}
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeBinder {
			same[d.Loc] = d.Code
		}
	}
	if len(same) > 0 {
		kept := found[:0]
		for _, d := range found {
			if c, ok := same[d.Loc]; !ok || c != d.Code {
				kept = append(kept, d)
			}
		}
		found = kept
	}
	var queries []ir.Loc
	for _, d := range snap.Diagnostics {
		if d.Code != ir.CodeUnknownColumn && d.Code != ir.CodeAmbiguousColumn && d.Code != ir.CodeMissingAggregation {
			continue
		}
		for _, f := range snap.Pipeline.Flows {
			if q := f.QueryLoc; q.File == d.Loc.File && q.Start <= d.Loc.Start && d.Loc.End <= q.End {
				queries = append(queries, q)
			}
		}
	}
	if len(queries) == 0 {
		return found
	}
	out := found[:0]
	for _, d := range found {
		twin := false
		for _, q := range queries {
			if (d.Code == ir.CodeUnknownColumn || d.Code == ir.CodeBinder) &&
				q.File == d.Loc.File && q.Start <= d.Loc.Start && d.Loc.End <= q.End {
				twin = true
				break
			}
		}
		if !twin {
			out = append(out, d)
		}
	}
	return out
}

// describer is one Describe call's state.
type describer struct {
	snap      *analysis.Snapshot
	p         *ir.Pipeline
	desc      *engine.Describer
	res       *Result
	srcFailed map[string]error
	// static holds the ranges of the analysis's type errors (staticAt).
	static map[ir.Loc]bool
}

// dataset describes d: the first flow defines its columns, the others
// must append into them, and expectations must bind against them. It
// returns an error only when ctx ends.
func (ds *describer) dataset(ctx context.Context, d *ir.Dataset) error {
	out := ds.res.Datasets[ir.NameKey(d.Name)]
	flows := ds.p.FlowsInto(d.Name)
	if len(flows) == 0 {
		out.Reason = "no flow writes into it"
		return nil
	}
	if why := ds.blocked(flows); why != "" {
		out.Reason = why
		return nil
	}
	// Diagnostics only for datasets that run natively: elsewhere DuckDB's
	// opinion of the query is beside the point.
	report := nativeChecked(ds.p, d)
	out.Status = Described
	for i, f := range flows {
		if f.Dialect == "" || strings.TrimSpace(f.Normalized) == "" {
			out.Status, out.Reason = Failed, fmt.Sprintf("flow %s has no query that parses", f.Name)
			if i == 0 {
				break
			}
			continue
		}
		var err error
		// A Spark SQL batch flow runs as its translation: Spark's type
		// errors the translator is sure of are reported in Spark's
		// words, and a query DuckDB binds only as translated (a Spark
		// function DuckDB lacks under that name) is no error.
		q, terr := ds.desc.TranslateFlowKnown(ctx, f, ds.staticAt(f))
		if terr != nil {
			err = terr
		} else if i == 0 && q != nil && q.Refused() == nil {
			// The translation first: its columns have the types Spark
			// gives them (INT * DECIMAL(10,2) is DECIMAL(21,2) there,
			// DECIMAL(18,2) as DuckDB binds the text); a column error
			// is reported on the query as written, at its range.
			out.Columns, err = ds.desc.DefineQuery(ctx, d.Name, q)
			if err != nil && isColumnError(err) {
				out.Columns, err = ds.desc.Define(ctx, d.Name, f.Normalized)
			}
		} else if i == 0 {
			// No translation, or one a run refuses: the text as written,
			// and the refusal only when the text does not bind either.
			out.Columns, err = ds.desc.Define(ctx, d.Name, f.Normalized)
			if err != nil && q != nil && !isColumnError(err) {
				out.Columns, err = ds.desc.DefineQuery(ctx, d.Name, q)
			}
		} else {
			err = ds.desc.Append(ctx, d.Name, f.Normalized)
			if err != nil && q != nil && !isColumnError(err) {
				err = ds.desc.AppendQuery(ctx, d.Name, q)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// A run fails the whole dataset; the other flows are still
			// checked against the first one's columns, if it has them.
			out.Status, out.Reason = Failed, fmt.Sprintf("flow %s: %v", f.Name, firstLine(err.Error()))
			if report {
				ds.report(f, f.QueryLoc, f.Normalized, "", err)
			}
			if i == 0 {
				break
			}
			continue
		}
		if !report {
			if i == 0 && slices.Contains(capab.Backends(ds.p.Backends, d), ir.Databricks) {
				// The CDC lists name the changes' columns on Databricks
				// too: a name they lack fails there as natively.
				ds.cdcLists(f, out.Columns)
			}
			if err := ds.cdcTarget(ctx, d, f, i, out); err != nil {
				return err
			}
			continue
		}
		if i == 0 {
			ds.settingColumns(f, out.Columns)
		}
		for _, e := range f.Expectations {
			if err := ds.desc.Check(ctx, d.Name, e.SQL); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				ds.report(f, e.SQLLoc, e.SQL, d.Name, err)
			}
		}
		// A CDC deletes predicate is evaluated over the changelog, the
		// flow's query, as the dataset was just defined from it.
		if c := f.CDC; i == 0 && c != nil && strings.TrimSpace(c.Deletes) != "" {
			if err := ds.desc.Check(ctx, d.Name, c.Deletes); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				d := ir.Diagnostic{Loc: c.Loc, Severity: ir.Error, Code: ir.CodeBinder,
					Message: fmt.Sprintf("the @cdc deletes predicate %s does not bind against the flow's query: %s", c.Deletes, firstLine(err.Error()))}
				if errors.Is(err, engine.ErrStatementRefused) {
					d.Code, d.Message = ir.CodeRefusedSQL, "the @cdc deletes predicate is refused: "+firstLine(err.Error())
				}
				ds.res.Diagnostics = append(ds.res.Diagnostics, d)
			}
		}
		if err := ds.cdcTarget(ctx, d, f, i, out); err != nil {
			return err
		}
	}
	if out.Status != Described {
		out.Columns = nil
	}
	return nil
}

// staticAt says whether the analysis reported a type error (sql-binder)
// at a range of f's query, which the description then does not repeat.
func (ds *describer) staticAt(f *ir.Flow) func(ast.Range) bool {
	if ds.static == nil {
		ds.static = map[ir.Loc]bool{}
		for _, d := range ds.snap.Diagnostics {
			if d.Code == ir.CodeBinder {
				ds.static[d.Loc] = true
			}
		}
	}
	return func(r ast.Range) bool {
		return ds.static[ir.Loc{File: f.QueryLoc.File, Start: f.QueryLoc.Start + r.Start, End: f.QueryLoc.Start + r.End}]
	}
}

// settingColumns checks the columns pragmas name against what the flow
// reads and writes: CDC keys and sequence_by among the query's columns, a
// watermark column among its streams' columns. These otherwise fail only
// when the flow runs.
func (ds *describer) settingColumns(f *ir.Flow, cols []engine.Column) {
	find := func(cols []engine.Column, name string) *engine.Column {
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		name = strings.Trim(name, "`\"")
		for i, c := range cols {
			if strings.EqualFold(c.Name, name) {
				return &cols[i]
			}
		}
		return nil
	}
	has := func(cols []engine.Column, name string) bool { return find(cols, name) != nil }
	names := func(cols []engine.Column) string {
		var out []string
		for _, c := range cols {
			out = append(out, c.Name)
		}
		return strings.Join(out, ", ")
	}
	missing := func(loc ir.Loc, msg string) {
		ds.res.Diagnostics = append(ds.res.Diagnostics, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeUnknownColumn, Message: msg})
	}
	if c := f.CDC; c != nil && len(cols) > 0 {
		for _, k := range append(append([]string(nil), c.Keys...), c.SequenceBy) {
			if k != "" && !has(cols, k) {
				missing(c.Loc, fmt.Sprintf("@cdc names %s, which is not a column of the flow's query (it has %s); name one of those", k, names(cols)))
			}
		}
		ds.cdcLists(f, cols)
	}
	if w := f.Watermark; w != nil && w.Column != "" {
		known, found := false, false
		for _, r := range f.Reads {
			if !r.Streaming {
				continue
			}
			in := ds.res.Columns(r.Name)
			if up := ds.p.Resolve(r.Name); up != nil {
				in = ds.res.Columns(up.Name)
			}
			if len(in) == 0 {
				return // a stream whose columns are unknown: nothing to say
			}
			known = true
			if c := find(in, w.Column); c != nil {
				found = true
				if typ := strings.ToUpper(c.Type); !strings.HasPrefix(typ, "TIMESTAMP") && typ != "DATE" {
					ds.res.Diagnostics = append(ds.res.Diagnostics, ir.Diagnostic{Loc: w.Loc, Severity: ir.Error, Code: ir.CodeBinder,
						Message: fmt.Sprintf("the watermark column %s is %s in stream %s; it must be a DATE or TIMESTAMP: cast it upstream", c.Name, c.Type, r.Name)})
				}
			}
		}
		if known && !found {
			missing(w.Loc, fmt.Sprintf("the watermark column %s is not a column of the streams the flow reads; name a DATE or TIMESTAMP column of its stream", w.Column))
		}
	}
}

// cdcLists checks the COLUMNS and (SCD 2) TRACK HISTORY ON lists of a
// CDC flow f against the changes' columns cols (cdcListColumns).
func (ds *describer) cdcLists(f *ir.Flow, cols []engine.Column) {
	c := f.CDC
	if c == nil || len(cols) == 0 {
		return
	}
	has := func(cols []engine.Column, name string) bool {
		name = strings.Trim(name, "`\"")
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		for _, col := range cols {
			if strings.EqualFold(col.Name, name) {
				return true
			}
		}
		return false
	}
	names := func(cols []engine.Column) string {
		var out []string
		for _, col := range cols {
			out = append(out, col.Name)
		}
		return strings.Join(out, ", ")
	}
	missing := func(loc ir.Loc, msg string) {
		ds.res.Diagnostics = append(ds.res.Diagnostics, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeUnknownColumn, Message: msg})
	}
	ds.cdcListColumns(f, "COLUMNS", c.Columns, cols, has, names, missing)
	if c.SCD == 2 {
		ds.cdcListColumns(f, "TRACK HISTORY ON", c.TrackHistory, cols, has, names, missing)
	}
}

// cdcListColumns reports each column a CDC flow's COLUMNS or TRACK
// HISTORY ON list (clause) names that the changes, the flow query's
// columns cols, do not have, at the name in the list: the run would fail
// on it.
func (ds *describer) cdcListColumns(f *ir.Flow, clause string, list []string, cols []engine.Column,
	has func([]engine.Column, string) bool, names func([]engine.Column) string, missing func(ir.Loc, string)) {
	shown := clause
	if strings.HasSuffix(strings.ToLower(f.CDC.Loc.File), ".py") {
		// apply_changes' keywords, as the user wrote them.
		shown = map[string]string{"COLUMNS": "column_list=", "TRACK HISTORY ON": "track_history_column_list="}[clause]
		if clause == "COLUMNS" && f.CDC.ColumnsExcept || clause == "TRACK HISTORY ON" && f.CDC.TrackHistoryExcept {
			shown = strings.Replace(shown, "_column_list", "_except_column_list", 1)
			if clause == "COLUMNS" {
				shown = "except_column_list="
			}
		}
	}
	for _, n := range list {
		if has(cols, n) {
			continue
		}
		missing(ds.listNameLoc(f.CDC.Loc, clause, n), fmt.Sprintf("%s names %s, which is not a column of the changes the flow reads (they are %s); name one of those or take it out of the list", shown, n, names(cols)))
	}
}

// listNameLoc is the range of name in the clause (COLUMNS, TRACK HISTORY
// ON) of the CDC statement at loc, found in the file's text; loc itself
// when the text does not show it.
func (ds *describer) listNameLoc(loc ir.Loc, clause, name string) ir.Loc {
	if ds.snap == nil {
		return loc
	}
	text, ok := ds.snap.Text(loc.File)
	if !ok || loc.Start < 0 || loc.Start > len(text) {
		return loc
	}
	// loc may cover only the head of the statement: read on to its end.
	end := len(text)
	if semi := strings.IndexByte(text[loc.Start:end], ';'); semi >= 0 {
		end = loc.Start + semi
	}
	stmt := strings.ToUpper(text[loc.Start:end])
	at := strings.Index(stmt, clause)
	if at < 0 {
		return loc
	}
	bare := strings.ToUpper(strings.Trim(name, "`\""))
	for from := at + len(clause); from < len(stmt); {
		i := strings.Index(stmt[from:], bare)
		if i < 0 {
			break
		}
		i += from
		j := i + len(bare)
		before := i == 0 || !identByte(stmt[i-1])
		after := j >= len(stmt) || !identByte(stmt[j])
		if before && after {
			return ir.Loc{File: loc.File, Start: loc.Start + i, End: loc.Start + j}
		}
		from = j
	}
	return loc
}

// identByte reports a byte that may be part of an unquoted name.
func identByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
}

// blocked says why flows cannot be described: they read a dataset that
// was not described, or a source without usable sample data.
func (ds *describer) blocked(flows []*ir.Flow) string {
	for _, f := range flows {
		for _, ref := range f.Reads {
			if up := ds.p.Resolve(ref.Name); up != nil {
				if r := ds.res.Datasets[ir.NameKey(up.Name)]; r.Status != Described {
					return fmt.Sprintf("upstream %s %s", up.Name, r.Status)
				}
				continue
			}
			src := ds.p.Source(ref.Name)
			switch {
			case src == nil || src.Sample == "":
				return fmt.Sprintf("no data: %s has no sample", ref.Name)
			case ds.srcFailed[ir.NameKey(src.Name)] != nil:
				return firstLine(ds.srcFailed[ir.NameKey(src.Name)].Error())
			}
		}
	}
	return ""
}

// nativeChecked reports whether d is checked against the native backend
// (the configured backends, narrowed by its own @backends).
func nativeChecked(p *ir.Pipeline, d *ir.Dataset) bool {
	return len(p.Backends) == 0 || slices.Contains(capab.Backends(p.Backends, d), ir.Native)
}

// report turns a DuckDB error about query (the text at loc, byte for byte)
// into a diagnostic, when it is one the author can act on here. rel, when
// set, is the relation query is evaluated over (an expectation's dataset).
func (ds *describer) report(f *ir.Flow, loc ir.Loc, query, rel string, err error) {
	if errors.Is(err, engine.ErrStatementRefused) {
		// More than one statement, a statement that is not a query, or a
		// function that reveals the machine: what a run refuses too.
		ds.res.Diagnostics = append(ds.res.Diagnostics, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeRefusedSQL,
			Message: firstLine(err.Error())})
		return
	}
	var se *engine.SparkError
	if errors.As(err, &se) && se.Known {
		return // the analysis reports it, at the same range
	}
	if errors.As(err, &se) {
		d := ir.Diagnostic{Severity: ir.Error, Code: ir.CodeBinder, Message: se.Message, Loc: f.QueryLoc}
		if se.Code == "not-portable" {
			// What a run refuses before running it (translate.CodeNotPortable).
			d.Code, d.Backend, d.Message = ir.CodeUnsupported, ir.Native, typecheck.NativeRefusal(f.Target, se.Message)
		}
		if text, ok := ds.snap.Text(f.QueryLoc.File); ok && f.QueryLoc.End <= len(text) {
			d.Loc = firstLineLoc(text, f.QueryLoc)
		}
		if se.Located && se.Range.End > se.Range.Start && f.QueryLoc.Start+se.Range.End <= f.QueryLoc.End {
			d.Loc = ir.Loc{File: f.QueryLoc.File, Start: f.QueryLoc.Start + se.Range.Start, End: f.QueryLoc.Start + se.Range.End}
		}
		ds.res.Diagnostics = append(ds.res.Diagnostics, d)
		return
	}
	var e *engine.SQLError
	if !errors.As(err, &e) {
		return // the sandbox, or a sample DuckDB cannot read
	}
	text, ok := ds.snap.Text(loc.File)
	if !ok || loc.End > len(text) || loc.End-loc.Start != len(query) {
		return
	}
	switch {
	case e.Type == "Parser":
		// Spark syntax the front end reads but DuckDB does not (LATERAL
		// VIEW, RLIKE): a native limitation, not a mistake in the query.
		return
	case e.Type == "Catalog" && !strings.Contains(e.EntryType, "Function"):
		// A table DuckDB cannot find: unknown-reference says so already.
		return
	}
	d := ir.Diagnostic{Severity: ir.Error, Code: ir.CodeBinder}
	if name, alias, ok := missingColumn(e); ok {
		if alias == "" {
			alias = rel
		}
		d.Code = ir.CodeUnknownColumn
		d.Loc = nameRange(text, loc, e.Position, name)
		d.Message = ds.unknownColumnMessage(f, e, name, alias)
	} else {
		d.Loc = tokenRange(text, loc, e.Position)
		d.Message = binderMessage(e)
		if f.Dialect != "duckdb" {
			// Spark SQL that runs as its text (it calls DuckDB's own
			// functions): the types still in Spark's names
			if m, changed := engine.SparkBinderMessage(e.Message, callText(text, d.Loc)); changed && strings.HasPrefix(m, "[") {
				d.Message = m
			} else if changed {
				plain := *e
				plain.Message = m
				d.Message = binderMessage(&plain)
			}
		}
		// Errors inside a compatibility macro carry no position, or one in
		// the macro's text: point at the call instead.
		at := func(names ...string) bool {
			for _, n := range names {
				if i := findWord(query, n); i >= 0 {
					d.Loc = ir.Loc{File: loc.File, Start: loc.Start + i, End: loc.Start + i + len(n)}
					return true
				}
			}
			return false
		}
		switch {
		case patternRe.MatchString(e.Message):
			at("date_format", "to_date", "to_timestamp", "from_unixtime", "unix_timestamp", "to_unix_timestamp")
		case e.Name == "+" && e.Position < 0 && strings.Contains(e.Message, "(TIMESTAMP") && at("date_add"):
			// date_add's macro is DuckDB's own (start + days), which has
			// no TIMESTAMP + INTEGER.
			d.Message += "; natively date_add(start, days) needs a DATE start: wrap the timestamp in to_date(...)"
		}
	}
	ds.res.Diagnostics = append(ds.res.Diagnostics, d)
}

var (
	// noColumnRe matches DuckDB's error for a qualified column that its
	// table lacks.
	noColumnRe = regexp.MustCompile(`^(?:Table|Values list|Subquery) "([^"]*)" does not have a column (?:named|with name) "([^"]*)"`)
	// bindingsRe finds DuckDB's candidate list in a message.
	bindingsRe = regexp.MustCompile(`Candidate bindings: :? ?(.*)`)
	quotedRe   = regexp.MustCompile(`"((?:[^"]|"")*)"`)
	// patternRe finds the message of a datetime pattern letter Thund does
	// not convert (engine/compat.go).
	patternRe = regexp.MustCompile(`Spark datetime pattern letter \S+ is not supported by Thund \([^)]*\)`)
)

// missingColumn reports whether e says a column does not exist, and which
// (with the table alias it was looked for in, if any).
func missingColumn(e *engine.SQLError) (name, alias string, ok bool) {
	if e.Type != "Binder" {
		return "", "", false
	}
	if e.Subtype == "COLUMN_NOT_FOUND" && e.Name != "" {
		return e.Name, "", true
	}
	if m := noColumnRe.FindStringSubmatch(e.Message); m != nil {
		return m[2], m[1], true
	}
	return "", "", false
}

// unknownColumnMessage names the missing column and DuckDB's suggestion
// (or, failing one, the closest column of the flow's inputs).
func (ds *describer) unknownColumnMessage(f *ir.Flow, e *engine.SQLError, name, alias string) string {
	where := "the query's inputs"
	if alias != "" {
		where = alias
	}
	msg := fmt.Sprintf("column %q does not exist in %s", name, where)
	cands := e.Candidates
	if len(cands) == 0 {
		if m := bindingsRe.FindStringSubmatch(e.Message); m != nil {
			for _, q := range quotedRe.FindAllStringSubmatch(m[1], -1) {
				cands = append(cands, q[1])
			}
		}
	}
	// The columns where the name was looked for: the relation DuckDB names
	// when it is a dataset or source, else every input of the flow.
	var known []string
	if alias != "" {
		for _, c := range ds.res.Columns(alias) {
			known = append(known, c.Name)
		}
	}
	if known == nil {
		known = ds.inputColumns(f)
	}
	best := ""
	switch {
	case len(cands) > 0 && e.Subtype == "COLUMN_NOT_FOUND":
		best = cands[0] // DuckDB's own pick
	case len(cands) > 0:
		best = analysis.Nearest(name, cands)
	default:
		best = analysis.Nearest(name, known)
	}
	if best != "" {
		return msg + fmt.Sprintf(": did you mean %q?", best)
	}
	if len(known) > 0 && len(known) <= 12 {
		return msg + "; the columns are " + strings.Join(known, ", ")
	}
	return msg
}

// inputColumns lists the columns of every relation f reads.
func (ds *describer) inputColumns(f *ir.Flow) []string {
	var out []string
	seen := map[string]bool{}
	for _, ref := range f.Reads {
		for _, c := range ds.res.Columns(ref.Name) {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// binderMessage is DuckDB's message without its candidate lists, on one
// line, with a hint for functions Thund does not map.
func binderMessage(e *engine.SQLError) string {
	var parts []string
	for _, line := range strings.Split(e.Message, "\n") {
		if strings.HasPrefix(line, "\t") || strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Candidate functions") {
			continue
		}
		parts = append(parts, strings.TrimSpace(line))
	}
	if m := patternRe.FindString(e.Message); m != "" {
		return "DuckDB: " + m // not the converted format around it
	}
	msg := "DuckDB: " + strings.Join(parts, " ")
	if e.Type == "Catalog" && strings.Contains(e.EntryType, "Function") {
		msg += "; Thund runs a Spark function natively only when DuckDB has it or docs/spark-compat.md maps it"
	}
	return msg
}

// callText is the call that starts at loc (a function's name followed by
// its parenthesised arguments), or "".
func callText(text string, loc ir.Loc) string {
	i := loc.End
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if loc.Start >= loc.End || i >= len(text) || text[i] != '(' || !isWord(text[loc.Start]) {
		return ""
	}
	depth := 0
	for j := i; j < len(text); j++ {
		switch c := text[j]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return text[loc.Start : j+1]
			}
		case '\'', '"', '`':
			for j++; j < len(text) && text[j] != c; j++ {
			}
		}
	}
	return ""
}

// nameRange is the range of the column name at query offset pos: the last
// part of a qualified name (o.amout -> amout) when it is the missing name.
// Without a position, it is the first occurrence of the name as a word,
// else the query's first line.
func nameRange(text string, loc ir.Loc, pos int, name string) ir.Loc {
	if pos < 0 {
		pos = findWord(text[loc.Start:loc.End], name)
	}
	if pos < 0 {
		return firstLineLoc(text, loc)
	}
	start := loc.Start + pos
	parts := scanDotted(text, start, loc.End)
	if len(parts) == 0 {
		return tokenRange(text, loc, pos)
	}
	last := parts[len(parts)-1]
	if strings.EqualFold(unquote(text[last[0]:last[1]]), name) {
		return ir.Loc{File: loc.File, Start: last[0], End: last[1]}
	}
	for _, p := range parts {
		if strings.EqualFold(unquote(text[p[0]:p[1]]), name) {
			return ir.Loc{File: loc.File, Start: p[0], End: p[1]}
		}
	}
	return ir.Loc{File: loc.File, Start: parts[0][0], End: last[1]}
}

// tokenRange is the range of the token at query offset pos (a name, a
// quoted string, a number or an operator), or the query's first line when
// there is no usable position. A position inside a word is not one DuckDB
// meant for this text (an error inside a macro's body reports the offset
// in the macro), so it falls back too.
func tokenRange(text string, loc ir.Loc, pos int) ir.Loc {
	start := loc.Start + pos
	if pos < 0 || start >= loc.End || start > loc.Start && isWord(text[start-1]) && isWord(text[start]) {
		return firstLineLoc(text, loc)
	}
	end := start
	switch c := text[start]; {
	case isWord(c):
		if parts := scanDotted(text, start, loc.End); len(parts) > 0 {
			end = parts[len(parts)-1][1]
		}
	case c == '\'' || c == '"' || c == '`':
		end = start + 1
		for end < loc.End && text[end] != c {
			end++
		}
		end = min(end+1, loc.End)
	case strings.IndexByte("+-*/%<>=!|&^~:", c) >= 0:
		for end < loc.End && strings.IndexByte("+-*/%<>=!|&^~:", text[end]) >= 0 {
			end++
		}
	default:
		_, size := utf8.DecodeRuneInString(text[start:loc.End])
		end = start + size
	}
	if i := strings.IndexAny(text[start:end], "\r\n"); i >= 0 {
		end = start + i
	}
	if end <= start {
		return firstLineLoc(text, loc)
	}
	return ir.Loc{File: loc.File, Start: start, End: end}
}

// scanDotted reads a dotted name (a.b."c") at text[i:limit] and returns
// each part's range.
func scanDotted(text string, i, limit int) [][2]int {
	var parts [][2]int
	for i < limit {
		start := i
		switch c := text[i]; {
		case c == '"' || c == '`':
			i++
			for i < limit && text[i] != c {
				i++
			}
			if i >= limit {
				return parts
			}
			i++
		case isWord(c):
			for i < limit && isWord(text[i]) {
				i++
			}
		default:
			return parts
		}
		parts = append(parts, [2]int{start, i})
		if i >= limit || text[i] != '.' {
			return parts
		}
		i++
	}
	return parts
}

// findWord returns the offset of the first occurrence of name as a whole
// word in s (ignoring case), or -1.
func findWord(s, name string) int {
	if name == "" {
		return -1
	}
	ls, ln := strings.ToLower(s), strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(ls[i:], ln)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(ln)
		if (j == 0 || !isWord(s[j-1])) && (end >= len(s) || !isWord(s[end])) {
			return j
		}
		i = j + 1
	}
}

func firstLineLoc(text string, loc ir.Loc) ir.Loc {
	end := loc.End
	if i := strings.IndexAny(text[loc.Start:loc.End], "\r\n"); i >= 0 {
		end = loc.Start + i
	}
	return ir.Loc{File: loc.File, Start: loc.Start, End: end}
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isColumnError reports whether err is DuckDB's unknown-column error,
// which the describer reports from the query's own text.
func isColumnError(err error) bool {
	var e *engine.SQLError
	if !errors.As(err, &e) {
		return false
	}
	_, _, ok := missingColumn(e)
	return ok
}

// cdcTarget redefines the target d of a CDC flow f, its first flow
// (i == 0) just defined from the changelog, with the columns a run
// stores (cdcTargetQuery), which readers of the target name: the
// expectations and the deletes predicate are checked over the changelog
// before. It returns an error only when ctx ends.
func (ds *describer) cdcTarget(ctx context.Context, d *ir.Dataset, f *ir.Flow, i int, out *Dataset) error {
	c := f.CDC
	if i != 0 || c == nil || len(out.Columns) == 0 {
		return nil
	}
	query := cdcTargetQuery(c, out.Columns)
	if query == "" {
		return nil
	}
	cols, err := ds.desc.Define(ctx, d.Name, query)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		out.Columns = cols
	}
	return nil
}

// cdcTargetQuery is the query that gives the columns a CDC flow's target
// holds (ir.CDC.Keeps and Validity, as engine/cdc.go stores them), from
// cols, the changelog's columns: the changelog's, less _change_type and
// what the COLUMNS clause leaves out, and for SCD 2 the validity columns,
// typed like the sequence column. Each is a typed NULL, so the query
// reads no relation; "" when no column is left or a type is not known
// (the changelog's columns, already defined, then stand).
func cdcTargetQuery(c *ir.CDC, cols []engine.Column) string {
	seqType := "BIGINT"
	var items []string
	for _, col := range cols {
		if col.Type == "" {
			return ""
		}
		if c.Sequences(col.Name) {
			seqType = col.Type
		}
		if c.Keeps(col.Name) {
			items = append(items, "CAST(NULL AS "+col.Type+") AS "+quoteName(col.Name))
		}
	}
	if start, end := c.Validity(); start != "" {
		for _, v := range []string{start, end} {
			items = append(items, "CAST(NULL AS "+seqType+") AS "+quoteName(v))
		}
	}
	if len(items) == 0 {
		return ""
	}
	return "SELECT " + strings.Join(items, ", ")
}

// quoteName quotes a column name for DuckDB.
func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
