package sqlfront

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
)

// pgFastCases are queries that exercise the subset pgReadsTree answers
// for, and its edges: some it must answer (listed in pgFastCovered), the
// others it must leave to PostgreSQL's parser or answer only where that
// parser agrees.
var pgFastCases = []string{
	// the shapes of bench/gen
	"SELECT a.id, a.customer_id, a.amount, b.region\nFROM ds_04955 AS a\nJOIN (SELECT customer_id, min(region) AS region FROM ds_04955 GROUP BY customer_id) AS b\n  ON a.customer_id = b.customer_id\nWHERE a.amount > 66",
	"SELECT customer_id AS id, customer_id, region, sum(amount) AS amount, count(*) AS orders\nFROM ds_04912\nGROUP BY customer_id, region",
	"SELECT id, customer_id, amount, region,\n       rank() OVER (PARTITION BY region ORDER BY amount DESC) AS region_rank,\n       sum(amount) OVER (PARTITION BY customer_id ORDER BY id, amount, region ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running\nFROM ds_04901",
	"WITH recent AS (\n    SELECT id, customer_id, amount, region FROM ds_04966 WHERE amount >= 13\n), big AS (\n    SELECT customer_id, max(amount) AS top_amount FROM recent GROUP BY customer_id\n)\nSELECT r.id, r.customer_id, r.amount, r.region\nFROM recent AS r JOIN big ON r.customer_id = big.customer_id\nWHERE r.amount = big.top_amount",
	"SELECT id, customer_id, amount, coalesce(region, 'unknown') AS region\nFROM ds_04923\nUNION ALL\nSELECT id, customer_id, amount * 2 AS amount, region\nFROM ds_04916\nWHERE region IS NOT NULL AND amount > 856",
	// more of the subset
	"SELECT DISTINCT t.*, `my col`, CAST(x AS DECIMAL(10, 2)) d, CASE WHEN a BETWEEN 1 AND 2 THEN 'x' ELSE 'y' END FROM db.t t LEFT OUTER JOIN u USING (k) ORDER BY 1 DESC NULLS LAST LIMIT 10 OFFSET 2",
	"SELECT count(DISTINCT a) FILTER (WHERE b > 0), x IN (1, 2), y NOT IN (SELECT z FROM w), EXISTS (SELECT 1 FROM v) FROM STREAM(events) e CROSS JOIN f",
	"SELECT a FROM STREAM src WHERE NOT (a = 1) OR a LIKE 'x%' AND b IS DISTINCT FROM c GROUP BY ROLLUP (a, b), GROUPING SETS ((a), ())",
	"SELECT DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', 1.5, .5, 1e3, -x + +y, 'it''s' FROM t",
	"(SELECT a FROM t) INTERSECT DISTINCT (SELECT a FROM u) EXCEPT SELECT a FROM v",
	"SELECT sum(x) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b ROWS 2 PRECEDING)",
	// outside the subset, or not read by PostgreSQL's grammar
	"SELECT a = b = c FROM t",
	"SELECT position(a, b), int(x), timestamp(y), current_date(), array(1, 2) FROM t",
	"SELECT x DIV 2, x RLIKE 'a', !x, 100L FROM t",
	"SELECT * FROM a JOIN b",
	"SELECT * FROM a CROSS JOIN b ON a.x = b.x",
	"SELECT sum(x) OVER (ORDER BY y ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t",
	"SELECT sum(x) OVER (DISTRIBUTE BY a SORT BY b) FROM t",
	"SELECT a FROM t GROUP BY ALL",
	"SELECT a user FROM t",
	"SELECT 1 a, 2 year, 3 AS year FROM t",
	"SELECT `` FROM t",
	"SELECT 'a' 'b', 'c\\'d', \"e\" FROM t",
	"SELECT * FROM (t)",
	"SELECT * FROM a.b.c.d",
	"FROM t SELECT a",
	"SELECT a FROM t ORDER BY a WINDOW w AS (PARTITION BY a)",
	"SELECT nullif(a), coalesce() FROM t",
	"SELECT 1as x FROM t",
	"SELECT e'x', n'y' FROM t",
	"SELECT order, desc FROM t",
	"SELECT * FROM STREAM x y",
	"SELECT CAST(a AS INTERVAL), CAST(b AS ARRAY<INT>), CAST(c AS INT(3)) FROM t",
	"SELECT a FROM t LIMIT 1 + 1",
	"SELECT a IS NULL IS NULL, -(a = b), a LIKE b LIKE c FROM t",
	"SELECT count(*), count(t.*), count(DISTINCT *) FROM t",
}

// pgFastCovered is how many of pgFastCases (from the first) the tree must
// answer itself.
const pgFastCovered = 11

// TestPgFastImpliesPostgres: whenever pgReadsTree says PostgreSQL's
// grammar reads a query, pgReads agrees, over the cases above, every .sql
// file of the testdata pipelines and every statement of Spark's SQL test
// corpus (when it is cached; make conformance fetches it). So the Spark
// syntax finding (Query.SparkOnly) and the parser name are what they were
// with PostgreSQL's parser asked about every query.
func TestPgFastImpliesPostgres(t *testing.T) {
	var mu sync.Mutex
	var fast, postgres, queries int
	var wrong []string
	last := map[string]bool{}
	pgFastHook = func(q string, f, pg bool) {
		mu.Lock()
		defer mu.Unlock()
		queries++
		if f {
			fast++
		}
		if pg {
			postgres++
		}
		if f && !pg {
			wrong = append(wrong, q)
		}
		last[q] = f
	}
	defer func() { pgFastHook = nil }()
	report := func(what string) {
		t.Helper()
		for _, q := range wrong {
			t.Errorf("%s: the Spark tree says PostgreSQL reads %q, PostgreSQL's parser refuses it", what, q)
		}
		t.Logf("%s: %d queries, PostgreSQL reads %d, the Spark tree answers %d of them", what, queries, postgres, fast)
		wrong, fast, postgres, queries = nil, 0, 0, 0
	}

	for i, c := range pgFastCases {
		ParseDialect("case.sql", c, DialectSpark)
		f, seen := last[c]
		if i < pgFastCovered && (!seen || !f) {
			t.Errorf("case %d is in the subset but was left to PostgreSQL's parser: %q", i, c)
		}
	}
	report("cases")

	files := 0
	err := filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		ParseDialect(p, string(b), DialectSpark)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("%d .sql files under testdata, expected the pipelines' (over 50)", files)
	}
	covered := fast
	report("testdata")
	if covered == 0 {
		t.Errorf("the Spark tree answered for none of the testdata queries")
	}

	corpus, err := conformance.Open(conformance.DefaultVersion)
	if err != nil {
		t.Logf("Spark's SQL test corpus is not cached (make conformance fetches it): %v", err)
		return
	}
	cases, err := corpus.LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	keep := conformance.Every(1)
	if testing.Short() {
		keep = conformance.Every(10)
	}
	for _, c := range cases {
		if keep(c) && c.Spark.Parsed {
			ParseDialect(c.ID(), c.Text, DialectSpark)
		}
	}
	report("Spark's SQL test corpus")
}

// TestCaseHelpersMatchStrings: the allocation-free word comparisons give
// what strings.ToUpper and strings.ToLower give, Unicode case mappings
// (dotless ı, long ſ, the Kelvin sign) included.
func TestCaseHelpersMatchStrings(t *testing.T) {
	sets := map[string]bool{"FROM": true, "JOIN": true, "STREAM": true, "LIMIT": true}
	lower := map[string]bool{"pivot": true, "semi": true, "struct": true}
	words := []string{"from", "FROM", "From", "joın", "ſtream", "STREAM", "stream_x", "limit", "lımıt", "piVot", "semı",
		"ſemi", "\u212Aey", "struct", "", "a", "join", "joins", strings.Repeat("x", 40), "PIVOT"}
	for _, w := range words {
		for kw := range sets {
			if got, want := upperIs(w, kw), strings.ToUpper(w) == kw; got != want {
				t.Errorf("upperIs(%q, %q) = %v, want %v", w, kw, got, want)
			}
		}
		if got, want := inUpper(sets, w), sets[strings.ToUpper(w)]; got != want {
			t.Errorf("inUpper(%q) = %v, want %v", w, got, want)
		}
		if got, want := in(lower, w), lower[strings.ToLower(w)]; got != want {
			t.Errorf("in(%q) = %v, want %v", w, got, want)
		}
	}
	for _, c := range []struct {
		q    string
		want bool
	}{{"SELECT * FROM read_files('x')", true}, {"SELECT * FROM CLOUD_FILES('x')", true}, {"SELECT * FROM parquet.`/x`", true},
		{"SELECT a_b, c_files_d FROM t", true}, {"SELECT a_b FROM t_file", false}, {"SELECT 1", false}} {
		if got := mayReadFiles(c.q); got != c.want {
			t.Errorf("mayReadFiles(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// TestPgKeywordsMatchKwlist: the keyword classes pgReadsTree uses are
// those of the PostgreSQL grammar pg_query_go builds (its kwlist.h, in
// the module cache).
func TestPgKeywordsMatchKwlist(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pganalyze/pg_query_go/v6").Output()
	if err != nil {
		t.Skipf("pg_query_go's source is not at hand: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "parser", "include", "postgres", "parser", "kwlist.h"))
	if err != nil {
		t.Skipf("pg_query_go's kwlist.h: %v", err)
	}
	re := regexp.MustCompile(`PG_KEYWORD\("([a-z_]+)", \w+, (\w+), (\w+)\)`)
	want := map[string]uint8{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		var c uint8
		switch m[2] {
		case "RESERVED_KEYWORD":
			c = pgIsReserved
		case "TYPE_FUNC_NAME_KEYWORD":
			c = pgIsTypeFunc
		case "COL_NAME_KEYWORD":
			c = pgIsColName
		}
		if m[3] == "AS_LABEL" {
			c |= pgIsAsLabel
		}
		if c != 0 {
			want[m[1]] = c
		}
	}
	if len(want) < 150 {
		t.Fatalf("read %d classified keywords from kwlist.h, expected over 150", len(want))
	}
	for w, c := range want {
		if pgClass[w] != c {
			t.Errorf("%s: class %b, kwlist.h says %b", w, pgClass[w], c)
		}
	}
	for w := range pgClass {
		if _, ok := want[w]; !ok {
			t.Errorf("%s is classified here but not in kwlist.h", w)
		}
	}
}
