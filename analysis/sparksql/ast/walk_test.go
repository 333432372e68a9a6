package ast

import (
	goast "go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// allNodes holds one value of every node type Inspect visits.
var allNodes = []Node{
	&Script{}, &Ident{}, &Name{}, &StringLit{}, &Property{},
	&Literal{}, &TypedLiteral{}, &Interval{}, &IntervalUnit{}, &Param{}, &Column{}, &Star{},
	&Unary{}, &Binary{}, &Between{}, &In{}, &Like{}, &Is{}, &Exists{}, &Subquery{}, &Paren{},
	&Row{}, &Cast{}, &Case{}, &When{}, &Call{}, &NamedArg{}, &TableArg{}, &Lambda{},
	&Subscript{}, &Field{}, &Extract{}, &Collate{}, &BadExpr{}, &Window{}, &Frame{},
	&FrameBound{}, &SortItem{}, &DataType{}, &StructField{},
	&Query{}, &With{}, &CTE{}, &Select{}, &Transform{}, &Hint{}, &HintItem{}, &SelectItem{},
	&From{}, &GroupBy{}, &GroupItem{}, &NamedWindow{}, &SetOp{}, &ParenQuery{}, &Values{},
	&TableQuery{}, &Pipe{}, &PipeOp{}, &Assignment{}, &Table{}, &Temporal{}, &Sample{},
	&Watermark{}, &TableAlias{}, &SubqueryRel{}, &ParenRel{}, &TableFunc{}, &Join{},
	&Pivot{}, &Unpivot{}, &UnpivotColumns{}, &LateralView{}, &BadRelation{},
	&QueryStmt{}, &Create{}, &ColumnDef{}, &Constraint{}, &CreateFlow{}, &AutoCDC{}, &ApplyChanges{}, &Insert{}, &Set{},
	&Use{}, &Other{}, &BadStmt{},
}

// notVisited are the types that embed Range but are not nodes of the tree
// Inspect walks (see Inspect's documentation).
var notVisited = map[string]bool{"SyntaxError": true, "Clause": true}

// notVisitedFields are the fields that hold such values.
// AutoCDC.Source lies inside AutoCDC.From, which Inspect visits.
var notVisitedFields = map[string]bool{"Script.Errors": true, "Create.Clauses": true, "AutoCDC.Clauses": true, "AutoCDC.Source": true}

// TestAllNodesListed checks that allNodes names every struct type of the
// package that embeds Range, so that a new node type is tested below.
func TestAllNodesListed(t *testing.T) {
	fset := token.NewFileSet()
	var inSource []string
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*goast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*goast.TypeSpec)
				if embedsRange(ts) && !notVisited[ts.Name.Name] {
					inSource = append(inSource, ts.Name.Name)
				}
			}
		}
	}
	listed := map[string]bool{}
	for _, n := range allNodes {
		listed[reflect.TypeOf(n).Elem().Name()] = true
	}
	sort.Strings(inSource)
	for _, name := range inSource {
		if !listed[name] {
			t.Errorf("node type %s is not in allNodes (and maybe not in Inspect)", name)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("allNodes lists %s, which does not embed Range", name)
	}
	if len(inSource) < 80 {
		t.Fatalf("found only %d node types in the source: %v", len(inSource), inSource)
	}
}

// embedsRange reports whether ts declares a struct with an embedded Range.
func embedsRange(ts *goast.TypeSpec) bool {
	st, ok := ts.Type.(*goast.StructType)
	if !ok {
		return false
	}
	for _, f := range st.Fields.List {
		if id, ok := f.Type.(*goast.Ident); ok && len(f.Names) == 0 && id.Name == "Range" {
			return true
		}
	}
	return false
}

var (
	nodeType     = reflect.TypeFor[Node]()
	rangeType    = reflect.TypeFor[Range]()
	ifaceSamples = map[reflect.Type]func() Node{
		reflect.TypeFor[Expr]():      func() Node { return &BadExpr{} },
		reflect.TypeFor[Relation]():  func() Node { return &BadRelation{} },
		reflect.TypeFor[QueryExpr](): func() Node { return &TableQuery{} },
		reflect.TypeFor[Stmt]():      func() Node { return &BadStmt{} },
		nodeType:                     func() Node { return &Paren{} },
	}
)

// sample returns a fresh node for a field element of type t, or nil when
// t holds no node.
func sample(t reflect.Type) reflect.Value {
	if mk, ok := ifaceSamples[t]; ok {
		return reflect.ValueOf(mk())
	}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Implements(nodeType) &&
		t.Elem().PkgPath() == rangeType.PkgPath() {
		return reflect.New(t.Elem())
	}
	return reflect.Value{}
}

// plain reports whether a field of type t holds data, not nodes.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Uint8:
		return true
	case reflect.Struct:
		return t == rangeType
	case reflect.Slice:
		return t.Elem() == rangeType || t.Elem().Kind() == reflect.Int
	}
	return false
}

// TestInspectVisitsEveryField fills every node-holding field of every node
// type (pointers, interfaces and lists of them) with fresh nodes and
// checks that Inspect visits each exactly once, as a child of the node. A
// field of a kind this test does not know fails it, so a new field is
// never silently left out of Inspect.
func TestInspectVisitsEveryField(t *testing.T) {
	for _, proto := range allNodes {
		typ := reflect.TypeOf(proto).Elem()
		root := reflect.New(typ)
		want := map[Node]string{}
		for i := 0; i < typ.NumField(); i++ {
			fd := typ.Field(i)
			name := typ.Name() + "." + fd.Name
			fv := root.Elem().Field(i)
			switch {
			case fd.Anonymous && fd.Type == rangeType:
			case notVisitedFields[name]:
			case plain(fd.Type):
			case fd.Type.Kind() == reflect.Slice && sample(fd.Type.Elem()).IsValid():
				s := reflect.MakeSlice(fd.Type, 2, 2)
				for j := 0; j < 2; j++ {
					v := sample(fd.Type.Elem())
					s.Index(j).Set(v)
					want[v.Interface().(Node)] = name
				}
				fv.Set(s)
			case sample(fd.Type).IsValid():
				v := sample(fd.Type)
				fv.Set(v)
				want[v.Interface().(Node)] = name
			default:
				t.Errorf("%s has type %s: neither plain data nor nodes; teach Inspect and this test", name, fd.Type)
			}
		}
		n := root.Interface().(Node)
		if typ.Name() == "Call" {
			// TRIM orders its arguments by offset; every form visits all
			root.Elem().FieldByName("Form").SetString("TRIM")
		}
		seen := map[Node]int{}
		Inspect(n, func(c Node) bool {
			if c == nil {
				return false
			}
			if c == n {
				return true
			}
			seen[c]++
			return false
		})
		for c, field := range want {
			switch seen[c] {
			case 1:
			case 0:
				t.Errorf("Inspect(%s) does not visit the node in %s", typ.Name(), field)
			default:
				t.Errorf("Inspect(%s) visits the node in %s %d times", typ.Name(), field, seen[c])
			}
		}
		for c := range seen {
			if _, ok := want[c]; !ok {
				t.Errorf("Inspect(%s) visits %T, which no field holds", typ.Name(), c)
			}
		}
	}
}

// TestInspectOrder checks the f(nil) calls and that returning false skips
// the children.
func TestInspectOrder(t *testing.T) {
	a := &Column{Parts: []*Ident{{Range: Range{0, 1}, Name: "a"}}, Range: Range{0, 1}}
	b := &Literal{Range: Range{4, 5}, Kind: LitInteger, Text: "1"}
	x := &Binary{Range: Range{0, 5}, Op: "+", L: a, R: b}
	var got []string
	Inspect(x, func(n Node) bool {
		if n == nil {
			got = append(got, ")")
			return false
		}
		got = append(got, reflect.TypeOf(n).Elem().Name())
		return reflect.TypeOf(n).Elem().Name() != "Column"
	})
	want := "Binary Column Literal ) )"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("visits %q, want %q", s, want)
	}
	Inspect(nil, func(Node) bool { t.Error("f called for a nil node"); return true })
	var nilExpr Expr
	Inspect(nilExpr, func(Node) bool { t.Error("f called for a nil Expr"); return true })
}

// TestInspectUnknown checks that Inspect refuses a type it does not know.
func TestInspectUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic on an unknown node type")
		}
	}()
	Inspect(Range{}, func(Node) bool { return true })
}
