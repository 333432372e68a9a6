package pylib

import (
	"fmt"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// A pipeline file often keeps its expectation rules in a helper module of
// the pipeline folder (from rules import RULES, then
// @dp.expect_all(RULES)). Options.Module gives the text of such a module;
// it is parsed, never run nor imported: only its top-level names bound
// once to literals (strings, dicts and lists of them, numbers) and its
// functions of no parameter whose body returns a dict literal are read,
// as values, and nothing it imports is followed.

// MaxModuleBytes bounds the text of a helper module Thund reads.
const MaxModuleBytes = 1 << 20

// maxModules bounds how many helper modules one file's reading parses.
const maxModules = 16

// Value is a value a helper module binds a name to: a text or an
// integer (Str, the integer in decimal), a list of values (List), or a
// dict of texts to values (Keys and Vals, in source order).
type Value struct {
	// Kind is "str", "int", "list" or "dict".
	Kind string
	Str  string
	List []Value
	Keys []string
	Vals []Value
}

// module is a helper module read: its names' values.
type module struct {
	values map[string]Value
}

// helperValue is the value the name local (bound by an import from
// another module) or the attribute mod.NAME stands for in a helper
// module, when Options.Module gives the module's text and it binds the
// name to a literal.
func (r *reader) helperValue(n *sitter.Node) (Value, bool) {
	n = unparen(n)
	if n == nil || r.moduleText == nil {
		return Value{}, false
	}
	var mod, name string
	call := false
	if fn, args, kw, _, ok := r.call(n); ok {
		if len(args) > 0 || len(kw) > 0 {
			return Value{}, false
		}
		n, call = unparen(fn), true
	}
	switch n.Kind() {
	case "identifier":
		full, ok := r.imp.foreign[r.srcOf(n)]
		if !ok || r.locals[r.srcOf(n)] {
			return Value{}, false
		}
		i := strings.LastIndexByte(full, '.')
		if i < 0 {
			return Value{}, false
		}
		mod, name = full[:i], full[i+1:]
	case "attribute":
		obj := unparen(n.ChildByFieldName("object"))
		if obj == nil || obj.Kind() != "identifier" || r.locals[r.srcOf(obj)] {
			return Value{}, false
		}
		full, ok := r.imp.foreign[r.srcOf(obj)]
		if !ok {
			return Value{}, false
		}
		mod, name = full, r.srcOf(n.ChildByFieldName("attribute"))
	default:
		return Value{}, false
	}
	if call {
		name += "()"
	}
	m := r.helperModule(mod)
	if m == nil {
		return Value{}, false
	}
	v, ok := m.values[name]
	return v, ok
}

// helperModule parses the helper module mod once per file's reading.
func (r *reader) helperModule(mod string) *module {
	if m, seen := r.modules[mod]; seen {
		return m
	}
	if r.modules == nil {
		r.modules = map[string]*module{}
	}
	if len(r.modules) >= maxModules {
		return nil
	}
	r.modules[mod] = nil
	text, ok := r.moduleText(mod)
	if !ok || len(text) > MaxModuleBytes {
		return nil
	}
	m := readModule(text, r.conf)
	r.modules[mod] = m
	return m
}

// readModule reads the values a helper module's text binds (conf is the
// pipeline's configuration, which spark.conf.get reads there too).
func readModule(text string, conf map[string]string) *module {
	m := &module{values: map[string]Value{}}
	f := func(h *reader, stmts []*sitter.Node) {
		for name, n := range h.consts {
			if v, ok := h.value(n, 0); ok {
				m.values[name] = v
			}
		}
		for name, fn := range h.funcs {
			if params := fn.ChildByFieldName("parameters"); params != nil && len(children(params)) > 0 {
				continue
			}
			if body := fn.ChildByFieldName("body"); body != nil {
				if ret := returnedLiteral(h, body); ret != nil {
					if v, ok := h.value(ret, 0); ok {
						m.values[name+"()"] = v
					}
				}
			}
		}
	}
	if err := walkModule(text, conf, f); err != nil {
		return nil
	}
	return m
}

// walkModule parses text and calls f with a reader of it whose imports,
// constants and functions are read, and its top-level statements; the
// tree lives while f runs.
func walkModule(text string, conf map[string]string, f func(h *reader, stmts []*sitter.Node)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the Python parser stopped: %v", p)
		}
	}()
	tree, err := parseTree(text)
	if err != nil {
		return err
	}
	defer tree.Close()
	h := &reader{text: text, src: []byte(text), aliases: map[string]string{}, conf: conf}
	stmts := children(tree.RootNode())
	h.imports(stmts)
	h.constants(stmts)
	h.findFactories(stmts)
	f(h, stmts)
	return nil
}

// returnedLiteral is the expression a function body returns when it is
// one return statement (after a docstring), else nil.
func returnedLiteral(h *reader, body *sitter.Node) *sitter.Node {
	stmts := children(body)
	for i, st := range stmts {
		if i == 0 && st.Kind() == "expression_statement" && len(children(st)) == 1 && children(st)[0].Kind() == "string" {
			continue
		}
		if st.Kind() != "return_statement" || i != len(stmts)-1 || len(children(st)) != 1 {
			return nil
		}
		return h.constant(children(st)[0])
	}
	return nil
}

// value reads a literal node of a helper module as a Value.
func (r *reader) value(n *sitter.Node, depth int) (Value, bool) {
	n = unparen(r.constant(n))
	if n == nil || depth > 8 {
		return Value{}, false
	}
	if v, ok := r.integer(n); ok {
		return Value{Kind: "int", Str: strconv.FormatInt(v, 10)}, true
	}
	if lit, ok := r.literal(n); ok {
		return Value{Kind: "str", Str: lit.Value}, true
	}
	switch n.Kind() {
	case "list", "tuple":
		out := Value{Kind: "list"}
		for _, c := range children(n) {
			v, ok := r.value(c, depth+1)
			if !ok {
				return Value{}, false
			}
			out.List = append(out.List, v)
		}
		return out, true
	case "dictionary":
		out := Value{Kind: "dict"}
		for _, p := range children(n) {
			if p.Kind() != "pair" {
				return Value{}, false
			}
			k, ok := r.literal(p.ChildByFieldName("key"))
			if !ok {
				return Value{}, false
			}
			v, ok := r.value(p.ChildByFieldName("value"), depth+1)
			if !ok {
				return Value{}, false
			}
			out.Keys, out.Vals = append(out.Keys, k.Value), append(out.Vals, v)
		}
		return out, true
	}
	return Value{}, false
}
