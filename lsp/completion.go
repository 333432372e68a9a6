package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/textpos"
)

var (
	// pragmaKeyCtx: the cursor is on a pragma key (`-- @ki`).
	pragmaKeyCtx = regexp.MustCompile(`^\s*--\s*@([A-Za-z_]*)$`)
	// pragmaValueCtx: the cursor is in a pragma value (`-- @kind: ma`).
	pragmaValueCtx = regexp.MustCompile(`^\s*--\s*@([A-Za-z_]+)(?:\.[^:\s]*)?\s*:\s*(.*)$`)
	// violationCtx: after ON VIOLATION in an expectation.
	violationCtx = regexp.MustCompile(`(?i)\bON\s+VIOLATION\s+([A-Za-z ]*)$`)
	// tableCtx: after FROM, JOIN or a comma in a FROM list.
	tableCtx = regexp.MustCompile(`(?i)\b(FROM|JOIN)\s+(STREAM\s*\(?\s*)?[A-Za-z0-9_."` + "`" + `]*$`)
	// qualifiedCtx: after alias. (columns of that table).
	qualifiedCtx = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z0-9_]*)$`)
	// aliasCtx: the user is naming an alias (`AS `, `AS tot`), where no
	// column or function fits.
	aliasCtx = regexp.MustCompile(`(?i)\bAS\s+[A-Za-z_0-9]*$`)
)

func (s *Server) completion(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CompletionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	// Right after an edit, the model is the last one (resolveRecent): the
	// context before the cursor is read from the buffer's text (text, off),
	// the statement's flow, reads and aliases from the model (dp).
	dp, sh, err := s.resolveRecent(p.TextDocument.URI, p.Position, true)
	if err == nil && sh != nil && !sh.inFlow(dp) {
		// an edit beyond one query: the model's flows no longer match
		dp, err = s.resolve(p.TextDocument.URI, &p.Position)
		sh = nil
	}
	if err != nil {
		return nil, nil
	}
	text, _ := dp.snap.Text(dp.rel)
	off := dp.off
	if sh != nil {
		text = sh.newText
		off = sh.index().OffsetUTF16(textpos.Position{Line: int(p.Position.Line), Column: int(p.Position.Character)})
	}
	lineStart := strings.LastIndexAny(text[:off], "\r\n") + 1
	before := text[lineStart:off]
	items := []protocol.CompletionItem{}
	incomplete := false
	switch {
	case pragmaKeyCtx.MatchString(before):
		for _, k := range pragma.Keys {
			insert := k.Key
			if k.Dotted {
				insert += "."
			} else {
				insert += ": "
			}
			items = append(items, protocol.CompletionItem{Label: k.Key, Kind: protocol.CompletionItemKindProperty, Detail: "pragma", Documentation: k.Doc, InsertText: insert})
		}
	case violationCtx.MatchString(before) && strings.Contains(before, "@expect"):
		for _, a := range []string{"DROP ROW", "FAIL UPDATE"} {
			items = append(items, protocol.CompletionItem{Label: a, Kind: protocol.CompletionItemKindKeyword, Detail: "ON VIOLATION action"})
		}
	case pragmaValueCtx.MatchString(before):
		m := pragmaValueCtx.FindStringSubmatch(before)
		if doc, ok := pragma.LookupKey(m[1]); ok {
			s.mu.Lock()
			snippets := s.snippets
			s.mu.Unlock()
			for _, v := range doc.Values {
				if it, ok := pragmaValueItem(doc.Key, v, snippets); ok {
					items = append(items, it)
				}
			}
			if doc.Key == "sample" {
				for _, f := range dp.snap.Files {
					if strings.HasPrefix(f, "samples/") || strings.HasPrefix(f, "data/") {
						items = append(items, protocol.CompletionItem{Label: f, Kind: protocol.CompletionItemKindFile})
					}
				}
			}
			if doc.Key == "target" {
				items = append(items, datasetItems(dp.snap)...)
			}
		}
	case tableCtx.MatchString(before):
		// The statement's own CTEs, then every dataset but the one the
		// statement defines (reading it would be a cycle).
		lo, hi := statementAround(text, off)
		self := ""
		if f := flowAt(dp.snap, dp.rel, dp.off); f != nil {
			lo, hi, self = f.QueryLoc.Start, f.QueryLoc.End, ir.NameKey(f.Target)
			if sh != nil {
				lo, hi = sh.toNew(lo, false), sh.toNew(hi, true)
			}
			hi = min(len(text), hi)
		}
		for _, name := range ctesInScope(text[lo:hi], off-lo) {
			items = append(items, protocol.CompletionItem{Label: name, Kind: protocol.CompletionItemKindStruct, Detail: "common table expression", SortText: "0" + name})
		}
		// Datasets and sources: at most MaxCompletionItems of those the
		// typed prefix matches, marked incomplete when some were left out
		// (the client asks again as the user types on).
		prefix := typedWord(text, off)
		var cands []tableCand
		for _, d := range dp.snap.Pipeline.Datasets {
			// A sink is written to, never read.
			if fuzzyMatch(d.Name, prefix) && ir.NameKey(d.Name) != self && d.Kind != ir.Sink {
				cands = append(cands, tableCand{label: d.Name, ds: d})
			}
		}
		for _, src := range dp.snap.Pipeline.Sources {
			if fuzzyMatch(src.Name, prefix) {
				cands = append(cands, tableCand{label: src.Name, src: src})
			}
		}
		cut := len(cands) > MaxCompletionItems
		if cut {
			// Only the items sent are built: those starting with the
			// prefix first, then by name.
			for i := range cands {
				cands[i].starts = hasPrefixFold(cands[i].label, prefix)
			}
			sort.Slice(cands, func(i, j int) bool {
				if cands[i].starts != cands[j].starts {
					return cands[i].starts
				}
				return cands[i].label < cands[j].label
			})
			cands = cands[:MaxCompletionItems]
		}
		for _, c := range cands {
			if c.ds != nil {
				items = append(items, protocol.CompletionItem{Label: c.label, Kind: protocol.CompletionItemKindClass,
					Detail: strings.ReplaceAll(string(c.ds.Kind), "_", " ") + " · " + c.ds.Loc.File, Data: tableItemData{Dataset: c.label, URI: p.TextDocument.URI}})
			} else {
				items = append(items, protocol.CompletionItem{Label: c.label, Kind: protocol.CompletionItemKindFile, Detail: "source " + c.src.Sample})
			}
		}
		incomplete = incomplete || cut
	case qualifiedCtx.MatchString(before) && !strings.HasPrefix(strings.TrimSpace(before), "--"):
		alias := qualifiedCtx.FindStringSubmatch(before)[1]
		table := aliasTable(dp.snap, dp.rel, dp.off, alias)
		if table == "" && sh != nil {
			// an alias the model does not know yet: the buffer's FROM
			lo, hi := statementAround(text, off)
			for _, it := range fromItems(text[lo:hi]) {
				if strings.EqualFold(it.table, alias) || strings.EqualFold(it.alias, alias) {
					table = it.table
					break
				}
			}
		}
		if table != "" {
			items = append(items, s.columnItems(dp, []string{table})...)
		}
	case aliasCtx.MatchString(before):
		// naming an alias: nothing to offer
	default:
		if !strings.HasPrefix(strings.TrimSpace(before), "--") && !inComment(text, off) {
			items = append(items, s.columnItems(dp, tablesInScope(dp.snap, dp.rel, dp.off))...)
			// Every column in scope, then the functions the typed prefix
			// matches, at most MaxCompletionItems of them.
			prefix := typedWord(text, off)
			backends := dp.snap.Backends()
			var fns []protocol.CompletionItem
			for _, it := range functionItems(backends) {
				if fuzzyMatch(it.Label, prefix) {
					fns = append(fns, it)
				}
			}
			kept, cut := capItems(fns, prefix)
			items = append(items, withAvailability(kept, backends)...)
			incomplete = incomplete || cut
		}
	}
	return &protocol.CompletionList{IsIncomplete: incomplete, Items: items}, nil
}

// MaxCompletionItems is the most datasets, sources or functions one
// completion answer lists; with more matches, the answer is incomplete and
// the client asks again as the user types (a 2,000-dataset pipeline would
// otherwise send 2,000 items on every keystroke after FROM).
const MaxCompletionItems = 200

// tableItemData is the data of a dataset's completion item, for
// completionItem/resolve to add its comment.
type tableItemData struct {
	Dataset string               `json:"dataset,omitempty"`
	URI     protocol.DocumentURI `json:"uri,omitempty"`
}

// typedWord is the identifier being typed before off ("" after a space).
func typedWord(text string, off int) string {
	lo := off
	for lo > 0 && isWordByte(text[lo-1]) {
		lo--
	}
	return text[lo:off]
}

// fuzzyMatch reports whether the prefix's characters appear in the label
// in order, ignoring case: every label a client's own filter (VS Code's
// fuzzy matching, prefix matching elsewhere) could show for that prefix.
func fuzzyMatch(label, prefix string) bool {
	j := 0
	for i := 0; i < len(label) && j < len(prefix); i++ {
		if lower(label[i]) == lower(prefix[j]) {
			j++
		}
	}
	return j == len(prefix)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// tableCand is a dataset or source completion may offer.
type tableCand struct {
	label  string
	starts bool
	ds     *ir.Dataset
	src    *ir.Source
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// capItems keeps at most MaxCompletionItems items, those starting with the
// prefix first, then by label; it reports whether some were left out.
func capItems(items []protocol.CompletionItem, prefix string) ([]protocol.CompletionItem, bool) {
	if len(items) <= MaxCompletionItems {
		return items, false
	}
	starts := func(it protocol.CompletionItem) bool { return hasPrefixFold(it.Label, prefix) }
	sorted := append([]protocol.CompletionItem(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool {
		si, sj := starts(sorted[i]), starts(sorted[j])
		if si != sj {
			return si
		}
		return sorted[i].Label < sorted[j].Label
	})
	return sorted[:MaxCompletionItems], true
}

func datasetItems(snap *analysis.Snapshot) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(snap.Pipeline.Datasets))
	for _, d := range snap.Pipeline.Datasets {
		out = append(out, protocol.CompletionItem{Label: d.Name, Kind: protocol.CompletionItemKindClass,
			Detail: strings.ReplaceAll(string(d.Kind), "_", " ") + " · " + d.Loc.File, Documentation: d.Comment})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// flowAt returns the flow whose query holds the offset.
func flowAt(snap *analysis.Snapshot, rel string, off int) *ir.Flow {
	for _, f := range snap.FlowsIn(rel) {
		if f.QueryLoc.Start <= off && off <= f.QueryLoc.End+1 {
			return f
		}
	}
	return nil
}

// tablesInScope are the tables the query at the offset reads.
func tablesInScope(snap *analysis.Snapshot, rel string, off int) []string {
	f := flowAt(snap, rel, off)
	if f == nil {
		return nil
	}
	var out []string
	for _, r := range f.Reads {
		out = appendUnique(out, r.Name)
	}
	return out
}

// aliasTable finds the table an alias stands for in the query at the
// offset (FROM orders AS o, FROM orders o), or the table itself. While a
// query is being typed it often does not parse (SELECT b. FROM base AS b),
// and then has no reads: the FROM and JOIN items of its text are read
// instead.
func aliasTable(snap *analysis.Snapshot, rel string, off int, alias string) string {
	text, _ := snap.Text(rel)
	lo, hi := statementAround(text, off)
	if f := flowAt(snap, rel, off); f != nil {
		for _, r := range f.Reads {
			if strings.EqualFold(r.Name, alias) {
				return r.Name
			}
			m := aliasAfter.FindStringSubmatch(text[r.Loc.End:min(len(text), r.Loc.End+64)])
			if m != nil && strings.EqualFold(m[1], alias) {
				return r.Name
			}
		}
		lo, hi = f.QueryLoc.Start, min(len(text), f.QueryLoc.End)
	}
	for _, it := range fromItems(text[lo:hi]) {
		if strings.EqualFold(it.table, alias) || strings.EqualFold(it.alias, alias) {
			return it.table
		}
	}
	return ""
}

// fromItemT is a table of a FROM clause and its alias ("" when none).
type fromItemT struct{ table, alias string }

// fromItems reads the tables of a statement's FROM clauses and JOINs, with
// their aliases, from its text alone (it need not parse): after FROM or
// JOIN, a name, an optional [AS] alias that is not a keyword, and more
// items after commas. A subquery (FROM (SELECT ...) s) gives no item.
func fromItems(stmt string) []fromItemT {
	var out []fromItemT
	for _, loc := range fromOrJoin.FindAllStringIndex(stmt, -1) {
		i := loc[1]
		for {
			i = skipSpace(stmt, i)
			stream := false
			if m := streamOpen.FindStringIndex(stmt[i:]); m != nil {
				i += m[1]
				stream = strings.Contains(stmt[i-m[1]+m[0]:i], "(")
			}
			name := tableName.FindString(stmt[i:])
			if name == "" {
				break
			}
			i += len(name)
			i = skipSpace(stmt, i)
			if stream && i < len(stmt) && stmt[i] == ')' {
				i = skipSpace(stmt, i+1)
			}
			it := fromItemT{table: strings.NewReplacer("`", "", `"`, "").Replace(name)}
			if m := aliasWord.FindStringSubmatch(stmt[i:]); m != nil && !clauseWords[strings.ToUpper(m[1])] {
				it.alias = m[1]
				i += len(m[0])
			}
			out = append(out, it)
			i = skipSpace(stmt, i)
			if i >= len(stmt) || stmt[i] != ',' {
				break
			}
			i++
		}
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

var (
	fromOrJoin = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\b`)
	streamOpen = regexp.MustCompile(`(?i)^STREAM\s*\(?\s*`)
	tableName  = regexp.MustCompile("^[A-Za-z_`\"][A-Za-z0-9_.`\"]*")
	aliasWord  = regexp.MustCompile(`(?i)^(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*)`)
	// clauseWords end a FROM item: they are never its alias.
	clauseWords = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields("JOIN LEFT RIGHT INNER OUTER FULL CROSS NATURAL ANTI SEMI ASOF POSITIONAL LATERAL ON USING WHERE GROUP ORDER HAVING LIMIT OFFSET UNION INTERSECT EXCEPT MINUS WINDOW QUALIFY SELECT FROM AS WITH VALUES") {
		clauseWords[w] = true
	}
}

var (
	// aliasAfter is the alias after a table reference: ` AS o`, ` o`.
	aliasAfter = regexp.MustCompile(`(?i)^\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*)`)
)

// cteDef is a common table expression's name: WITH x AS (, , y AS (.
var cteDef = regexp.MustCompile(`(?i)(?:\bWITH(?:\s+RECURSIVE)?|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s+AS\s*\(`)

// ctesInScope returns the names of the CTEs a statement's text defines
// that a table name at offset off can read, as Spark scopes them: a CTE
// whose body closed before off (one defined later, or the one whose body
// holds off, is not yet defined there), or, under WITH RECURSIVE, also
// the one whose body holds off.
func ctesInScope(stmt string, off int) []string {
	recursive := withRecursive.MatchString(stmt)
	var out []string
	for _, m := range cteDef.FindAllStringSubmatchIndex(stmt, -1) {
		open := m[1] - 1 // the body's '('
		closed := closingParen(stmt, open)
		inside := open < off && (closed < 0 || off <= closed)
		if (closed >= 0 && closed < off) || (recursive && inside) {
			out = appendUnique(out, stmt[m[2]:m[3]])
		}
	}
	return out
}

// withRecursive matches WITH RECURSIVE.
var withRecursive = regexp.MustCompile(`(?i)\bWITH\s+RECURSIVE\b`)

// closingParen returns the offset of the ')' closing the '(' at open, or
// -1 while it is still open (the user is typing the body); parentheses in
// quotes, backquotes and comments do not count.
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		case '\'', '"', '`':
			if j := strings.IndexByte(s[i+1:], c); j >= 0 {
				i += j + 1
			} else {
				return -1
			}
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
					i += j
				} else {
					return -1
				}
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				if j := strings.Index(s[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					return -1
				}
			}
		}
	}
	return -1
}

// statementAround returns the bounds of the statement holding off: from
// the semicolon before it to the one after it (or the text's ends).
func statementAround(text string, off int) (int, int) {
	off = min(max(off, 0), len(text))
	lo := strings.LastIndexByte(text[:off], ';') + 1
	hi := len(text)
	if i := strings.IndexByte(text[off:], ';'); i >= 0 {
		hi = off + i
	}
	return lo, hi
}

// columnItems offers the columns of the given tables, from the engine
// session (a dataset that was previewed or run, or a source's sample).
func (s *Server) columnItems(dp docPos, tables []string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for _, t := range tables {
		// A dataset read with the pipeline's own qualifiers
		// (sales.billable_lines when the database is sales) has the
		// columns of the dataset as it is named.
		if d := dp.snap.Pipeline.Resolve(t); d != nil {
			t = d.Name
		}
		cols := s.columnsOf(dp.root, t)
		if len(cols) == 0 {
			cols = s.modelColumns(dp, t)
		}
		for _, c := range cols {
			detail := t
			if c.Type != "" {
				detail = preview.SparkType(c.Type) + " · " + t
			}
			out = append(out, protocol.CompletionItem{Label: c.Name, Kind: protocol.CompletionItemKindField, Detail: detail})
		}
	}
	return out
}

// modelColumns are a table's columns as the column model knows them
// (with Spark's types where it can tell them), for a table the engine has
// not described yet.
func (s *Server) modelColumns(dp docPos, table string) []preview.Column {
	s.useColumns(dp.root)
	t := s.lineageGraph(dp).Table(table)
	if t == nil {
		return nil
	}
	out := make([]preview.Column, 0, len(t.Columns))
	for _, c := range t.Columns {
		out = append(out, preview.Column{Name: c.ID.Column, Type: c.Type})
	}
	return out
}

// placeholder is a word of a pragma value's documented form that stands
// for the user's text (T, PATH, COLUMN, INTERVAL, ...).
var placeholder = regexp.MustCompile(`\b(?:T|H|P|COL|COLUMN|INTERVAL|PATH|GLOB|FOLDER/|EXPR|PREDICATE|DATASET|IDENTIFIER|TEXT|VALUE)\b`)

// columnList is the documented form of a column list (partition_by).
var columnList = regexp.MustCompile(`^\(?a, b\)?$`)

// pragmaValueItem is the completion item of one documented form of a
// pragma value. A plain word (append, materialized_view) is inserted as
// is. A form with placeholders (kafka topic=T [bootstrap=H]
// [format=json]) is a snippet when the client takes snippets: the
// placeholders are tab stops, alternatives (csv|json) a choice, and the
// optional [parts] are left out; without snippets it is not offered, so
// that no placeholder is ever inserted literally.
func pragmaValueItem(key, form string, snippets bool) (protocol.CompletionItem, bool) {
	it := protocol.CompletionItem{Label: form, Kind: protocol.CompletionItemKindEnumMember, Detail: "@" + key}
	if !placeholder.MatchString(form) && !strings.ContainsAny(form, "[|") && !columnList.MatchString(form) {
		return it, true
	}
	if !snippets {
		return it, false
	}
	if columnList.MatchString(form) {
		it.InsertText = strings.Replace(form, "a, b", "${1:a, b}", 1)
		it.InsertTextFormat = protocol.InsertTextFormatSnippet
		return it, true
	}
	// The optional parts go; the rest keeps its words.
	text := form
	for {
		i := strings.IndexByte(text, '[')
		j := strings.LastIndexByte(text, ']')
		if i < 0 || j < i {
			break
		}
		// the outermost [...] from its opening bracket
		depth, end := 0, -1
		for k := i; k < len(text); k++ {
			if text[k] == '[' {
				depth++
			} else if text[k] == ']' {
				depth--
				if depth == 0 {
					end = k
					break
				}
			}
		}
		if end < 0 {
			break
		}
		text = strings.TrimRight(text[:i], " ") + text[end+1:]
	}
	var b strings.Builder
	n := 0
	for _, field := range strings.SplitAfter(text, " ") {
		word := strings.TrimRight(field, " ")
		space := field[len(word):]
		key, val, hasEq := strings.Cut(word, "=")
		target := word
		if hasEq {
			b.WriteString(snippetEscape(key) + "=")
			target = val
		}
		switch {
		case strings.Contains(target, "|"):
			n++
			b.WriteString(fmt.Sprintf("${%d|%s|}", n, strings.ReplaceAll(snippetEscape(target), "|", ",")))
		case placeholder.MatchString(target):
			b.WriteString(placeholder.ReplaceAllStringFunc(snippetEscape(target), func(w string) string {
				n++
				return fmt.Sprintf("${%d:%s}", n, w)
			}))
		default:
			b.WriteString(snippetEscape(target))
		}
		b.WriteString(space)
	}
	it.InsertText = strings.TrimRight(b.String(), " ")
	it.InsertTextFormat = protocol.InsertTextFormatSnippet
	return it, true
}

// snippetEscape escapes the characters snippets give a meaning to.
func snippetEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`).Replace(s)
}
