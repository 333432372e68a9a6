package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
)

// writePipeline writes files (path -> text) under a fresh folder.
func writePipeline(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFlagsRefusedWhereUnused: a flag the mode would ignore is a usage
// error naming it, in one line and a pointer to --help.
func TestFlagsRefusedWhereUnused(t *testing.T) {
	dir := writePipeline(t, map[string]string{"a.sql": "SELECT 1 AS x\n"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "--spark", "sc://127.0.0.1:15002", dir}, "--check does not use --spark"},
		{[]string{"--check", "--preview", "a", dir}, "--check does not use --preview"},
		{[]string{"--check", "--limit", "5", dir}, "--check does not use --limit"},
		{[]string{"--check", "--state", t.TempDir(), dir}, "--check does not use --state"},
		{[]string{"--check", "--debounce", "1s", dir}, "--check does not use --debounce"},
		{[]string{"--check", "--query-timeout", "1s", dir}, "--check does not use --query-timeout"},
		{[]string{"--once", "--debounce", "1s", dir}, "--once does not use --debounce"},
		{[]string{"--check", "--backend", "", dir}, `--backend "": name at least one backend`},
		{[]string{"--no-such-flag", dir}, "unknown flag --no-such-flag"},
		{[]string{"--debounce", "soon", dir}, "for flag --debounce"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], tc.want) || lines[1] != "see thund-watch --help" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q and a pointer to --help", tc.args, code, stderr.String(), tc.want)
		}
	}
	// --query-timeout is --columns' own with --check.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--check", "--columns", "--query-timeout", "5s", dir}, &stdout, &stderr); code != 0 {
		t.Errorf("--check --columns --query-timeout: exit %d, %s", code, stderr.String())
	}
}

// TestHelpAndVersion: --help goes to stdout and names flags with two
// dashes; --version names the DuckDB and Spark versions.
func TestHelpAndVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	help := stdout.String()
	for _, want := range []string{"\n  --check\n", "\n  --limit int\n", "\n  --version\n", "Exit status"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	if regexp.MustCompile(`(?m)^  -[a-z]`).MatchString(help) {
		t.Errorf("--help writes a flag with one dash:\n%s", help)
	}
	stdout.Reset()
	if code := run([]string{"--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--version: exit %d", code)
	}
	if !regexp.MustCompile(`^thund-watch \S.* \(DuckDB v\d+\.\d+\.\d+; Spark 4\.1, 4\.2.* over Spark Connect\)\n$`).MatchString(stdout.String()) {
		t.Errorf("--version: %q", stdout.String())
	}
}

// TestLimitZeroPrintsNoPreview: --limit 0 prints no preview table (nor
// a preview object with --json).
func TestLimitZeroPrintsNoPreview(t *testing.T) {
	dir := writePipeline(t, map[string]string{"a.sql": "SELECT 1 AS x\n", "b.sql": "SELECT x FROM a\n"})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--once", "--limit", "0", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String(), "───") || strings.Contains(stdout.String(), "INT\n") {
		t.Errorf("--limit 0 printed a table:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"--once", "--json", "--limit", "0", dir}, &stdout, &stderr); code != 0 || strings.Contains(stdout.String(), `"type":"preview"`) {
		t.Errorf("--json --limit 0: exit %d\n%s", code, stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"--once", "--limit", "1", dir}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "───") || !strings.Contains(stdout.String(), "INT") {
		t.Errorf("--limit 1 printed no table: exit %d\n%s", code, stdout.String())
	}
}

// TestSparkRefusedWhenBackendsLeaveItOut: --spark with thund.yaml's
// backends: [native] (or --backend native) is a usage error that names
// the fix, before anything runs or connects.
func TestSparkRefusedWhenBackendsLeaveItOut(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml": "backends: [native]\n",
		"a.sql":      "-- @expect.pos: x > 0\nSELECT 1 AS x\n",
	})
	for _, args := range [][]string{
		{"--once", "--spark", "sc://127.0.0.1:1", "--dry-run", dir},
		{"--spark", "sc://127.0.0.1:1", dir},
		{"--once", "--backend", "native", "--spark", "sc://127.0.0.1:1", writePipeline(t, map[string]string{"a.sql": "SELECT 1 AS x\n"})},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--spark pushes to spark-4.1, which") || !strings.Contains(stderr.String(), "add spark-4.1 to") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		if strings.Contains(stdout.String(), "spark-4.1 cannot run") || strings.Contains(stdout.String(), "✓") {
			t.Errorf("%v: ran or checked for Spark anyway:\n%s", args, stdout.String())
		}
	}
}

// TestCheckJSONGraph: --check --json --graph writes the graph as an
// object before the diagnostics, instead of dropping it.
func TestCheckJSONGraph(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--check", "--json", "--graph", "../../testdata/retail"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	first := strings.SplitN(stdout.String(), "\n", 2)[0]
	for _, want := range []string{`"type":"graph"`, `"name":"clean_orders"`, `"reads":["orders"]`, `"sample":"samples/orders.csv"`} {
		if !strings.Contains(first, want) {
			t.Errorf("first object lacks %s: %s", want, first)
		}
	}
	if strings.Index(first, `"clean_orders"`) > strings.Index(first, `"order_lines"`) {
		t.Errorf("datasets not in dependency order: %s", first)
	}
}

// TestOnceJSONNonFinite: a previewed infinity is written as a string, and
// every later object and the summary follow it.
func TestOnceJSONNonFinite(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/t.csv": "x\n1\n2\n",
		"a.sql":         "SELECT cast('Infinity' AS DOUBLE) * sum(cast(x AS DOUBLE)) AS r, cast('NaN' AS DOUBLE) AS n FROM t\n",
		"b.sql":         "SELECT 1 AS later FROM a\n",
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--once", "--json", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{`"rows":[["Infinity","NaN"]]`, `"dataset":"b","columns"`, `"type":"summary"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// failingWriter fails every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestOnceWriteFailure: output that cannot be written is an error that
// says so (exit 2), not a silent exit.
func TestOnceWriteFailure(t *testing.T) {
	dir := writePipeline(t, map[string]string{"a.sql": "SELECT 1 AS x\n"})
	for _, args := range [][]string{{"--once", "--json", dir}, {"--once", dir}} {
		var stderr bytes.Buffer
		code := run(args, failingWriter{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "write output:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// writeFileIn writes one file under dir.
func writeFileIn(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchRefusesNoPipeline: watch mode in a folder with nothing of a
// pipeline exits 2 with the message --check gives, instead of watching.
func TestWatchRefusesNoPipeline(t *testing.T) {
	dir := writePipeline(t, map[string]string{"notes.txt": "hello\n"})
	done := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() { done <- run([]string{dir}, &stdout, &stderr) }()
	select {
	case code := <-done:
		if code != 2 || !strings.Contains(stderr.String(), "holds no pipeline: no spark-pipeline.yml, no thund.yaml and no .sql file") {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch mode started watching a folder with no pipeline")
	}
}

// TestSparkAcceptedWithAnySparkBackend: with no version named in
// thund.yaml, --backend naming any Spark backend lets --spark through
// (the push then lowers for the server's version).
func TestSparkAcceptedWithAnySparkBackend(t *testing.T) {
	dir := writePipeline(t, map[string]string{"a.sql": "SELECT 1 AS x\n"})
	o, err := parseFlags([]string{"--once", "--backend", "native,spark-4.2", "--spark", "sc://127.0.0.1:1", dir}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := analysis.Load(dir, analysis.Options{Backends: o.backends})
	if err != nil {
		t.Fatal(err)
	}
	if msg := sparkLeftOut(o, snap); msg != "" {
		t.Errorf("refused: %s", msg)
	}
}
