package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// rowsSQL renders every row of rel as one string: the columns cast to text
// (NULL spelt out), joined by '|'. The same text on both sides makes the
// comparison independent of types that print alike (HUGEINT and
// DECIMAL(38,0), say).
func rowsSQL(rel string, cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf(`coalesce(CAST("%s" AS VARCHAR), 'NULL')`, c)
	}
	return fmt.Sprintf("SELECT concat_ws('|', %s) FROM %s", strings.Join(parts, ", "), rel)
}

// dumpDBT is run by the dbt venv's python: it prints, as JSON, the rows of
// every table named on the command line, rendered like rowsSQL.
const dumpDBT = `
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
out = {}
for t in sys.argv[2:]:
    cols = [d[0] for d in con.execute('SELECT * FROM "%s" LIMIT 0' % t).description]
    expr = ", ".join("coalesce(CAST(\"%s\" AS VARCHAR), 'NULL')" % c for c in cols)
    out[t] = sorted(r[0] for r in con.execute("SELECT concat_ws('|', %s) FROM \"%s\"" % (expr, t)).fetchall())
print(json.dumps(out))
`

// TestThundAndDBTAgree generates a small project in every shape, runs the
// Thund flavour on embedded DuckDB and the dbt flavour with dbt-duckdb
// (installed by scripts/bench-dbt.sh), and checks that every table has the
// same rows on both sides.
func TestThundAndDBTAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dbt")
	}
	install := exec.Command("../../scripts/bench-dbt.sh")
	install.Stderr = os.Stderr
	out, err := install.Output()
	if err != nil {
		t.Skipf("dbt cannot be installed here (scripts/bench-dbt.sh: %v); the generator's dbt flavour is not checked", err)
	}
	dbt := strings.TrimSpace(string(out))

	c := Config{Datasets: 12, Width: 4, SampleRows: 300, Seed: 7}
	p, err := WriteAll(t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}

	// Thund.
	ctx := context.Background()
	snap, err := analysis.Load(p.Thund, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error {
			t.Fatalf("thund: %s: %s", d.Loc.File, d.Message)
		}
	}
	s, err := engine.Open(p.Thund, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(ctx, snap.Pipeline, engine.RunOptions{})
	if err != nil || res.Failed() {
		t.Fatalf("thund run: %v %+v", err, res)
	}
	thund := map[string][]string{}
	var names []string
	for i := 0; i < c.Datasets; i++ {
		name := Name(i)
		names = append(names, name)
		rel := s.RelationSQL(name)
		q, err := s.DB().QueryContext(ctx, "SELECT * FROM "+rel+" LIMIT 0")
		if err != nil {
			t.Fatal(err)
		}
		cols, err := q.Columns()
		q.Close()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.DB().QueryContext(ctx, rowsSQL(rel, cols))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				t.Fatal(err)
			}
			thund[name] = append(thund[name], r)
		}
		rows.Close()
		sort.Strings(thund[name])
	}

	// dbt.
	run := exec.Command(dbt, "run", "--profiles-dir", p.DBT, "--project-dir", p.DBT)
	run.Dir = p.DBT
	run.Env = append(os.Environ(), "DBT_SEND_ANONYMOUS_USAGE_STATS=False", "DO_NOT_TRACK=1", "DBT_USE_COLORS=False")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("dbt run: %v\n%s", err, out)
	}
	dump := exec.Command(filepath.Join(filepath.Dir(dbt), "python"), append([]string{"-c", dumpDBT, filepath.Join(p.DBT, "target", "generated.duckdb")}, names...)...)
	dump.Stderr = os.Stderr
	out, err = dump.Output()
	if err != nil {
		t.Fatalf("read dbt's tables: %v", err)
	}
	var fromDBT map[string][]string
	if err := json.Unmarshal(out, &fromDBT); err != nil {
		t.Fatalf("read dbt's tables: %v", err)
	}

	nonEmpty, total := 0, 0
	for _, name := range names {
		a, b := thund[name], fromDBT[name]
		if len(a) > 0 {
			nonEmpty++
		}
		total += len(a)
		if len(a) != len(b) {
			t.Errorf("%s: thund has %d rows, dbt %d", name, len(a), len(b))
			continue
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: first difference at sorted row %d: thund %q, dbt %q", name, i, a[i], b[i])
				break
			}
		}
	}
	t.Logf("%d tables, %d rows compared", len(names), total)
	if nonEmpty < c.Datasets*3/4 {
		t.Errorf("only %d of %d tables have rows: the comparison says little", nonEmpty, c.Datasets)
	}
}

// TestFlavoursShareSQL checks that the three flavours of one configuration
// carry the same queries, references aside.
func TestFlavoursShareSQL(t *testing.T) {
	c := Config{Datasets: 30, Width: 7, SampleRows: 3, Seed: 5}
	th, db, sdp := Texts(c), DBTTexts(c), SDPTexts(c)
	for i := 0; i < c.Datasets; i++ {
		f := File(i)
		a := th[f]
		b := db[f]
		for _, s := range Sources {
			b = strings.ReplaceAll(b, fmt.Sprintf("{{ source('raw', '%s') }}", s), s)
		}
		for j := 0; j < c.Datasets; j++ {
			b = strings.ReplaceAll(b, fmt.Sprintf("{{ ref('%s') }}", Name(j)), Name(j))
		}
		body := func(s string) string { return s[strings.Index(s, "SELECT"):] }
		if strings.Contains(b, "{{") || strings.TrimSpace(body(a)) != strings.TrimSpace(body(b)) {
			t.Errorf("%s: dbt query differs:\n%s\nvs\n%s", f, a, b)
		}
		s := sdp[strings.Replace(f, "models/", "transformations/", 1)]
		if !strings.Contains(s, "CREATE MATERIALIZED VIEW "+Name(i)+" AS\n") || strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body(s[strings.Index(s, " AS\n"):])), ";")) != strings.TrimSpace(body(a)) {
			t.Errorf("%s: SDP query differs:\n%s", f, s)
		}
	}
	if !strings.Contains(sdp["transformations/sources.sql"], "CREATE TEMPORARY VIEW orders") {
		t.Error("the SDP project does not define the sources")
	}
}
