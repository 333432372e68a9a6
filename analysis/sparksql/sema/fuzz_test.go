package sema

import (
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// FuzzAnalyze parses arbitrary text and analyzes every statement with a
// small catalog: the analysis never panics, and every diagnostic and
// every column reference lies inside the text.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"SELECT o.id, amount FROM orders o JOIN customers c ON o.customer_id = c.id",
		"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
		"SELECT a, count(*) FROM t JOIN u USING (a) GROUP BY ALL ORDER BY 2",
		"FROM t |> WHERE a > 1 |> EXTEND a + 1 AS b |> AGGREGATE count(*) GROUP BY b |> DROP b",
		"SELECT transform(arr, x -> x + b), s.x.y FROM t LATERAL VIEW explode(m) e AS k, v",
		"SELECT * EXCEPT (a) FROM (VALUES (1, 2)) AS v(a, b), LATERAL (SELECT v.a) s",
		"SELECT * FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1', 'Q2')) UNPIVOT (x FOR y IN (Q1, Q2))",
		"CREATE MATERIALIZED VIEW mv AS SELECT zz FROM STREAM(t) WATERMARK ts DELAY OF INTERVAL 1 SECOND",
		"INSERT INTO u SELECT IDENTIFIER('a'), IDENTIFIER(:x) FROM t WHERE EXISTS (SELECT t.a FROM u)",
		"SELECT a AS x, x + 1 FROM t HAVING x > 0 ORDER BY x; SELECT 1",
	} {
		f.Add(s)
	}
	cat := fakeCat{
		"orders":    cols("id bigint", "customer_id bigint", "amount double"),
		"customers": cols("id bigint", "name string"),
		"t":         cols("a int", "b int", "s struct<x:struct<y:int>>", "arr array<int>", "m map<string,int>"),
		"u":         cols("a int", "d int"),
		"sales":     cols("quarter string", "amount double"),
		"unknown":   nil,
	}
	f.Fuzz(func(t *testing.T, src string) {
		sc := parser.Parse(src, parser.Options{})
		for _, st := range sc.Stmts {
			for _, opts := range []Options{{Source: src}, {CaseSensitive: true, NoGroupByAliases: true, NoLateralAliases: true}} {
				m := AnalyzeStmt(st, cat, opts)
				for _, d := range m.Diagnostics {
					if d.Start < 0 || d.Start > d.End || d.End > len(src) {
						t.Fatalf("diagnostic %+v outside the text (%d bytes)", d, len(src))
					}
					if d.Message == "" || d.Code == "" {
						t.Fatalf("diagnostic without message or code: %+v", d)
					}
				}
				for _, c := range m.Columns {
					if c.Node.Start < 0 || c.Node.Start > c.Node.End || c.Node.End > len(src) {
						t.Fatalf("column reference %+v outside the text", c.Node.Range)
					}
					_ = c.Fields()
				}
				for _, r := range m.Relations {
					for _, c := range r.Columns {
						if c.Source != nil {
							_ = c.Source.Column()
							_ = c.Source.String()
						}
					}
				}
			}
		}
	})
}
