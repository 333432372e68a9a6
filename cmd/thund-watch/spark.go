package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/report"
	"github.com/thund-dev/thund/sdplower"
	"github.com/thund-dev/thund/sparkconnect"
)

// sparkPush lowers the pipeline for a Spark version and pushes it to the
// Spark Connect server at remote (a dry run when dry), printing Spark's
// events and, as file:line diagnostics, its errors. When thund.yaml names
// the version (spark.version, or a Spark backend in backends), what that
// version cannot run is refused before connecting. Connected, it asks the
// server its version and lowers for that one when Thund supports it,
// saying so when thund.yaml names another (and refusing, still before
// anything is defined, what the server's version cannot run). It reports
// whether Spark accepted the pipeline, and how many errors it printed.
func sparkPush(ctx context.Context, snap *analysis.Snapshot, remote string, dry, asJSON bool, out io.Writer) (bool, int) {
	backend := sparkBackend(snap)
	verb := "run"
	if dry {
		verb = "dry run"
	}
	texts := map[string]string{}
	for _, l := range snap.Libraries {
		if t, ok := snap.Text(l); ok {
			texts[l] = t
		}
	}
	lower := func(b ir.Backend) (*sdplower.Graph, int) {
		g, diags := sdplower.LowerWith(snap.Pipeline, b, sdplower.Options{Texts: texts})
		if g != nil {
			return g, 0
		}
		var errs []ir.Diagnostic
		for _, d := range diags {
			if d.Severity == ir.Error {
				errs = append(errs, d)
			}
		}
		sparkLine(out, asJSON, b, "refused", fmt.Sprintf("not sent to %s: %s", remote, refusalSummary(errs, b)))
		printDiags(out, asJSON, snap, errs)
		return nil, len(errs)
	}
	_, named := snap.Project.Config.SparkBackend()
	var g *sdplower.Graph
	if named {
		// thund.yaml names the version: refuse what it cannot run
		// before connecting at all.
		var n int
		if g, n = lower(backend); g == nil {
			return false, n
		}
	}
	client, err := sparkconnect.Dial(ctx, remote, sparkconnect.Options{})
	if err != nil {
		sparkLine(out, asJSON, backend, "failed", err.Error())
		return false, 1
	}
	defer client.Close()
	b, note := serverBackend(ctx, client, snap, backend, named)
	if note != "" {
		sparkLine(out, asJSON, b, "version", note)
	}
	if g == nil || b != backend {
		backend = b
		var n int
		if g, n = lower(backend); g == nil {
			return false, n
		}
	}
	sparkLine(out, asJSON, backend, "running", fmt.Sprintf("%s of %d datasets on %s", verb, len(snap.Pipeline.Datasets), remote))
	res, err := sdplower.Push(ctx, client, g, sdplower.Run{Dry: dry}, func(e sdplower.Event) {
		if asJSON {
			json.NewEncoder(out).Encode(report.JSONEvent{Type: "event", Dataset: e.Dataset, Flow: e.Flow, Phase: string(e.Phase), Message: strings.TrimSpace(e.Message), Backend: string(backend)})
			return
		}
		if e.Dataset != "" || e.Run {
			fmt.Fprintf(out, "spark  %-24s %s\n", e.Dataset, firstLineOf(e.Message))
		}
	})
	var perr *sdplower.PushError
	if err != nil && !errors.As(err, &perr) {
		sparkLine(out, asJSON, backend, "failed", err.Error())
		return false, 1
	}
	var failures []ir.Diagnostic
	if res != nil {
		failures = res.Diagnostics(backend)
	}
	if perr != nil {
		failures = append(failures, (&sdplower.Result{Failures: perr.Failures}).Diagnostics(backend)...)
		if len(perr.Failures) == 0 {
			sparkLine(out, asJSON, backend, "failed", perr.Error())
			return false, 1
		}
	}
	failures = uniqueDiags(failures)
	printDiags(out, asJSON, snap, failures)
	if len(failures) > 0 {
		datasets := map[string]bool{}
		for _, f := range failures {
			datasets[f.Loc.File+":"+strings.SplitN(f.Message, " ", 2)[0]] = true
		}
		sparkLine(out, asJSON, backend, "failed", fmt.Sprintf("%s failed: Spark rejected %d dataset(s)", verb, len(datasets)))
		return false, len(failures)
	}
	sparkLine(out, asJSON, backend, "completed", fmt.Sprintf("%s completed (define %d ms, %s %d ms)", verb, res.Define.Milliseconds(), verb, res.RunTime.Milliseconds()))
	return true, 0
}

// serverBackend is the backend to lower for once connected: the server's
// own Spark version when Thund supports it, else want. The note, when not
// empty, says how the server's version and thund.yaml's (named: whether
// thund.yaml names one) differ, or which the server runs when thund.yaml
// names none.
func serverBackend(ctx context.Context, c *sparkconnect.Client, snap *analysis.Snapshot, want ir.Backend, named bool) (ir.Backend, string) {
	release, err := c.ServerVersion(ctx)
	if err != nil {
		return want, fmt.Sprintf("could not read the server's Spark version (%v); lowering for %s", err, want)
	}
	said := "thund.yaml names no Spark version"
	if v := snap.Project.Config.SparkVersion; v != "" {
		said = fmt.Sprintf("thund.yaml says `spark: version: %q`", v)
	} else if named {
		said = fmt.Sprintf("thund.yaml's backends say %s", want)
	}
	b, ok := project.SparkBackendOf(sparkconnect.MinorVersion(release))
	switch {
	case !ok:
		return want, fmt.Sprintf("the server runs Spark %s, which Thund does not support (it supports %s), and %s: lowering for %s", release, sparkVersions(), said, want)
	case b == want && named:
		return want, ""
	case !named:
		return b, fmt.Sprintf("the server runs Spark %s and %s: lowering for %s", release, said, b)
	}
	return b, fmt.Sprintf("the server runs Spark %s and %s: lowering for %s, the server's version", release, said, b)
}

func sparkVersions() string {
	var vs []string
	for _, b := range ir.SparkBackends {
		vs = append(vs, strings.TrimPrefix(string(b), "spark-"))
	}
	return strings.Join(vs, ", ")
}

// uniqueDiags drops repeats (Spark reports a flow again when it retries).
func uniqueDiags(ds []ir.Diagnostic) []ir.Diagnostic {
	seen := map[string]bool{}
	var out []ir.Diagnostic
	for _, d := range ds {
		k := fmt.Sprintf("%v|%s", d.Loc, d.Message)
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

func printDiags(out io.Writer, asJSON bool, snap *analysis.Snapshot, diags []ir.Diagnostic) {
	ir.SortDiagnostics(diags)
	if asJSON {
		report.JSONDiagnostics(out, snap, diags)
		return
	}
	report.TextDiagnostics(out, snap, diags)
}

// sparkLine prints one run-level Spark line.
func sparkLine(out io.Writer, asJSON bool, backend ir.Backend, phase, msg string) {
	if asJSON {
		json.NewEncoder(out).Encode(report.JSONEvent{Type: "event", Phase: phase, Message: msg, Backend: string(backend)})
		return
	}
	fmt.Fprintf(out, "spark  %s\n", msg)
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// refusalSummary says why a push was refused: what the backend cannot
// run, and apart from it what Thund cannot send (a Python body Thund
// does not run, which the backend itself may well run: spark-pipelines
// checks that folder as it is).
func refusalSummary(errs []ir.Diagnostic, b ir.Backend) string {
	thund := 0
	for _, d := range errs {
		if strings.Contains(d.Message, "Thund cannot send") {
			thund++
		}
	}
	var parts []string
	if n := len(errs) - thund; n > 0 {
		parts = append(parts, fmt.Sprintf("%d finding(s) %s cannot run", n, b))
	}
	if thund > 0 {
		parts = append(parts, fmt.Sprintf("%d dataset(s) defined in Python in a form Thund cannot send (Thund never runs a pipeline's Python; `spark-pipelines dry-run` checks such a folder as it is)", thund))
	}
	return strings.Join(parts, ", and ")
}
