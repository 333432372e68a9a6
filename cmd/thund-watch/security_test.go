package main

// Security: a pipeline folder written by someone else must not make
// thund-watch read, write or reach anything outside it. The hostile
// pipeline below tries every way out the issue lists, through the files a
// user would open (SQL, pragmas, thund.yaml, spark-pipeline.yml,
// symlinks); --once and watch mode must refuse each with a clear reason,
// print no byte of the secrets outside, and create no file anywhere.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// secretMarker is written into every file outside the pipeline; it must
// never appear in any output.
const secretMarker = "TOPSECRET_7f3a"

// hostile is a pipeline folder that tries to escape, with the folder
// beside it that holds the secrets.
type hostile struct {
	root, outside string
	// escapes are the datasets that try to read or reach outside; each
	// must fail (or never run).
	escapes []string
	// fine are datasets that must complete.
	fine []string
	// pathDiags are file:line:col prefixes of the path-outside-root
	// diagnostics the analysis must report.
	pathDiags []string
}

// newHostile writes the hostile pipeline into a fresh temporary folder.
func newHostile(t *testing.T) *hostile {
	t.Helper()
	base := t.TempDir()
	h := &hostile{root: filepath.Join(base, "pipeline"), outside: filepath.Join(base, "outside")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(dir, rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(text), 0o644))
	}
	write(h.outside, "secret.csv", "s\n"+secretMarker+"\n")
	write(h.outside, "secret.sql", "-- @kind: materialized_view\nSELECT '"+secretMarker+"' AS s\n")
	write(h.outside, "secret.txt", secretMarker)
	write(h.root, "samples/ok.csv", "a\n1\n2\n")
	// thund.yaml points a sample outside, relatively and absolutely.
	write(h.root, "thund.yaml", "backends: [native]\nsamples:\n  cfg_rel: ../outside/secret.csv\n  cfg_abs: "+filepath.Join(h.outside, "secret.csv")+"\n")
	h.pathDiags = append(h.pathDiags, "thund.yaml:3:12", "thund.yaml:4:12")
	must(os.Symlink(filepath.Join(h.outside, "secret.csv"), filepath.Join(h.root, "samples", "linked.csv")))
	must(os.Symlink(h.outside, filepath.Join(h.root, "samples", "linkdir")))
	must(os.Symlink(filepath.Join(h.outside, "secret.sql"), filepath.Join(h.root, "linked_query.sql")))
	out := func(name string) string { return filepath.Join(h.outside, name) }
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	rel := "ROOT/../outside/secret.csv"
	reads := []struct{ name, query string }{
		{"etc_passwd", "SELECT * FROM read_csv('/etc/passwd')"},
		{"abs_outside", "SELECT * FROM read_csv_auto(" + q(out("secret.csv")) + ")"},
		{"dotdot", "SELECT * FROM read_csv_auto(" + q(rel) + ")"},
		{"dotdot_relative", "SELECT * FROM read_csv_auto('../outside/secret.csv')"},
		{"read_text", "SELECT * FROM read_text(" + q(out("secret.txt")) + ")"},
		{"read_blob", "SELECT * FROM read_blob(" + q(out("secret.txt")) + ")"},
		{"read_json", "SELECT * FROM read_json_auto('/etc/os-release')"},
		{"parquet_scan", "SELECT * FROM parquet_scan(" + q(out("x.parquet")) + ")"},
		{"parquet_dotdot", "SELECT * FROM read_parquet('ROOT/../outside/x.parquet')"},
		{"glob_etc", "SELECT * FROM glob('/etc/*')"},
		{"glob_dotdot", "SELECT * FROM glob('ROOT/../*')"},
		{"symlink_file", "SELECT * FROM read_csv_auto('ROOT/samples/linked.csv')"},
		{"symlink_dir", "SELECT * FROM read_csv_auto('ROOT/samples/linkdir/secret.csv')"},
		{"symlink_glob", "SELECT * FROM glob('ROOT/samples/linkdir/*')"},
		{"symlink_text", "SELECT * FROM read_text('ROOT/samples/linked.csv')"},
		{"proc_environ", "SELECT * FROM read_text('/proc/self/environ')"},
		{"proc_cmdline", "SELECT * FROM read_text('/proc/self/cmdline')"},
		{"http_url", "SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')"},
		{"https_url", "SELECT * FROM read_text('https://example.com/')"},
		{"s3_url", "SELECT * FROM read_parquet('s3://bucket/x.parquet')"},
		{"getenv", "SELECT getenv('HOME') AS h"},
		{"sniff_csv", "SELECT * FROM sniff_csv('/etc/passwd')"},
	}
	for _, r := range reads {
		name := "esc_" + r.name
		write(h.root, name+".sql", "-- @kind: materialized_view\n"+strings.ReplaceAll(r.query, "ROOT", h.root)+"\n")
		h.escapes = append(h.escapes, name)
	}
	// Statements that write, attach, load or unlock: analysis refuses
	// them (they are not pipeline statements), so nothing runs them; the
	// dataset defined beside them in the same file still runs.
	write(h.root, "statements.sql", strings.ReplaceAll(strings.ReplaceAll(`CREATE MATERIALIZED VIEW stmt_ok AS SELECT 1 AS x;
COPY (SELECT 1 AS a) TO 'ROOT/pwned_copy.csv';
COPY (SELECT 1 AS a) TO 'OUT/pwned_copy.csv';
EXPORT DATABASE 'ROOT/pwned_export';
ATTACH 'ROOT/pwned.db' AS p;
INSTALL httpfs;
LOAD httpfs;
SET enable_external_access = true;
SET allowed_directories = ['/'];
RESET lock_configuration;
PRAGMA enable_external_access;
`, "OUT", h.outside), "ROOT", h.root))
	h.fine = append(h.fine, "stmt_ok")
	// Statement smuggling: a second statement hidden in a query or an
	// expectation, behind a comment or a string.
	smuggled := []struct{ name, text string }{
		{"smuggle_semicolon", "-- @kind: materialized_view\nSELECT 1 AS x; COPY (SELECT 1 AS a) TO 'ROOT/pwned_semi.csv'\n"},
		{"smuggle_comment", "-- @kind: materialized_view\nSELECT 1 AS x /* /* */ ; COPY (SELECT 1 AS a) TO 'ROOT/pwned_comment.csv'; -- */\n"},
		{"smuggle_expect", "-- @kind: materialized_view\n-- @expect.e: x > 0); COPY (SELECT 1 AS a) TO 'ROOT/pwned_expect.csv'; SELECT (1\nSELECT 1 AS x\n"},
		{"smuggle_expect2", "-- @kind: materialized_view\n-- @expect.e: x > 0; ATTACH 'ROOT/pwned_expect.db' AS z\nSELECT 1 AS x\n"},
	}
	for _, s := range smuggled {
		write(h.root, s.name+".sql", strings.ReplaceAll(s.text, "ROOT", h.root))
	}
	// Pragma sample paths that leave the root.
	write(h.root, "pragma_paths.sql", "-- @kind: materialized_view\n-- @sample.p_rel: ../../etc/passwd\n-- @sample.p_abs: /etc/passwd\nSELECT * FROM p_rel, p_abs\n")
	h.pathDiags = append(h.pathDiags, "pragma_paths.sql:2:19", "pragma_paths.sql:3:19")
	h.escapes = append(h.escapes, "pragma_paths")
	// Sources bound to thund.yaml's escaping samples and to the symlink.
	write(h.root, "config_paths.sql", "-- @kind: materialized_view\nSELECT * FROM cfg_rel, cfg_abs\n")
	write(h.root, "linked_sample.sql", "-- @kind: materialized_view\n-- @sample.lnk: samples/linked.csv\nSELECT * FROM lnk\n")
	h.escapes = append(h.escapes, "config_paths", "linked_sample")
	// And a dataset that reads inside the root, which must work.
	write(h.root, "inside.sql", "-- @kind: materialized_view\nSELECT * FROM ok\n")
	h.fine = append(h.fine, "inside")
	return h
}

// check verifies what a run left behind: no secret in the output, no file
// created outside the folders the test wrote, and no pwned file inside.
func (h *hostile) check(t *testing.T, output string) {
	t.Helper()
	if strings.Contains(output, secretMarker) {
		i := strings.Index(output, secretMarker)
		t.Errorf("the output holds the secret from outside the pipeline: ...%s...", output[max(0, i-200):min(len(output), i+50)])
	}
	for _, dir := range []string{h.root, h.outside} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), "pwned") {
				t.Errorf("a hostile statement wrote %s", p)
			}
			return nil
		})
	}
	ents, err := os.ReadDir(h.outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "secret.csv secret.sql secret.txt" {
		t.Errorf("the folder outside holds %s, want only the three secrets", got)
	}
}

// TestOnceRefusesEscapes runs --once on the hostile pipeline: every escape
// fails with the sandbox's reason or an analysis error, the path escapes
// are reported at file:line:col, the harmless datasets complete, and no
// secret leaks.
func TestOnceRefusesEscapes(t *testing.T) {
	h := newHostile(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"--once", "--limit", "5", h.root}, &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != 1 {
		t.Errorf("exit %d, want 1 (errors and failed datasets)", code)
	}
	h.check(t, out)
	for _, prefix := range h.pathDiags {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `: error: .*\[path-outside-root\]$`).MatchString(out) {
			t.Errorf("no path-outside-root error at %s", prefix)
		}
	}
	for _, kw := range []string{"COPY", "EXPORT", "ATTACH", "INSTALL", "LOAD", "PRAGMA", "RESET"} {
		if !regexp.MustCompile(`(?m)^statements\.sql:\d+:\d+: error: ` + kw + `\b.* is not supported in a pipeline`).MatchString(out) {
			t.Errorf("statements.sql: no error for %s", kw)
		}
	}
	if strings.Contains(out, "linked_query") {
		t.Errorf("the .sql symlinked from outside became part of the pipeline")
	}
	for _, name := range h.fine {
		if !regexp.MustCompile(`(?m)^✓ ` + name + `\s`).MatchString(out) {
			t.Errorf("%s did not complete:\n%s", name, out)
		}
	}
	for _, name := range h.escapes {
		if regexp.MustCompile(`(?m)^✓ ` + name + `\s`).MatchString(out) {
			t.Errorf("%s completed: an escape was allowed", name)
		}
	}
	// Every escape that reached DuckDB names the sandbox.
	if n := strings.Count(out, "refused by the sandbox"); n < 15 {
		t.Errorf("only %d sandbox refusals in the output:\n%s", n, out)
	}
}

// TestWatchRefusesEscapes runs watch mode on the hostile pipeline, then
// saves one more escape while it watches (a new symlink and a query
// through it): nothing leaks, nothing is written.
func TestWatchRefusesEscapes(t *testing.T) {
	h := newHostile(t)
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"--json", "--debounce", "100ms", "--preview", strings.Join(append(append([]string{}, h.fine...), h.escapes...), ","), h.root}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut lockedBuffer
	pr, code := startWatch(ctx, o, &errOut)
	var all strings.Builder
	runs := make(chan ndjson, 64)
	go func() {
		defer close(runs)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			all.Write(sc.Bytes())
			all.WriteByte('\n')
			if bytes.Contains(sc.Bytes(), []byte(`"type":"run"`)) {
				runs <- ndjson{Type: "run"}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	waitRun := func(what string) {
		t.Helper()
		select {
		case _, ok := <-runs:
			if !ok {
				t.Fatalf("watch mode ended during %s", what)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("no run within 60 s of %s", what)
		}
	}
	waitRun("startup")
	if err := os.Symlink("/etc", filepath.Join(h.root, "samples", "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.root, "late.sql"), []byte(fmt.Sprintf("-- @kind: materialized_view\nSELECT * FROM read_text('%s/samples/etc/passwd')\n", h.root)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitRun("a new escape")
	// A link to a query outside, created while watching, is not read.
	if err := os.Symlink(filepath.Join(h.outside, "secret.sql"), filepath.Join(h.root, "late_link.sql")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.root, "inside.sql"), []byte("-- @kind: materialized_view\nSELECT a * 2 AS a FROM ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitRun("a new link")
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch mode did not stop")
	}
	for range runs {
	}
	out := all.String() + errOut.String()
	h.check(t, out)
	if !strings.Contains(out, `"late"`) || !strings.Contains(out, "refused by the sandbox") {
		t.Errorf("the escape saved while watching was not refused by the sandbox")
	}
	if strings.Contains(out, "late_link") {
		t.Errorf("watch mode read late_link.sql, a symlink to a query outside the folder")
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestExpectationSmuggling: an expectation is pasted into the engine's
// `... WHERE NOT coalesce((<expectation>), false)`. One that closes those
// parentheses and adds a statement (a COPY into the pipeline folder,
// which the sandbox allows) is refused with a diagnostic at the pragma,
// and, with the comment trick that the pragma check once missed, by the
// engine, which has DuckDB's parser read it first: nothing is written.
func TestExpectationSmuggling(t *testing.T) {
	for name, expr := range map[string]string{
		"comments":      "/* (( */ x > 0), false); COPY (SELECT 1 AS a) TO 'PWNED'; SELECT ((1 /* )) */",
		"dollar quotes": "$$'$$ = 'a'), false); COPY (SELECT 1 AS a) TO 'PWNED'; SELECT (('",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			pwned := filepath.Join(root, "pwned.csv")
			mustWrite(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
			mustWrite(t, filepath.Join(root, "a.sql"), "-- @kind: materialized_view\n-- @expect.e: "+strings.ReplaceAll(expr, "PWNED", pwned)+"\nSELECT 1 AS x\n")
			var stdout, stderr bytes.Buffer
			run([]string{"--once", root}, &stdout, &stderr)
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("an expectation ran a second statement, COPY, which wrote pwned.csv:\n%s", stdout.String())
			}
			out := stdout.String() + stderr.String()
			if !strings.Contains(out, "a.sql:2:") {
				t.Errorf("no diagnostic at the pragma (a.sql:2):\n%s", out)
			}
		})
	}
}

// TestCheckRefusesSpecPathsLeavingRoot: library globs in
// spark-pipeline.yml that leave the folder, absolutely or through `..`,
// are reported at their exact file:line:col (an absolute one is an error,
// Spark refuses it; one through `..` a warning, Spark loads it but Thund
// does not), and no file outside is read.
func TestCheckRefusesSpecPathsLeavingRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "pipeline")
	mustWrite(t, filepath.Join(base, "other", "stolen.sql"), "CREATE MATERIALIZED VIEW stolen AS SELECT '"+secretMarker+"' AS s;\n")
	mustWrite(t, filepath.Join(root, "transformations", "ok.sql"), "CREATE MATERIALIZED VIEW ok AS SELECT 1 AS x;\n")
	mustWrite(t, filepath.Join(root, "spark-pipeline.yml"), "name: p\nstorage: file:///storage\nlibraries:\n"+
		"  - glob:\n      include: ../other/**\n"+
		"  - glob:\n      include: "+filepath.Join(base, "other")+"/**\n"+
		"  - glob:\n      include: transformations/../../other/stolen.sql\n"+
		"  - glob:\n      include: transformations/**\n")
	var stdout, stderr bytes.Buffer
	code := run([]string{"--check", "--graph", root}, &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for at, sev := range map[string]string{"spark-pipeline.yml:5:16": "warning", "spark-pipeline.yml:7:16": "error", "spark-pipeline.yml:9:16": "warning"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(at) + `: ` + sev + `: library .* \[path-outside-root\]$`).MatchString(out) {
			t.Errorf("no path-outside-root %s at %s:\n%s", sev, at, out)
		}
	}
	if !strings.Contains(out, "pipeline p: 1 datasets") || regexp.MustCompile(`(?m)^\s+mview\s+stolen`).MatchString(out) || strings.Contains(out, secretMarker) {
		t.Errorf("a library outside the folder was read:\n%s", out)
	}
}
