// Package testutil holds helpers shared by the project's tests.
package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// CopyTree copies the folder src (files and subfolders) into dst, which
// it creates.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// CopyToTemp copies the folder src into a new temporary folder of the
// same base name and returns its path.
func CopyToTemp(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	CopyTree(t, src, dst)
	return dst
}

// WriteFile writes text to path, creating the folders above it, and
// fails t on any error.
func WriteFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TempTree writes files (a slash-separated path relative to the folder ->
// its text) into a new temporary folder and returns its path.
func TempTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
	}
	return dir
}

// Pipelines lists the pipeline folders of a testdata folder (every
// folder in it and in its broken/ folder), failing t when it finds fewer
// than five.
func Pipelines(t testing.TB, testdata string) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{filepath.Join(testdata, "*"), filepath.Join(testdata, "broken", "*")} {
		dirs, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Base(d) == "broken" {
				continue
			}
			out = append(out, d)
		}
	}
	if len(out) < 5 {
		t.Fatalf("found only %d testdata pipelines", len(out))
	}
	return out
}
