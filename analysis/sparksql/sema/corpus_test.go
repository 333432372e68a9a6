package sema

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/conformance"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// goldenBlock is one query of a golden file with Spark's verdict: the
// error class it raised, "" when it succeeded.
type goldenBlock struct {
	text, errClass string
	threw          bool
}

var errClassRe = regexp.MustCompile(`"errorClass" : "([A-Z_.]+)"`)

// readGolden splits a golden file into its queries.
func readGolden(text string) []goldenBlock {
	var out []goldenBlock
	parts := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "-- !query\n")
	for _, p := range parts[1:] {
		q, rest, ok := strings.Cut(p, "\n-- !query schema\n")
		if !ok {
			continue
		}
		b := goldenBlock{text: q}
		if _, output, ok := strings.Cut(rest, "-- !query output\n"); ok {
			first, _, _ := strings.Cut(output, "\n")
			if strings.HasSuffix(first, "Exception") || strings.HasSuffix(first, "Error") {
				b.threw = true
				if m := errClassRe.FindStringSubmatch(output); m != nil {
					b.errClass = m[1]
				}
			}
		}
		out = append(out, b)
	}
	return out
}

// corpusCat is the catalog a golden file builds as its statements run:
// views and tables by lower-cased name as written; a name known under
// two qualifications is of unknown columns when read by its last part.
type corpusCat map[string][]Column

func (c corpusCat) Table(name []string) ([]Column, bool) {
	if len(name) == 0 {
		return nil, false
	}
	if cols, ok := c[strings.ToLower(strings.Join(name, "."))]; ok {
		return cols, true
	}
	last := strings.ToLower(name[len(name)-1])
	var found []Column
	n := 0
	for k, cols := range c {
		if k == last || strings.HasSuffix(k, "."+last) {
			found = cols
			n++
		}
	}
	if n > 1 {
		return nil, true
	}
	return found, n == 1
}

// forget drops every entry of name (by its last part).
func (c corpusCat) forget(name string) {
	last := strings.ToLower(name)
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	last = strings.Trim(last, "`")
	for k := range c {
		if k == last || strings.HasSuffix(k, "."+last) {
			delete(c, k)
		}
	}
}

var (
	confSet     = regexp.MustCompile(`(?is)^\s*SET\s+(spark\.sql\.(?:caseSensitive|groupByAliases|lateralColumnAlias\.enableImplicitResolution|parser\.quotedRegexColumnNames|orderByOrdinal|groupByOrdinal|legacy\.parser\.havingWithoutGroupByAsWhere))\s*=\s*(true|false)\s*;?\s*$`)
	declareRe   = regexp.MustCompile(`(?is)^\s*DECLARE\s+(?:OR\s+REPLACE\s+)?(?:VARIABLE\s+|VAR\s+)?(?:IDENTIFIER\s*\(\s*')?([a-z_][a-z0-9_]*(?:\s*,\s*[a-z_][a-z0-9_]*)*)`)
	alterView   = regexp.MustCompile(`(?is)^\s*ALTER\s+VIEW\s+([^\s(]+)\s+AS\s+(.*)$`)
	alterOrDrop = regexp.MustCompile(`(?is)^\s*(?:ALTER\s+TABLE|DROP\s+(?:TABLE|VIEW)(?:\s+IF\s+EXISTS)?)\s+(IDENTIFIER\('[^']*'\)|[^\s(;]+)`)
)

// TestSparkCorpus runs the model over Spark's own SQL test corpus (when
// the conformance harness has cached it, see make conformance), each file
// in order with a catalog of the views and tables its statements create,
// and holds it to the no-false-positive rule: every diagnostic must be on
// a query Spark rejected. It logs how many of Spark's own name errors the
// model finds.
func TestSparkCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	corpus, err := conformance.Open(conformance.DefaultVersion)
	if err != nil {
		t.Skipf("Spark's SQL test corpus is not cached: %v", err)
	}
	files, err := corpus.Files()
	if err != nil {
		t.Fatal(err)
	}
	nameErrors := map[string]string{
		"UNRESOLVED_COLUMN": CodeUnresolvedColumn, "AMBIGUOUS_REFERENCE": CodeAmbiguous,
		"MISSING_AGGREGATION": CodeMissingAggregation, "MISSING_GROUP_BY": CodeMissingGroupBy,
		"FIELD_NOT_FOUND": CodeFieldNotFound,
	}
	found, missed, wrong := map[string]int{}, map[string]int{}, 0
	// other: the analysis errors of other classes found on queries Spark
	// rejected with that class
	other := map[string]int{}
	var fps []string
	for _, f := range files {
		golden, err := os.ReadFile(f.Golden)
		if err != nil {
			t.Fatal(err)
		}
		input, _ := os.ReadFile(f.Input)
		initial := conformance.FileSettings(f.Name, string(input))
		settings := initial
		cat := corpusCat{}
		opts := Options{}
		for _, line := range strings.Split(string(input), "\n") {
			if rest, ok := strings.CutPrefix(line, "--SET "); ok {
				for _, kv := range strings.Split(rest, ",") {
					if m := confSet.FindStringSubmatch("SET " + kv); m != nil {
						setOpt(&opts, m[1], m[2])
					}
				}
			}
		}
		for i, b := range readGolden(string(golden)) {
			st, errs := parser.ParseStatement(b.text, conformance.Options(settings))
			settings = settings.After(b.text, initial)
			if m := confSet.FindStringSubmatch(b.text); m != nil {
				setOpt(&opts, m[1], m[2])
			}
			if m := declareRe.FindStringSubmatch(b.text); m != nil && !b.threw {
				for _, v := range strings.Split(m[1], ",") {
					opts.Variables = append(opts.Variables, strings.TrimSpace(v))
				}
			}
			if m := alterView.FindStringSubmatch(b.text); m != nil {
				cat.forget(m[1])
				if qs, qerrs := parser.ParseStatement(m[2], conformance.Options(settings)); len(qerrs) == 0 && !b.threw {
					o := opts
					o.Source = m[2]
					register(cat, &ast.Create{Name: &ast.Name{Parts: []*ast.Ident{{Name: m[1]}}}, Query: queryOf(qs)},
						AnalyzeStmt(qs, cat, o), m[2])
				}
			} else if m := alterOrDrop.FindStringSubmatch(b.text); m != nil {
				if n, ok := strings.CutPrefix(strings.ToUpper(m[1]), "IDENTIFIER('"); ok {
					m[1] = strings.ToLower(strings.TrimSuffix(n, "')"))
				}
				cat.forget(m[1])
				if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(b.text)), "ALTER") {
					cat[strings.ToLower(strings.Trim(m[1], "`"))] = nil
				}
			}
			if len(errs) > 0 {
				continue
			}
			o := opts
			o.Source = b.text
			m := AnalyzeStmt(st, cat, o)
			if !b.threw {
				register(cat, st, m, b.text)
			}
			sparkName := ""
			for cls, code := range nameErrors {
				if strings.HasPrefix(b.errClass, cls) {
					sparkName = code
				}
			}
			mine := map[string]bool{}
			for _, d := range m.Diagnostics {
				mine[d.Code] = true
			}
			if sparkName != "" {
				if mine[sparkName] {
					found[sparkName]++
				} else {
					missed[sparkName]++
					if os.Getenv("SEMA_MISSED") != "" {
						t.Logf("missed %s#%d %s: %s", f.Name, i+1, b.errClass, oneLine(b.text))
					}
				}
			}
			if len(m.Diagnostics) == 0 {
				continue
			}
			for _, d := range m.Diagnostics {
				if !NameCodes[d.Code] && b.threw && (b.errClass == d.Code || strings.HasPrefix(b.errClass, d.Code+".")) {
					other[d.Code]++
					break
				}
			}
			d := m.Diagnostics[0]
			if !b.threw {
				fps = append(fps, f.Name+"#"+itoa(i+1)+": "+d.Code+" at "+b.text[d.Start:d.End]+": "+d.Message+"\n    "+oneLine(b.text))
			} else if sparkName == "" {
				wrong++
				t.Logf("%s#%d: Spark %s, Thund %s at %q: %s", f.Name, i+1, b.errClass, d.Code, b.text[d.Start:d.End], oneLine(b.text))
			}
		}
	}
	sort.Strings(fps)
	for _, fp := range fps {
		t.Errorf("false positive %s", fp)
	}
	t.Logf("Spark's name errors found: %v, missed: %v; diagnostics on queries Spark rejected for another reason: %d", found, missed, wrong)
	t.Logf("Spark's other analysis errors found with Spark's class: %v", other)
}

func setOpt(o *Options, key, value string) {
	on := strings.EqualFold(value, "true")
	switch key {
	case "spark.sql.caseSensitive":
		o.CaseSensitive = on
	case "spark.sql.groupByAliases":
		o.NoGroupByAliases = !on
	case "spark.sql.lateralColumnAlias.enableImplicitResolution":
		o.NoLateralAliases = !on
	case "spark.sql.parser.quotedRegexColumnNames":
		o.QuotedRegexColumnNames = on
	case "spark.sql.orderByOrdinal":
		o.NoOrderByOrdinal = !on
	case "spark.sql.groupByOrdinal":
		o.NoGroupByOrdinal = !on
	case "spark.sql.legacy.parser.havingWithoutGroupByAsWhere":
		// HAVING is a WHERE: the model never counts HAVING alone as
		// aggregating
	}
}

// queryOf returns the query of a query statement.
func queryOf(st ast.Stmt) *ast.Query {
	if q, ok := st.(*ast.QueryStmt); ok {
		return q.Query
	}
	return nil
}

// register records the view or table a statement creates.
func register(cat corpusCat, st ast.Stmt, m *Model, text string) {
	c, ok := st.(*ast.Create)
	if !ok || c.Name == nil || len(c.Name.Parts) == 0 {
		return
	}
	var parts []string
	for _, p := range c.Name.Parts {
		parts = append(parts, p.Name)
	}
	name := strings.ToLower(strings.Join(parts, "."))
	delete(cat, name)
	var cols []Column
	switch {
	case c.Query != nil:
		out := m.Output(c.Query)
		if out == nil || !out.Complete {
			cat[name] = nil
			return
		}
		for _, oc := range out.Columns {
			if oc.Generated {
				cat[name] = nil
				return
			}
			cols = append(cols, Column{Name: oc.Name, Type: oc.Type})
		}
		if len(c.Columns) > 0 {
			if len(c.Columns) != len(cols) {
				cat[name] = nil
				return
			}
			for i, cd := range c.Columns {
				cols[i].Name = cd.Name.Name
			}
		}
	case len(c.Columns) > 0 && c.Like == nil:
		for _, cd := range c.Columns {
			typ := ""
			if cd.Type != nil && cd.Type.End <= len(text) {
				typ = text[cd.Type.Start:cd.Type.End]
			}
			cols = append(cols, Column{Name: cd.Name.Name, Type: typ})
		}
	default:
		cat[name] = nil
		return
	}
	cat[name] = cols
}

func itoa(n int) string {
	s := ""
	for n > 0 || s == "" {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
