package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// writeChain writes a pipeline of n datasets, each reading the one before
// (c000 reads the sample of src), every one passing the columns a and b
// on; the last one also reads the column named last.
func writeChain(t *testing.T, n int, last string) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("samples/src.csv", "a,b\n1,2\n")
	for i := 0; i < n; i++ {
		from := "src"
		if i > 0 {
			from = fmt.Sprintf("c%03d", i-1)
		}
		cols := "a, b"
		if i == n-1 {
			cols += ", " + last
		}
		write(fmt.Sprintf("models/c%03d.sql", i), fmt.Sprintf("SELECT %s FROM %s\n", cols, from))
	}
	return root
}

func columnDiags(s *Snapshot) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeUnknownColumn || d.Code == ir.CodeAmbiguousColumn || d.Code == ir.CodeMissingAggregation {
			out = append(out, d)
		}
	}
	return out
}

// TestColumnCheckDeepChain checks a cold load large enough to resolve the
// flows level by level: the last of 150 chained datasets sees the columns
// its upstream passes on, so only its unknown column is reported, at its
// range.
func TestColumnCheckDeepChain(t *testing.T) {
	n := parallelFrom + 86
	root := writeChain(t, n, "zz")
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	diags := columnDiags(s)
	if len(diags) != 1 {
		t.Fatalf("column diagnostics: %v, want one for zz", diags)
	}
	d := diags[0]
	want := fmt.Sprintf("models/c%03d.sql", n-1)
	if d.Loc.File != want || !strings.Contains(d.Message, "zz") {
		t.Fatalf("diagnostic %s %q, want one in %s naming zz", d.Loc.File, d.Message, want)
	}
	text := fmt.Sprintf("SELECT a, b, zz FROM c%03d\n", n-2)
	if got := text[d.Loc.Start:d.Loc.End]; got != "zz" {
		t.Fatalf("diagnostic covers %q, want zz", got)
	}
}

// TestColumnCheckFollowsUpstreamEdits edits the head of a chain so that it
// no longer passes b on: every reader of b downstream is re-resolved and
// reports it (through unchanged files), and the fix clears them again.
func TestColumnCheckFollowsUpstreamEdits(t *testing.T) {
	const n = 5
	root := writeChain(t, n, "a AS again")
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := columnDiags(s); len(d) != 0 {
		t.Fatalf("clean chain has column diagnostics: %v", d)
	}
	broken := "SELECT a FROM src\n"
	s = s.Update([]Change{{Path: "models/c000.sql", Text: &broken}})
	d := columnDiags(s)
	if len(d) != 1 || d[0].Loc.File != "models/c001.sql" || !strings.Contains(d[0].Message, "b") {
		t.Fatalf("after dropping b upstream: %v, want one unknown b in c001", d)
	}
	// c001 now fails to pass b on, so c002 onwards read an incomplete
	// output and are not checked: no cascade of errors
	fixed := "SELECT a, b FROM src\n"
	s = s.Update([]Change{{Path: "models/c000.sql", Text: &fixed}})
	if d := columnDiags(s); len(d) != 0 {
		t.Fatalf("after the fix: %v, want none", d)
	}
	// renaming a column in the middle reaches the readers further down
	renamed := "SELECT a, b AS bb FROM c001\n"
	s = s.Update([]Change{{Path: "models/c002.sql", Text: &renamed}})
	d = columnDiags(s)
	if len(d) != 1 || d[0].Loc.File != "models/c003.sql" {
		t.Fatalf("after renaming b in c002: %v, want one in c003", d)
	}
}

// TestColumnCheckIncrementalEqualsLoad edits a layered pipeline at
// random (columns renamed, dropped and added, inputs switched, SELECT *,
// sample headers changed, several files at once) and checks after every
// edit that the snapshot's diagnostics are those of a fresh load of the
// same files: the incremental column check resolves only what an edit
// can reach, and must miss nothing. Enough edits run for the state's
// overlay to be folded into a new base more than once.
func TestColumnCheckIncrementalEqualsLoad(t *testing.T) {
	const n, width = 60, 10
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := func(i int) string { return fmt.Sprintf("d%03d", i) }
	file := func(i int) string { return "models/" + name(i) + ".sql" }
	write("samples/src.csv", "a,b,c\n1,2,3\n")
	for i := 0; i < n; i++ {
		from := "src"
		if i >= width {
			from = name(i - width)
		}
		write(file(i), fmt.Sprintf("SELECT a, b, c FROM %s\n", from))
	}
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// a small deterministic generator (the edits must be reproducible)
	seed := uint32(7)
	next := func(k int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % k
	}
	cols := []string{"a", "b", "c", "zz", "a AS b", "b AS a", "count(*) AS c"}
	text := func(i int) string {
		from := "src"
		if i >= width {
			from = name(i - width - next(i/width)*width)
		}
		if next(6) == 0 {
			return fmt.Sprintf("SELECT * FROM %s\n", from)
		}
		items := make([]string, 0, 3)
		for j := 0; j < 1+next(3); j++ {
			items = append(items, cols[next(len(cols))])
		}
		return fmt.Sprintf("-- %d\nSELECT %s FROM %s\n", next(1000), strings.Join(items, ", "), from)
	}
	for e := 0; e < 3*maxOverlay/2; e++ {
		var changes []Change
		for k := 0; k < 1+next(2); k++ {
			i := next(n)
			body := text(i)
			changes = append(changes, Change{Path: file(i), Text: &body})
		}
		if next(15) == 0 {
			header := []string{"a,b,c\n1,2,3\n", "a,b\n1,2\n", "a,c,b,zz\n1,2,3,4\n"}[next(3)]
			changes = append(changes, Change{Path: "samples/src.csv", Text: &header})
		}
		s = s.Update(changes)
		for _, c := range changes {
			write(c.Path, *c.Text)
		}
		fresh, err := Load(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, want := diagLines(s.Diagnostics), diagLines(fresh.Diagnostics)
		if got != want {
			t.Fatalf("edit %d (%d files): the snapshot's diagnostics differ from a fresh load's:\n--- snapshot\n%s--- load\n%s", e, len(changes), got, want)
		}
	}
}

func diagLines(ds []ir.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s:%d-%d %s %s %s %v\n", d.Loc.File, d.Loc.Start, d.Loc.End, d.Severity, d.Code, d.Message, d.Suggestions)
	}
	return b.String()
}
