package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxRefusesMoreEscapes extends TestSandboxRefusesEscapes with
// symlinks inside the root that point outside, more reader functions,
// every way to change a locked setting, secrets and extension listing.
// Each must fail with ErrSandbox, a locked-configuration error, or a
// catalog error for a function the sandbox leaves out.
func TestSandboxRefusesMoreEscapes(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(outside, "secret.csv"), "s\nhidden\n")
	writeTestFile(t, filepath.Join(root, "ok.csv"), "a\n1\n")
	for link, target := range map[string]string{
		"link.csv": filepath.Join(outside, "secret.csv"),
		"dirlink":  outside,
		"passwd":   "/etc/passwd",
		"rel.csv":  filepath.Join("..", filepath.Base(outside), "secret.csv"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	// A link that stays inside the root is fine.
	if err := os.Symlink(filepath.Join(root, "ok.csv"), filepath.Join(root, "inside.csv")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	in := func(name string) string { return quoteString(filepath.Join(root, name)) }
	// A query reads no file of the root, link or not; a sample bound to
	// the link is read through the mirror.
	if err := s.Exec(ctx, "SELECT count(*) FROM read_csv_auto("+in("inside.csv")+")"); !errors.Is(err, ErrSandbox) {
		t.Fatalf("a query read a file of the pipeline folder: %v", err)
	}
	if _, pattern, err := s.reader("inside.csv"); err != nil {
		t.Fatalf("a sample linked inside the root: %v", err)
	} else if n := count(t, s, "SELECT count(*) FROM read_csv_auto("+quoteString(pattern)+")"); n != 1 {
		t.Fatalf("a sample linked inside the root read %d rows, want 1", n)
	}
	escapes := map[string]string{
		"symlink file":         "SELECT * FROM read_csv_auto(" + in("link.csv") + ")",
		"symlink relative":     "SELECT * FROM read_csv_auto(" + in("rel.csv") + ")",
		"symlink /etc/passwd":  "SELECT * FROM read_text(" + in("passwd") + ")",
		"symlink dir":          "SELECT * FROM read_csv_auto(" + quoteString(filepath.Join(root, "dirlink", "secret.csv")) + ")",
		"symlink dir glob":     "SELECT * FROM glob(" + quoteString(filepath.Join(root, "dirlink", "*")) + ")",
		"read_blob":            "SELECT * FROM read_blob('/etc/hostname')",
		"read_json":            "SELECT * FROM read_json_auto('/etc/os-release')",
		"parquet_scan":         "SELECT * FROM parquet_scan(" + quoteString(filepath.Join(outside, "x.parquet")) + ")",
		"sniff_csv":            "SELECT * FROM sniff_csv('/etc/passwd')",
		"dotdot from root":     "SELECT * FROM read_text(" + quoteString(root+"/./../"+filepath.Base(outside)+"/secret.csv") + ")",
		"relative dotdot":      "SELECT * FROM read_text('../../etc/passwd')",
		"glob dotdot":          "SELECT * FROM glob(" + quoteString(root+"/../*") + ")",
		"proc cmdline":         "SELECT * FROM read_text('/proc/self/cmdline')",
		"dev stdin":            "SELECT * FROM read_text('/dev/stdin')",
		"https url":            "SELECT * FROM read_text('https://example.com/')",
		"force install":        "FORCE INSTALL httpfs",
		"load file":            "LOAD " + quoteString(filepath.Join(outside, "x.duckdb_extension")),
		"reset access":         "RESET enable_external_access",
		"unlock":               "SET lock_configuration = false",
		"reset lock":           "RESET lock_configuration",
		"set global":           "SET GLOBAL enable_external_access = true",
		"pragma setting":       "PRAGMA memory_limit='1GB'",
		"temp directory":       "SET temp_directory = '/tmp'",
		"home directory":       "SET home_directory = '/'",
		"allowed paths":        "SET allowed_paths = ['/etc/passwd']",
		"persistent secret":    "CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
		"extension listing":    "SELECT * FROM duckdb_extensions()",
		"pragma unknown":       "PRAGMA enable_external_access",
		"autoload":             "SET autoload_known_extensions = true",
		"copy outside":         "COPY (SELECT 1) TO " + quoteString(filepath.Join(outside, "x.csv")),
		"copy through symlink": "COPY (SELECT 1) TO " + quoteString(filepath.Join(root, "dirlink", "y.csv")),
	}
	// Beneath the guard, which refuses most of these first: the sandbox
	// must hold on its own.
	for name, q := range escapes {
		err := s.Exec(beneathGuard(ctx), q)
		if err == nil {
			t.Errorf("%s: allowed: %s", name, q)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrSandbox) && !strings.Contains(msg, "Catalog Error") && !strings.Contains(msg, "locked") {
			t.Errorf("%s: refused, but not by the sandbox: %v", name, err)
		}
	}
	ents, err := os.ReadDir(outside)
	if err != nil || len(ents) != 1 {
		t.Errorf("the folder outside changed: %v %v", ents, err)
	}
}
