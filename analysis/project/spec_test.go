package project

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// rangeText returns the text a location covers, failing on a bad range.
func rangeText(t *testing.T, text string, loc ir.Loc) string {
	t.Helper()
	if loc.Start < 0 || loc.Start > loc.End || loc.End > len(text) {
		t.Fatalf("bad range %d..%d for text of %d bytes", loc.Start, loc.End, len(text))
	}
	return text[loc.Start:loc.End]
}

// wantDiag is one expected diagnostic: its code, severity, the exact text
// its range covers and a part of its message.
type wantDiag struct {
	code  ir.Code
	sev   ir.Severity
	at    string
	msgIn string
}

// checkDiags asserts that diags are exactly want, in any order.
func checkDiags(t *testing.T, file, text string, diags []ir.Diagnostic, want []wantDiag) {
	t.Helper()
	used := make([]bool, len(diags))
	for _, w := range want {
		found := false
		for i, d := range diags {
			if used[i] || d.Code != w.code || d.Severity != w.sev {
				continue
			}
			if d.Loc.File != file {
				t.Errorf("diag %q: file %q, want %q", d.Message, d.Loc.File, file)
			}
			if rangeText(t, text, d.Loc) != w.at || !strings.Contains(d.Message, w.msgIn) {
				continue
			}
			used[i], found = true, true
			break
		}
		if !found {
			t.Errorf("missing %s %s at %q containing %q", w.sev, w.code, w.at, w.msgIn)
		}
	}
	for i, d := range diags {
		if !used[i] {
			t.Errorf("unexpected %s %s at %q (%d..%d): %s", d.Severity, d.Code, rangeText(t, text, d.Loc), d.Loc.Start, d.Loc.End, d.Message)
		}
	}
}

func TestParseSpecValid(t *testing.T) {
	text := `# my pipeline
name: my_pipeline
storage: file:///tmp/storage
catalog: main
schema: sales
configuration:
  spark.sql.shuffle.partitions: "8"
  spark.app.name: 'x'
libraries:
  - glob:
      include: transformations/**
  - glob: {include: "extra/one.sql"}
`
	spec, diags := ParseSpec("spark-pipeline.yml", []byte(text))
	checkDiags(t, "spark-pipeline.yml", text, diags, nil)
	if spec.Name != "my_pipeline" || spec.Storage != "file:///tmp/storage" || spec.Catalog != "main" || spec.Database != "sales" {
		t.Errorf("spec = %+v", spec)
	}
	if spec.Configuration["spark.sql.shuffle.partitions"] != "8" || spec.Configuration["spark.app.name"] != "x" || len(spec.Configuration) != 2 {
		t.Errorf("configuration = %v", spec.Configuration)
	}
	if len(spec.Libraries) != 2 || spec.Libraries[0].Include != "transformations/**" || spec.Libraries[1].Include != "extra/one.sql" {
		t.Fatalf("libraries = %+v", spec.Libraries)
	}
	if got := rangeText(t, text, spec.Libraries[0].Loc); got != "transformations/**" {
		t.Errorf("library 0 at %q", got)
	}
	if got := rangeText(t, text, spec.Libraries[1].Loc); got != `"extra/one.sql"` {
		t.Errorf("library 1 at %q", got)
	}
	for key, want := range map[string]string{
		"name": "my_pipeline", "storage": "file:///tmp/storage", "catalog": "main",
		"schema": "sales", "database": "sales", "configuration": `spark.sql.shuffle.partitions: "8"`, "libraries": "- glob:",
	} {
		if got := rangeText(t, text, spec.Loc[key]); got != want {
			t.Errorf("Loc[%s] = %q, want %q", key, got, want)
		}
	}
}

func TestParseSpecAliasesAndTypes(t *testing.T) {
	text := "name: &n pipe\nstorage: *n\ncatalog: !!str 5\ndatabase: 12\n"
	spec, diags := ParseSpec("s.yml", []byte(text))
	// storage without a URI scheme: spark-pipelines refuses it.
	checkDiags(t, "s.yml", text, diags, []wantDiag{{ir.CodeSpecError, ir.Warning, "*n", "PIPELINE_STORAGE_ROOT_INVALID"}})
	if spec.Name != "pipe" || spec.Storage != "pipe" || spec.Catalog != "5" || spec.Database != "12" {
		t.Errorf("spec = %+v", spec)
	}
	if got := rangeText(t, text, spec.Loc["storage"]); got != "*n" {
		t.Errorf("alias at %q", got)
	}
	if got := rangeText(t, text, spec.Loc["catalog"]); got != "!!str 5" {
		t.Errorf("tagged at %q", got)
	}
}

func TestParseSpecErrors(t *testing.T) {
	const head = "name: p\nstorage: file:///s\n"
	E, W := ir.Error, ir.Warning
	tests := []struct {
		name string
		text string
		want []wantDiag
	}{
		{"unknown key", head + "libaries: []\n", []wantDiag{{ir.CodeSpecUnknown, E, "libaries", "did you mean `libraries`"}}},
		{"unknown key case", head + "Catalog: x\n", []wantDiag{{ir.CodeSpecUnknown, E, "Catalog", "did you mean `catalog`"}}},
		{"unknown key far", head + "owner: me\n", []wantDiag{{ir.CodeSpecUnknown, E, "owner", "SDP rejects it"}}},
		{"definitions", head + "definitions: []\n", []wantDiag{{ir.CodeSpecUnknown, E, "definitions", "renamed `libraries`"}}},
		{"missing storage", "name: p\ncatalog: c\n", []wantDiag{{ir.CodeSpecError, E, "name", "add `storage: <path or URI>`"}}},
		{"missing name", "storage: file:///s\n", []wantDiag{{ir.CodeSpecError, E, "storage", "add `name:"}}},
		{"missing both", "catalog: c\n", []wantDiag{
			{ir.CodeSpecError, E, "catalog", "no `name`"},
			{ir.CodeSpecError, E, "catalog", "no `storage`"},
		}},
		{"empty name", "name:\nstorage: file:///s\n", []wantDiag{{ir.CodeSpecError, E, "name", "`name` is empty"}}},
		{"name list", "name: [a]\nstorage: file:///s\n", []wantDiag{{ir.CodeSpecError, E, "[a]", "single value"}}},
		{"empty file", "", []wantDiag{{ir.CodeSpecError, E, "", "is empty"}}},
		{"comments only", "# nothing\n", []wantDiag{{ir.CodeSpecError, E, "", "is empty"}}},
		{"not a mapping", "- a\n- b\n", []wantDiag{{ir.CodeSpecError, E, "- a", "must be a mapping"}}},
		{"database and schema", head + "database: a\nschema: b\n", []wantDiag{{ir.CodeSpecError, E, "schema", "same setting"}}},
		{"schema then database", head + "schema: b\ndatabase: a\n", []wantDiag{{ir.CodeSpecError, E, "database", "same setting"}}},
		{"duplicate key", head + "name: q\n", []wantDiag{{ir.CodeSpecError, W, "name", "duplicate key"}}},
		{"configuration nested", head + "configuration:\n  spark:\n    sql: x\n", []wantDiag{{ir.CodeSpecError, E, "sql: x", "full dotted name"}}},
		{"configuration int", head + "configuration:\n  spark.sql.shuffle.partitions: 8\n", []wantDiag{{ir.CodeSpecError, E, "8", `quote it, ` + "`spark.sql.shuffle.partitions: \"8\"`"}}},
		{"configuration yes", head + "configuration:\n  a.b: yes\n", []wantDiag{{ir.CodeSpecError, E, "yes", "boolean"}}},
		{"configuration null", head + "configuration:\n  a.b:\n", []wantDiag{{ir.CodeSpecError, E, "a.b", "no value"}}},
		{"configuration empty", head + "configuration:\n", []wantDiag{{ir.CodeSpecError, E, "configuration", "is empty"}}},
		{"configuration list", head + "configuration: [a, b]\n", []wantDiag{{ir.CodeSpecError, E, "[a, b]", "must be a mapping"}}},
		{"configuration int key", head + "configuration:\n  1: x\n", []wantDiag{{ir.CodeSpecError, E, "1", "not a string"}}},
		{"libraries scalar", head + "libraries: transformations/**\n", []wantDiag{{ir.CodeSpecError, E, "transformations/**", "must be a list"}}},
		{"libraries empty", head + "libraries:\n", []wantDiag{{ir.CodeSpecError, E, "libraries", "is empty"}}},
		{"library bare", head + "libraries:\n  - transformations/**\n", []wantDiag{{ir.CodeSpecError, E, "transformations/**", "- glob: {include: transformations/**}"}}},
		{"library file", head + "libraries:\n  - file: {path: a.sql}\n", []wantDiag{{ir.CodeSpecError, E, "file: {path: a.sql}", "no `file` libraries"}}},
		{"library extra key", head + "libraries:\n  - glob: {include: a/**}\n    notebook: x\n", []wantDiag{{ir.CodeSpecUnknown, W, "notebook", "ignores"}}},
		{"glob scalar", head + "libraries:\n  - glob: a/**\n", []wantDiag{{ir.CodeSpecError, E, "a/**", "must be a mapping"}}},
		{"glob no include", head + "libraries:\n  - glob: {exclude: a}\n", []wantDiag{
			{ir.CodeSpecError, E, "glob", "no `include`"},
			{ir.CodeSpecUnknown, W, "exclude", "ignores `exclude`"},
		}},
		{"glob typo", head + "libraries:\n  - glob: {includ: a/**}\n", []wantDiag{
			{ir.CodeSpecError, E, "glob", "no `include`"},
			{ir.CodeSpecUnknown, W, "includ", "did you mean `include`"},
		}},
		{"include empty", head + "libraries:\n  - glob: {include: ''}\n", []wantDiag{{ir.CodeSpecError, E, "''", "is empty"}}},
		{"include null", head + "libraries:\n  - glob:\n      include:\n", []wantDiag{{ir.CodeSpecError, E, "include", "is empty"}}},
		{"complex glob", head + "libraries:\n  - glob:\n      include: transformations/**/*.sql\n", []wantDiag{{ir.CodeSpecError, E, "transformations/**/*.sql", "use `transformations/**`"}}},
		{"star glob", head + "libraries:\n  - glob: {include: '*.sql'}\n", []wantDiag{{ir.CodeSpecError, E, "'*.sql'", "list each file"}}},
		{"escape", head + "libraries:\n  - glob: {include: ../other/**}\n", []wantDiag{{ir.CodePathEscape, W, "../other/**", "leaves the pipeline folder"}}},
		{"escape with the way out", head + "libraries:\n  - glob: {include: ../src/**}\n", []wantDiag{{ir.CodePathEscape, W, "../src/**", "move spark-pipeline.yml up to the folder that holds both"}}},
		{"absolute, as spark-pipelines says", head + "libraries:\n  - glob: {include: /etc/**}\n", []wantDiag{{ir.CodePathEscape, E, "/etc/**", "spark-pipelines refuses"}}},
		{"absolute", head + "libraries:\n  - glob: {include: /etc/**}\n", []wantDiag{{ir.CodePathEscape, E, "/etc/**", "absolute"}}},
		{"yaml mapping error", head + "catalog: c\n  x: y\n", []wantDiag{{ir.CodeSpecError, E, "x: y", "mapping values are not allowed"}}},
		{"yaml unclosed flow", head + "libraries: [a\n", []wantDiag{{ir.CodeSpecError, E, "libraries: [a", "Close the list"}}},
		{"yaml tab", "name: p\nconfiguration:\n\tstorage: file:///s\n", []wantDiag{{ir.CodeSpecError, E, "\t", "replace the tab with spaces"}}},
		{"yaml control char", "name: p\x01\n", []wantDiag{{ir.CodeSpecError, E, "\x01", "control characters"}}},
		{"yaml unknown anchor", head + "catalog: *nope\n", []wantDiag{{ir.CodeSpecError, E, "*nope", "unknown anchor"}}},
		{"unclosed quote at end", "name: 'p\n\n", []wantDiag{{ir.CodeSpecError, E, "name: 'p", "unclosed quote"}}},
		{"two documents", head + "---\ncatalog: x\n", []wantDiag{{ir.CodeSpecError, E, "---", "more than one YAML document"}}},
		{"invalid utf8", "name: p\xff\nstorage: file:///s\n", []wantDiag{{ir.CodeFileEncoding, E, "\xff", "not valid UTF-8"}}},
		{"utf16", "\xff\xfen\x00", []wantDiag{
			{ir.CodeFileEncoding, E, "\xff", "not valid UTF-8"},
			{ir.CodeSpecError, E, "\x00", "control characters"},
		}},
		{"crlf", "name: p\r\nstorage: file:///s\r\nfoo: 1\r\n", []wantDiag{{ir.CodeSpecUnknown, E, "foo", "SDP rejects it"}}},
		{"lone cr", "name: p\rstorage: file:///s\rfoo: 1\r", []wantDiag{{ir.CodeSpecUnknown, E, "foo", "SDP rejects it"}}},
		{"nel", "name: p\u0085storage: file:///s\u2028foo: 1\n", []wantDiag{{ir.CodeSpecUnknown, E, "foo", "SDP rejects it"}}},
		{"storage without a scheme", "name: p\nstorage: storage-root\n", []wantDiag{{ir.CodeSpecError, W, "storage-root", "[PIPELINE_STORAGE_ROOT_INVALID]"}}},
		{"storage with a scheme", "name: p\nstorage: s3a://bucket/p\n", nil},
		{"bom", "\xef\xbb\xbfname: p\nfoo: x\n", []wantDiag{
			{ir.CodeSpecError, E, "name", "no `storage`"},
			{ir.CodeSpecUnknown, E, "foo", "SDP rejects it"},
		}},
		{"non-ascii columns", head + "libraries:\n  - glob: {include: \"é/ü/**\", exclüde: x}\n", []wantDiag{{ir.CodeSpecUnknown, W, "exclüde", "ignores `exclüde`"}}},
		{"quoted value after non-ascii key", head + "catalög: \"ö\"\n", []wantDiag{{ir.CodeSpecUnknown, E, "catalög", "did you mean `catalog`"}}},
		{"tab after colon ok", "name:\tp\nstorage: file:///s\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := ParseSpec("spark-pipeline.yml", []byte(tc.text))
			checkDiags(t, "spark-pipeline.yml", tc.text, diags, tc.want)
		})
	}
}

func TestParseSpecKeepsValues(t *testing.T) {
	// Values SDP rejects are still returned, so analysis can go on.
	text := "name: p\nstorage: file:///s\nconfiguration:\n  n: 8\n  b: true\nlibraries:\n  - glob: {include: t/**/*.sql}\n"
	spec, _ := ParseSpec("s.yml", []byte(text))
	if spec.Configuration["n"] != "8" || spec.Configuration["b"] != "true" {
		t.Errorf("configuration = %v", spec.Configuration)
	}
	if len(spec.Libraries) != 1 || spec.Libraries[0].Include != "t/**/*.sql" {
		t.Errorf("libraries = %+v", spec.Libraries)
	}
}

func TestQuotedRanges(t *testing.T) {
	text := "name: \"a \\\" b\"\nstorage: 'it''s'\ncatalog: >\n  folded\n"
	spec, diags := ParseSpec("s.yml", []byte(text))
	checkDiags(t, "s.yml", text, diags, []wantDiag{{ir.CodeSpecError, ir.Warning, "'it''s'", "no URI scheme"}})
	for key, want := range map[string]string{"name": `"a \" b"`, "storage": `'it''s'`, "catalog": ">"} {
		if got := rangeText(t, text, spec.Loc[key]); got != want {
			t.Errorf("Loc[%s] = %q, want %q", key, got, want)
		}
	}
	if spec.Name != `a " b` || spec.Storage != "it's" || spec.Catalog != "folded\n" {
		t.Errorf("spec = %+v", spec)
	}
}
