package editdist

import "testing"

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", Unbounded, 0},
		{"orders", "orders", Unbounded, 0},
		{"ordres", "orders", Unbounded, 1},     // a swap is one edit
		{"order", "orders", Unbounded, 1},      // an insertion
		{"customer", "costumer", Unbounded, 2}, // two substitutions, not neighbours
		{"kitten", "sitting", Unbounded, 3},    // the classic
		{"ca", "abc", Unbounded, 3},            // OSA, not unrestricted Damerau (2)
		{"amount", "amt", 1, 2},                // more than the limit: limit+1
		{"a", "abcdefgh", 2, 3},                // length alone rules it out
		{"名前", "名前x", Unbounded, 1},            // runes, not bytes
		{"Orders", "orders", Unbounded, 1},     // exact comparison: case counts
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// TestScratchReuse checks that rows kept from a longer comparison do not
// leak into a shorter one.
func TestScratchReuse(t *testing.T) {
	var s Scratch
	if d := s.Runes([]rune("transactions"), []rune("transaction_id"), Unbounded); d != 3 {
		t.Fatalf("first = %d, want 3", d)
	}
	if d := s.Runes([]rune("id"), []rune("ids"), Unbounded); d != 1 {
		t.Fatalf("after reuse = %d, want 1", d)
	}
	if d := s.Runes([]rune("qty"), []rune("quantity"), 2); d != 3 {
		t.Fatalf("bounded after reuse = %d, want 3 (limit+1)", d)
	}
}
