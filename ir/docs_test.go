package ir

import (
	"os"
	"regexp"
	"testing"
)

// TestEveryCodeIsDocumented keeps docs/diagnostics.md and Codes in step:
// every code has a section, and every section is a code.
func TestEveryCodeIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^### `([a-z0-9-]+)`").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	known := map[string]bool{}
	for _, c := range Codes {
		known[string(c)] = true
		if !documented[string(c)] {
			t.Errorf("code %s has no section in docs/diagnostics.md", c)
		}
	}
	for c := range documented {
		if !known[c] {
			t.Errorf("docs/diagnostics.md documents %s, which is not in ir.Codes", c)
		}
	}
}
