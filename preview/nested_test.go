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

// A struct keeps its fields in their declared order and a map its entries
// as stored, as Spark shows them (a Go map would sort the keys); a map with
// integer keys writes them as text; nested floats Spark prints as NaN stay
// encodable.
func TestNestedOrder(t *testing.T) {
	s := session(t)
	q := "SELECT {'z': 1, 'a': 'x', 'm': {'y': [2.5, 'nan'::DOUBLE]}} AS s, MAP {'k': 2, 'b': 3} AS m, MAP {10: 'p', 2: 'q'} AS n, [{'q': 1, 'p': 2}] AS l"
	p, err := Query(context.Background(), s, q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(p.Rows[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"z":1,"a":"x","m":{"y":[2.5,"NaN"]}},{"k":2,"b":3},{"10":"p","2":"q"},[{"q":1,"p":2}]]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if c := Cell(p.Rows[0][1]); c != `{"k":2,"b":3}` {
		t.Errorf("Cell(map) = %s", c)
	}
}
