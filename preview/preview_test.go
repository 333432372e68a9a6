package preview

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err := s.Exec(context.Background(), "CREATE TABLE people AS SELECT * FROM read_csv_auto('"+filepath.Join(s.Root, "t.csv")+"')"); err != nil {
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
