package parser

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// autoCDCOf is the AutoCDC of an AUTO CDC or APPLY CHANGES statement.
func autoCDCOf(st ast.Stmt) *ast.AutoCDC {
	switch s := st.(type) {
	case *ast.CreateFlow:
		return s.AutoCDC
	case *ast.Create:
		return s.AutoCDC
	case *ast.ApplyChanges:
		return s.CDC
	}
	return nil
}

// TestAutoCDCFrom: the tree keeps the source relation as written, From,
// from after FROM to before KEYS (alias included), a subquery as a
// subquery, with Source the STREAM read inside it; for STREAM(s) itself
// From is Source.
func TestAutoCDCFrom(t *testing.T) {
	cases := []struct {
		sql      string
		opts     Options
		subquery bool
	}{
		{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY ts", Options{Version: Spark43}, false},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM src AS s KEYS (id) SEQUENCE BY ts", Options{Version: Spark43}, false},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, ts, op FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts", Options{Version: Spark43}, true},
		{"CREATE FLOW f4 AS AUTO CDC INTO t4 FROM (SELECT id, ts FROM STREAM(src)) AS s KEYS (id) SEQUENCE BY ts", Options{Version: Spark43}, true},
		{"CREATE STREAMING TABLE t2 FLOW AUTO CDC FROM (SELECT id, ts FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 2", Options{Version: Spark43}, true},
		{"APPLY CHANGES INTO s.silver FROM (SELECT city_id, ts FROM STREAM(s.bronze) WHERE city_id IS NOT NULL) x KEYS (city_id) SEQUENCE BY ts", Options{Databricks: true}, true},
	}
	for _, c := range cases {
		st, errs := ParseStatement(c.sql, c.opts)
		if len(errs) > 0 {
			t.Errorf("%s: %s", c.sql, errs[0].Message)
			continue
		}
		a := autoCDCOf(st)
		if a == nil || a.From == nil || a.Source == nil {
			t.Errorf("%s: tree %+v", c.sql, a)
			continue
		}
		from := strings.Index(c.sql, " FROM ") + len(" FROM ")
		want := strings.TrimSpace(c.sql[from:strings.Index(c.sql, " KEYS ")])
		r := a.From.Span()
		if got := c.sql[r.Start:r.End]; got != want {
			t.Errorf("%s: From covers %q, want %q", c.sql, got, want)
		}
		if a.Source.Start < r.Start || a.Source.End > r.End {
			t.Errorf("%s: Source %v lies outside From %v", c.sql, a.Source.Range, r)
		}
		_, isSub := a.From.(*ast.SubqueryRel)
		if isSub != c.subquery || !c.subquery && a.From != ast.Relation(a.Source) {
			t.Errorf("%s: From is %T, want a subquery %v (else Source itself)", c.sql, a.From, c.subquery)
		}
		// Inspect reaches the STREAM read.
		seen := false
		ast.Inspect(st, func(n ast.Node) bool {
			seen = seen || n == ast.Node(a.Source)
			return true
		})
		if !seen {
			t.Errorf("%s: Inspect does not reach the STREAM read", c.sql)
		}
	}
}
