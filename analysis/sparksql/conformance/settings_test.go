package conformance

import (
	"reflect"
	"testing"
)

func TestFileSettings(t *testing.T) {
	for _, c := range []struct {
		name, input    string
		reserved, dq   bool
		ansi           bool
		unmodelled     []string
		key            string
		headerComments string
	}{
		{name: "plain.sql", input: "SELECT 1;\n", ansi: true},
		{name: "nonansi/plain.sql", input: "--IMPORT plain.sql\n", ansi: false},
		{name: "kw.sql", input: "--SET spark.sql.ansi.enforceReservedKeywords = true\n--IMPORT x.sql\n", ansi: true, reserved: true, key: "reserved"},
		{name: "nonansi/kw.sql", input: "--SET spark.sql.ansi.enforceReservedKeywords = true\n", key: ""},
		{name: "dq.sql", input: "--SET spark.sql.ansi.doubleQuotedIdentifiers=true\r\n", ansi: true, dq: true, key: "dq"},
		{name: "both.sql", input: "--SET spark.sql.ansi.doubleQuotedIdentifiers=true,spark.sql.ansi.enforceReservedKeywords=true\n", ansi: true, dq: true, reserved: true, key: "reserved,dq"},
		{name: "off.sql", input: "--SET spark.sql.ansi.enabled = false\n--SET spark.sql.ansi.doubleQuotedIdentifiers=true\n", key: ""},
		{name: "legacy.sql", input: "--SET spark.sql.legacy.identifierClause = true\n--SET spark.sql.codegen.wholeStage=true\n", ansi: true,
			unmodelled: []string{"spark.sql.legacy.identifierClause=true"}, key: "spark.sql.legacy.identifierClause=true"},
		{name: "comment.sql", input: "-- SET spark.sql.ansi.enforceReservedKeywords = true\n  --SET spark.sql.ansi.enforceReservedKeywords = true\n", ansi: true},
	} {
		s := FileSettings(c.name, c.input)
		if s.ANSI != c.ansi || s.Reserved() != c.reserved || s.DoubleQuotedIdentifiers() != c.dq || !reflect.DeepEqual(s.Unmodelled, c.unmodelled) || s.Key() != c.key {
			t.Errorf("%s: %+v (reserved %v, dq %v, key %q)", c.name, s, s.Reserved(), s.DoubleQuotedIdentifiers(), s.Key())
		}
	}
}

func TestSettingsAfter(t *testing.T) {
	initial := FileSettings("f.sql", "--SET spark.sql.legacy.setopsPrecedence.enabled=true\n")
	s := initial
	steps := []struct {
		stmt     string
		ansi     bool
		reserved bool
		legacy   int
	}{
		{"SELECT 1", true, false, 1},
		{"SET spark.sql.ansi.enforceReservedKeywords = true", true, true, 1},
		{"set spark.sql.ansi.enabled=false;", false, false, 1},
		{"SET spark.sql.ansi.enabled = true", true, true, 1},
		{"SET spark.sql.legacy.setopsPrecedence.enabled = false", true, true, 0},
		{"RESET spark.sql.legacy.setopsPrecedence.enabled", true, true, 1},
		{"SET spark.sql.shuffle.partitions = 4", true, true, 1},
		{"SET x = (SELECT 1)", true, true, 1},
		{"RESET spark.sql.ansi.enforceReservedKeywords", true, false, 1},
		{"SET spark.sql.ansi.enabled = false", false, false, 1},
		{"RESET spark.sql.ansi.enabled", true, false, 1},
	}
	for _, st := range steps {
		s = s.After(st.stmt, initial)
		if s.ANSI != st.ansi || s.Reserved() != st.reserved || len(s.Unmodelled) != st.legacy {
			t.Errorf("after %q: %+v", st.stmt, s)
		}
	}
	if len(initial.Unmodelled) != 1 {
		t.Errorf("After changed the initial settings: %+v", initial)
	}
}

func TestSubstitute(t *testing.T) {
	var s Settings
	s = s.After("SET hivevar:tbl = 'orders'", s)
	s = s.After("SET n = 3;", s)
	next := s.After("SET hivevar:tbl = 'lines'", s)
	cases := []struct{ in, want string }{
		{"SELECT ${tbl} || 'x', ${n}", "SELECT 'orders' || 'x', 3"},
		{"SELECT ${hivevar:tbl}", "SELECT 'orders'"},
		{"SELECT ${missing}", "SELECT ${missing}"},
		{"SELECT 1", "SELECT 1"},
	}
	for _, c := range cases {
		if got := s.Substitute(c.in); got != c.want {
			t.Errorf("Substitute(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := next.Substitute("${tbl}"); got != "'lines'" {
		t.Errorf("after a second SET: %q", got)
	}
	if got := s.Substitute("${tbl}"); got != "'orders'" {
		t.Errorf("After changed the earlier settings' variables: %q", got)
	}
}
