// Package capab knows what each backend can run (the capability matrix of
// the format's §5) and the streaming rules every backend enforces, and turns
// both into diagnostics on a pipeline. It is pure: it reads the IR only.
package capab

import (
	"fmt"

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
}

var yes = Support{OK: true}

func no(reason string) Support { return Support{Severity: ir.Error, Reason: reason} }

func differs(reason string) Support { return Support{Severity: ir.Warning, Reason: reason} }

// runCDCNatively ends the reason a Spark backend refuses @cdc: how to run
// the flow natively, in a push (@backends) or for the whole pipeline.
const runCDCNatively = "run it natively: add `-- @backends: native` to this dataset and to the datasets that read it (a push to Spark then leaves them out), or set `backends: [native]` in thund.yaml if the pipeline never goes to Spark"

// Matrix is the backend capability matrix. Cells not listed are supported.
// Spark cells follow the Spark 4.1 / 4.2 Declarative Pipelines docs; the
// Spark integration suite confirms them against a real server.
var Matrix = map[Feature]map[ir.Backend]Support{
	Expectations: {
		ir.Native:  yes,
		ir.Spark41: no("open-source Spark Declarative Pipelines have no expectations; remove the @expect pragmas, or restrict the dataset with `-- @backends: native`"),
		ir.Spark42: no("open-source Spark Declarative Pipelines have no expectations; remove the @expect pragmas, or restrict the dataset with `-- @backends: native`"),
	},
	OutputModeUpdate: {
		ir.Native:  yes,
		ir.Spark41: no("Spark streaming tables only append; use output_mode append, or a materialized view for an aggregate"),
		ir.Spark42: no("Spark streaming tables only append; use output_mode append, or a materialized view for an aggregate"),
	},
	OutputModeComplete: {
		ir.Native:  yes,
		ir.Spark41: no("Spark streaming tables only append; a materialized view gives the complete result"),
		ir.Spark42: no("Spark streaming tables only append; a materialized view gives the complete result"),
	},
	// CDC: Spark 4.1 has no apply-changes flow at all; Spark 4.2 has one
	// over Spark Connect only (DefineFlow's AutoCdcFlowDetails, SCD 1),
	// which sdplower does not send yet. Marked supported, a CDC flow was
	// pushed as a plain append and Spark stored every change row (issue
	// 18, on Spark 4.2.1: testdata/cdc's SCD 1 table got 23 rows instead
	// of 6, and the run COMPLETED), so both refuse it until the lowering
	// exists and is checked on a real server. sdplower refuses it too.
	CDCFlow: {
		ir.Native:  yes,
		ir.Spark41: no("Spark 4.1 has no apply-changes (AUTO CDC) flows; " + runCDCNatively),
		ir.Spark42: no("Spark 4.2 has apply-changes flows only over Spark Connect (AutoCdcFlowDetails), which Thund does not send yet, and as a plain flow Spark would store every change row instead of applying them; " + runCDCNatively),
	},
	SinkDataset: {
		ir.Native:  yes,
		ir.Spark41: no("Spark 4.1 defines sinks only from Python, not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`"),
		ir.Spark42: no("Spark 4.2 defines sinks only from Python, not from SQL; define the sink in a Python file, or restrict it with `-- @backends: native`"),
	},
	WatermarkSetting: {
		ir.Native:  yes,
		ir.Spark41: no("Spark Connect pipelines have no watermark setting for SQL flows; drop @watermark or run natively"),
		ir.Spark42: no("Spark Connect pipelines have no watermark setting for SQL flows; drop @watermark or run natively"),
	},
	// Persistent views: spark-pipelines 4.1.4 accepts and runs CREATE VIEW
	// (checked on a real server), so every backend supports them.
	PersistentView: {
		ir.Native:  yes,
		ir.Spark41: yes,
		ir.Spark42: yes,
	},
	TriggerInterval: {
		ir.Native:  yes,
		ir.Spark41: differs("Spark pipelines run every streaming flow as available_now; the trigger interval is ignored there"),
		ir.Spark42: differs("Spark pipelines run every streaming flow as available_now; the trigger interval is ignored there"),
	},
	DuckDBSyntax: {
		ir.Native:  yes,
		ir.Spark41: differs("only DuckDB's parser accepts this query (EXCLUDE, QUALIFY, FROM-first...), and Spark SQL will likely reject it; rewrite it in standard SQL, or restrict the dataset with `-- @backends: native`"),
		ir.Spark42: differs("only DuckDB's parser accepts this query (EXCLUDE, QUALIFY, FROM-first...), and Spark SQL will likely reject it; rewrite it in standard SQL, or restrict the dataset with `-- @backends: native`"),
	},
	// A query only Spark's syntax reads fails natively with DuckDB's
	// parser error: the engine maps Spark functions onto DuckDB (engine's
	// CompatFunctions), not syntax.
	SparkSyntax: {
		ir.Native:  no("DuckDB's parser stops here (Spark SQL syntax such as RLIKE, LATERAL VIEW, array(...), DIV or 100L, or a name DuckDB reserves, such as a table called pivot); write it the way DuckDB reads it too (regexp_matches, UNNEST, [a, b], //, CAST, a reserved name in backticks), or restrict the dataset with `-- @backends: spark-4.1`"),
		ir.Spark41: yes,
		ir.Spark42: yes,
	},
}

// Use is one feature used by a dataset, at the place that uses it.
type Use struct {
	Feature Feature
	Loc     ir.Loc
	// Detail, when set, is what the backend itself said (DuckDB's parser
	// message for Spark-only syntax); it ends the diagnostic.
	Detail string
}

// Uses lists the matrix features dataset d and the flows into it use.
func Uses(p *ir.Pipeline, d *ir.Dataset) []Use {
	var out []Use
	if d.Kind == ir.Sink {
		out = append(out, Use{Feature: SinkDataset, Loc: d.KindLoc})
	}
	if d.Kind == ir.View {
		out = append(out, Use{Feature: PersistentView, Loc: d.KindLoc})
	}
	for _, f := range p.FlowsInto(d.Name) {
		for _, e := range f.Expectations {
			out = append(out, Use{Feature: Expectations, Loc: e.Loc})
		}
		switch f.OutputMode {
		case ir.Update:
			out = append(out, Use{Feature: OutputModeUpdate, Loc: f.OutputLoc})
		case ir.Complete:
			out = append(out, Use{Feature: OutputModeComplete, Loc: f.OutputLoc})
		}
		if f.CDC != nil {
			out = append(out, Use{Feature: CDCFlow, Loc: f.CDC.Loc})
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
		uses := Uses(p, d)
		if len(uses) == 0 {
			continue
		}
		for _, b := range Backends(backends, d) {
			for _, u := range uses {
				s, ok := Matrix[u.Feature][b]
				if !ok || s.OK {
					continue
				}
				msg := fmt.Sprintf("%s uses %s, which %s cannot run: %s", d.Name, u.Feature, b, s.Reason)
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
	}
	for _, b := range backends {
		for _, f := range SparkRules(p, b) {
			out = append(out, f.Diagnostic)
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
				if s, ok := Matrix[u.Feature][b]; ok && !s.OK && s.Severity == ir.Error {
					out[b] = append(out[b], fmt.Sprintf("%s: %s", u.Feature, s.Reason))
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
