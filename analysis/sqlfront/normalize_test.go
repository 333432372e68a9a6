package sqlfront

import (
	"strings"
	"testing"
)

// TestFromEnderAgreesWithMap holds fromEnder, the normaliser's lookup
// without hashing, to the map lookup it replaces, on every keyword in
// three cases, their neighbours by one letter, identifiers the
// benchmarks' queries use and words whose upper case is Unicode's.
func TestFromEnderAgreesWithMap(t *testing.T) {
	words := []string{"", "a", "id", "customer_id", "amount", "region", "b", "r", "FROMS", "WHEREX", "ſelect", "ſort", "whereé", "DISTRIBUTEX", "xwhere"}
	for kw := range fromEnders {
		words = append(words, kw, strings.ToLower(kw), strings.ToUpper(kw[:1])+strings.ToLower(kw[1:]), kw[1:], kw[:len(kw)-1], kw+"S", "_"+kw)
	}
	for _, kw := range []string{"FROM", "JOIN", "ON", "AS", "STREAM"} {
		words = append(words, kw, strings.ToLower(kw))
	}
	matched := 0
	for _, w := range words {
		want := inUpper(fromEnders, w)
		if got := fromEnder(w); got != want {
			t.Errorf("fromEnder(%q) = %v, the map says %v", w, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 3*len(fromEnders) {
		t.Errorf("only %d of the words are keywords: the test lost its cases", matched)
	}
	// Unicode: ſ (U+017F) upper-cases to S, as strings.ToUpper maps it.
	if !fromEnder("ſelect") {
		t.Errorf("fromEnder(ſelect) is false; strings.ToUpper makes it SELECT")
	}
}
