package sqlfront

import (
	"reflect"
	"testing"
)

func splitTexts(text string) []string {
	var out []string
	for _, s := range Split(text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"two", "SELECT 1; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"whitespace and final semicolon", "\n\t SELECT 1 ;\n\nSELECT 2;\n", []string{"SELECT 1", "SELECT 2"}},
		{"semicolon in strings", `SELECT ';' ; SELECT "a;b"`, []string{`SELECT ';'`, `SELECT "a;b"`}},
		{"doubled quote", "SELECT 'it''s;' ; x", []string{"SELECT 'it''s;'", "x"}},
		{"backslash quote", `SELECT 'a\';b' ; y`, []string{`SELECT 'a\';b'`, "y"}},
		{"escaped backslash ends string", `SELECT 'a\\'; y`, []string{`SELECT 'a\\'`, "y"}},
		{"doubled double quote", `SELECT "a"";" ; z`, []string{`SELECT "a"";"`, "z"}},
		{"backticks", "SELECT `a;b`, `c``;d` FROM t;", []string{"SELECT `a;b`, `c``;d` FROM t"}},
		{"line comments", "-- c;\nSELECT 1 -- t;\n;\n-- after", []string{"SELECT 1"}},
		{"nested block comment", "/* a; /* nested; */ still; */ SELECT 2 /* x; */; /**/", []string{"SELECT 2"}},
		{"dollar quotes", "SELECT $$a;b$$; SELECT $tag$ x; $$ ; $tag$;", []string{"SELECT $$a;b$$", "SELECT $tag$ x; $$ ; $tag$"}},
		{"params and dollar identifiers", "SELECT $1; SELECT a$b$c; d", []string{"SELECT $1", "SELECT a$b$c", "d"}},
		{"empty statements", ";; ;\n ; -- x\n", nil},
		{"empty text", "", nil},
		{"unterminated string", "SELECT 'abc; SELECT 2", []string{"SELECT 'abc; SELECT 2"}},
		{"unterminated identifier", "SELECT \"abc; SELECT 2\n", []string{"SELECT \"abc; SELECT 2\n"}},
		{"unterminated comment after tokens", "SELECT 1 /* open; ", []string{"SELECT 1 /* open; "}},
		{"unterminated comment alone", "SELECT 1; /* open; ", []string{"SELECT 1"}},
		{"unterminated dollar quote", "SELECT $q$ x; y", []string{"SELECT $q$ x; y"}},
		{"crlf", "SELECT 1\r\n;\r\nSELECT 2\r\n", []string{"SELECT 1", "SELECT 2"}},
		{"comment between words", "CREATE /* c; */ VIEW v -- x;\n AS SELECT 1", []string{"CREATE /* c; */ VIEW v -- x;\n AS SELECT 1"}},
		{"minus is not a comment", "SELECT 1 - -2; SELECT 3", []string{"SELECT 1 - -2", "SELECT 3"}},
		{"slash star inside string", "SELECT '/*'; SELECT 2", []string{"SELECT '/*'", "SELECT 2"}},
		{"dash dash inside string", "SELECT '--'; SELECT 2", []string{"SELECT '--'", "SELECT 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitTexts(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestCommentStart(t *testing.T) {
	text := "-- header\n\n" +
		"-- doc for a\n" +
		"-- @kind: materialized_view\n" +
		"CREATE MATERIALIZED VIEW a AS SELECT 1;\n" +
		"SELECT 2; -- trailing\n" +
		"-- about c\n" +
		"   -- @comment: indented\n" +
		"CREATE VIEW c AS SELECT 3; SELECT 4;\n" +
		"SELECT '\n-- inside a string';\n" +
		"SELECT 5;\n" +
		"-- directly above\n" +
		"\n" +
		"SELECT 6"
	f := Parse("f.sql", text)
	want := []struct {
		stmt    string
		comment string // text from CommentStart to Start
	}{
		{"CREATE MATERIALIZED VIEW a AS SELECT 1", "-- doc for a\n-- @kind: materialized_view\n"},
		{"SELECT 2", ""},
		{"CREATE VIEW c AS SELECT 3", "-- about c\n   -- @comment: indented\n"},
		{"SELECT 4", ""},
		{"SELECT '\n-- inside a string'", ""},
		{"SELECT 5", ""},
		{"SELECT 6", ""},
	}
	if len(f.Statements) != len(want) {
		t.Fatalf("got %d statements, want %d", len(f.Statements), len(want))
	}
	for i, w := range want {
		st := f.Statements[i]
		if got := text[st.Start:st.End]; got != w.stmt {
			t.Errorf("statement %d = %q, want %q", i, got, w.stmt)
		}
		if st.CommentStart > st.Start {
			t.Fatalf("statement %d: CommentStart %d after Start %d", i, st.CommentStart, st.Start)
		}
		if got := text[st.CommentStart:st.Start]; got != w.comment {
			t.Errorf("statement %d: comment block = %q, want %q", i, got, w.comment)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"SELECT 1; SELECT 2", "SELECT 'a;b'; x", `SELECT 'a\';b'`, "/* /* */ */;", "$$;$$;$a$;$a$",
		"`a;b`;\"c;d\"", "-- x;\n;", "SELECT 'open", "/* open", "$q$ open", ";;;", "\x00;\xff;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, s := range Split(text) {
			if s.Start < prev || s.Start >= s.End || s.End > len(text) {
				t.Fatalf("bad span %v after %d in %q", s, prev, text)
			}
			// Only an unterminated quote or comment, which runs to the end
			// of text, may end a span with whitespace.
			if isSpace(text[s.Start]) || isSpace(text[s.End-1]) && s.End != len(text) {
				t.Fatalf("span %v has surrounding whitespace in %q", s, text)
			}
			prev = s.End
		}
		splitterTokensAreLexRange(t, "fuzz", text, 0, len(text))
	})
}

// TestLineCommentEndsAtCR: a `--` comment ends at a lone carriage return,
// as Spark's and DuckDB's lexers end it; what follows is a statement.
func TestLineCommentEndsAtCR(t *testing.T) {
	stmts := Split("SELECT 1 -- note\r; SELECT 2")
	if len(stmts) != 2 {
		t.Fatalf("got %d statements, want 2: %+v", len(stmts), stmts)
	}
}
