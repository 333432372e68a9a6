package pragma

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// span returns text[l.Start:l.End], failing the test when l is out of range.
func span(t *testing.T, text string, l ir.Loc) string {
	t.Helper()
	if l.Start < 0 || l.Start > l.End || l.End > len(text) {
		t.Fatalf("range %d..%d outside text of %d bytes", l.Start, l.End, len(text))
	}
	return text[l.Start:l.End]
}

func TestScanHeaderPragmasAndDoc(t *testing.T) {
	text := "-- Orders with a positive amount,\n" +
		"-- joined to their customer's region.\n" +
		"-- @kind: materialized_view\n" +
		"--   @expect.valid_amount:   amount > 0 ON VIOLATION DROP ROW  \n" +
		"--\n" +
		"-- Second paragraph.\n" +
		"\n" +
		"-- @property.delta.appendOnly: true\n" +
		"--@conf.spark.sql.shuffle.partitions:4\n" +
		"  -- @streaming\n" +
		"SELECT o.id FROM orders AS o\n" +
		"-- @kind: view\n"
	b := ScanHeader("f.sql", text)
	if len(b.Diags) != 0 {
		t.Fatalf("unexpected diagnostics: %v", b.Diags)
	}
	if want := strings.Index(text, "SELECT"); b.Start != 0 || b.End != want {
		t.Errorf("block = %d..%d, want 0..%d", b.Start, b.End, want)
	}
	if want := "Orders with a positive amount, joined to their customer's region."; b.Doc != want {
		t.Errorf("Doc = %q, want %q", b.Doc, want)
	}
	type want struct{ key, name, value, keyText, nameText string }
	wants := []want{
		{"kind", "", "materialized_view", "@kind", ""},
		{"expect", "valid_amount", "amount > 0 ON VIOLATION DROP ROW", "@expect", "valid_amount"},
		{"property", "delta.appendOnly", "true", "@property", "delta.appendOnly"},
		{"conf", "spark.sql.shuffle.partitions", "4", "@conf", "spark.sql.shuffle.partitions"},
		{"streaming", "", "true", "@streaming", ""},
	}
	if len(b.Pragmas) != len(wants) {
		t.Fatalf("got %d pragmas, want %d: %+v", len(b.Pragmas), len(wants), b.Pragmas)
	}
	for i, w := range wants {
		p := b.Pragmas[i]
		if p.Key != w.key || p.Name != w.name || p.Value != w.value {
			t.Errorf("pragma %d = %q.%q: %q, want %q.%q: %q", i, p.Key, p.Name, p.Value, w.key, w.name, w.value)
		}
		if got := span(t, text, p.KeyLoc); got != w.keyText {
			t.Errorf("pragma %d KeyLoc text %q, want %q", i, got, w.keyText)
		}
		if got := span(t, text, p.NameLoc); got != w.nameText {
			t.Errorf("pragma %d NameLoc text %q, want %q", i, got, w.nameText)
		}
		if !p.Bare {
			if got := span(t, text, p.ValueLoc); got != w.value {
				t.Errorf("pragma %d ValueLoc text %q, want %q", i, got, w.value)
			}
		}
		if line := span(t, text, p.Line); !strings.Contains(line, w.keyText) || strings.ContainsAny(line, "\r\n") {
			t.Errorf("pragma %d Line text %q", i, line)
		}
	}
	if p := b.Pragmas[4]; !p.Bare || span(t, text, p.ValueLoc) != "@streaming" {
		t.Errorf("bare pragma: Bare=%v ValueLoc text %q", p.Bare, span(t, text, p.ValueLoc))
	}
}

func TestDoc(t *testing.T) {
	tests := []struct{ text, doc string }{
		{"SELECT 1", ""},
		{"", ""},
		{"-- @kind: table\nSELECT 1", ""},
		{"-- One line.\nSELECT 1", "One line."},
		{"-- @kind: table\n-- After a pragma.\n", "After a pragma."},
		{"--   Indented\ttext  \n--and more\n", "Indented\ttext and more"},
		{"-- First\n-- @kind: table\n-- continues\n\n-- Second\n", "First continues"},
		{"-- First\n--\n-- Second\n", "First"},
		{"\n\n-- After blank lines\n", "After blank lines"},
		{"-- Ünïcödé ✓ text\n", "Ünïcödé ✓ text"},
		{"-- a -- b @c\n", "a -- b @c"},
	}
	for _, tt := range tests {
		if got := ScanHeader("f.sql", tt.text).Doc; got != tt.doc {
			t.Errorf("Doc(%q) = %q, want %q", tt.text, got, tt.doc)
		}
	}
}

func TestHeaderEnd(t *testing.T) {
	tests := []struct {
		text string
		end  int
	}{
		{"", 0},
		{"SELECT 1", 0},
		{"-- only comments", 16},
		{"-- a\n\n   \n-- b\n", 15},
		{"-- a\n  SELECT 1", 5},
		{"\xef\xbb\xbfSELECT 1", 3},
		{"\xef\xbb\xbf-- @kind: table\nSELECT 1", 19},
		{"-- a\r\nSELECT 1", 6},
		{"-- a\rSELECT 1", 5},
		{"/* block */ SELECT 1", 0},
	}
	for _, tt := range tests {
		if got := ScanHeader("f.sql", tt.text).End; got != tt.end {
			t.Errorf("End(%q) = %d, want %d", tt.text, got, tt.end)
		}
	}
}

func TestCRLFBOMTabsAndEncodings(t *testing.T) {
	text := "\xef\xbb\xbf-- Zürich \xff orders\r\n-- @kind:\ttable\t\r\n\t--\t@name: `größe`\r\n-- @comment: caf\xe9 \xf0\x9f\x98\x80\r\n-- @trigger: processing_time \"10   Seconds\"\r\n\r\nSELECT 1\r\n"
	b := ScanHeader("f.sql", text)
	s, ds := Interpret("f.sql", b)
	if len(b.Diags)+len(ds) != 0 {
		t.Fatalf("unexpected diagnostics: %v %v", b.Diags, ds)
	}
	if b.Doc != "Zürich \xff orders" {
		t.Errorf("Doc = %q", b.Doc)
	}
	if b.End != strings.Index(text, "SELECT") {
		t.Errorf("End = %d", b.End)
	}
	for _, p := range b.Pragmas {
		if v := span(t, text, p.ValueLoc); v != p.Value || strings.ContainsAny(v, "\r\n\t") {
			t.Errorf("value %q at %q", p.Value, v)
		}
		if strings.ContainsAny(span(t, text, p.Line), "\r\n") {
			t.Errorf("Line of %s holds a line break", p.Key)
		}
	}
	if s.Kind != ir.Table || span(t, text, s.KindLoc) != "table" {
		t.Errorf("Kind = %q at %q", s.Kind, span(t, text, s.KindLoc))
	}
	if s.Name != "größe" || span(t, text, s.NameLoc) != "`größe`" {
		t.Errorf("Name = %q at %q", s.Name, span(t, text, s.NameLoc))
	}
	if s.Comment != "caf\xe9 \xf0\x9f\x98\x80" {
		t.Errorf("Comment = %q", s.Comment)
	}
	if s.Trigger == nil || s.Trigger.Interval != "10 seconds" {
		t.Errorf("Trigger = %+v", s.Trigger)
	}

	// Errors after multi-byte text still point at the right bytes.
	text = "\xef\xbb\xbf-- ✓✓ \xff\r\n-- @kind: matérialized_view\r\n"
	b = ScanHeader("f.sql", text)
	_, ds = Interpret("f.sql", b)
	if len(ds) != 1 || span(t, text, ds[0].Loc) != "matérialized_view" {
		t.Fatalf("diagnostics %v", ds)
	}
}

func TestParseBlock(t *testing.T) {
	text := "SELECT 1;\n\n-- Clicks from the app.\n-- @trigger: once\nCREATE STREAMING TABLE x AS SELECT 1;\n-- @kind: view\n"
	start := strings.Index(text, "-- Clicks")
	end := strings.Index(text, "CREATE")
	b := ParseBlock("f.sql", text, start, end)
	if b.Start != start || b.End != end || b.Doc != "Clicks from the app." {
		t.Errorf("block %d..%d doc %q", b.Start, b.End, b.Doc)
	}
	if len(b.Pragmas) != 1 || b.Pragmas[0].Key != "trigger" || span(t, text, b.Pragmas[0].ValueLoc) != "once" {
		t.Fatalf("pragmas %+v", b.Pragmas)
	}
	// Non-comment lines inside the range are ignored.
	b = ParseBlock("f.sql", text, 0, len(text))
	if len(b.Pragmas) != 2 || b.Doc != "Clicks from the app." {
		t.Errorf("whole text: %d pragmas, doc %q", len(b.Pragmas), b.Doc)
	}
	// Out-of-range bounds are clamped, never panic.
	for _, r := range [][2]int{{-5, 3}, {10, 4}, {0, 1000}, {1000, 2000}} {
		b = ParseBlock("f.sql", text, r[0], r[1])
		if b.Start < 0 || b.Start > b.End || b.End > len(text) {
			t.Errorf("ParseBlock(%d, %d) = %d..%d", r[0], r[1], b.Start, b.End)
		}
	}
	// A range ending mid-line cuts the line there.
	cut := strings.Index(text, "once") + 2
	b = ParseBlock("f.sql", text, start, cut)
	if len(b.Pragmas) != 1 || b.Pragmas[0].Value != "on" {
		t.Errorf("cut block pragmas %+v", b.Pragmas)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, line, at string
		msg            []string
	}{
		{"no key", "-- @", "@", []string{"no key"}},
		{"no key then text", "-- @ kind: x", "@", []string{"no key"}},
		{"digit key", "-- @1kind: table", "@1kind", []string{"invalid pragma key"}},
		{"space in key", "-- @bad key: x", "@bad key", []string{"malformed pragma key", "-- @bad: value"}},
		{"missing colon", "-- @key value", "value", []string{"missing ':'", `"-- @key: value"`}},
		{"equals instead of colon", "-- @kind = table", "=", []string{"missing ':'", `"-- @kind: table"`}},
		{"empty name", "-- @expect.: x > 0", ".", []string{"missing name", "@expect.NAME"}},
		{"accented name", "-- @expect.é: x > 0", "é", []string{"invalid name", "ASCII letters"}},
		{"crlf", "-- @kind table\r\nSELECT 1", "table", []string{"missing ':'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ScanHeader("f.sql", tt.line)
			if len(b.Diags) != 1 {
				t.Fatalf("got %d diagnostics: %v", len(b.Diags), b.Diags)
			}
			d := b.Diags[0]
			if d.Code != ir.CodePragmaSyntax || d.Severity != ir.Error || d.Loc.File != "f.sql" {
				t.Errorf("diagnostic %+v", d)
			}
			if got := span(t, tt.line, d.Loc); got != tt.at {
				t.Errorf("range text %q, want %q", got, tt.at)
			}
			for _, m := range tt.msg {
				if !strings.Contains(d.Message, m) {
					t.Errorf("message %q lacks %q", d.Message, m)
				}
			}
			if len(b.Pragmas) != 0 {
				t.Errorf("malformed line produced a pragma: %+v", b.Pragmas)
			}
		})
	}
}
