package engine

import (
	"regexp"
	"strings"
)

// A streaming or apply-changes flow runs statements of the engine's own
// over its working tables (fr.temp, named __thund_s<n>_...), the stream
// sources' sample tables (__thund_src_...), the commit logs of streaming
// tables (__thund_log_...) and the apply-changes state (__thund_cdc_...),
// with helper aliases and columns (__thund_r, __thund_seq...). When DuckDB
// refuses one, its message quotes those names and, after "LINE 1:", the
// engine's statement; neither means anything to the user, who wrote
// neither. userWords puts such a message in the user's terms: the
// statement context goes (the step's name and the flow's say where it
// happened), and each internal name becomes what it holds, by the user's
// names of the flow's inputs, target and sources.

var (
	// internalNameRe finds an internal name: quoted (a table, whose name
	// may hold any character), or bare (an alias, a column).
	internalNameRe = regexp.MustCompile(`"__thund_(?:[^"]|"")*"|\b__thund_\w+`)
	// internalAliasRe finds a helper alias qualifying a column.
	internalAliasRe = regexp.MustCompile(`\b__thund_[a-z]\.`)
	// duckContextRe finds DuckDB's LINE n: context with its caret, which
	// quotes the engine's statement.
	duckContextRe = regexp.MustCompile(`(?s)\s*\n\s*LINE \d+:.*$`)
	// markerRe finds the translator's markers around a pasted fragment.
	markerRe = regexp.MustCompile(`\s*⟦[^⟧]*⟧`)
	// duckTypeRe finds DuckDB's type names in its conversion and
	// comparison messages.
	duckTypeRe = regexp.MustCompile(`(Could not convert string '(?:[^']|'')*' to |Cannot compare values of type | and type )([A-Z][A-Z0-9_]*(?:\[\])*)`)
)

// internalColumns names the engine's helper columns for messages.
var internalColumns = map[string]string{
	"__thund_seq":       "the sequence already applied",
	"__thund_kind":      "the change's kind",
	"__thund_txt":       "the change's row text",
	"__thund_end":       "the next version's sequence",
	"__thund_deleted":   "the delete mark",
	"__thund_t":         "the truncation's sequence",
	"__thund_commit":    "the commit number",
	"__thund_file":      "the sample file's name",
	"__thund_max_event": "the latest event time",
	"__thund_grp":       "the version group",
	"__thund_new":       "the new-version mark",
	"__thund_start":     "the version's start",
}

// userWords is msg (an error of one of the flow's steps) in the user's
// terms: no statement context, no internal names.
func (fr *flowRun) userWords(msg string) string {
	if !strings.Contains(msg, "__thund_") && !strings.Contains(msg, "⟦") && !strings.Contains(msg, "\nLINE ") {
		return msg
	}
	msg = duckContextRe.ReplaceAllString(msg, "")
	msg = markerRe.ReplaceAllString(msg, "")
	msg = internalAliasRe.ReplaceAllString(msg, "")
	msg = duckTypeRe.ReplaceAllStringFunc(msg, func(m string) string {
		sub := duckTypeRe.FindStringSubmatch(m)
		if t := SparkTypeName(duckIntName(sub[2])); t != "" {
			return sub[1] + t
		}
		return m
	})
	return internalNameRe.ReplaceAllStringFunc(msg, func(m string) string {
		quoted := strings.HasPrefix(m, `"`)
		name := m
		if quoted {
			name = strings.ReplaceAll(m[1:len(m)-1], `""`, `"`)
		}
		switch s, ok := internalColumns[strings.ToLower(name)]; {
		case ok && quoted:
			return `"` + s + `"`
		case ok:
			return s
		case quoted || internalTableRe.MatchString(name):
			return fr.tableWords(name)
		}
		return "an internal column"
	})
}

// internalTableRe finds the names of the engine's tables: a flow's
// working tables, the apply-changes state, sample and log tables.
var internalTableRe = regexp.MustCompile(`^__thund_(?:s\d+_|cdc_|src_|log_)`)

// duckIntName is DuckDB's SQL name of the integer types its conversion
// messages spell by width (INT32 is INTEGER).
func duckIntName(t string) string {
	switch t {
	case "INT8":
		return "TINYINT"
	case "INT16":
		return "SMALLINT"
	case "INT32":
		return "INTEGER"
	case "INT64":
		return "BIGINT"
	}
	return t
}

// tableWords says what the internal table name holds.
func (fr *flowRun) tableWords(name string) string {
	if fr.prefix != "" && strings.HasPrefix(name, fr.prefix) {
		rest := name[len(fr.prefix):]
		for _, in := range fr.inputs {
			switch quoteIdent(name) {
			case in.newT:
				return "the trigger's rows of " + in.label
			case in.seenT:
				return "the rows of " + in.label + " read so far"
			}
		}
		if strings.HasPrefix(rest, "cdc_") {
			return "the trigger's changes for " + fr.d.Name
		}
		return "a working table of flow " + fr.f.Name
	}
	for _, k := range []struct{ prefix, words string }{
		{"__thund_cdc_", "the apply-changes state of "},
		{"__thund_src_", "the sample rows of "},
		{"__thund_log_", "the rows streamed into "},
	} {
		if rest, ok := strings.CutPrefix(name, k.prefix); ok {
			if i := strings.IndexByte(rest, '_'); i >= 0 && i+1 < len(rest) {
				if k.prefix == "__thund_cdc_" && fr.d != nil {
					return k.words + fr.d.Name
				}
				return k.words + rest[i+1:]
			}
		}
	}
	return "a working table of the run"
}
