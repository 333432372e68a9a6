package preview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thund-dev/thund/engine"
)

func session(t *testing.T) *engine.Session {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "t.csv"), []byte("id,name\n1,a\n2,\n3,c\n"), 0o644)
	s, err := engine.Open(root, engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const typed = `SELECT * FROM (VALUES
 (1, 2.5::DOUBLE, 'x', DATE '2024-03-01', TIMESTAMP '2024-03-01 10:11:12.5', 12.30::DECIMAL(10,2), true),
 (2, NULL, NULL, NULL, NULL, NULL, NULL)) AS t(i, f, s, d, ts, dec, b)`

func TestValuesAreJSONReady(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, typed, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalRows != 2 || len(p.Rows) != 2 {
		t.Fatalf("rows %d total %d", len(p.Rows), p.TotalRows)
	}
	got, _ := json.Marshal(p.Rows)
	want := `[[1,2.5,"x","2024-03-01","2024-03-01T10:11:12.5",12.30,true],[2,null,null,null,null,null,null]]`
	if string(got) != want {
		t.Fatalf("rows as JSON\n got %s\nwant %s", got, want)
	}
	var types []string
	for _, c := range p.Columns {
		types = append(types, c.Type)
	}
	if strings.Join(types, ",") != "INTEGER,DOUBLE,VARCHAR,DATE,TIMESTAMP,DECIMAL(10,2),BOOLEAN" {
		t.Fatalf("types %v", types)
	}
}

func TestPagingAcrossBatches(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, "SELECT range AS n FROM range(5000)", 4090, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalRows != 5000 || len(p.Rows) != 20 || p.Rows[0][0] != int64(4090) || p.Rows[19][0] != int64(4109) {
		t.Fatalf("page: total %d, %d rows, first %v last %v", p.TotalRows, len(p.Rows), p.Rows[0][0], p.Rows[len(p.Rows)-1][0])
	}
}

func TestDatasetPage(t *testing.T) {
	s := session(t)
	if err := s.Exec(context.Background(), "CREATE TABLE people AS SELECT * FROM (VALUES (1, 'a'), (2, NULL), (3, 'c')) AS t(id, name)"); err != nil {
		t.Fatal(err)
	}
	p, err := Dataset(context.Background(), s, "people", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalRows != 3 || len(p.Rows) != 1 || p.Rows[0][0] != int64(2) || p.Rows[0][1] != nil {
		t.Fatalf("page %+v", p)
	}
}

func TestRenderings(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, typed, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	if err := WriteTable(&txt, p, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(txt.String(), "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "i ") || !strings.Contains(lines[4], "NULL") || lines[5] != "2 rows" {
		t.Fatalf("table:\n%s", txt.String())
	}
	// Columns line up: every row has its separators at the same places.
	col := strings.Index(lines[0], "│")
	for _, l := range []string{lines[1], lines[3], lines[4]} {
		if strings.Index(l, "│") != col {
			t.Fatalf("misaligned table:\n%s", txt.String())
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), `<td class="null">NULL</td>`) || strings.Contains(h.String(), "<script") {
		t.Fatalf("html:\n%s", h.String())
	}
}

func TestLongValuesAreTruncated(t *testing.T) {
	s := session(t)
	long := MaxValueBytes + 1000
	q := fmt.Sprintf(`SELECT 1 AS id, repeat('é', %d) AS s, 'short' AS t, repeat('ab', %d)::BLOB AS b, [repeat('x', %d)] AS l`, long/2, long/2, long)
	p, err := Query(context.Background(), s, q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 1 {
		t.Fatalf("rows %d", len(p.Rows))
	}
	str := p.Rows[0][1].(string)
	note := TruncatedNote(long)
	if !strings.HasSuffix(str, note) || len(str) > MaxValueBytes+len(note) || !utf8.ValidString(str) || !strings.HasPrefix(str, "éé") {
		t.Fatalf("string: %d bytes, ends %q", len(str), str[len(str)-40:])
	}
	if p.Rows[0][2] != "short" {
		t.Fatalf("short string %v", p.Rows[0][2])
	}
	bin, ok := p.Rows[0][3].(string)
	if !ok || !strings.HasSuffix(bin, note) || !strings.HasPrefix(bin, "YWJhYm") {
		t.Fatalf("binary %T %.40v", p.Rows[0][3], p.Rows[0][3])
	}
	nested, ok := p.Rows[0][4].(string)
	if !ok || !strings.HasPrefix(nested, `["xxx`) || !strings.HasSuffix(nested, TruncatedNote(long+4)) {
		t.Fatalf("list %T %.40v", p.Rows[0][4], p.Rows[0][4])
	}
	want := []Truncation{{0, 1, long}, {0, 3, long}, {0, 4, long + 4}}
	if !reflect.DeepEqual(p.Truncated, want) || p.Cut != "" {
		t.Fatalf("truncated %+v, cut %q", p.Truncated, p.Cut)
	}
	js, _ := json.Marshal(p)
	if !bytes.Contains(js, []byte(`"truncated":[{"row":0,"column":1,"bytes":`)) {
		t.Fatalf("JSON has no truncated cells: %.200s", js)
	}
	// The terminal table keeps the note in sight, within its width.
	var txt bytes.Buffer
	if err := WriteTable(&txt, p, TableOptions{MaxWidth: 40}); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(txt.String(), "\n")[3]
	if !strings.Contains(row, "éé"+note) || !strings.Contains(row, "short") {
		t.Fatalf("table row %q", row)
	}
}

func TestSmallValuesAreWhole(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, fmt.Sprintf(`SELECT repeat('x', %d) AS s, 'ab'::BLOB AS b, [1, 2] AS l, {'a': 1} AS st`, MaxValueBytes), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Truncated) != 0 || len(p.Rows[0][0].(string)) != MaxValueBytes {
		t.Fatalf("truncated %+v", p.Truncated)
	}
	got, _ := json.Marshal(p.Rows[0][1:])
	if string(got) != `["YWI=",[1,2],{"a":1}]` {
		t.Fatalf("values %s", got)
	}
}

func TestPageStopsAtMaxPageBytes(t *testing.T) {
	s := session(t)
	const half = 60_000 // two of these a row, each below MaxValueBytes
	p, err := Dataset(context.Background(), s, "big", 0, 500)
	if err == nil {
		t.Fatalf("no table yet, page %+v", p)
	}
	if err := s.Exec(context.Background(), fmt.Sprintf("CREATE TABLE big AS SELECT range AS n, repeat('x', %d) AS a, repeat('y', %d) AS b FROM range(300)", half, half)); err != nil {
		t.Fatal(err)
	}
	p, err = Dataset(context.Background(), s, "big", 10, 500)
	if err != nil {
		t.Fatal(err)
	}
	fit := MaxPageBytes / (2*half + 16) // a BIGINT counts 16 bytes
	if p.TotalRows != 300 || len(p.Rows) != fit || p.Rows[0][0] != int64(10) || len(p.Truncated) != 0 {
		t.Fatalf("page: total %d, %d rows, want %d", p.TotalRows, len(p.Rows), fit)
	}
	if want := fmt.Sprintf("page on from offset %d", 10+len(p.Rows)); !strings.Contains(p.Cut, want) || !strings.Contains(p.Cut, "16 MiB") {
		t.Fatalf("cut %q, want %q", p.Cut, want)
	}
	var txt bytes.Buffer
	WriteTable(&txt, p, TableOptions{})
	if !strings.Contains(txt.String(), p.Cut) {
		t.Fatalf("table does not say the page was cut")
	}
}

func TestJSONRowsTruncates(t *testing.T) {
	long := strings.Repeat("z", MaxValueBytes+1)
	rows := JSONRows([][]any{{long, []byte(long), "x", int64(1)}})
	for _, v := range rows[0][:2] {
		if s := v.(string); !strings.HasSuffix(s, TruncatedNote(len(long))) {
			t.Fatalf("not truncated: %d bytes", len(s))
		}
	}
	if rows[0][2] != "x" || rows[0][3] != int64(1) {
		t.Fatalf("rows %v", rows[0][2:])
	}
}

// TestNonFiniteValuesAreJSONReady: NaN and infinities become strings, the
// ones Spark casts them to, at the top level and inside a list or
// struct alike, so a page is always encodable.
func TestNonFiniteValuesAreJSONReady(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, `SELECT 1.0::DOUBLE / 0 AS inf, -1.0::FLOAT / 0 AS ninf, 'nan'::DOUBLE AS nan,
		[1.5, 'inf'::DOUBLE] AS l, {'a': '-inf'::DOUBLE, 'b': 2.0::DOUBLE} AS st`, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(p.Rows)
	if err != nil {
		t.Fatalf("rows are not encodable: %v (%#v)", err, p.Rows)
	}
	want := `[["Infinity","-Infinity","NaN",[1.5,"Infinity"],{"a":"-Infinity","b":2}]]`
	if string(got) != want {
		t.Fatalf("rows as JSON\n got %s\nwant %s", got, want)
	}
	rows, err := json.Marshal(JSONRows([][]any{{math.Inf(1), float32(math.NaN()), 2.5}}))
	if err != nil || string(rows) != `[["Infinity","NaN",2.5]]` {
		t.Fatalf("JSONRows: %s %v", rows, err)
	}
}
