package sdplower

import "testing"

// SET takes a key and a value of any characters back-quoted, a backquote
// doubled.
func TestBackquote(t *testing.T) {
	for in, want := range map[string]string{
		"min_fare":        "`min_fare`",
		"a b;c":           "`a b;c`",
		"x`y":             "`x``y`",
		"s3://bucket/p=1": "`s3://bucket/p=1`",
	} {
		if got := backquote(in); got != want {
			t.Errorf("backquote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := sortedKeys(map[string]string{"b": "", "a": ""}); len(got) != 2 || got[0] != "a" {
		t.Errorf("sortedKeys: %v", got)
	}
}
