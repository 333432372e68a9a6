package conformance

import (
	"regexp"
	"sort"
	"strings"
)

// Settings are the Spark settings in force for a query that change what
// Spark's parser accepts. Spark 4.1's defaults: ANSI mode on, reserved
// keywords not enforced, double quotes delimiting strings.
type Settings struct {
	// ANSI is spark.sql.ansi.enabled.
	ANSI bool
	// EnforceReserved is spark.sql.ansi.enforceReservedKeywords.
	EnforceReserved bool
	// DoubleQuoted is spark.sql.ansi.doubleQuotedIdentifiers.
	DoubleQuoted bool
	// Unmodelled holds the legacy parser settings that are on and that
	// Thund's parser has no option for ("key=value", sorted); queries run
	// under them may disagree for that reason alone.
	Unmodelled []string
	// Vars are the variables SET name = value (or SET hivevar:name =
	// value) defined, which Spark's SQL parser substitutes for ${name}
	// before it parses (spark.sql.variable.substitute, on by default).
	Vars map[string]string
}

// setVar matches SET [hivevar:]name = value, whose raw value text is what
// ${name} stands for afterwards.
var setVar = regexp.MustCompile(`(?is)^\s*SET\s+(?:hivevar:)?([a-z_][a-z0-9_.]*)\s*=\s*(.*?)\s*;?\s*$`)

// varRef matches ${name} and ${hivevar:name} (or the spark: and hiveconf:
// prefixes).
var varRef = regexp.MustCompile(`\$\{(?:(?:hivevar|hiveconf|spark|sparkconf):)?([A-Za-z_][A-Za-z0-9_.]*)\}`)

// Substitute returns text with each ${name} of a defined variable replaced
// by its value, as Spark substitutes before parsing; an undefined one
// stays as written.
func (s Settings) Substitute(text string) string {
	if len(s.Vars) == 0 || !strings.Contains(text, "${") {
		return text
	}
	return varRef.ReplaceAllStringFunc(text, func(ref string) string {
		if v, ok := s.Vars[varRef.FindStringSubmatch(ref)[1]]; ok {
			return v
		}
		return ref
	})
}

// Reserved reports whether keywords are reserved: Spark reserves them when
// both ANSI mode and enforceReservedKeywords are on.
func (s Settings) Reserved() bool { return s.ANSI && s.EnforceReserved }

// DoubleQuotedIdentifiers reports whether "x" is an identifier: it is when
// both ANSI mode and doubleQuotedIdentifiers are on.
func (s Settings) DoubleQuotedIdentifiers() bool { return s.ANSI && s.DoubleQuoted }

// Key names the parser options in force, for grouping identical cases:
// "" for the default, else e.g. "reserved,dq".
func (s Settings) Key() string {
	var k []string
	if s.Reserved() {
		k = append(k, "reserved")
	}
	if s.DoubleQuotedIdentifiers() {
		k = append(k, "dq")
	}
	k = append(k, s.Unmodelled...)
	return strings.Join(k, ",")
}

// unmodelled lists the legacy settings that change what Spark's parser
// accepts (or how it groups) for which Thund's parser has no option.
var unmodelled = map[string]bool{
	"spark.sql.legacy.identifierClause":                 true,
	"spark.sql.legacy.parseQueryWithoutEof":             true,
	"spark.sql.legacy.setopsPrecedence.enabled":         true,
	"spark.sql.legacy.exponentLiteralAsDecimal.enabled": true,
}

// set applies one key=value; it reports whether the key matters here.
func (s *Settings) set(key, value string) bool {
	key = strings.TrimSpace(key)
	on := strings.EqualFold(strings.TrimSpace(value), "true")
	switch key {
	case "spark.sql.ansi.enabled":
		s.ANSI = on
	case "spark.sql.ansi.enforceReservedKeywords":
		s.EnforceReserved = on
	case "spark.sql.ansi.doubleQuotedIdentifiers":
		s.DoubleQuoted = on
	default:
		if !unmodelled[key] {
			return false
		}
		kept := s.Unmodelled[:0:0]
		for _, u := range s.Unmodelled {
			if !strings.HasPrefix(u, key+"=") {
				kept = append(kept, u)
			}
		}
		if on {
			kept = append(kept, key+"=true")
			sort.Strings(kept)
		}
		s.Unmodelled = kept
	}
	return true
}

// FileSettings returns the settings a golden file's queries start with,
// the way SQLQueryTestSuite sets them up: Spark's defaults; ANSI mode off
// for the files under nonansi/; then the input file's own "--SET k=v,k=v"
// header lines (an --IMPORTed file's headers do not carry over, as in
// Spark). The --CONFIG_DIM dimensions of the corpus change no parser
// setting, so they are ignored.
func FileSettings(name, input string) Settings {
	s := Settings{ANSI: true}
	if strings.HasPrefix(name, "nonansi/") {
		s.ANSI = false
	}
	for _, line := range strings.Split(input, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "--SET ")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.set(k, v)
			}
		}
	}
	return s
}

// setStmt matches a statement that changes one setting: SET k = v, and
// RESET k.
var (
	setStmt   = regexp.MustCompile(`(?is)^\s*SET\s+([a-z][a-z0-9_.]*)\s*=\s*([a-z0-9_]+)\s*;?\s*$`)
	resetStmt = regexp.MustCompile(`(?is)^\s*RESET\s+([a-z][a-z0-9_.]*)\s*;?\s*$`)
)

// After returns the settings in force after stmt ran, when stmt is a SET
// or RESET of a setting that matters here; initial are the file's own
// settings, which RESET returns to. Any other statement leaves s as is.
func (s Settings) After(stmt string, initial Settings) Settings {
	if m := setVar.FindStringSubmatch(stmt); m != nil && !strings.Contains(stmt, "${") {
		s = s.clone()
		if s.Vars == nil {
			s.Vars = map[string]string{}
		}
		s.Vars[m[1]] = m[2]
	}
	if m := setStmt.FindStringSubmatch(stmt); m != nil {
		n := s.clone()
		if n.set(m[1], m[2]) {
			return n
		}
		return s
	}
	if m := resetStmt.FindStringSubmatch(stmt); m != nil {
		n := s.clone()
		switch key := m[1]; key {
		case "spark.sql.ansi.enabled":
			n.ANSI = initial.ANSI
		case "spark.sql.ansi.enforceReservedKeywords":
			n.EnforceReserved = initial.EnforceReserved
		case "spark.sql.ansi.doubleQuotedIdentifiers":
			n.DoubleQuoted = initial.DoubleQuoted
		default:
			if !unmodelled[key] {
				return s
			}
			n.set(key, "false")
			for _, u := range initial.Unmodelled {
				if strings.HasPrefix(u, key+"=") {
					n.set(key, "true")
				}
			}
		}
		return n
	}
	return s
}

func (s Settings) clone() Settings {
	s.Unmodelled = append([]string(nil), s.Unmodelled...)
	if s.Vars != nil {
		vars := make(map[string]string, len(s.Vars))
		for k, v := range s.Vars {
			vars[k] = v
		}
		s.Vars = vars
	}
	return s
}
