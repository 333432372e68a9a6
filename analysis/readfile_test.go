package analysis

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJoinCleanIsJoin holds readAnalyseAll's path concatenation to
// filepath.Join for clean and unclean relative paths.
func TestJoinCleanIsJoin(t *testing.T) {
	for _, root := range []string{"/a/b", "/a/b/", "a", ".", "/", "./x/../y"} {
		base := filepath.Clean(root)
		switch {
		case base == ".":
			base = ""
		case base[len(base)-1] != filepath.Separator:
			base += string(filepath.Separator)
		}
		for _, rel := range []string{"x.sql", "d/x.sql", "d/../x.sql", "./x", "x/", "a//b", "..", "d/.", "d/..x", "..x/y", "x..y", ".hidden/a.sql"} {
			if got, want := joinClean(base, root, rel), filepath.Join(root, filepath.FromSlash(rel)); got != want {
				t.Errorf("root %q, rel %q: %q, want %q", root, rel, got, want)
			}
		}
	}
}

// TestFileReaderReadsAsReadFile compares the load's file reader with
// os.ReadFile: contents (empty, small, larger than the buffer) and errors.
func TestFileReaderReadsAsReadFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty.sql": "",
		"small.sql": "SELECT 1",
		"large.sql": strings.Repeat("SELECT 1 AS x; -- filler\n", 10000), // past the 64 KiB buffer
	}
	var r fileReader
	for name, want := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := r.read(p)
		if err != nil || got != want {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(got), err, len(want))
		}
	}
	for _, p := range []string{filepath.Join(dir, "missing.sql"), dir} {
		_, err := r.read(p)
		_, want := os.ReadFile(p)
		var pe *fs.PathError
		if err == nil || !errors.As(err, &pe) || unwrapPathError(err).Error() != unwrapPathError(want).Error() {
			t.Errorf("%s: error %v, want one like %v", p, err, want)
		}
	}
}
