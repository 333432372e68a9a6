package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"transformations/**", "transformations/a.sql", true},
		{"transformations/**", "transformations/x/y/b.sql", true},
		{"transformations/**", "transformations", false},
		{"transformations/**", "other/a.sql", false},
		{"./transformations/**", "transformations/a.sql", true},
		{"transformations/**/*.sql", "transformations/a.sql", true},
		{"transformations/**/*.sql", "transformations/x/y/b.sql", true},
		{"transformations/**/*.sql", "transformations/x/b.py", false},
		{"**/*.sql", "a.sql", true},
		{"**/*.sql", "a/b/c.sql", true},
		{"**", "a/b", true},
		{"*.sql", "a.sql", true},
		{"*.sql", "a/b.sql", false},
		{"a/b.sql", "a/b.sql", true},
		{"a/b.sql", "a/b.sqlx", false},
		{"a//b.sql", "a/b.sql", true},
		{"a/?.sql", "a/x.sql", true},
		{"a/?.sql", "a/xy.sql", false},
		{"a/[bc].sql", "a/c.sql", true},
		{"a/[!bc].sql", "a/c.sql", false},
		{"a/[!bc].sql", "a/d.sql", true},
		{"a/[a-c]x", "a/bx", true},
		{"a/[a-c]x", "a/dx", false},
		{"a/[]]x", "a/]x", true},
		{"a/[x", "a/[x", true},
		{"a/*b*c", "a/xxbyyc", true},
		{"a/*b*c", "a/xxbyy", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/y/c", false},
		{"é/*", "é/ü.sql", true},
		{"a/**/**/x", "a/x", true},
	}
	for _, tc := range tests {
		if got := matchGlob(tc.pat, tc.name); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
	// Many `**` against a deep path stay fast.
	deep := strings.Repeat("d/", 200) + "f"
	if matchGlob(strings.Repeat("**/", 50)+"x", deep) {
		t.Error("deep path matched")
	}
}

// project builds a Project from spec text, failing on spec errors other
// than the ones the test expects.
func projectFromSpec(t *testing.T, text string) *Project {
	t.Helper()
	spec, _ := ParseSpec(SpecYML, []byte(text))
	return &Project{Root: "/p", SpecFile: SpecYML, Spec: spec, HasSpec: true}
}

func TestLibraries(t *testing.T) {
	files := []string{
		"README.md",
		"extra/one.sql",
		"samples/orders.csv",
		"samples/q.sql",
		"transformations/__pycache__/x.cpython-312.pyc",
		"transformations/a.sql",
		"transformations/b.py",
		"transformations/sub/c.sql",
		"transformations/sub/d.SQL",
		"more/e.sql",
		"more/notes.txt",
		"more/x/y.txt",
	}
	text := `name: p
storage: file:///s
libraries:
  - glob: {include: transformations/**}
  - glob: {include: extra/one.sql}
  - glob: {include: "extra/one.sql"}
  - glob: {include: nothing/**}
  - glob: {include: more}
  - glob: {include: more/**}
`
	p := projectFromSpec(t, text)
	libs, diags := p.Libraries(files)
	// The .py library is read (analysis/pylib), the __pycache__ one is not.
	want := []string{"extra/one.sql", "more/e.sql", "transformations/a.sql", "transformations/b.py", "transformations/sub/c.sql"}
	if !reflect.DeepEqual(libs, want) {
		t.Errorf("libraries = %v, want %v", libs, want)
	}
	checkDiags(t, SpecYML, text, diags, []wantDiag{
		{ir.CodeSpecError, ir.Error, "transformations/**", "matches `transformations/sub/d.SQL`"},
		{ir.CodeLibraryEmpty, ir.Warning, "nothing/**", "matches no file"},
		{ir.CodeLibraryEmpty, ir.Warning, "more", "use `more/**`"},
		{ir.CodeSpecError, ir.Error, "more/**", "matches `more/notes.txt` and 1 more"},
	})
}

func TestLibrariesComplexGlob(t *testing.T) {
	// SDP 4.1 rejects this glob (ParseSpec says so), but thund still reads
	// what it matches.
	text := "name: p\nstorage: file:///s\nlibraries:\n  - glob: {include: transformations/**/*.sql}\n  - glob: {include: ../x/**}\n"
	p := projectFromSpec(t, text)
	libs, diags := p.Libraries([]string{"transformations/a.sql", "transformations/s/b.sql", "transformations/s/c.py"})
	if want := []string{"transformations/a.sql", "transformations/s/b.sql"}; !reflect.DeepEqual(libs, want) || len(diags) != 0 {
		t.Errorf("libraries = %v, diags = %v", libs, diags)
	}
}

func TestLibrariesWithoutSpec(t *testing.T) {
	p := &Project{Root: "/p"}
	libs, diags := p.Libraries([]string{"a.sql", "b.py", "samples/x.sql", "samplesx/y.sql", "z/samples/w.sql", "z/q.sql"})
	if want := []string{"a.sql", "samplesx/y.sql", "z/q.sql", "z/samples/w.sql"}; !reflect.DeepEqual(libs, want) || diags != nil {
		t.Errorf("libraries = %v, diags = %v", libs, diags)
	}
}

// TestLibrariesLakeflowLayout: without a spec, a folder in the Lakeflow
// editor's layout (transformations/ beside explorations/) is read without
// explorations/, whose notebooks the pipeline does not run, and an info
// says so; explorations/ alone (no transformations/) is read as before.
func TestLibrariesLakeflowLayout(t *testing.T) {
	p := &Project{Root: "/p", Config: Config{Dialect: "databricks"}}
	libs, diags := p.Libraries([]string{"explorations/e.py", "explorations/s.sql", "transformations/a.sql", "transformations/b.py", "utilities/u.py"})
	if want := []string{"transformations/a.sql", "transformations/b.py", "utilities/u.py"}; !reflect.DeepEqual(libs, want) {
		t.Errorf("libraries = %v, want %v", libs, want)
	}
	if len(diags) != 1 || diags[0].Severity != ir.Info || diags[0].Loc.File != "explorations/e.py" || !strings.Contains(diags[0].Message, "explorations/ is not analysed") {
		t.Errorf("diags = %+v", diags)
	}
	libs, _ = p.Libraries([]string{"explorations/s.sql", "q.sql"})
	if want := []string{"explorations/s.sql", "q.sql"}; !reflect.DeepEqual(libs, want) {
		t.Errorf("no transformations/: libraries = %v, want %v", libs, want)
	}
}

func TestLibrariesNoLibrariesKey(t *testing.T) {
	text := "name: p\nstorage: file:///s\n"
	p := projectFromSpec(t, text)
	libs, diags := p.Libraries([]string{"a.sql"})
	if len(libs) != 0 {
		t.Errorf("libraries = %v", libs)
	}
	checkDiags(t, SpecYML, text, diags, []wantDiag{{ir.CodeLibraryEmpty, ir.Warning, "p", "lists no libraries"}})
}

func TestConventionSamples(t *testing.T) {
	files := []string{
		"samples/Orders.CSV",
		"samples/orders.parquet",
		"samples/customers.json",
		"samples/events/001.ndjson",
		"samples/events/002.ndjson",
		"samples/clicks/readme.txt",
		"samples/deep/a/b.csv",
		"samples/notes.txt",
		"samples/raw.payments.parquet",
		"data/other.csv",
		"samples/x/",
	}
	got := ConventionSamples(files)
	want := []ConventionSample{
		{Table: "customers", Path: "samples/customers.json"},
		{Table: "events", Path: "samples/events", Stream: true},
		{Table: "orders", Path: "samples/Orders.CSV"},
		{Table: "raw.payments", Path: "samples/raw.payments.parquet"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConventionSamples =\n%+v\nwant\n%+v", got, want)
	}
	// A file beats a folder of the same name.
	got = ConventionSamples([]string{"samples/t/1.csv", "samples/t.csv"})
	if want := []ConventionSample{{Table: "t", Path: "samples/t.csv"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("file vs folder = %+v", got)
	}
}

// writeFiles creates files (with content) below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindRoot(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/spark-pipeline.yml":            "name: a\n",
		"a/sub/thund.yaml":                "",
		"a/sub/deep/x.sql":                "",
		"b/thund.yaml":                    "",
		"b/c/y.sql":                       "",
		"c/d/z.sql":                       "",
		"e/spark-pipeline.yml":            "",
		"e/spark-pipeline.yaml":           "",
		"e/f/w.sql":                       "",
		"g/spark-pipeline.yaml":           "",
		"g/spark-pipeline.yml/not-a-file": "",
		"g/h.sql":                         "",
	})
	tests := []struct{ from, want string }{
		{"a/sub/deep/x.sql", "a"},
		{"a/sub/deep", "a"},
		{"a", "a"},
		{"a/sub/deep/new-file.sql", "a"},
		{"b/c/y.sql", "b"},
		{"c/d/z.sql", "c/d"},
		{"c/d", "c/d"},
		{"e/f/w.sql", "e"},
		{"g/h.sql", "g"},
	}
	for _, tc := range tests {
		got, err := FindRoot(filepath.Join(dir, filepath.FromSlash(tc.from)))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, filepath.FromSlash(tc.want)); got != want {
			t.Errorf("FindRoot(%s) = %s, want %s", tc.from, got, want)
		}
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.sql":                "",
		"a/z.sql":              "",
		"a/b/c.sql":            "",
		".git/config":          "",
		".hidden.sql":          "",
		"a/.cache/x":           "",
		"target/out.sql":       "",
		"a/target/out.sql":     "",
		"node_modules/m/i.js":  "",
		"samples/orders.csv":   "",
		"targets/kept.sql":     "",
		"spark-pipeline.yml":   "",
		"a/b/node_modules/k.x": "",
	})
	if err := os.Symlink(filepath.Join(dir, "b.sql"), filepath.Join(dir, "link.sql")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	got, err := Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/b/c.sql", "a/z.sql", "b.sql", "link.sql", "samples/orders.csv", "spark-pipeline.yml", "targets/kept.sql"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %v, want %v", got, want)
	}
	if _, err := Walk(filepath.Join(dir, "missing")); err == nil {
		t.Error("Walk of a missing folder: no error")
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(filepath.Dir(dir), "elsewhere.csv")
	inside := filepath.Join(dir, "samples", "in.csv")
	config := "backends: [native]\nsamples:\n  a: " + outside + "\n  b: " + inside + "\n  c: c.csv\n"
	writeFiles(t, dir, map[string]string{
		"spark-pipeline.yml":    "name: p\nstorage: file:///s\nlibraries:\n  - glob: {include: transformations/**}\n",
		"spark-pipeline.yaml":   "name: q\n",
		"thund.yaml":            config,
		"transformations/a.sql": "",
	})
	p, err := Open(filepath.Join(dir, "transformations", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != dir || p.SpecFile != SpecYML || !p.HasSpec || p.ConfigFile != ConfigName || p.Spec.Name != "p" {
		t.Errorf("project = %+v", p)
	}
	if len(p.Config.Samples) != 2 || p.Config.Samples[0].Table != "b" || p.Config.Samples[1].Table != "c" {
		t.Errorf("samples = %+v", p.Config.Samples)
	}
	var ambiguous, escape int
	for _, d := range p.Diags {
		switch {
		case d.Code == ir.CodeSpecAmbiguous && d.Loc.File == SpecYAML && d.Severity == ir.Error:
			ambiguous++
		case d.Code == ir.CodePathEscape && d.Loc.File == ConfigName && rangeText(t, config, d.Loc) == outside:
			escape++
		default:
			t.Errorf("unexpected diagnostic %+v", d)
		}
	}
	if ambiguous != 1 || escape != 1 {
		t.Errorf("ambiguous = %d, escape = %d", ambiguous, escape)
	}
	files, err := Walk(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := p.Libraries(files)
	if !reflect.DeepEqual(libs, []string{"transformations/a.sql"}) {
		t.Errorf("libraries = %v", libs)
	}

	// No project files at all.
	bare := t.TempDir()
	p, err = Open(bare)
	if err != nil || p.HasSpec || p.SpecFile != "" || p.ConfigFile != "" || len(p.Diags) != 0 {
		t.Errorf("bare project = %+v, %v", p, err)
	}
	// Only the .yaml spelling, and a misnamed thund.yml.
	writeFiles(t, bare, map[string]string{"spark-pipeline.yaml": "name: x\nstorage: file:///y\n", "thund.yml": ""})
	p, err = Open(bare)
	if err != nil || p.SpecFile != SpecYAML || p.Spec.Name != "x" || len(p.Diags) != 1 || p.Diags[0].Loc.File != "thund.yml" {
		t.Errorf("yaml project = %+v, %v", p, err)
	}
	if _, err := Open(filepath.Join(bare, "spark-pipeline.yaml")); err == nil {
		t.Error("Open of a file: no error")
	}
}

func TestOpenUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"spark-pipeline.yml": "name: p\n"})
	if err := os.Chmod(filepath.Join(dir, SpecYML), 0); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir)
	if err != nil || !p.HasSpec || len(p.Diags) != 1 || p.Diags[0].Code != ir.CodeFileRead {
		t.Errorf("project = %+v, %v", p, err)
	}
}

func TestInside(t *testing.T) {
	root := filepath.FromSlash("/work/p")
	tests := []struct {
		rel  string
		want bool
	}{
		{"samples/a.csv", true},
		{"./a", true},
		{"", true},
		{".", true},
		{"a/../b", true},
		{"a/../../p/b", true},
		{"..", false},
		{"../p2/x", false},
		{"../../etc/passwd", false},
		{"a/../../x", false},
		{"..foo/x", true},
		{"/work/p/data/x.csv", true},
		{"/work/p", true},
		{"/work/p2/x.csv", false},
		{"/etc/passwd", false},
		{"samples/**/*.csv", true},
	}
	for _, tc := range tests {
		if got := Inside(root, tc.rel); got != tc.want {
			t.Errorf("Inside(%q, %q) = %v, want %v", root, tc.rel, got, tc.want)
		}
	}
}

// TestSymlinksLeavingRoot: a link to a file outside the root is not a
// pipeline file (Walk leaves it out), a project file linked outside is
// refused with a path-outside-root diagnostic, and a link inside the root
// still counts.
func TestSymlinksLeavingRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.sql": "SELECT 'TOPSECRET'", "spark-pipeline.yml": "name: stolen\n"})
	writeFiles(t, dir, map[string]string{"a.sql": "SELECT 1", "thund.yaml": "backends: [native]\n"})
	for link, target := range map[string]string{
		"out.sql":            filepath.Join(outside, "secret.sql"),
		"rel.sql":            filepath.Join("..", filepath.Base(outside), "secret.sql"),
		"spark-pipeline.yml": filepath.Join(outside, "spark-pipeline.yml"),
		"in.sql":             filepath.Join(dir, "a.sql"),
		"dangling.sql":       filepath.Join(dir, "gone.sql"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	got, err := Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.sql", "in.sql", "thund.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %v, want %v", got, want)
	}
	p, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.HasSpec || p.Spec.Name == "stolen" {
		t.Errorf("the spec linked from outside was read: %+v", p.Spec)
	}
	found := false
	for _, d := range p.Diags {
		if d.Code == ir.CodePathEscape && d.Loc.File == SpecYML && strings.Contains(d.Message, "outside the pipeline folder") {
			found = true
		}
	}
	if !found {
		t.Errorf("no %s diagnostic for the linked spec: %+v", ir.CodePathEscape, p.Diags)
	}
}

// TestWalkBoundsUnmarkedFolders: a folder without a pipeline file (where a
// loose .sql file lives: a home folder, /tmp) is not read whole; past the
// bound Walk says how to mark the pipeline. A marked folder of the same
// size is walked in full.
func TestWalkBoundsUnmarkedFolders(t *testing.T) {
	defer func(n int) { maxUnmarked = n }(maxUnmarked)
	maxUnmarked = 50
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 80; i++ {
		files[fmt.Sprintf("d%d/f%d.sql", i%4, i)] = "SELECT 1"
	}
	writeFiles(t, dir, files)
	_, err := Walk(dir)
	if !errors.Is(err, ErrUnmarkedTooLarge) || !strings.Contains(err.Error(), "add a thund.yaml") {
		t.Fatalf("unmarked folder of 84 entries: err %v, want ErrUnmarkedTooLarge with advice", err)
	}
	writeFiles(t, dir, map[string]string{ConfigName: "backends: [native]\n"})
	got, err := Walk(dir)
	if err != nil || len(got) != 81 {
		t.Fatalf("marked folder: %d files, err %v; want 81", len(got), err)
	}
}
