//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
)

// metaCat is a catalog where ev is a read of files: its DuckDB relation
// holds the hidden _metadata column after its own columns.
type metaCat map[string][]sema.Column

func (c metaCat) Table(name []string) ([]sema.Column, bool) {
	cols, ok := c[strings.ToLower(name[len(name)-1])]
	return cols, ok
}

func (c metaCat) Hidden(name []string) []sema.Column {
	if strings.EqualFold(name[len(name)-1], "ev") {
		return []sema.Column{sema.FileMetadata}
	}
	return nil
}

var evCat = metaCat{
	"ev": {{Name: "id", Type: "bigint"}, {Name: "kind", Type: "string"}, sema.FileMetadata},
	"o":  {{Name: "id", Type: "bigint"}, {Name: "amount", Type: "double"}},
}

// TestStarLeavesHiddenOut: a * over a read of files leaves its hidden
// _metadata out, as Spark's does, while a reference to it reads the
// relation's column; run on DuckDB over a relation that has it.
func TestStarLeavesHiddenOut(t *testing.T) {
	db := openDuck(t)
	for _, q := range []string{
		"CREATE TEMP TABLE ev AS SELECT 1::BIGINT AS id, 'a' AS kind, {'file_path': 'file:///p/ev/1.json', 'file_name': '1.json', 'file_size': 9::BIGINT, 'file_block_start': 0::BIGINT, 'file_block_length': 9::BIGINT, 'file_modification_time': TIMESTAMP '2026-01-02 03:04:05'} AS _metadata",
		"CREATE TEMP TABLE o AS SELECT 1::BIGINT AS id, 2.5::DOUBLE AS amount",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ spark, cols string }{
		{"SELECT * FROM ev", "id,kind"},
		{"SELECT *, _metadata.file_path AS src, _metadata.file_name FROM ev", "id,kind,src,file_name"},
		{"SELECT * EXCEPT (kind), ev._metadata FROM ev", "id,_metadata"},
		{"SELECT e.* FROM ev e JOIN o ON e.id = o.id", "id,kind"},
		{"SELECT o.* FROM ev e JOIN o ON e.id = o.id", "id,amount"},
		{"SELECT * FROM ev JOIN o USING (id)", "id,kind,amount"},
		{"SELECT * FROM (SELECT * FROM ev) s", "id,kind"},
		{"SELECT * FROM (SELECT id, _metadata FROM ev) s", "id,_metadata"},
		{"SELECT * FROM o", "id,amount"},
	} {
		res := translate.TranslateText(tc.spark, translate.Options{Catalog: evCat})
		if len(res.Findings) > 0 {
			t.Errorf("%s: %v", tc.spark, res.Findings)
			continue
		}
		rows, err := db.Query(res.SQL)
		if err != nil {
			t.Errorf("%s -> %s: %v", tc.spark, res.SQL, err)
			continue
		}
		cols, _ := rows.Columns()
		rows.Close()
		if got := strings.Join(cols, ","); got != tc.cols {
			t.Errorf("%s -> %s: columns %s, want %s", tc.spark, res.SQL, got, tc.cols)
		}
	}
	// A field the struct lacks is Spark's error at the reference.
	res := translate.TranslateText("SELECT _metadata.file_nme FROM ev", translate.Options{Catalog: evCat})
	if len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, "FIELD_NOT_FOUND") ||
		!strings.Contains(res.Findings[0].Message, "`_metadata.file_name`") {
		t.Errorf("findings %v", res.Findings)
	}
}
