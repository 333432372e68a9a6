package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// exceptFields translates the names of * EXCEPT (...) that are struct
// fields (data.f1, data.s2.f2, with data a column the star expands to)
// into DuckDB's * REPLACE: the column rebuilt without those fields, as
// Spark rebuilds it, field by field: a NULL struct becomes a struct of
// NULLs (checked on Spark 4.1.4). plain are the other names, which EXCLUDE drops. ok
// is false, with a finding, where it does not apply: a name that is no
// field of a struct column, a field dropped with a struct holding it
// (Spark refuses that), a struct left without fields.
func (t *tr) exceptFields(st *ast.Star) (plain []*ast.Name, replace string, ok bool) {
	type drop struct {
		col   string
		paths [][]string
		n     *ast.Name
	}
	var drops []*drop
	byCol := map[string]*drop{}
	s := t.selectOf(st)
	for _, n := range st.Except {
		if len(n.Parts) == 1 {
			plain = append(plain, n)
			continue
		}
		if s == nil {
			t.refuse(n, "* EXCEPT of a struct field does not run natively here")
			return nil, "", false
		}
		col := n.Parts[0].Name
		if in, found := t.inputColumn(s, col); !found || !in.typ.is(Struct) || st.Qualifier != nil {
			t.refuse(n, "* EXCEPT of a struct field does not run natively here (%s is not a struct column of the star)", col)
			return nil, "", false
		}
		path := make([]string, 0, len(n.Parts)-1)
		for _, p := range n.Parts[1:] {
			path = append(path, p.Name)
		}
		k := strings.ToLower(col)
		d := byCol[k]
		if d == nil {
			d = &drop{col: col, n: n}
			byCol[k] = d
			drops = append(drops, d)
		}
		d.paths = append(d.paths, path)
	}
	var items []string
	for _, d := range drops {
		in, _ := t.inputColumn(s, d.col)
		x, ok := t.withoutFields(d.n, quoteIdent(d.col), in.typ, d.paths)
		if !ok {
			return nil, "", false
		}
		items = append(items, x+" AS "+quoteIdent(d.col))
	}
	if len(items) > 0 {
		replace = " REPLACE (" + strings.Join(items, ", ") + ")"
	}
	return plain, replace, true
}

// withoutFields rebuilds struct x of type ty without the fields of paths
// (each a path of field names under x); a NULL x gives a struct of
// NULLs, as on Spark.
func (t *tr) withoutFields(n ast.Node, x string, ty *Type, paths [][]string) (string, bool) {
	sub := map[string][][]string{}
	dropped := map[string]bool{}
	for _, p := range paths {
		k := strings.ToLower(p[0])
		found := false
		for _, f := range ty.Fields {
			found = found || strings.EqualFold(f.Name, p[0])
		}
		if !found {
			t.refuse(n, "* EXCEPT names %s, which is no field of this struct", p[0])
			return "", false
		}
		if len(p) == 1 {
			dropped[k] = true
		} else {
			sub[k] = append(sub[k], p[1:])
		}
	}
	var parts []string
	for _, f := range ty.Fields {
		k := strings.ToLower(f.Name)
		fx := x + "." + quoteIdent(f.Name)
		switch {
		case dropped[k] && len(sub[k]) > 0:
			t.refuse(n, "* EXCEPT names the field %s and a field inside it, which Spark refuses", f.Name)
			return "", false
		case dropped[k]:
			continue
		case len(sub[k]) > 0:
			if !f.Type.is(Struct) {
				t.refuse(n, "* EXCEPT names a field of %s, which is no struct", f.Name)
				return "", false
			}
			rebuilt, ok := t.withoutFields(n, fx, f.Type, sub[k])
			if !ok {
				return "", false
			}
			fx = rebuilt
		}
		parts = append(parts, quoteIdent(f.Name)+" := "+fx)
	}
	if len(parts) == 0 {
		t.refuse(n, "* EXCEPT drops every field of this struct, which does not run natively")
		return "", false
	}
	return "struct_pack(" + strings.Join(parts, ", ") + ")", true
}

// structStar translates s.* (and s.f.*) where s is a struct column of
// the SELECT's input rather than a FROM item: one column per field,
// named after it, as Spark expands it; * EXCEPT drops fields (a name of
// several parts a field inside one). ok is false when the qualifier
// names a FROM item, or no struct column the model types.
func (t *tr) structStar(st *ast.Star) (frag, bool) {
	if st.Qualifier == nil {
		return frag{}, false
	}
	s := t.selectOf(st)
	if s == nil || s.From == nil {
		return frag{}, false
	}
	parts := st.Qualifier.Parts
	if t.fromNames(s.From)[strings.ToLower(parts[0].Name)] || t.fromNames(s.From)[""] {
		return frag{}, false
	}
	in, found := t.inputColumn(s, parts[0].Name)
	if !found || !in.typ.is(Struct) {
		return frag{}, false
	}
	x, ty := quoteIdent(parts[0].Name), in.typ
	for _, p := range parts[1:] {
		var next *Type
		for _, f := range ty.Fields {
			if strings.EqualFold(f.Name, p.Name) {
				next, x = f.Type, x+"."+quoteIdent(f.Name)
			}
		}
		if !next.is(Struct) {
			return frag{}, false
		}
		ty = next
	}
	drop := map[string]bool{}
	sub := map[string][][]string{}
	for _, n := range st.Except {
		k := strings.ToLower(n.Parts[0].Name)
		if len(n.Parts) == 1 {
			drop[k] = true
			continue
		}
		path := make([]string, 0, len(n.Parts)-1)
		for _, p := range n.Parts[1:] {
			path = append(path, p.Name)
		}
		sub[k] = append(sub[k], path)
	}
	var cols []string
	for _, f := range ty.Fields {
		k := strings.ToLower(f.Name)
		fx := x + "." + quoteIdent(f.Name)
		switch {
		case drop[k] && len(sub[k]) > 0:
			t.refuse(st, "* EXCEPT names the field %s and a field inside it, which Spark refuses", f.Name)
			return at(st, nil, cat("NULL")), true
		case drop[k]:
			delete(drop, k)
			continue
		case len(sub[k]) > 0:
			if !f.Type.is(Struct) {
				t.refuse(st, "* EXCEPT names a field of %s, which is no struct", f.Name)
				return at(st, nil, cat("NULL")), true
			}
			rebuilt, ok := t.withoutFields(st, fx, f.Type, sub[k])
			if !ok {
				return at(st, nil, cat("NULL")), true
			}
			delete(sub, k)
			fx = rebuilt
		}
		cols = append(cols, fx+" AS "+quoteIdent(f.Name))
	}
	if len(drop) > 0 || len(sub) > 0 {
		t.refuse(st, "* EXCEPT names a field this struct does not have")
		return at(st, nil, cat("NULL")), true
	}
	if len(cols) == 0 {
		t.refuse(st, "* EXCEPT drops every field of this struct, which does not run natively")
		return at(st, nil, cat("NULL")), true
	}
	return at(st, nil, cat(strings.Join(cols, ", "))), true
}
