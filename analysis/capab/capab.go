// Package capab knows what each backend can run (the capability matrix of
// the format's §5) and the streaming rules every backend enforces, and turns
// both into diagnostics on a pipeline. It is pure: it reads the IR only.
package capab

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Feature is a pipeline feature whose support differs between backends.
type Feature string

// Features the matrix covers.
const (
	Expectations       Feature = "expectations"
	OutputModeUpdate   Feature = "output_mode update"
	OutputModeComplete Feature = "output_mode complete"
	CDCFlow            Feature = "CDC apply changes"
	CDCSCD2            Feature = "CDC apply changes as SCD type 2"
	SinkDataset        Feature = "a sink"
	WatermarkSetting   Feature = "a watermark"
	PersistentView     Feature = "a persistent view"
	TriggerInterval    Feature = "a processing_time or continuous trigger"
	DuckDBSyntax       Feature = "DuckDB-only SQL syntax"
	SparkSyntax        Feature = "SQL that DuckDB's parser rejects"
)

// Support says whether a backend runs a feature, and if not, why.
type Support struct {
	OK bool
	// Severity of the diagnostic when not OK: Error when the backend
	// rejects the pipeline, Warning when it runs it differently.
	Severity ir.Severity
	Reason   string
	// PyReason, when set, replaces Reason for a use in a .py file, whose
	// fix is written in Python or thund.yaml: a Python library has no
	// `-- @...` pragmas.
	PyReason string
}

// reasonAt is s's reason for a use in file: PyReason in a .py file when
// the cell has one.
func (s Support) reasonAt(file string) string {
	if s.PyReason != "" && inPython(file) {
		return s.PyReason
	}
	return s.Reason
}

// inPython reports whether file is a Python library (.py).
func inPython(file string) bool { return strings.HasSuffix(file, ".py") }

// pyOnly sets s's reason for a use in a .py file.
func pyOnly(s Support, py string) Support {
	s.PyReason = py
	return s
}

var yes = Support{OK: true}

func no(reason string) Support { return Support{Severity: ir.Error, Reason: reason} }

func differs(reason string) Support { return Support{Severity: ir.Warning, Reason: reason} }

// runCDCNatively ends the reason a Spark backend refuses @cdc: how to run
// the flow natively, in a push (@backends) or for the whole pipeline.
const runCDCNatively = "run it natively: add `-- @backends: native` to this dataset and to the datasets that read it (a push to Spark then leaves them out), or set `backends: [native]` in thund.yaml if the pipeline never goes to Spark"

// runCDCNativelyPy is runCDCNatively for a flow of a .py file, which
// takes no `-- @backends` pragma: only thund.yaml's backends choose.
const runCDCNativelyPy = "run it natively: set `backends: [native]` in thund.yaml if the pipeline never goes to Spark (a Python file has no per-dataset `@backends` pragma, so the whole pipeline is checked and run natively)"

// runCDCNativelyAt is how to run a CDC flow written in file natively.
func runCDCNativelyAt(file string) string {
	if inPython(file) {
		return runCDCNativelyPy
	}
	return runCDCNatively
}

// row is one feature's cells: native's, then every Spark version's
// (41, 42, 43).
func row(native, s41, s42, s43 Support) map[ir.Backend]Support {
	return map[ir.Backend]Support{ir.Native: native, ir.Spark41: s41, ir.Spark42: s42, ir.Spark43: s43}
}

// onSpark is a row whose Spark cells are all s.
func onSpark(native, s Support) map[ir.Backend]Support { return row(native, s, s, s) }

// Matrix is the backend capability matrix. Cells not listed are supported.
// Every Spark cell was confirmed against a real server of that version
// (Spark 4.1.4, 4.2.1 and 4.3.0, pyspark from PyPI); docs/format.md §6
// says which check confirmed which cell.
var Matrix = map[Feature]map[ir.Backend]Support{
	// CONSTRAINT ... EXPECT is in none of the three grammars.
	Expectations:       onSpark(yes, no("open-source Spark Declarative Pipelines have no expectations; remove the @expect pragmas, or restrict the dataset with `-- @backends: native`")),
	OutputModeUpdate:   onSpark(yes, no("Spark streaming tables only append; use output_mode append, or a materialized view for an aggregate")),
	OutputModeComplete: onSpark(yes, no("Spark streaming tables only append; a materialized view gives the complete result")),
	// CDC: Spark 4.1 has no apply-changes flow. Spark 4.2 has one over
	// Spark Connect only (DefineFlow's AutoCdcFlowDetails, SCD 1; its
	// SCDType has no SCD 2); 4.3 adds SCD 2 and the SQL AUTO CDC form.
	// sdplower sends AutoCdcFlowDetails on both; the target must also be
	// a table format that merges (SparkRules' cdcFormats), which no
	// format loaded on those versions is yet, so CDC is refused there too.
	CDCFlow: row(yes,
		pyOnly(no("Spark 4.1 has no apply-changes (AUTO CDC) flows; "+runCDCNatively),
			"Spark 4.1 has no apply-changes flows (pyspark 4.1 has no create_auto_cdc_flow); "+runCDCNativelyPy),
		yes, yes),
	CDCSCD2: row(yes,
		pyOnly(no("Spark 4.1 has no apply-changes (AUTO CDC) flows; "+runCDCNatively),
			"Spark 4.1 has no apply-changes flows (pyspark 4.1 has no create_auto_cdc_flow); "+runCDCNativelyPy),
		pyOnly(no("Spark 4.2 applies changes as SCD type 1 only (its protocol has no SCD type 2: Spark 4.2.1 answers \"Unsupported AutoCDC SCD type\"); use `scd=1`, or "+runCDCNatively),
			"Spark 4.2 applies changes as SCD type 1 only (its protocol has no SCD type 2: Spark 4.2.1 answers \"Unsupported AutoCDC SCD type\"); pass stored_as_scd_type=1, or "+runCDCNativelyPy),
		yes),
	// Sinks: CREATE SINK is in none of the three grammars.
	SinkDataset: row(yes,
		no("Spark 4.1 defines sinks only from Python, not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`"),
		no("Spark 4.2 defines sinks only from Python, not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`"),
		no("Spark 4.3 defines sinks only from Python, not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`")),
	// Watermarks: the WATERMARK col DELAY OF INTERVAL ... clause is in
	// all three grammars; a query's own clause is sent as written (not a
	// use of this feature), and sdplower writes an @watermark pragma into
	// the flow's SQL as that clause (a windowed aggregate so pushed runs
	// on 4.1.4 and 4.3.0). What Spark then refuses, an append-mode
	// aggregate grouped by neither the watermarked column nor a window of
	// it, is one of the Spark rules (appendWatermark), for the clause and
	// the pragma alike.
	WatermarkSetting: onSpark(yes, yes),
	// Persistent views: spark-pipelines accepts and runs CREATE VIEW.
	PersistentView:  onSpark(yes, yes),
	TriggerInterval: onSpark(yes, differs("Spark pipelines run every streaming flow as available_now; the trigger interval is ignored there")),
	DuckDBSyntax:    onSpark(yes, differs("only DuckDB's parser accepts this query (EXCLUDE, QUALIFY, FROM-first...), and Spark SQL will likely reject it; rewrite it in standard SQL, or restrict the dataset with `-- @backends: native`")),
	// A query only Spark's syntax reads fails natively with DuckDB's
	// parser error: the engine maps Spark functions onto DuckDB (engine's
	// CompatFunctions), not syntax.
	SparkSyntax: onSpark(pyOnly(no("DuckDB's parser stops here (Spark SQL syntax such as RLIKE, LATERAL VIEW, array(...), DIV or 100L, or a name DuckDB reserves, such as a table called pivot); write it the way DuckDB reads it too (regexp_matches, UNNEST, [a, b], //, CAST, a reserved name in backticks), or restrict the dataset with `-- @backends: spark-4.1`"),
		"DuckDB's parser stops here (Spark SQL syntax such as RLIKE, LATERAL VIEW, array(...), DIV or 100L, or a name DuckDB reserves, such as a table called pivot); write it the way DuckDB reads it too (regexp_matches, UNNEST, [a, b], //, CAST, a reserved name in backticks), or check the pipeline against Spark only (thund.yaml `backends: [spark-4.1]`: a Python file has no per-dataset `@backends` pragma)"), yes),
}

// Use is one feature used by a dataset, at the place that uses it.
type Use struct {
	Feature Feature
	Loc     ir.Loc
	// Detail, when set, is what the backend itself said (DuckDB's parser
	// message for Spark-only syntax); it ends the diagnostic.
	Detail string
	// InSQL marks a CDC use written as a statement (APPLY CHANGES INTO,
	// AUTO CDC) rather than as an `@cdc` pragma.
	InSQL bool
}

// Uses lists the matrix features dataset d and the flows into it use.
func Uses(p *ir.Pipeline, d *ir.Dataset) []Use {
	var out []Use
	if d.Kind == ir.Sink && !strings.HasSuffix(d.Loc.File, ".py") {
		// A sink from SQL; create_sink in a Python file is the form
		// every backend with sinks defines.
		out = append(out, Use{Feature: SinkDataset, Loc: d.KindLoc})
	}
	if d.Kind == ir.View {
		out = append(out, Use{Feature: PersistentView, Loc: d.KindLoc})
	}
	for _, c := range d.Syntax {
		out = append(out, Use{Feature: Feature(c.Name), Loc: c.Loc})
	}
	for _, f := range p.FlowsInto(d.Name) {
		for _, c := range f.Syntax {
			if Feature(c.Name) == SynStreamFilePath && d.Kind != ir.StreamingTable {
				continue // a batch relation is what a materialized view reads
			}
			out = append(out, Use{Feature: Feature(c.Name), Loc: c.Loc})
		}
		for _, e := range f.Expectations {
			if e.InSQL {
				continue // the CONSTRAINT ... EXPECT construct says it
			}
			out = append(out, Use{Feature: Expectations, Loc: e.Loc})
		}
		switch f.OutputMode {
		case ir.Update:
			out = append(out, Use{Feature: OutputModeUpdate, Loc: f.OutputLoc})
		case ir.Complete:
			out = append(out, Use{Feature: OutputModeComplete, Loc: f.OutputLoc})
		}
		if f.CDC != nil {
			// A CDC flow from Python (dp.create_auto_cdc_flow,
			// dlt.apply_changes) is written in the platform's API, like
			// the SQL statements: Databricks runs it.
			inSQL := sqlCDC(f) || strings.HasSuffix(f.CDC.Loc.File, ".py")
			out = append(out, Use{Feature: CDCFlow, Loc: f.CDC.Loc, InSQL: inSQL})
			if f.CDC.SCD == 2 {
				out = append(out, Use{Feature: CDCSCD2, Loc: f.CDC.Loc, InSQL: inSQL})
			}
		}
		if f.Watermark != nil && !f.Watermark.InSQL {
			out = append(out, Use{Feature: WatermarkSetting, Loc: f.Watermark.Loc})
		}
		if f.Trigger.Kind == ir.ProcessingTime || f.Trigger.Kind == ir.Continuous {
			out = append(out, Use{Feature: TriggerInterval, Loc: f.Trigger.Loc})
		}
		if f.Dialect == "duckdb" {
			out = append(out, Use{Feature: DuckDBSyntax, Loc: f.QueryLoc})
		}
		if f.SparkSyntax != nil {
			out = append(out, Use{Feature: SparkSyntax, Loc: f.SparkSyntax.Loc, Detail: f.SparkSyntax.Message})
		}
	}
	return out
}

// cell is the matrix cell of use u on backend b, and false when there is
// none or when another of uses already refuses the same thing more
// broadly: SCD 2 on a backend without apply-changes flows at all is the
// CDC flow's error only, and a CDC flow written as a statement the
// backend does not read (APPLY CHANGES INTO on Spark) is that
// statement's error only.
func cell(uses []Use, u Use, b ir.Backend) (Support, bool) {
	s, ok := Matrix[u.Feature][b]
	if (u.Feature == CDCFlow || u.Feature == CDCSCD2) && u.InSQL {
		if b == ir.Databricks {
			return yes, true // the statement is Databricks SQL
		}
		for _, o := range uses {
			if (o.Feature == SynApplyChanges || o.Feature == SynAutoCDC) && o.Loc == u.Loc {
				if c, ok := Matrix[o.Feature][b]; ok && !c.OK {
					return Support{}, false
				}
			}
		}
	}
	if u.Feature == CDCSCD2 {
		for _, o := range uses {
			if o.Feature == CDCFlow && o.Loc == u.Loc {
				if c, ok := Matrix[CDCFlow][b]; ok && !c.OK {
					return Support{}, false
				}
			}
		}
	}
	return s, ok
}

// Backends returns the backends dataset d is checked against: the
// configured ones, narrowed by the dataset's own `@backends`.
func Backends(configured []ir.Backend, d *ir.Dataset) []ir.Backend {
	if len(d.Backends) == 0 {
		return configured
	}
	var out []ir.Backend
	for _, b := range configured {
		for _, want := range d.Backends {
			if b == want {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// Check returns a diagnostic for each feature a dataset uses that one of
// its backends cannot run, one per backend, and the Spark rules'
// findings (SparkRules) for each Spark backend.
func Check(p *ir.Pipeline, backends []ir.Backend) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, d := range p.Datasets {
		out = append(out, useDiagnostics(p, d, backends)...)
	}
	for _, b := range backends {
		for _, f := range SparkRules(p, b) {
			out = append(out, f.Diagnostic)
		}
	}
	return out
}

// useDiagnostics is Check's matrix part for one dataset: a diagnostic
// for each feature d uses that one of its backends cannot run, and for
// each streaming read of an apply-changes target one of them refuses
// (cdcStreamDiagnostics).
func useDiagnostics(p *ir.Pipeline, d *ir.Dataset, backends []ir.Backend) []ir.Diagnostic {
	out := cdcStreamDiagnostics(p, d, Backends(backends, d))
	out = append(out, cdcTieDiagnostics(p, d)...)
	uses := Uses(p, d)
	if len(uses) == 0 {
		return out
	}
	for _, b := range Backends(backends, d) {
		for _, u := range uses {
			s, ok := cell(uses, u, b)
			if !ok || s.OK {
				continue
			}
			msg := fmt.Sprintf("%s uses %s, which %s cannot run: %s", d.Name, u.Feature, b, s.reasonAt(u.Loc.File))
			if u.Detail != "" {
				msg += " (DuckDB: " + u.Detail + ")"
			}
			out = append(out, ir.Diagnostic{
				Loc:      u.Loc,
				Severity: s.Severity,
				Code:     ir.CodeUnsupported,
				Backend:  b,
				Message:  msg,
			})
		}
	}
	return out
}

// DatasetSupport summarises, for each backend, whether d runs there and the
// reasons it does not (for hovers and lineage).
func DatasetSupport(p *ir.Pipeline, d *ir.Dataset, backends []ir.Backend) map[ir.Backend][]string {
	return Supports(p)(d, backends)
}

// Supports is DatasetSupport for many datasets of one pipeline: it runs
// the Spark rules (a pass over the whole pipeline) once per backend, not
// once per dataset, and returns the per-dataset lookup.
func Supports(p *ir.Pipeline) func(d *ir.Dataset, backends []ir.Backend) map[ir.Backend][]string {
	rules := map[ir.Backend]map[string][]string{}
	return func(d *ir.Dataset, backends []ir.Backend) map[ir.Backend][]string {
		out := map[ir.Backend][]string{}
		uses := Uses(p, d)
		for _, b := range backends {
			out[b] = nil
			for _, u := range uses {
				if s, ok := cell(uses, u, b); ok && !s.OK && s.Severity == ir.Error {
					out[b] = append(out[b], fmt.Sprintf("%s: %s", u.Feature, s.reasonAt(u.Loc.File)))
				}
			}
			for _, r := range cdcStreamReads(p, d) {
				if msg := cdcStreamMessage(d, r, b); msg != "" {
					out[b] = append(out[b], msg)
				}
			}
			byDataset, ok := rules[b]
			if !ok {
				byDataset = map[string][]string{}
				for _, f := range SparkRules(p, b) {
					k := ir.NameKey(f.Dataset)
					byDataset[k] = append(byDataset[k], f.Diagnostic.Message)
				}
				rules[b] = byDataset
			}
			out[b] = append(out[b], byDataset[ir.NameKey(d.Name)]...)
		}
		return out
	}
}
