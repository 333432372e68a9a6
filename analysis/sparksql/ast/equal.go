package ast

import (
	"fmt"
	"reflect"
)

// Equal reports whether a and b are the same tree but for their ranges:
// the same node types with the same fields, every Range and []Range field
// (the embedded ranges, KeyRange, StringLit.Parts, Script.Comments, ...)
// left out of the comparison.
func Equal(a, b Node) bool { return Diff(a, b) == "" }

// Diff returns "" when a and b are Equal, else where they first differ
// (a path of field names from the root) and how.
func Diff(a, b Node) string {
	return diffValues(reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem(), "")
}

var (
	rangeT  = reflect.TypeFor[Range]()
	rangesT = reflect.TypeFor[[]Range]()
)

func diffValues(a, b reflect.Value, path string) string {
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: %s vs %s", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: %s vs %s", path, describe(a), describe(b))
			}
			return ""
		}
		if a.Kind() == reflect.Pointer && a.Pointer() == b.Pointer() {
			return ""
		}
		return diffValues(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Type() == rangesT {
			return ""
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d elements vs %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffValues(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Struct:
		if a.Type() == rangeT {
			return ""
		}
		for i := 0; i < a.NumField(); i++ {
			f := a.Type().Field(i)
			if f.Type == rangeT || f.Type == rangesT {
				continue
			}
			if d := diffValues(a.Field(i), b.Field(i), path+"."+f.Name); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, describe(a), describe(b))
		}
		return ""
	}
}

// describe says what a value is, briefly.
func describe(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return v.Elem().Type().String()
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}
