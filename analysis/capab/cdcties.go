package capab

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// CodeCDCSequenceTies is the warning for an apply-changes flow whose
// sequence column is the time the row was processed (current_timestamp()
// or now() in the query that makes the changes): every change of one
// micro-batch then has the same sequence value, so a key's changes in a
// batch tie, and Databricks, which needs one change per key and sequence
// value, applies them in no defined order.
const CodeCDCSequenceTies = ir.CodeCDCSequenceTies

// cdcTieDiagnostics warns at each apply-changes flow into d whose
// SEQUENCE BY column is computed from the processing time, in its own
// query or in the query of a dataset it reads.
func cdcTieDiagnostics(p *ir.Pipeline, d *ir.Dataset) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, f := range p.FlowsInto(d.Name) {
		c := f.CDC
		if c == nil || strings.TrimSpace(c.SequenceBy) == "" {
			continue
		}
		seq := c.SequenceBy
		if i := strings.LastIndexByte(seq, '.'); i >= 0 {
			seq = seq[i+1:]
		}
		seq = strings.Trim(seq, "`\"")
		where, fn := processingTimeSource(p, f, seq)
		if where == "" {
			continue
		}
		out = append(out, ir.Diagnostic{
			Loc: c.Loc, Severity: ir.Warning, Code: CodeCDCSequenceTies,
			Message: fmt.Sprintf("%s sequences its changes by %s, which %s sets to %s, the time the row is processed: every change of one micro-batch gets the same value, so a key's changes in a batch tie, and Databricks, which needs one change per key and sequence value, applies tied changes in no defined order (natively a DELETE wins, else the row that sorts last as text); sequence by a column of the source that orders a key's changes (an event time, a version or a log position)",
				flowWord(f), seq, where, fn),
		})
	}
	return out
}

// flowWord names f for a message.
func flowWord(f *ir.Flow) string {
	if f.Name == "" || ir.NameKey(f.Name) == ir.NameKey(f.Target) {
		return "the flow into " + f.Target
	}
	return "flow " + f.Name
}

// processingTimeSource finds where column seq of the changes f applies
// is set to the processing time: f's own query, else the query of a
// dataset f reads (its flows'). It returns a description of that place
// and the function as written; "" when none does.
func processingTimeSource(p *ir.Pipeline, f *ir.Flow, seq string) (string, string) {
	if fn := setsProcessingTime(f.SQL, seq); fn != "" {
		return "the flow's query", fn
	}
	for _, r := range f.Reads {
		up := p.Resolve(r.Name)
		if up == nil {
			continue
		}
		for _, g := range p.FlowsInto(up.Name) {
			if g == f {
				continue
			}
			if fn := setsProcessingTime(g.SQL, seq); fn != "" {
				return "the query of " + up.Name, fn
			}
		}
	}
	return "", ""
}

// processingTimeRe finds current_timestamp() (with or without the
// parentheses), now() and localtimestamp() followed by an alias, in SQL
// (`current_timestamp() AS ts`, `now() ts`) or in Python
// (`.withColumn("ts", F.current_timestamp())`).
var processingTimeRe = regexp.MustCompile("(?i)\\b(current_timestamp|now|localtimestamp)\\b(?:\\s*\\(\\s*\\))?\\s+(?:as\\s+)?(`[^`]+`|\\w+)" +
	"|withColumn\\(\\s*[\"']([^\"']+)[\"']\\s*,\\s*(?:\\w+\\.)?(current_timestamp|now|localtimestamp)\\s*\\(\\s*\\)\\s*\\)")

// setsProcessingTime returns the function as written when sql sets
// column seq to the processing time; "" when it does not.
func setsProcessingTime(sql, seq string) string {
	if sql == "" {
		return ""
	}
	for _, m := range processingTimeRe.FindAllStringSubmatch(sql, -1) {
		alias, fn := strings.Trim(m[2], "`"), m[1]
		if m[3] != "" {
			alias, fn = m[3], m[4]
		}
		if fn == "" || !strings.EqualFold(alias, seq) {
			continue
		}
		if strings.Contains(m[0], "(") {
			return fn + "()"
		}
		return fn
	}
	return ""
}
