package analysis

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/pragma"
)

// TestFilePragmasEqualWholeText: the pragmas filePragmas takes from the
// header when no '@' is left below it are those a parse of the whole text
// finds, over every .sql file of the testdata pipelines and texts with
// pragmas below the header, a byte order mark, '@' in strings and bad
// pragma lines.
func TestFilePragmasEqualWholeText(t *testing.T) {
	texts := map[string]string{
		"header.sql":  "-- Doc line.\n-- @kind: table\n-- @comment: c\nSELECT 1\n",
		"below.sql":   "-- @kind: table\nSELECT 1\n-- @name: late\n",
		"bom.sql":     "\ufeff-- @kind: table\nSELECT 1\n",
		"string.sql":  "-- @kind: table\nSELECT 'a@b' AS x\n",
		"bad.sql":     "-- @: x\n-- @9: y\n-- @ok.é: z\nSELECT 1\n",
		"only.sql":    "-- @kind: table\n-- @name: n\n",
		"blank.sql":   "\n\n-- @kind: table\n\n-- @comment: x\n\nSELECT 1 -- @trailing: no\n",
		"sdp.sql":     "-- @trigger: once\nCREATE MATERIALIZED VIEW a AS SELECT 1;\n-- @comment: b\nCREATE MATERIALIZED VIEW b AS SELECT 2;\n",
		"crlf.sql":    "-- @kind: table\r\n-- @comment: c\r\nSELECT 1\r\n",
		"nonl.sql":    "-- @kind: table",
		"comment.sql": "/* @kind: table */\nSELECT 1\n",
	}
	err := filepath.WalkDir("../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
			return err
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	shortcut := 0
	for name, text := range texts {
		header := pragma.ScanHeader(name, text)
		got := filePragmas(name, text, header)
		want := pragma.ParseBlock(name, text, 0, len(text)).Pragmas
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: pragmas\n%+v\nwant\n%+v", name, got, want)
		}
		if strings.IndexByte(text[header.End:], '@') < 0 {
			shortcut++
		}
	}
	if shortcut < 10 {
		t.Errorf("only %d files took the header's pragmas; the test no longer covers the shortcut", shortcut)
	}
}
