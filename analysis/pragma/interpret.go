package pragma

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/internal/editdist"
	"github.com/thund-dev/thund/ir"
)

// Sample binds a source table to a sample path (`@sample.TABLE: path`).
type Sample struct {
	// Table is the source table, Path the sample path as written (a pair
	// of surrounding quotes removed).
	Table, Path string
	// Loc spans the value, KeyLoc the "@sample" key and NameLoc the table
	// name after the dot.
	Loc     ir.Loc
	KeyLoc  ir.Loc
	NameLoc ir.Loc
}

// Settings is what a block's pragmas mean. Zero values mean "not set". A
// pragma whose value is in error leaves its setting unset.
type Settings struct {
	// Kind is `@kind`; KindLoc spans its value.
	Kind    ir.Kind
	KindLoc ir.Loc
	// Name is `@name`, unquoted; NameLoc spans its value.
	Name    string
	NameLoc ir.Loc
	// Comment is `@comment`; CommentSet tells an empty comment from none.
	Comment    string
	CommentSet bool
	// Flow is `@flow`; FlowLoc spans its value.
	Flow    string
	FlowLoc ir.Loc
	// Target is `@target`; TargetLoc spans its value.
	Target    string
	TargetLoc ir.Loc
	// Expectations are the `@expect.NAME` rules in order. Each Loc spans
	// from "@expect" to the end of the line and SQLLoc the boolean expression.
	Expectations []ir.Expectation
	// Source is `@source`.
	Source *ir.SourceSpec
	// Trigger is `@trigger`.
	Trigger *ir.Trigger
	// OutputMode is `@output_mode`; OutputLoc spans its value.
	OutputMode ir.OutputMode
	OutputLoc  ir.Loc
	// Watermark is `@watermark`.
	Watermark *ir.Watermark
	// CDC is `@cdc`.
	CDC *ir.CDC
	// Samples are the `@sample.TABLE` bindings in order.
	Samples []Sample
	// PartitionBy and ClusterBy are the `@partition_by` and `@cluster_by`
	// column lists.
	PartitionBy, ClusterBy []string
	// Format is `@format`.
	Format string
	// Properties and Conf are the `@property.KEY` and `@conf.KEY` values.
	Properties, Conf map[string]string
	// Backends is `@backends`; BackendsLoc spans its value.
	Backends    []ir.Backend
	BackendsLoc ir.Loc
}

// Interpret checks every pragma's key and value and returns the settings
// and diagnostics: unknown keys (a warning suggesting the nearest known
// key), repeated keys, misused dotted names and bad values, each at the
// exact characters at fault. It does not repeat b.Diags.
func Interpret(file string, b Block) (Settings, []ir.Diagnostic) {
	in := interp{file: file, seen: map[string]ir.Loc{}}
	for _, p := range b.Pragmas {
		in.pragma(p)
	}
	return in.s, in.diags
}

// interp interprets one block.
type interp struct {
	file  string
	s     Settings
	diags []ir.Diagnostic
	seen  map[string]ir.Loc // key (or key.NAME) -> where it was first set
}

// val is a pragma value with the file offset of its first byte, so
// positions inside it map to file ranges.
type val struct {
	s   string
	off int
}

func (in *interp) loc(start, end int) ir.Loc {
	return ir.Loc{File: in.file, Start: start, End: end}
}

func (in *interp) report(l ir.Loc, sev ir.Severity, code ir.Code, msg string) {
	in.diags = append(in.diags, ir.Diagnostic{Loc: l, Severity: sev, Code: code, Message: msg})
}

// bad reports a bad value at v.s[i:j].
func (in *interp) bad(v val, i, j int, msg string) {
	in.report(in.loc(v.off+i, v.off+j), ir.Error, ir.CodePragmaValue, msg)
}

// vloc is the file range of v.s[i:j].
func (in *interp) vloc(v val, i, j int) ir.Loc {
	return in.loc(v.off+i, v.off+j)
}

// pragma interprets one pragma.
func (in *interp) pragma(p Pragma) {
	doc, known := LookupKey(p.Key)
	if !known {
		msg := fmt.Sprintf("unknown pragma key %q", clip(p.Key))
		if s, ok := nearest(p.Key, keyList()); ok {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += "; known keys: " + strings.Join(keyNames(), ", ")
		}
		in.report(p.KeyLoc, ir.Warning, ir.CodePragmaUnknown, msg)
		return
	}
	written := "@" + p.Key
	id := p.Key
	dupLoc := p.KeyLoc
	switch {
	case doc.Dotted && p.Name == "":
		in.report(p.KeyLoc, ir.Error, ir.CodePragmaSyntax,
			fmt.Sprintf("%q needs a name: write \"-- @%s.NAME: %s\"", clip(written), clip(p.Key), doc.Values[0]))
		return
	case !doc.Dotted && p.Name != "":
		in.report(in.loc(p.KeyLoc.End, p.NameLoc.End), ir.Error, ir.CodePragmaSyntax,
			fmt.Sprintf("%q takes no \".NAME\" part; remove %q and write \"-- %s: VALUE\"", clip(written), "."+clip(p.Name), clip(written)))
		return
	case doc.Dotted:
		if !in.checkName(p) {
			return
		}
		written += "." + p.Name
		id = written
		dupLoc = in.loc(p.KeyLoc.Start, p.NameLoc.End)
	}
	if first, dup := in.seen[id]; dup {
		msg := fmt.Sprintf("%q is set twice; remove one of them (the first one is used)", clip(written))
		if doc.Dotted && (p.Key == "expect" || p.Key == "sample") {
			msg = fmt.Sprintf("%q is defined twice; remove one, or give it another name", clip(written))
		}
		in.diags = append(in.diags, ir.Diagnostic{
			Loc: dupLoc, Severity: ir.Error, Code: ir.CodePragmaDuplicate, Message: msg,
			Related: []ir.Related{{Loc: first, Message: fmt.Sprintf("%q first set here", clip(written))}},
		})
		return
	}
	in.seen[id] = dupLoc
	if p.Bare {
		in.report(p.ValueLoc, ir.Error, ir.CodePragmaValue,
			fmt.Sprintf("%q needs a value: write \"-- %s: %s\"", clip(written), clip(written), strings.Join(doc.Values, " | ")))
		return
	}
	if p.Value == "" && p.Key != "comment" {
		in.report(in.loc(p.KeyLoc.Start, p.ValueLoc.End), ir.Error, ir.CodePragmaValue,
			fmt.Sprintf("%q has an empty value: write \"-- %s: %s\"", clip(written), clip(written), strings.Join(doc.Values, " | ")))
		return
	}
	v := val{s: p.Value, off: p.ValueLoc.Start}
	switch p.Key {
	case "kind":
		if w, l, ok := in.choice(v, "kind", kindWords()); ok {
			in.s.Kind, in.s.KindLoc = ir.Kind(w), l
		}
	case "name":
		if n, ok := in.name(v, "dataset name"); ok {
			in.s.Name, in.s.NameLoc = n, p.ValueLoc
		}
	case "comment":
		in.s.Comment, in.s.CommentSet = unquote(p.Value), true
	case "flow":
		if n, ok := in.name(v, "flow name"); ok {
			in.s.Flow, in.s.FlowLoc = n, p.ValueLoc
		}
	case "target":
		if n, ok := in.name(v, "target dataset name"); ok {
			in.s.Target, in.s.TargetLoc = n, p.ValueLoc
		}
	case "expect":
		in.expect(p, v)
	case "source":
		in.source(v)
	case "trigger":
		in.trigger(v)
	case "output_mode":
		if w, _, ok := in.choice(v, "output mode", []string{string(ir.Append), string(ir.Update), string(ir.Complete)}); ok {
			in.s.OutputMode, in.s.OutputLoc = ir.OutputMode(w), p.ValueLoc
		}
	case "watermark":
		in.watermark(v)
	case "cdc":
		in.cdc(v)
	case "sample":
		in.s.Samples = append(in.s.Samples, Sample{
			Table: p.Name, Path: unquote(p.Value),
			Loc: p.ValueLoc, KeyLoc: p.KeyLoc, NameLoc: p.NameLoc,
		})
	case "partition_by":
		if l, ok := in.identList(v, 0, len(v.s), "column"); ok {
			in.s.PartitionBy = l
		}
	case "cluster_by":
		if l, ok := in.identList(v, 0, len(v.s), "column"); ok {
			in.s.ClusterBy = l
		}
	case "format":
		in.format(v)
	case "property":
		if in.s.Properties == nil {
			in.s.Properties = map[string]string{}
		}
		in.s.Properties[p.Name] = unquote(p.Value)
	case "conf":
		if in.s.Conf == nil {
			in.s.Conf = map[string]string{}
		}
		in.s.Conf[p.Name] = unquote(p.Value)
	case "backends":
		in.backends(v, p.ValueLoc)
	}
}

// keyList lists the known keys as looked up (without ".NAME").
func keyList() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Key
	}
	return out
}

func kindWords() []string {
	out := make([]string, len(ir.Kinds))
	for i, k := range ir.Kinds {
		out[i] = string(k)
	}
	return out
}

// checkName checks the name after a dotted family key's dot.
func (in *interp) checkName(p Pragma) bool {
	switch p.Key {
	case "sample":
		// A source table may be qualified: @sample.raw.orders.
		parts := strings.Split(p.Name, ".")
		ok := len(parts) <= 3
		for _, part := range parts {
			ok = ok && isIdent(part)
		}
		if !ok {
			in.report(p.NameLoc, ir.Error, ir.CodePragmaSyntax,
				fmt.Sprintf("invalid name %q in \"@sample.NAME\": a source table name is an identifier (letters, digits and '_', not starting with a digit), qualified by up to two more (raw.orders, prod.raw.orders)", clip(p.Name)))
			return false
		}
	case "expect":
		if !isIdent(p.Name) {
			what := "an expectation name"
			in.report(p.NameLoc, ir.Error, ir.CodePragmaSyntax,
				fmt.Sprintf("invalid name %q in \"@%s.NAME\": %s is an identifier (letters, digits and '_', not starting with a digit)", clip(p.Name), clip(p.Key), what))
			return false
		}
	default:
		if strings.HasPrefix(p.Name, ".") || strings.HasSuffix(p.Name, ".") || strings.Contains(p.Name, "..") {
			in.report(p.NameLoc, ir.Error, ir.CodePragmaSyntax,
				fmt.Sprintf("invalid name %q in \"@%s.NAME\": write dot-separated words, e.g. \"@%s.%s\"", clip(p.Name), clip(p.Key), clip(p.Key), exampleName(p.Key)))
			return false
		}
	}
	return true
}

func exampleName(key string) string {
	if key == "conf" {
		return "spark.sql.shuffle.partitions"
	}
	return "delta.appendOnly"
}

// choice reads a value that is one word from allowed (ignoring case) and
// returns the word as spelled in allowed, with its range.
func (in *interp) choice(v val, what string, allowed []string) (string, ir.Loc, bool) {
	e := wordEnd(v.s, 0)
	w := v.s[:e]
	for _, a := range allowed {
		if strings.EqualFold(w, a) {
			if !in.nothingAfter(v, e, fmt.Sprintf("the %s", what)) {
				return "", ir.Loc{}, false
			}
			return a, in.vloc(v, 0, e), true
		}
	}
	// "materialized view" written with a space is one bad word.
	whole := strings.Join(strings.Fields(v.s), "_")
	for _, a := range allowed {
		if strings.EqualFold(whole, a) {
			in.bad(v, 0, len(v.s), fmt.Sprintf("unknown %s %q; did you mean %s? Allowed: %s", what, clip(v.s), a, strings.Join(allowed, ", ")))
			return "", ir.Loc{}, false
		}
	}
	in.bad(v, 0, e, badChoice(what, w, allowed))
	return "", ir.Loc{}, false
}

// badChoice says word is not one of allowed and suggests the nearest.
func badChoice(what, word string, allowed []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, clip(word))
	if s, ok := suggestValue(word, allowed); ok {
		msg += fmt.Sprintf("; did you mean %s?", s)
	} else {
		msg += "."
	}
	return msg + " Allowed: " + strings.Join(allowed, ", ")
}

// valueSynonyms maps words users bring from other tools to the value
// meant.
var valueSynonyms = map[string]string{
	"upsert":         "update",
	"overwrite":      "complete",
	"materialized":   "materialized_view",
	"mv":             "materialized_view",
	"streaming":      "streaming_table",
	"temp_view":      "temporary_view",
	"temporary":      "temporary_view",
	"trigger_once":   "once",
	"availablenow":   "available_now",
	"processingtime": "processing_time",
}

// suggestValue picks the allowed value nearest to word. Value sets are
// small, so it is looser than key suggestions: within half the word's
// length.
func suggestValue(word string, allowed []string) (string, bool) {
	if s, ok := valueSynonyms[strings.ToLower(word)]; ok {
		for _, a := range allowed {
			if strings.HasPrefix(a, s) {
				return a, true
			}
		}
	}
	if s, ok := nearest(word, allowed); ok {
		return s, true
	}
	if len(word) > maxSuggestLen {
		return "", false
	}
	lw := strings.ToLower(word)
	best, bestD := "", -1
	for _, a := range allowed {
		if d := editdist.Distance(lw, strings.ToLower(a), editdist.Unbounded); bestD < 0 || d < bestD {
			best, bestD = a, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(lw)/2) && bestD < max(len(lw), len(best)) {
		return best, true
	}
	return "", false
}

// nothingAfter reports text after position i of v (other than blanks) as
// unexpected after what.
func (in *interp) nothingAfter(v val, i int, what string) bool {
	j := skipBlanks(v.s, i, len(v.s))
	if j == len(v.s) {
		return true
	}
	e := len(v.s)
	for e > j && isBlank(v.s[e-1]) {
		e--
	}
	in.bad(v, j, e, fmt.Sprintf("unexpected %q after %s; remove it", clip(v.s[j:e]), what))
	return false
}

// name reads a whole value that is a (possibly qualified) name.
func (in *interp) name(v val, what string) (string, bool) {
	e, n, ok := in.qualified(v, 0, what)
	if !ok {
		return "", false
	}
	j := skipBlanks(v.s, e, len(v.s))
	if j < len(v.s) {
		in.bad(v, j, len(v.s), fmt.Sprintf("unexpected %q after the %s %q; a name is one identifier, and a name with spaces or other characters goes in backticks, e.g. `%s`", clip(v.s[j:]), what, clip(v.s[:e]), clip(strings.Trim(v.s, "`"))))
		return "", false
	}
	return n, true
}

// qualified reads a name at v.s[i]: identifiers or backticked names joined
// by dots. It returns the end and the unquoted name.
func (in *interp) qualified(v val, i int, what string) (int, string, bool) {
	var parts []string
	for {
		e, part, ok := in.simpleName(v, i, what)
		if !ok {
			return 0, "", false
		}
		parts = append(parts, part)
		if e < len(v.s) && v.s[e] == '.' {
			i = e + 1
			continue
		}
		return e, strings.Join(parts, "."), true
	}
}

// simpleName reads one identifier or backticked name at v.s[i].
func (in *interp) simpleName(v val, i int, what string) (int, string, bool) {
	s := v.s
	if i < len(s) && s[i] == '`' {
		e := closeQuote(s, i)
		if e < 0 {
			in.bad(v, i, i+1, fmt.Sprintf("unterminated backtick in the %s; close the name with '`'", what))
			return 0, "", false
		}
		n := unquote(s[i:e])
		if n == "" {
			in.bad(v, i, e, fmt.Sprintf("empty %s ``; write a name between the backticks", what))
			return 0, "", false
		}
		return e, n, true
	}
	if i < len(s) && isIdentStart(s[i]) {
		e := i + 1
		for e < len(s) && isIdentPart(s[e]) {
			e++
		}
		return e, s[i:e], true
	}
	e := i
	for e < len(s) && !isBlank(s[e]) && !strings.ContainsRune(",()", rune(s[e])) {
		e++
	}
	if e == i {
		if i >= len(s) {
			// Nothing left (e.g. "a." at the end): point at the last byte.
			in.bad(v, max(i-1, 0), len(s), fmt.Sprintf("missing %s after %q", what, clip(s)))
			return 0, "", false
		}
		e = i + 1
	}
	in.bad(v, i, e, fmt.Sprintf("invalid %s %q: a name is an identifier (letters, digits and '_', not starting with a digit) or a `backticked name`", what, clip(s[i:e])))
	return 0, "", false
}

// identList reads a column list in v.s[i:j]: `a, b` or `(a, b)`.
func (in *interp) identList(v val, i, j int, what string) ([]string, bool) {
	s := v.s
	i = skipBlanks(s, i, j)
	for j > i && isBlank(s[j-1]) {
		j--
	}
	if i < j && s[i] == '(' {
		if s[j-1] != ')' || j-i < 2 {
			in.bad(v, i, i+1, fmt.Sprintf("unclosed '(' in the %s list; write (a, b)", what))
			return nil, false
		}
		i, j = i+1, j-1
		i = skipBlanks(s, i, j)
		for j > i && isBlank(s[j-1]) {
			j--
		}
	}
	if i == j {
		lo, hi := max(i-1, 0), min(j+1, len(s))
		in.bad(v, lo, hi, fmt.Sprintf("empty %s list; write one or more %ss, e.g. (a, b)", what, what))
		return nil, false
	}
	sub := val{s: s[:j], off: v.off}
	var out []string
	for {
		k := skipBlanks(s, i, j)
		if k == j || s[k] == ',' {
			at := min(k, j-1)
			in.bad(v, at, at+1, fmt.Sprintf("missing %s in the list; write names separated by commas, e.g. a, b", what))
			return nil, false
		}
		e, n, ok := in.simpleName(sub, k, what)
		if !ok {
			return nil, false
		}
		out = append(out, n)
		e2 := skipBlanks(s, e, j)
		if e2 == j {
			return out, true
		}
		if s[e2] != ',' {
			we := e2
			for we < j && !isBlank(s[we]) && s[we] != ',' {
				we++
			}
			in.bad(v, e2, we, fmt.Sprintf("unexpected %q in the %s list; separate %ss with commas, and put a name with spaces in backticks", clip(s[e2:we]), what, what))
			return nil, false
		}
		i = e2 + 1
	}
}

// expect interprets `@expect.NAME: EXPR [ON VIOLATION DROP ROW | FAIL UPDATE]`.
func (in *interp) expect(p Pragma, v val) {
	sc := scanExpr(v.s)
	if sc.bad >= 0 {
		in.bad(v, sc.bad, max(sc.badEnd, sc.bad+1), sc.badMsg)
		return
	}
	exprEnd := len(v.s)
	action := ir.Warn
	if sc.found {
		exprEnd = sc.onStart
		as := skipBlanks(v.s, sc.violEnd, len(v.s))
		words := strings.Fields(v.s[as:])
		act := strings.ToUpper(strings.Join(words, " "))
		switch act {
		case "DROP ROW":
			action = ir.Drop
		case "FAIL UPDATE":
			action = ir.Fail
		case "":
			in.bad(v, sc.onStart, sc.violEnd, "ON VIOLATION needs an action: DROP ROW or FAIL UPDATE (or remove ON VIOLATION to only count violations)")
			return
		default:
			allowed := []string{"DROP ROW", "FAIL UPDATE"}
			msg := fmt.Sprintf("unknown ON VIOLATION action %q", clip(v.s[as:]))
			if s, ok := suggestValue(act, allowed); ok {
				msg += fmt.Sprintf("; did you mean %s?", s)
			} else {
				msg += "."
			}
			in.bad(v, as, len(v.s), msg+" Allowed: DROP ROW | FAIL UPDATE")
			return
		}
	}
	for exprEnd > 0 && isBlank(v.s[exprEnd-1]) {
		exprEnd--
	}
	if exprEnd == 0 {
		in.bad(v, 0, len(v.s), fmt.Sprintf("expectation %q has no condition; write a SQL boolean before ON VIOLATION, e.g. \"-- @expect.%s: amount > 0 ON VIOLATION DROP ROW\"", clip(p.Name), clip(p.Name)))
		return
	}
	in.s.Expectations = append(in.s.Expectations, ir.Expectation{
		Name:   p.Name,
		SQL:    v.s[:exprEnd],
		Action: action,
		Loc:    ir.Loc{File: p.Line.File, Start: p.KeyLoc.Start, End: p.Line.End},
		SQLLoc: in.vloc(v, 0, exprEnd),
	})
}

// exprScan is what scanExpr finds in an expectation value.
type exprScan struct {
	found   bool // a top-level ON VIOLATION
	onStart int  // where the last top-level ON starts
	violEnd int  // where its VIOLATION ends
	bad     int  // position of an unclosed quote or parenthesis, or -1
	badEnd  int  // end of the faulty text, when longer than one byte
	badMsg  string
}

// scanExpr finds the last `ON VIOLATION` outside quotes and parentheses,
// and the first unbalanced quote or parenthesis.
func scanExpr(s string) exprScan {
	r := exprScan{bad: -1}
	var opens []int
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			e := closeQuote(s, i)
			if e < 0 {
				r.bad, r.badMsg = i, fmt.Sprintf("unterminated %c quote in the expectation; close it", c)
				return r
			}
			i = e
			continue
		case c == ';':
			r.bad, r.badMsg = i, "';' would end the statement the expectation is checked in; an expectation is one boolean expression: remove it"
			return r
		case (c == '-' || c == '/') && i+1 < len(s) && (s[i:i+2] == "--" || s[i:i+2] == "/*"):
			r.bad, r.badEnd, r.badMsg = i, i+2, "a comment inside the expectation hides part of it from the check; remove the comment"
			return r
		case c == '$':
			r.bad, r.badMsg = i, "'$' (a dollar-quoted string or a parameter) is not allowed in an expectation; use a '...' string"
			return r
		case c == '(':
			opens = append(opens, i)
		case c == ')':
			if len(opens) == 0 {
				r.bad, r.badMsg = i, "unmatched ')' in the expectation; remove it or add the missing '('"
				return r
			}
			opens = opens[:len(opens)-1]
		case isIdentPart(c):
			e := i + 1
			for e < len(s) && isIdentPart(s[e]) {
				e++
			}
			if len(opens) == 0 && strings.EqualFold(s[i:e], "on") {
				j := skipBlanks(s, e, len(s))
				k := j
				for k < len(s) && isIdentPart(s[k]) {
					k++
				}
				if j > e && strings.EqualFold(s[j:k], "violation") {
					r.found, r.onStart, r.violEnd = true, i, k
				}
			}
			i = e
			continue
		}
		i++
	}
	if len(opens) > 0 {
		r.bad, r.badMsg = opens[len(opens)-1], "unclosed '(' in the expectation; add the missing ')'"
	}
	return r
}

// closeQuote returns the index just past the quote that closes the one at
// s[i] (a doubled quote is an escaped one), or -1.
func closeQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return -1
}

// unquote strips one pair of matching surrounding quotes (', " or `) and
// undoubles escaped quotes inside; other text is returned unchanged.
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	q := s[0]
	if q != '\'' && q != '"' && q != '`' {
		return s
	}
	if closeQuote(s, 0) != len(s) {
		return s
	}
	return strings.ReplaceAll(s[1:len(s)-1], string([]byte{q, q}), string(q))
}

// wordEnd returns the end of the run of non-blank bytes at s[i].
func wordEnd(s string, i int) int {
	for i < len(s) && !isBlank(s[i]) {
		i++
	}
	return i
}

func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}
