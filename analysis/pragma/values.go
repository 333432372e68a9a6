package pragma

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// intervalUnits are the units an interval may use, singular then plural.
var intervalUnits = [][2]string{
	{"second", "seconds"},
	{"minute", "minutes"},
	{"hour", "hours"},
	{"day", "days"},
	{"millisecond", "milliseconds"},
}

// unitAbbrev maps common abbreviations to the unit to suggest.
var unitAbbrev = map[string]string{
	"s": "seconds", "sec": "seconds", "secs": "seconds",
	"m": "minutes", "min": "minutes", "mins": "minutes",
	"h": "hours", "hr": "hours", "hrs": "hours",
	"d":  "days",
	"ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds", "millis": "milliseconds",
}

const unitsHelp = "units: second(s), minute(s), hour(s), day(s), millisecond(s)"

// interval checks the interval v.s[i:j] (without quotes), "N unit", and
// returns it normalized: one space, lower-case unit, singular only for 1.
// example is the pragma to show in messages.
func (in *interp) interval(v val, i, j int, example string) (string, bool) {
	s := v.s
	i = skipBlanks(s, i, j)
	for j > i && isBlank(s[j-1]) {
		j--
	}
	if i == j {
		in.bad(v, max(i-1, 0), min(i+1, len(s)), fmt.Sprintf("missing interval; write a number and a unit, like %s (%s)", example, unitsHelp))
		return "", false
	}
	n := i
	for n < j && isDigit(s[n]) {
		n++
	}
	if n > i && n+1 < j && s[n] == '.' && isDigit(s[n+1]) {
		n++
		for n < j && isDigit(s[n]) {
			n++
		}
	}
	if n == i {
		e := max(wordEnd(s[:j], i), i+1)
		in.bad(v, i, e, fmt.Sprintf("the interval must be a number and a unit, like %s, but starts with %q (%s)", example, clip(s[i:e]), unitsHelp))
		return "", false
	}
	u := skipBlanks(s, n, j)
	ue := wordEnd(s[:j], u)
	if u == ue {
		in.bad(v, i, n, fmt.Sprintf("missing unit after %q: the interval must be a number and a unit, like %s (%s)", clip(s[i:n]), example, unitsHelp))
		return "", false
	}
	unit := strings.ToLower(s[u:ue])
	canon := ""
	for _, pair := range intervalUnits {
		if unit == pair[0] || unit == pair[1] {
			canon = pair[1]
			if s[i:n] == "1" {
				canon = pair[0]
			}
		}
	}
	if canon == "" {
		msg := fmt.Sprintf("unknown interval unit %q: the interval must be a number and a unit, like %s (%s)", clip(s[u:ue]), example, unitsHelp)
		plurals := make([]string, len(intervalUnits))
		for k, pair := range intervalUnits {
			plurals[k] = pair[1]
		}
		if sug, ok := unitAbbrev[unit]; ok {
			msg += fmt.Sprintf("; did you mean %s?", sug)
		} else if sug, ok := nearest(unit, plurals); ok {
			msg += fmt.Sprintf("; did you mean %s?", sug)
		}
		in.bad(v, u, ue, msg)
		return "", false
	}
	if k := skipBlanks(s, ue, j); k < j {
		in.bad(v, k, j, fmt.Sprintf("unexpected %q after the interval; write one number and one unit, like %s", clip(s[k:j]), example))
		return "", false
	}
	return s[i:n] + " " + canon, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// quotedInterval reads an interval at v.s[i:] that may be quoted ('...' or
// "...") or not, and must run to the end of the value.
func (in *interp) quotedInterval(v val, i int, example string) (string, bool) {
	s := v.s
	i = skipBlanks(s, i, len(s))
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		e := closeQuote(s, i)
		if e < 0 {
			in.bad(v, i, i+1, fmt.Sprintf("unterminated %c quote; close the interval, like %s", s[i], example))
			return "", false
		}
		if skipBlanks(s, i+1, e-1) == e-1 {
			in.bad(v, i, e, fmt.Sprintf("empty interval; write a number and a unit, like %s", example))
			return "", false
		}
		if !in.nothingAfter(v, e, "the interval") {
			return "", false
		}
		return in.interval(v, i+1, e-1, example)
	}
	return in.interval(v, i, len(s), example)
}

// trigger interprets `@trigger`.
func (in *interp) trigger(v val) {
	s := v.s
	e := 0
	for e < len(s) && !isBlank(s[e]) && s[e] != '\'' && s[e] != '"' {
		e++
	}
	allowed := []string{string(ir.AvailableNow), string(ir.ProcessingTime), string(ir.Continuous), string(ir.Once)}
	kind := ""
	for _, a := range allowed {
		if strings.EqualFold(s[:e], a) {
			kind = a
		}
	}
	if kind == "" {
		if e == 0 {
			e = wordEnd(s, 0)
		}
		in.bad(v, 0, e, badChoice("trigger", s[:e], []string{"available_now", "processing_time 'INTERVAL'", "continuous", "once"}))
		return
	}
	t := &ir.Trigger{Kind: ir.TriggerKind(kind), Loc: in.vloc(v, 0, len(s))}
	if t.Kind == ir.ProcessingTime {
		if skipBlanks(s, e, len(s)) == len(s) {
			in.bad(v, 0, e, "processing_time needs an interval: add one like '10 seconds', e.g. \"-- @trigger: processing_time '10 seconds'\"")
			return
		}
		iv, ok := in.quotedInterval(v, e, "processing_time '10 seconds'")
		if !ok {
			return
		}
		t.Interval = iv
	} else if !in.nothingAfter(v, e, "the trigger "+kind+" (only processing_time takes an interval)") {
		return
	}
	in.s.Trigger = t
}

// watermark interprets `@watermark: COLUMN, INTERVAL`.
func (in *interp) watermark(v val) {
	e, col, ok := in.qualified(v, 0, "watermark column")
	if !ok {
		return
	}
	k := skipBlanks(v.s, e, len(v.s))
	if k == len(v.s) {
		in.bad(v, 0, e, fmt.Sprintf("the watermark needs a delay after the column: write \"-- @watermark: %s, 10 minutes\"", clip(v.s[:e])))
		return
	}
	if v.s[k] != ',' {
		in.bad(v, k, len(v.s), fmt.Sprintf("expected ', INTERVAL' after the column, found %q: write \"-- @watermark: %s, 10 minutes\"", clip(v.s[k:]), clip(v.s[:e])))
		return
	}
	if skipBlanks(v.s, k+1, len(v.s)) == len(v.s) {
		in.bad(v, k, k+1, fmt.Sprintf("missing delay after ',': write \"-- @watermark: %s, 10 minutes\"", clip(v.s[:e])))
		return
	}
	d, ok := in.quotedInterval(v, k+1, "'10 minutes'")
	if !ok {
		return
	}
	in.s.Watermark = &ir.Watermark{Column: col, Delay: d, Loc: in.vloc(v, 0, len(v.s))}
}

// option is one key=value pair of `@source` or `@cdc`. Offsets are into
// the value.
type option struct {
	key    string
	ks, ke int
	raw    string // the value as written
	vs, ve int
}

// options parses key=value pairs from v.s[i:]. A value is quoted ('...' or
// "..."), parenthesized (balanced; may hold blanks) or a word; a word ending
// in ',' continues with the next word, so `keys=a, b` is one value. Repeated
// and unknown keys (allowed is the known ones) are reported. It reports the
// first problem and returns false.
func (in *interp) options(v val, i int, what string, allowed []string) ([]option, bool) {
	s := v.s
	var out []option
	for {
		i = skipBlanks(s, i, len(s))
		if i >= len(s) {
			return out, true
		}
		ks := i
		for i < len(s) && !isBlank(s[i]) && s[i] != '=' {
			i++
		}
		if i == len(s) || s[i] != '=' {
			in.bad(v, ks, i, fmt.Sprintf("expected KEY=VALUE in %s, found %q (keys: %s)", what, clip(s[ks:i]), strings.Join(allowed, ", ")))
			return nil, false
		}
		if i == ks {
			in.bad(v, ks, ks+1, fmt.Sprintf("missing option name before '=' in %s (keys: %s); a value with blanks goes in parentheses or quotes", what, strings.Join(allowed, ", ")))
			return nil, false
		}
		o := option{key: s[ks:i], ks: ks, ke: i}
		known := false
		for _, a := range allowed {
			known = known || a == o.key
		}
		if !known {
			in.bad(v, ks, i, badChoice(what+" option", o.key, allowed))
			return nil, false
		}
		for _, prev := range out {
			if prev.key == o.key {
				in.bad(v, ks, i, fmt.Sprintf("option %q is given twice in %s; keep one", clip(o.key), what))
				return nil, false
			}
		}
		i++
		o.vs = i
		switch {
		case i < len(s) && s[i] == '(':
			e := closeParen(s, i)
			if e < 0 {
				in.bad(v, i, i+1, fmt.Sprintf("unclosed '(' in the value of %s; add the missing ')'", clip(o.key)))
				return nil, false
			}
			i = e
		case i < len(s) && (s[i] == '\'' || s[i] == '"'):
			e := closeQuote(s, i)
			if e < 0 {
				in.bad(v, i, i+1, fmt.Sprintf("unterminated %c quote in the value of %s; close it", s[i], clip(o.key)))
				return nil, false
			}
			i = e
		default:
			for {
				i = wordEnd(s, i)
				if i > o.vs && s[i-1] == ',' {
					j := skipBlanks(s, i, len(s))
					if j < len(s) && !strings.Contains(s[j:wordEnd(s, j)], "=") {
						i = j
						continue
					}
				}
				break
			}
		}
		o.ve = i
		if o.ve == o.vs {
			in.bad(v, ks, i, fmt.Sprintf("missing value after %q in %s", clip(s[ks:i]), what))
			return nil, false
		}
		if i < len(s) && !isBlank(s[i]) {
			e := wordEnd(s, i)
			in.bad(v, i, e, fmt.Sprintf("unexpected %q right after the value of %s; separate options with a blank", clip(s[i:e]), clip(o.key)))
			return nil, false
		}
		o.raw = s[o.vs:o.ve]
		out = append(out, o)
	}
}

// closeParen returns the index just past the ')' matching the '(' at s[i],
// skipping quoted text, or -1.
func closeParen(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\'', '"', '`':
			e := closeQuote(s, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		}
	}
	return -1
}

// source interprets `@source`.
func (in *interp) source(v val) {
	s := v.s
	e := wordEnd(s, 0)
	kinds := []string{string(ir.Kafka), string(ir.Files), string(ir.CDCFeed)}
	kind := ""
	for _, k := range kinds {
		if strings.EqualFold(s[:e], k) {
			kind = k
		}
	}
	if kind == "" {
		in.bad(v, 0, e, badChoice("source kind", s[:e], kinds)+
			" (forms: kafka topic=T [bootstrap=H] [format=json] | files path=P format=csv|json|parquet|ndjson | cdc table=T)")
		return
	}
	var allowed, required []string
	var formats []string
	var example string
	switch ir.SourceKind(kind) {
	case ir.Kafka:
		allowed, required, formats = []string{"topic", "bootstrap", "format"}, []string{"topic"}, []string{"json"}
		example = "kafka topic=orders bootstrap=localhost:9092 format=json"
	case ir.Files:
		allowed, required, formats = []string{"path", "format"}, []string{"path"}, []string{"csv", "json", "parquet", "ndjson"}
		example = "files path=landing/orders/ format=json"
	default:
		allowed, required = []string{"table"}, []string{"table"}
		example = "cdc table=orders_changes"
	}
	opts, ok := in.options(v, e, "@source: "+kind, allowed)
	if !ok {
		return
	}
	spec := &ir.SourceSpec{Kind: ir.SourceKind(kind), Options: map[string]string{}, Loc: in.vloc(v, 0, len(s))}
	for _, o := range opts {
		ov := unquote(o.raw)
		if o.key == "format" {
			f := ""
			for _, a := range formats {
				if strings.EqualFold(ov, a) {
					f = a
				}
			}
			if f == "" {
				in.bad(v, o.vs, o.ve, badChoice(kind+" source format", o.raw, formats))
				return
			}
			ov = f
		}
		if ov == "" {
			in.bad(v, o.vs, o.ve, fmt.Sprintf("empty %s; write \"-- @source: %s\"", clip(o.key), example))
			return
		}
		spec.Options[o.key] = ov
	}
	if spec.Kind == ir.Files && spec.Options["format"] == "" && spec.Options["path"] != "" {
		// Infer the format from the path's extension when it says.
		ext := strings.ToLower(pathExt(spec.Options["path"]))
		for _, f := range formats {
			if ext == f {
				spec.Options["format"] = f
			}
		}
		if spec.Options["format"] == "" {
			required = append(required, "format")
		}
	}
	for _, r := range required {
		if _, ok := spec.Options[r]; !ok {
			in.bad(v, 0, e, fmt.Sprintf("the %s source needs %s=...: write \"-- @source: %s\"", kind, r, example))
			return
		}
	}
	switch spec.Kind {
	case ir.Kafka:
		spec.Table = spec.Options["topic"]
	case ir.CDCFeed:
		spec.Table = spec.Options["table"]
	case ir.Files:
		spec.Table = tableFromPath(spec.Options["path"])
		if spec.Table == "" {
			for _, o := range opts {
				if o.key == "path" {
					in.bad(v, o.vs, o.ve, fmt.Sprintf("cannot name the source table after path %q: the table is the last path segment without its extension; name the file or folder after the table, e.g. path=landing/orders/", clip(o.raw)))
				}
			}
			return
		}
	}
	in.s.Source = spec
}

// pathExt returns the extension of p's last segment, without the dot.
func pathExt(p string) string {
	seg := p[strings.LastIndexAny(p, `/\`)+1:]
	if k := strings.LastIndexByte(seg, '.'); k > 0 {
		return seg[k+1:]
	}
	return ""
}

// dataExts are extensions stripped when naming a table after a path.
var dataExts = map[string]bool{
	"csv": true, "json": true, "ndjson": true, "jsonl": true, "parquet": true,
	"gz": true, "zst": true, "bz2": true, "snappy": true, "txt": true, "tsv": true,
}

// tableFromPath names a files source: the last path segment without glob
// characters, with its extensions removed.
func tableFromPath(p string) string {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	for k := len(segs) - 1; k >= 0; k-- {
		seg := segs[k]
		if strings.ContainsAny(seg, "*?[{") || seg == "." || seg == ".." {
			continue
		}
		for {
			d := strings.LastIndexByte(seg, '.')
			if d <= 0 {
				break
			}
			ext := strings.ToLower(seg[d+1:])
			seg = seg[:d]
			if !dataExts[ext] {
				break
			}
		}
		return seg
	}
	return ""
}

// cdc interprets `@cdc: keys=(a, b) sequence_by=COL [scd=1|2] [deletes=(PREDICATE)]`.
func (in *interp) cdc(v val) {
	const example = "keys=(id) sequence_by=updated_at"
	opts, ok := in.options(v, 0, "@cdc", []string{"keys", "sequence_by", "scd", "deletes"})
	if !ok {
		return
	}
	c := &ir.CDC{SCD: 1, Loc: in.vloc(v, 0, len(v.s))}
	var haveKeys, haveSeq bool
	for _, o := range opts {
		switch o.key {
		case "keys":
			l, ok := in.identList(v, o.vs, o.ve, "key column")
			if !ok {
				return
			}
			c.Keys, haveKeys = l, true
		case "sequence_by":
			sub := val{s: v.s[:o.ve], off: v.off}
			e, n, ok := in.qualified(sub, o.vs, "sequence_by column")
			if !ok {
				return
			}
			if e != o.ve {
				in.bad(v, e, o.ve, fmt.Sprintf("unexpected %q after the sequence_by column; sequence_by is one column", clip(v.s[e:o.ve])))
				return
			}
			c.SequenceBy, haveSeq = n, true
		case "scd":
			switch unquote(o.raw) {
			case "1":
				c.SCD = 1
			case "2":
				c.SCD = 2
			default:
				in.bad(v, o.vs, o.ve, fmt.Sprintf("unknown SCD type %q; scd is 1 (keep the latest row per key) or 2 (keep history)", clip(o.raw)))
				return
			}
		case "deletes":
			pred := o.raw
			if strings.HasPrefix(pred, "(") {
				pred = pred[1 : len(pred)-1]
			}
			pred = strings.Trim(pred, blanks)
			if pred == "" {
				in.bad(v, o.vs, o.ve, "empty deletes predicate; write a SQL condition, e.g. deletes=(op = 'D')")
				return
			}
			c.Deletes = pred
		}
	}
	if !haveKeys {
		in.bad(v, 0, len(v.s), fmt.Sprintf("@cdc needs keys=(...), the columns identifying a row: write \"-- @cdc: %s\"", example))
		return
	}
	if !haveSeq {
		in.bad(v, 0, len(v.s), fmt.Sprintf("@cdc needs sequence_by=COLUMN, the column ordering changes: write \"-- @cdc: %s\"", example))
		return
	}
	in.s.CDC = c
}

// format interprets `@format`: one word.
func (in *interp) format(v val) {
	e := 0
	for e < len(v.s) && (isIdentPart(v.s[e]) || v.s[e] == '-') {
		e++
	}
	if e == 0 {
		we := max(wordEnd(v.s, 0), 1)
		in.bad(v, 0, we, fmt.Sprintf("invalid format %q: the format is one word such as parquet or delta", clip(v.s[:we])))
		return
	}
	if e < len(v.s) && !isBlank(v.s[e]) {
		we := wordEnd(v.s, e)
		in.bad(v, e, we, fmt.Sprintf("unexpected %q in the format; the format is one word such as parquet or delta", clip(v.s[e:we])))
		return
	}
	if !in.nothingAfter(v, e, "the format") {
		return
	}
	in.s.Format = v.s[:e]
}

// backends interprets `@backends`: names separated by commas or blanks,
// optionally in brackets.
func (in *interp) backends(v val, l ir.Loc) {
	s := v.s
	i, j := 0, len(s)
	if s[0] == '[' || s[0] == '(' {
		closer := byte(']')
		if s[0] == '(' {
			closer = ')'
		}
		if s[j-1] != closer || j < 2 {
			in.bad(v, 0, 1, fmt.Sprintf("unclosed %q in the backend list; add %q", clip(s[:1]), string(closer)))
			return
		}
		i, j = 1, j-1
	}
	names := make([]string, len(ir.AllBackends))
	for k, b := range ir.AllBackends {
		names[k] = string(b)
	}
	var out []ir.Backend
	for i < j {
		for i < j && (isBlank(s[i]) || s[i] == ',') {
			i++
		}
		if i == j {
			break
		}
		e := i
		for e < j && !isBlank(s[e]) && s[e] != ',' {
			e++
		}
		b, ok := ir.ParseBackend(strings.ToLower(s[i:e]))
		if !ok {
			in.bad(v, i, e, badChoice("backend", s[i:e], names))
			return
		}
		dup := false
		for _, o := range out {
			dup = dup || o == b
		}
		if !dup {
			out = append(out, b)
		}
		i = e
	}
	if len(out) == 0 {
		in.bad(v, 0, len(s), "empty backend list; write one or more of "+strings.Join(names, ", "))
		return
	}
	in.s.Backends, in.s.BackendsLoc = out, l
}
