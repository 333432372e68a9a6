package translate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// schemaOfJSONFn is schema_of_json(json) of a constant text: the schema
// Spark infers for it, as a constant.
func schemaOfJSONFn(t *tr, c *ast.Call, a []frag) frag {
	s, ok := t.inferJSONSchema(c)
	if !ok {
		return null(c)
	}
	return at(c, tString, cat(quoteString(s)))
}

// inferJSONSchema infers the schema of schema_of_json's constant text as
// Spark's JsonInferSchema does with its default options (checked on
// Spark 4.1.4): an integer BIGINT (DECIMAL(p,0) past a long), a number
// with a fraction or an exponent DOUBLE, a string STRING, true or false
// BOOLEAN, null STRING, an object a STRUCT of its fields sorted by name,
// an array the ARRAY of its elements' common type (BIGINT and DOUBLE give
// DOUBLE, other mixes STRING, no element STRING). The option
// primitivesAsString (every scalar a STRING) is read; other options, a
// text that is not one JSON value, duplicate or unusual field names are
// refused.
func (t *tr) inferJSONSchema(c *ast.Call) (string, bool) {
	if len(c.Args) < 1 || len(c.Args) > 2 {
		t.refuse(c, "schema_of_json takes a JSON text and optional options")
		return "", false
	}
	l, ok := unparenExpr(c.Args[0]).(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(c.Args[0], "schema_of_json runs natively over a string literal only")
		return "", false
	}
	strs := false
	if len(c.Args) == 2 {
		k, v, ok := oneOption(c.Args[1])
		if !ok || !strings.EqualFold(k, "primitivesAsString") || (v != "true" && v != "false") {
			t.refuse(c.Args[1], "schema_of_json's options run natively as map('primitivesAsString', 'true') only")
			return "", false
		}
		strs = v == "true"
	}
	d := json.NewDecoder(strings.NewReader(l.Str.Value))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.refuse(c.Args[0], "schema_of_json of a text that is not JSON does not run natively")
		return "", false
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		t.refuse(c.Args[0], "schema_of_json of a text holding more than one JSON value does not run natively")
		return "", false
	}
	if dupKeys(l.Str.Value) {
		t.refuse(c.Args[0], "schema_of_json of an object with a key twice does not run natively")
		return "", false
	}
	s, err := jsonTypeOf(v, strs)
	if err != nil {
		t.refuse(c.Args[0], "schema_of_json of this text does not run natively: %s", err)
		return "", false
	}
	if s == "NULL" {
		s = "STRING"
	}
	return s, true
}

// jsonTypeOf is the Spark type (as schema_of_json writes it) of a decoded
// JSON value; "NULL" for null.
func jsonTypeOf(v any, strs bool) (string, error) {
	switch v := v.(type) {
	case nil:
		return "NULL", nil
	case bool, string:
		if _, ok := v.(bool); ok && !strs {
			return "BOOLEAN", nil
		}
		return "STRING", nil
	case json.Number:
		if strs {
			return "STRING", nil
		}
		s := v.String()
		if strings.ContainsAny(s, ".eE") {
			return "DOUBLE", nil
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return "", fmt.Errorf("the number %s", s)
		}
		if n.IsInt64() {
			return "BIGINT", nil
		}
		digits := len(strings.TrimPrefix(n.String(), "-"))
		if digits > 38 {
			return "", fmt.Errorf("the number %s", s)
		}
		return fmt.Sprintf("DECIMAL(%d,0)", digits), nil
	case []any:
		elem := "NULL"
		for _, x := range v {
			ty, err := jsonTypeOf(x, strs)
			if err != nil {
				return "", err
			}
			elem, err = jsonCommon(elem, ty)
			if err != nil {
				return "", err
			}
		}
		if elem == "NULL" {
			elem = "STRING"
		}
		return "ARRAY<" + elem + ">", nil
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			if !plainName.MatchString(k) {
				return "", fmt.Errorf("the field name %q", k)
			}
			names = append(names, k)
		}
		sort.Strings(names)
		fields := make([]string, len(names))
		for i, k := range names {
			ty, err := jsonTypeOf(v[k], strs)
			if err != nil {
				return "", err
			}
			if ty == "NULL" {
				ty = "STRING"
			}
			fields[i] = k + ": " + ty
		}
		return "STRUCT<" + strings.Join(fields, ", ") + ">", nil
	}
	return "", fmt.Errorf("a value of %T", v)
}

// jsonCommon merges the types of two array elements as Spark's
// compatibleType does for the cases it is certain of.
func jsonCommon(a, b string) (string, error) {
	switch {
	case a == b, b == "NULL":
		return a, nil
	case a == "NULL":
		return b, nil
	case (a == "BIGINT" || a == "DOUBLE") && (b == "BIGINT" || b == "DOUBLE"):
		return "DOUBLE", nil
	case strings.HasPrefix(a, "STRUCT<") || strings.HasPrefix(b, "STRUCT<") || strings.HasPrefix(a, "ARRAY<") || strings.HasPrefix(b, "ARRAY<") || strings.HasPrefix(a, "DECIMAL") || strings.HasPrefix(b, "DECIMAL"):
		return "", fmt.Errorf("array elements of the types %s and %s", a, b)
	}
	return "STRING", nil
}

// dupKeys reports whether an object of the JSON text s names a key twice.
func dupKeys(s string) bool {
	dup, _ := dupKeysIn(json.NewDecoder(strings.NewReader(s)))
	return dup
}

// dupKeysIn reads one JSON value from d, reporting a key named twice in
// one of its objects.
func dupKeysIn(d *json.Decoder) (bool, error) {
	tok, err := d.Token()
	if err != nil {
		return false, err
	}
	switch tok {
	case json.Delim('{'):
		keys := map[string]bool{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return false, err
			}
			if ks, _ := k.(string); keys[ks] {
				return true, nil
			} else {
				keys[ks] = true
			}
			if dup, err := dupKeysIn(d); dup || err != nil {
				return dup, err
			}
		}
		_, err = d.Token()
		return false, err
	case json.Delim('['):
		for d.More() {
			if dup, err := dupKeysIn(d); dup || err != nil {
				return dup, err
			}
		}
		_, err = d.Token()
		return false, err
	}
	return false, nil
}

// oneOption reads map('key', 'value') of string literals.
func oneOption(x ast.Expr) (string, string, bool) {
	m, ok := unparenExpr(x).(*ast.Call)
	if !ok || !strings.EqualFold(m.Name.String(), "map") || len(m.Args) != 2 {
		return "", "", false
	}
	k, ok1 := unparenExpr(m.Args[0]).(*ast.Literal)
	v, ok2 := unparenExpr(m.Args[1]).(*ast.Literal)
	if !ok1 || !ok2 || k.Kind != ast.LitString || v.Kind != ast.LitString {
		return "", "", false
	}
	return k.Str.Value, v.Str.Value, true
}
