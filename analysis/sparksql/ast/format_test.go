package ast

import "testing"

// TestFormatQuoting checks the spelling decisions Format makes on trees
// that were not parsed: names that are not bare identifiers are quoted,
// strings are escaped, and names held as strings are quoted as needed.
func TestFormatQuoting(t *testing.T) {
	col := func(names ...string) *Column {
		c := &Column{}
		for _, n := range names {
			c.Parts = append(c.Parts, &Ident{Name: n})
		}
		return c
	}
	str := func(v string) *Literal {
		return &Literal{Kind: LitString, Text: "", Str: &StringLit{Value: v}}
	}
	for _, c := range []struct {
		n    Node
		want string
	}{
		{col("a", "b"), "a.b"},
		{col("a b", "c`d"), "`a b`.`c``d`"},
		{col("123"), "`123`"},
		{col("1e5"), "`1e5`"},
		{col("12m_payer"), "12m_payer"},
		{&Column{Parts: []*Ident{{Name: "x", Quoted: true}}}, "`x`"},
		{&Ident{Expr: &Param{Name: "p"}}, "IDENTIFIER(:p)"},
		{&Param{Name: "a b"}, ":`a b`"},
		{str(`it's \ here`), `'it\'s \\ here'`},
		{&StringLit{Value: `say "x"`, DoubleQuoted: true}, `"say \"x\""`},
		{&TypedLiteral{Type: "X", Value: &StringLit{Value: "1F"}}, "X'1F'"},
		{&TypedLiteral{Type: "DATE", Value: &StringLit{Value: "2024-01-01"}}, "DATE '2024-01-01'"},
		{&Unary{Op: "-", X: &Unary{Op: "-", X: col("a")}}, "- -a"},
		{&Field{X: &Literal{Kind: LitInteger, Text: "1"}, Name: &Ident{Name: "a"}}, "1 .a"},
		{&DataType{Name: "STRING", Qualifier: "COLLATE a b.c"}, "STRING COLLATE `a b`.c"},
		{&BadExpr{}, "<bad expression>"},
		{&Set{Key: "a key", Value: "v"}, "SET `a key` = v"},
		{&Set{Key: "a key", Value: "`v`"}, "SET `a key` = ```v```"},
		{&Set{Key: "k", Value: "a;b"}, "SET `k` = `a;b`"},
		{&Set{Key: "k", Value: "'x;y'"}, "SET `k` = 'x;y'"},
		{&Set{Key: "-v"}, "SET -v"},
	} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%#v) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestDiff checks that Diff ignores ranges and names the first
// difference.
func TestDiff(t *testing.T) {
	a := &Binary{Range: Range{0, 5}, Op: "+", L: &Column{Range: Range{0, 1}, Parts: []*Ident{{Range: Range{0, 1}, Name: "a"}}},
		R: &Literal{Range: Range{4, 5}, Kind: LitInteger, Text: "1"}}
	b := &Binary{Range: Range{7, 12}, Op: "+", L: &Column{Range: Range{7, 8}, Parts: []*Ident{{Range: Range{7, 8}, Name: "a"}}},
		R: &Literal{Range: Range{11, 12}, Kind: LitInteger, Text: "1"}}
	if d := Diff(a, b); d != "" {
		t.Errorf("Diff of trees that differ only in ranges: %s", d)
	}
	b.R.(*Literal).Text = "2"
	if d := Diff(a, b); d != `.R.Text: "1" vs "2"` {
		t.Errorf("Diff = %q", d)
	}
	b.R = &Param{}
	if d := Diff(a, b); d != ".R: *ast.Literal vs *ast.Param" {
		t.Errorf("Diff = %q", d)
	}
	s1 := &StringLit{Value: "ab", Parts: []Range{{0, 3}, {4, 7}}}
	s2 := &StringLit{Value: "ab", Parts: []Range{{0, 4}}}
	if !Equal(s1, s2) {
		t.Error("the parts of a string literal are ranges and do not count")
	}
}
