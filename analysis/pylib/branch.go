package pylib

import (
	"strconv"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file reads the module-level if statements a pipeline file defines
// datasets under: the branch a condition Thund knows takes (a module
// constant, spark.conf.get of a key the configuration sets, a comparison
// of such values, not/and/or of them, `__name__ == "__main__"`), or, when
// the condition is computed at run time, every branch, said once.

// UnknownCondition is an if whose condition is computed at run time: the
// definitions under each branch are read, and whether each exists is not
// known.
const UnknownCondition = "condition"

// ifBlock reads an if statement at the module's level (or in a loop's or
// a factory's body being expanded).
func (r *reader) ifBlock(st *sitter.Node) {
	if r.depth >= maxDepth {
		return
	}
	type branch struct{ cond, body *sitter.Node }
	branches := []branch{{st.ChildByFieldName("condition"), st.ChildByFieldName("consequence")}}
	for _, c := range children(st) {
		switch c.Kind() {
		case "elif_clause":
			branches = append(branches, branch{c.ChildByFieldName("condition"), c.ChildByFieldName("consequence")})
		case "else_clause":
			branches = append(branches, branch{nil, c.ChildByFieldName("body")})
		}
	}
	before := len(r.defs)
	unknown := false
	for _, b := range branches {
		if b.body == nil {
			continue
		}
		if b.cond == nil {
			r.block(b.body, Span{})
			break
		}
		val, known, guard := r.condition(b.cond)
		if !known && !unknown {
			unknown = true
			r.unknown = append(r.unknown, Unknown{What: UnknownCondition, Call: "if", Loc: span(b.cond)})
		}
		if known && !val {
			continue
		}
		at := Span{}
		if guard {
			at = span(b.cond)
		}
		r.block(b.body, at)
		if known {
			break
		}
	}
	if unknown {
		r.defs = append(r.defs[:before], firstOfEachName(r.defs[before:])...)
	}
}

// firstOfEachName keeps the first definition of each name (the branches
// of one if, read together when which is taken is not known).
func firstOfEachName(defs []Definition) []Definition {
	seen := map[string]bool{}
	var out []Definition
	for _, d := range defs {
		key := string(d.Kind) + "\x00" + d.Name
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	return out
}

// block reads the statements of a branch; guard, when set, is the
// `__name__ == "__main__"` condition its definitions are under.
func (r *reader) block(body *sitter.Node, guard Span) {
	r.depth++
	defer func() { r.depth-- }()
	before := len(r.defs)
	for _, st := range children(body) {
		if st.HasError() || st.IsError() {
			continue
		}
		r.statement(st, 0)
	}
	if guard != (Span{}) {
		for i := before; i < len(r.defs); i++ {
			if r.defs[i].MainGuard == (Span{}) {
				r.defs[i].MainGuard = guard
			}
		}
	}
}

// condition evaluates an if's condition as Python would when Thund knows
// its values; guard is set for __name__ == "__main__" (true, as
// Databricks runs the file).
func (r *reader) condition(n *sitter.Node) (val, known, guard bool) {
	n = unparen(n)
	if n == nil || r.depth > 8 {
		return false, false, false
	}
	switch n.Kind() {
	case "not_operator":
		v, ok, g := r.condition(n.ChildByFieldName("argument"))
		return !v, ok, g
	case "boolean_operator":
		op := n.ChildByFieldName("operator")
		a, okA, gA := r.condition(n.ChildByFieldName("left"))
		b, okB, gB := r.condition(n.ChildByFieldName("right"))
		isAnd := op != nil && r.srcOf(op) == "and"
		switch {
		case okA && isAnd && !a, okA && !isAnd && a:
			return a, true, gA // short-circuit: the right side does not count
		case okA && okB:
			return b, true, gA || gB
		}
		return false, false, false
	case "comparison_operator":
		return r.comparison(n)
	}
	v, ok := r.pyValue(n)
	if !ok {
		return false, false, false
	}
	return v.truthy(), true, false
}

// pyVal is a value Thund knows, with its Python type.
type pyVal struct {
	kind string // "str", "int", "bool", "none"
	text string
}

func (v pyVal) truthy() bool {
	switch v.kind {
	case "str":
		return v.text != ""
	case "int":
		return v.text != "0"
	case "bool":
		return v.text == "True"
	}
	return false
}

// pyValue reads n as a value Thund knows: a text, an integer, True,
// False or None (directly, or through a constant or the configuration).
func (r *reader) pyValue(n *sitter.Node) (pyVal, bool) {
	if v, ok := r.integer(n); ok {
		return pyVal{"int", strconv.FormatInt(v, 10)}, true
	}
	c := unparen(r.constant(n))
	if c == nil {
		return pyVal{}, false
	}
	switch c.Kind() {
	case "true":
		return pyVal{"bool", "True"}, true
	case "false":
		return pyVal{"bool", "False"}, true
	case "none":
		return pyVal{"none", ""}, true
	}
	if lit, computed, ok := r.literalNode(c); ok && !computed {
		return pyVal{"str", lit.Value}, true
	}
	return pyVal{}, false
}

// comparison evaluates A == B and A != B of values Thund knows, and
// __name__ == "__main__".
func (r *reader) comparison(n *sitter.Node) (val, known, guard bool) {
	ops := children(n)
	var sym []string
	for i := uint(0); i < n.ChildCount(); i++ {
		if c := n.Child(i); !c.IsNamed() {
			sym = append(sym, r.srcOf(c))
		}
	}
	if len(ops) != 2 || len(sym) != 1 || (sym[0] != "==" && sym[0] != "!=") {
		return false, false, false
	}
	eq := sym[0] == "=="
	a, b := unparen(ops[0]), unparen(ops[1])
	if b.Kind() == "identifier" && r.srcOf(b) == "__name__" {
		a, b = b, a
	}
	if a.Kind() == "identifier" && r.srcOf(a) == "__name__" {
		if v, ok := r.pyValue(b); ok && v.kind == "str" && v.text == "__main__" && eq {
			return true, true, true
		}
		return false, false, false
	}
	va, okA := r.pyValue(a)
	vb, okB := r.pyValue(b)
	if !okA || !okB || (va.kind != vb.kind && va.kind != "none" && vb.kind != "none") {
		return false, false, false // 1 == True and the like: not read
	}
	same := va == vb
	return same == eq, true, false
}
