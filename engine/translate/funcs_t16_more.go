package translate

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

var t16MoreRegistered = registerT16More()

// registerT16More wraps the translations of functions whose integer
// parameters Spark casts a string to (ImplicitCastInputTypes: left(s,
// 'a') casts 'a' to INT, failing in ANSI mode, NULL without it,
// string-functions.sql and nonansi/string-functions.sql), and adds
// interval(...), which Spark has no function of.
func registerT16More() bool {
	for name, idx := range map[string][]int{"left": {1}, "right": {1}, "lpad": {1}, "rpad": {1}} {
		for i := range functions {
			f := &functions[i]
			if f.Name != name || f.fn == nil {
				continue
			}
			orig, idx := f.fn, idx
			f.fn = func(t *tr, c *ast.Call, a []frag) frag {
				for _, j := range idx {
					if j < len(a) && j < len(c.Args) && a[j].typ.is(String) {
						a[j] = t.castAs(c.Args[j], "INT")
					}
				}
				return orig(t, c, a)
			}
			f.DuckDB += "; a string length is cast to INT as Spark casts it"
		}
	}
	functions = append(functions, custom("interval", "none: Spark has no function interval (interval (-30) day fails with UNRESOLVED_ROUTINE)", func(t *tr, c *ast.Call, a []frag) frag {
		t.typeError(c, "UNRESOLVED_ROUTINE", "Cannot resolve routine `interval` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]. SQLSTATE: 42883")
		return null(c)
	}))
	return true
}
