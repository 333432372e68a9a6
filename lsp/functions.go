package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sparkfuncs"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
)

// SparkFunction is one built-in function of a Spark release
// (sparkfuncs, generated from a real Spark).
type SparkFunction = sparkfuncs.Function

// SparkUsage is one form of a function.
type SparkUsage = sparkfuncs.Usage

// FunctionCatalog is the catalog of one Spark release, with its
// completion items built once.
type FunctionCatalog struct {
	*sparkfuncs.Catalog
	itemsOnce sync.Once
	items     []protocol.CompletionItem
}

// Lookup returns the function of that name (any case), or nil.
func (c *FunctionCatalog) Lookup(name string) *SparkFunction {
	if c == nil {
		return nil
	}
	return c.Catalog.Lookup(name)
}

var (
	catalogsOnce sync.Once
	catalogs     []*FunctionCatalog // by version, oldest first
	catalogsErr  error
)

// loadCatalogs wraps sparkfuncs' catalogs once.
func loadCatalogs() ([]*FunctionCatalog, error) {
	catalogsOnce.Do(func() {
		cs, err := sparkfuncs.Catalogs()
		if err != nil {
			catalogsErr = err
			return
		}
		for _, c := range cs {
			catalogs = append(catalogs, &FunctionCatalog{Catalog: c})
		}
	})
	return catalogs, catalogsErr
}

// versionLess compares dotted version numbers numerically.
func versionLess(a, b string) bool { return sparkfuncs.VersionLess(a, b) }

// catalogOf returns the catalog of a Spark version ("4.2"): the newest
// catalog of that version (4.2.x), else the newest older one, else the
// oldest there is.
func catalogOf(cs []*FunctionCatalog, want string) *FunctionCatalog {
	var best *FunctionCatalog
	for _, c := range cs {
		if c.SparkVersion == want || strings.HasPrefix(c.SparkVersion, want+".") || versionLess(c.SparkVersion, want) {
			best = c
		}
	}
	if best == nil {
		return cs[0]
	}
	return best
}

// sparkTarget is a backend of the pipeline that runs Spark's functions,
// with the catalog of its version.
type sparkTarget struct {
	backend ir.Backend
	catalog *FunctionCatalog
}

// sparkTargets are the pipeline's Spark backends with their catalogs:
// spark-4.x takes the catalog of 4.x (catalogOf), databricks the newest.
func sparkTargets(backends []ir.Backend) []sparkTarget {
	cs, err := loadCatalogs()
	if err != nil || len(cs) == 0 {
		return nil
	}
	var out []sparkTarget
	for _, b := range backends {
		if v, ok := strings.CutPrefix(string(b), "spark-"); ok {
			out = append(out, sparkTarget{b, catalogOf(cs, v)})
		} else if b == ir.Databricks {
			out = append(out, sparkTarget{b, cs[len(cs)-1]})
		}
	}
	return out
}

// catalogFor returns the catalog for a pipeline's backends: of the newest
// Spark version it targets (spark-4.2 -> the newest 4.2.x catalog;
// databricks -> the newest catalog), else the newest there is.
func catalogFor(backends []ir.Backend) *FunctionCatalog {
	cs, err := loadCatalogs()
	if err != nil || len(cs) == 0 {
		return nil
	}
	var best *FunctionCatalog
	for _, t := range sparkTargets(backends) {
		if best == nil || versionLess(best.SparkVersion, t.catalog.SparkVersion) {
			best = t.catalog
		}
	}
	if best == nil {
		return cs[len(cs)-1]
	}
	return best
}

// newestCatalog is the catalog of the newest Spark release there is.
func newestCatalog() *FunctionCatalog {
	cs, err := loadCatalogs()
	if err != nil || len(cs) == 0 {
		return nil
	}
	return cs[len(cs)-1]
}

// lookupFunction finds a function for a pipeline's backends: in the
// target catalog (catalogFor), else in the newest catalog (a function of a
// newer Spark than the pipeline targets), with the catalog it came from.
func lookupFunction(backends []ir.Backend, name string) (*FunctionCatalog, *SparkFunction) {
	c := catalogFor(backends)
	if f := c.Lookup(name); f != nil {
		return c, f
	}
	if n := newestCatalog(); n != nil && n != c {
		if f := n.Lookup(name); f != nil {
			return n, f
		}
	}
	return c, nil
}

// firstRelease is the oldest catalog holding the function ("" when none
// does): the Spark release Thund first knows it in.
func firstRelease(name string) string {
	cs, _ := loadCatalogs()
	for _, c := range cs {
		if c.Lookup(name) != nil {
			return c.SparkVersion
		}
	}
	return ""
}

// missingFrom lists the pipeline's Spark backends whose release does not
// have the function ("spark-4.1 (Spark 4.1.4)"), empty when every one has
// it.
func missingFrom(backends []ir.Backend, name string) []string {
	var out []string
	for _, t := range sparkTargets(backends) {
		if t.catalog.Lookup(name) == nil {
			out = append(out, fmt.Sprintf("%s (Spark %s)", t.backend, t.catalog.SparkVersion))
		}
	}
	return out
}

// availabilityLine says where a function is missing from the pipeline's
// targets and the release it is new in; "" when every target has it.
func availabilityLine(backends []ir.Backend, name string) string {
	miss := missingFrom(backends, name)
	if len(miss) == 0 {
		return ""
	}
	line := "**Not available on " + strings.Join(miss, ", ") + "**, which this pipeline targets"
	if v := firstRelease(name); v != "" {
		line += ": new in Spark " + v
	}
	return line + ". Spark fails a query calling it there (UNRESOLVED_ROUTINE)."
}

// NativeSupport says whether the native engine (DuckDB) runs a Spark
// function with Spark's meaning, from what Thund knows. In a Spark SQL
// query (the spark and databricks dialects) a run translates the call
// (engine/translate, the table docs/spark-compat.md shows): "translated"
// for a function the translator writes in DuckDB with Spark's meaning
// (Note says how; some argument forms may still be refused at the call),
// "refused" for one a run refuses before running (Note says why), and
// "mapped" for one a compatibility macro runs. In a query of the duckdb
// dialect the text runs as written: "differs" for the functions
// analysis.DiffersOnSpark lists, "mapped" for the macros, and "unknown"
// for every other function: Thund has not checked them, so it does not
// guess.
type NativeSupport struct {
	Status string `json:"status"` // "translated", "refused", "differs", "mapped" or "unknown"
	Note   string `json:"note,omitempty"`
}

// translated indexes the translator's functions by name and alias.
var translated = func() map[string]translate.Function {
	m := map[string]translate.Function{}
	for _, f := range translate.Functions() {
		m[strings.ToLower(f.Name)] = f
		for _, a := range f.Aliases {
			m[strings.ToLower(a)] = f
		}
	}
	return m
}()

func nativeSupport(name string, duckdb bool) NativeSupport {
	n := strings.ToLower(name)
	if !duckdb {
		if f, ok := translated[n]; ok {
			if f.Refused != "" {
				return NativeSupport{Status: "refused", Note: f.Refused}
			}
			return NativeSupport{Status: "translated", Note: "runs as " + f.DuckDB}
		}
	}
	if duckdb {
		for _, d := range analysis.DiffersOnSpark {
			if d.Name == n {
				note := d.Differs
				if d.Args > 0 {
					note = fmt.Sprintf("with %d argument(s): %s", d.Args, note)
				}
				if d.Spark != "" {
					note += "; portable: " + d.Spark
				}
				return NativeSupport{Status: "differs", Note: note}
			}
		}
	}
	for _, c := range engine.CompatFunctions {
		if strings.ToLower(c.Name) == n {
			note := "runs natively as " + c.DuckDB
			if c.Notes != "" {
				note += " (" + c.Notes + ")"
			}
			return NativeSupport{Status: "mapped", Note: note}
		}
	}
	if !duckdb {
		return NativeSupport{Status: "refused", Note: "Thund does not translate it, so a query calling it does not run natively (docs/spark-compat.md lists the functions that do)"}
	}
	return NativeSupport{Status: "unknown"}
}

// nativeLine is the native-engine line of a function's documentation.
func nativeLine(name string, duckdb bool) string {
	ns := nativeSupport(name, duckdb)
	switch ns.Status {
	case "translated":
		return "**Native (DuckDB):** translated with Spark's meaning, " + ns.Note
	case "refused":
		return "**Native (DuckDB):** does not run natively: " + ns.Note
	case "differs":
		return "**Native (DuckDB):** differs from Spark: " + ns.Note
	case "mapped":
		return "**Native (DuckDB):** same meaning, " + ns.Note
	}
	return "**Native (DuckDB):** unknown (Thund has not compared this function on both engines)"
}

// functionMarkdown documents a function for hover and completion, with
// where the pipeline's targets lack it (availabilityLine) first.
func functionMarkdown(c *FunctionCatalog, f *SparkFunction, backends []ir.Backend, duckdb bool) string {
	var b strings.Builder
	if line := availabilityLine(backends, f.Name); line != "" {
		b.WriteString(line + "\n\n")
	}
	b.WriteString("```sql\n")
	for _, u := range f.Usages {
		b.WriteString(u.Signature + "\n")
	}
	b.WriteString("```\n")
	for _, u := range f.Usages {
		if u.Summary == "" {
			continue
		}
		if len(f.Usages) > 1 {
			b.WriteString("- `" + u.Signature + "`: " + u.Summary + "\n")
		} else {
			b.WriteString(u.Summary + "\n")
		}
	}
	if f.Example != nil {
		b.WriteString("\nExample:\n```sql\n" + f.Example.Query + "\n")
		if f.Example.Result != "" {
			b.WriteString("-- " + strings.ReplaceAll(f.Example.Result, "\n", "\n-- ") + "\n")
		}
		b.WriteString("```\n")
	}
	b.WriteString("\n" + nativeLine(f.Name, duckdb) + "\n\n")
	fmt.Fprintf(&b, "Spark %s built-in function", c.SparkVersion)
	if f.Since != "" {
		fmt.Fprintf(&b, ", since %s", f.Since)
	}
	if v := firstRelease(f.Name); v != "" && v != firstCatalogVersion() {
		fmt.Fprintf(&b, "; new in Spark %s of the releases Thund checks", v)
	}
	return b.String()
}

// firstCatalogVersion is the oldest Spark release Thund has a catalog of.
func firstCatalogVersion() string {
	cs, _ := loadCatalogs()
	if len(cs) == 0 {
		return ""
	}
	return cs[0].SparkVersion
}

// isIdentFunction reports whether a function is called by a plain name
// (not an operator such as + or ||).
func isIdentFunction(name string) bool {
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return name != ""
}

// functionItems are the completion items of the named functions for a
// pipeline's backends: those of the target catalog (catalogFor), then
// those only a newer Spark release has, built once per catalog. Their
// documentation comes with completionItem/resolve (resolveCompletion), so
// that a completion in a select list does not send every function's text.
func functionItems(backends []ir.Backend) []protocol.CompletionItem {
	c := catalogFor(backends)
	if c == nil {
		return nil
	}
	c.itemsOnce.Do(func() {
		add := func(cat *FunctionCatalog, f *SparkFunction, sort string) {
			detail := ""
			if len(f.Usages) > 0 {
				detail = f.Usages[0].Signature
			}
			c.items = append(c.items, protocol.CompletionItem{
				Label: f.Name, Kind: protocol.CompletionItemKindFunction, Detail: detail,
				SortText: sort + f.Name, // after columns
				Data:     functionItemData{Function: f.Name, Spark: cat.SparkVersion},
			})
		}
		c.items = make([]protocol.CompletionItem, 0, len(c.Functions))
		for i := range c.Functions {
			if isIdentFunction(c.Functions[i].Name) {
				add(c, &c.Functions[i], "~")
			}
		}
		if n := newestCatalog(); n != c {
			for i := range n.Functions {
				if f := &n.Functions[i]; isIdentFunction(f.Name) && c.Lookup(f.Name) == nil {
					add(n, f, "~~") // after the target's own functions
				}
			}
		}
	})
	return c.items
}

// withAvailability returns copies of function items whose detail says
// which of the pipeline's Spark backends lack the function ("· not on
// spark-4.1 (Spark 4.1.4): new in 4.3.0"), and whose data carries the
// backends for completionItem/resolve.
func withAvailability(items []protocol.CompletionItem, backends []ir.Backend) []protocol.CompletionItem {
	names := make([]string, len(backends))
	for i, b := range backends {
		names[i] = string(b)
	}
	out := make([]protocol.CompletionItem, len(items))
	for i, it := range items {
		d, _ := it.Data.(functionItemData)
		d.Backends = names
		it.Data = d
		if miss := missingFrom(backends, it.Label); len(miss) > 0 {
			it.Detail += " · not on " + strings.Join(miss, ", ")
			if v := firstRelease(it.Label); v != "" {
				it.Detail += ": new in " + v
			}
		}
		out[i] = it
	}
	return out
}

// functionItemData is the data of a function's completion item: which
// function of which catalog, and the pipeline's backends, for
// completionItem/resolve.
type functionItemData struct {
	Function string   `json:"function"`
	Spark    string   `json:"spark"`
	Backends []string `json:"backends,omitempty"`
}

// resolveCompletion answers completionItem/resolve: a function's item
// gets its documentation, a dataset's its comment; any other item comes
// back as it was.
func (s *Server) resolveCompletion(_ context.Context, params json.RawMessage) (any, error) {
	var item protocol.CompletionItem
	if err := decode(params, &item); err != nil {
		return nil, err
	}
	var raw struct {
		Data *struct {
			functionItemData
			tableItemData
		} `json:"data"`
	}
	if json.Unmarshal(params, &raw) != nil || raw.Data == nil {
		return item, nil
	}
	if t := raw.Data.tableItemData; t.Dataset != "" && t.URI != "" {
		if dp, err := s.resolve(t.URI, nil); err == nil {
			if d := dp.snap.Pipeline.Resolve(t.Dataset); d != nil && d.Comment != "" {
				item.Documentation = d.Comment
			}
		}
		return item, nil
	}
	if raw.Data.Function == "" {
		return item, nil
	}
	var backends []ir.Backend
	for _, b := range raw.Data.Backends {
		backends = append(backends, ir.Backend(b))
	}
	cs, _ := loadCatalogs()
	for _, c := range cs {
		if c.SparkVersion != raw.Data.Spark {
			continue
		}
		if f := c.Lookup(raw.Data.Function); f != nil {
			item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: functionMarkdown(c, f, backends, false)}
		}
	}
	return item, nil
}

// functionCallAt returns the function name under the offset when it is
// called there (a name followed by an opening parenthesis), with its
// bounds; "" otherwise.
func functionCallAt(text string, off int) (string, int, int) {
	if off < 0 || off > len(text) {
		return "", 0, 0
	}
	lo, hi := off, off
	for lo > 0 && isWordByte(text[lo-1]) {
		lo--
	}
	for hi < len(text) && isWordByte(text[hi]) {
		hi++
	}
	if lo == hi || lo > 0 && (text[lo-1] == '.' || text[lo-1] == '`' || text[lo-1] == '"') {
		return "", 0, 0
	}
	j := hi
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j >= len(text) || text[j] != '(' {
		return "", 0, 0
	}
	return text[lo:hi], lo, hi
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inComment reports whether the offset is in a -- comment (a pragma
// header included) or a /* */ comment, or in a quoted string or name.
func inComment(text string, off int) bool {
	st := scanTo(text, 0, off)
	return st.quote != 0 || st.comment
}

// scanState is what a forward scan knows at an offset.
type scanState struct {
	quote   byte // the open quote, 0 outside quotes
	comment bool // inside a comment
	// calls are the open parentheses, innermost last.
	calls []openCall
}

// openCall is an open parenthesis: the name before it ("" when none) and
// the commas seen at its level.
type openCall struct {
	name   string
	start  int // offset of the name
	commas int
}

// scanTo scans text[from:to], skipping strings, quoted names and comments,
// and tracks open parentheses.
func scanTo(text string, from, to int) scanState {
	var st scanState
	to = min(to, len(text))
	for i := from; i < to; i++ {
		c := text[i]
		switch {
		case st.quote != 0:
			if c == '\\' && st.quote != '`' {
				i++
			} else if c == st.quote {
				st.quote = 0
			}
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 || i+nl >= to {
				st.comment = true
				return st
			}
			i += nl
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 || i+2+end+2 > to {
				st.comment = true
				return st
			}
			i += 2 + end + 1
		case c == '\'' || c == '"' || c == '`':
			st.quote = c
		case c == '(':
			j := i
			for j > from && (text[j-1] == ' ' || text[j-1] == '\t') {
				j--
			}
			k := j
			for k > from && isWordByte(text[k-1]) {
				k--
			}
			st.calls = append(st.calls, openCall{name: text[k:j], start: k})
		case c == ')':
			if n := len(st.calls); n > 0 {
				st.calls = st.calls[:n-1]
			}
		case c == ',':
			if n := len(st.calls); n > 0 {
				st.calls[n-1].commas++
			}
		case c == ';':
			st.calls = nil
		}
	}
	return st
}

// hoverWithFunctions answers a hover on a call of a Spark built-in
// function with its documentation; any other hover goes to hoverAt. Both
// answer from the last model when an edit is still being analysed
// (resolveRecent).
func (s *Server) hoverWithFunctions(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, sh, err := s.resolveRecent(p.TextDocument.URI, p.Position, false)
	if err != nil {
		return nil, nil
	}
	if h := functionHover(dp, sh); h != nil {
		return h, nil
	}
	return s.hoverAt(dp, sh)
}

// functionHover documents the built-in function called at the position,
// unless the name is a dataset or source of the pipeline (a table
// function read, say).
func functionHover(dp docPos, sh *editShift) *protocol.Hover {
	text, _ := dp.snap.Text(dp.rel)
	name, lo, hi := functionCallAt(text, dp.off)
	if name == "" || inComment(text, lo) {
		return nil
	}
	c, f := lookupFunction(dp.snap.Backends(), name)
	if f == nil || dp.snap.Pipeline.Resolve(name) != nil {
		return nil
	}
	r := sh.rangeOf(dp.snap, ir.Loc{File: dp.rel, Start: lo, End: hi})
	duckdb := false
	if fl := flowAt(dp.snap, dp.rel, dp.off); fl != nil {
		duckdb = fl.Dialect == "duckdb"
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: functionMarkdown(c, f, dp.snap.Backends(), duckdb)}, Range: &r}
}
