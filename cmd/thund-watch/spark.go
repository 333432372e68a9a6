package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/report"
	"github.com/thund-dev/thund/sdplower"
	"github.com/thund-dev/thund/sparkconnect"
)

// sparkPush lowers the pipeline for the Spark version of thund.yaml and
// pushes it to the Spark Connect server at remote (a dry run when dry),
// printing Spark's events and, as file:line diagnostics, its errors. It
// reports whether Spark accepted the pipeline, and how many errors it
// printed.
func sparkPush(ctx context.Context, snap *analysis.Snapshot, remote string, dry, asJSON bool, out io.Writer) (bool, int) {
	backend := ir.Spark41
	if snap.Project.Config.SparkVersion == "4.2" {
		backend = ir.Spark42
	}
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
	g, diags := sdplower.LowerWith(snap.Pipeline, backend, sdplower.Options{Texts: texts})
	if g == nil {
		var errs []ir.Diagnostic
		for _, d := range diags {
			if d.Severity == ir.Error {
				errs = append(errs, d)
			}
		}
		sparkLine(out, asJSON, backend, "refused", fmt.Sprintf("not sent to %s: %d finding(s) %s cannot run", remote, len(errs), backend))
		printDiags(out, asJSON, snap, errs)
		return false, len(errs)
	}
	client, err := sparkconnect.Dial(ctx, remote, sparkconnect.Options{})
	if err != nil {
		sparkLine(out, asJSON, backend, "failed", err.Error())
		return false, 1
	}
	defer client.Close()
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
