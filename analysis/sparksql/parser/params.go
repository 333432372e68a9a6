package parser

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
	"github.com/thund-dev/thund/internal/editdist"
)

// ParamClass is the class of the error a statement gets for a ${...}
// reference Spark would not read as its author meant (Options.Vars). It is
// Thund's: Spark substitutes silently, and then fails or reads the wrong
// text.
const ParamClass = "PIPELINE_PARAMETER"

// configHome says where a pipeline's parameters are set, for messages.
const configHome = "under `configuration:` in spark-pipeline.yml (in a Databricks bundle: the pipeline's `configuration:` in databricks.yml, " +
	"where `${var.name}` is a variable of the bundle target thund.yaml selects)"

// paramError returns the error of the first reference in [from, to) that
// Spark would not read as meant, when it comes no later than err (the
// statement's syntax error, if any): a syntax error after such a
// reference is most likely its consequence. Otherwise it returns err.
func (p *parser) paramError(from, to int, err *ast.SyntaxError) *ast.SyntaxError {
	for _, r := range p.params {
		if r.Start < from || r.Start >= to || !r.IsProblem() {
			continue
		}
		if err != nil && err.Start < r.Start {
			return err
		}
		return &ast.SyntaxError{Range: ast.Range{Start: r.Start, End: r.End}, Class: ParamClass,
			Message: ParamMessage(r, p.opts.Vars)}
	}
	return err
}

// ParamMessage says what is wrong with the reference r, a problem
// (r.IsProblem), given the pipeline's parameters, and how to fix it.
func ParamMessage(r lex.Param, vars map[string]string) string {
	ref := "${" + r.Key + "}"
	if r.Prefix != "" {
		ref = "${" + r.Prefix + ":" + r.Key + "}"
	}
	switch r.Kind {
	case lex.ParamUnset:
		if v, ok := vars[r.Key]; ok && v != r.Value {
			// set, but a value it refers to is not
			return fmt.Sprintf("pipeline parameter %s refers to a parameter that is not set, and Spark reads an unset one as empty text: "+
				"set it %s", ref, configHome)
		}
		msg := fmt.Sprintf("pipeline parameter %s is not set, and Spark reads an unset one as empty text", ref)
		if near := nearKey(r.Key, vars); near != "" {
			return msg + fmt.Sprintf(": did you mean ${%s}? Otherwise set %s %s", near, r.Key, configHome)
		}
		return msg + fmt.Sprintf(": set %s %s", r.Key, configHome)
	case lex.ParamRedacted:
		return fmt.Sprintf("Spark substitutes %s for %s: a setting whose name or value contains url, secret, password, token or "+
			"access key is redacted when substituted; rename the parameter (and keep secrets out of SQL text)", lex.RedactedValue, ref)
	case lex.ParamServer:
		what := "environment variable"
		if r.Prefix == "system" {
			what = "JVM system property"
		}
		return fmt.Sprintf("%s is the Spark server's %s %s, which Thund cannot know: set a pipeline parameter %s and write ${name} instead",
			ref, what, r.Key, configHome)
	case lex.ParamCircular:
		return fmt.Sprintf("pipeline parameter %s refers back to itself through its value, which Spark refuses (circular reference): "+
			"give it a value without ${%s}", ref, r.Key)
	}
	return "pipeline parameter " + ref + " is not read as written"
}

// nearKey returns the set key closest to key (one edit, or a difference
// of case or of - and _), or "".
func nearKey(key string, vars map[string]string) string {
	var keys []string
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, k := range keys {
		if norm(k) == norm(key) {
			return k
		}
	}
	best, bestD := "", 3
	for _, k := range keys {
		if d := editdist.Distance(strings.ToLower(key), strings.ToLower(k), bestD-1); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD > 2 || bestD == 2 && len(key) < 6 {
		return ""
	}
	return best
}
