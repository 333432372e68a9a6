package lsp

import (
	"reflect"
	"testing"
)

// TestCTEsInScope checks which CTE names a table name can read at an
// offset: those whose body closed before it; under WITH RECURSIVE also
// the one being written; parentheses in strings and comments not
// counted.
func TestCTEsInScope(t *testing.T) {
	stmt := "WITH a AS (SELECT ')' AS p -- )\n), b AS (SELECT * FROM |), c AS (SELECT 1)\nSELECT * FROM |"
	first := indexOfBar(stmt, 0)
	second := indexOfBar(stmt, first+1)
	if got := ctesInScope(stmt, first); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("inside b: %v, want [a]", got)
	}
	if got := ctesInScope(stmt, second); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("in the main query: %v, want [a b c]", got)
	}
	rec := "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM | WHERE n < 3) SELECT * FROM r"
	if got := ctesInScope(rec, indexOfBar(rec, 0)); !reflect.DeepEqual(got, []string{"r"}) {
		t.Errorf("inside a recursive CTE: %v, want [r]", got)
	}
	open := "WITH a AS (SELECT 1), b AS (SELECT * FROM |"
	if got := ctesInScope(open, indexOfBar(open, 0)); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("inside an unclosed body: %v, want [a]", got)
	}
}

// indexOfBar is the offset of the first '|' at or after from.
func indexOfBar(s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == '|' {
			return i
		}
	}
	return -1
}
