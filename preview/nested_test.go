package preview

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
)

// A struct's string fields alias the Arrow batch's buffers, which are
// released after the read: the page keeps copies, so the values stay
// what the query computed after the batches are gone (and the collector
// has run), over more than one batch.
func TestStructStringsSurviveTheBatch(t *testing.T) {
	s := session(t)
	q := "SELECT {'b': 'v' || range::VARCHAR, 'n': range} AS j, ['x' || range::VARCHAR] AS a FROM range(3000)"
	p, err := Query(context.Background(), s, q, 2040, 20)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if len(p.Rows) != 20 {
		t.Fatalf("%d rows", len(p.Rows))
	}
	for k, r := range p.Rows {
		n := 2040 + k
		got, _ := json.Marshal(r)
		want := `[{"b":"v` + itoa(n) + `","n":` + itoa(n) + `},["x` + itoa(n) + `"]]`
		if string(got) != want {
			t.Errorf("row %d: got %s, want %s", n, got, want)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
