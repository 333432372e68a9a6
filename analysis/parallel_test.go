package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/thund-dev/thund/bench/gen"
	"github.com/thund-dev/thund/ir"
)

// loadOn loads root with procs CPUs to run on: with one, every file is
// analysed by one worker and the column check resolves the flows one by
// one, in the pipeline's order.
func loadOn(t *testing.T, root string, procs int) *Snapshot {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatalf("load %s on %d CPUs: %v", root, procs, err)
	}
	return s
}

// flowColumnsView is what the column check kept for one flow: its
// output columns and its diagnostics, as the language server shows them.
type flowColumnsView struct {
	Flow  string
	Out   []string
	Diags []ir.Diagnostic
}

func columnsView(s *Snapshot) []flowColumnsView {
	var out []flowColumnsView
	for _, f := range s.Pipeline.Flows {
		v := flowColumnsView{Flow: f.Name + " into " + f.Target}
		if r := s.colCache.result(f); r != nil {
			for _, c := range r.out {
				v.Out = append(v.Out, c.Name+" "+c.Type)
			}
			v.Diags = r.diags
		}
		out = append(out, v)
	}
	return out
}

// sameLoad fails t at the first thing a parallel load gives differently
// from a serial one: the libraries, the datasets, flows and sources
// (compared field by field, trees of the flows' queries included), the
// diagnostics in their order, and each flow's column-check result.
func sameLoad(t *testing.T, name string, serial, parallel *Snapshot) {
	t.Helper()
	firstDiff := func(what string, a, b any) {
		t.Helper()
		av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
		if av.Len() != bv.Len() {
			t.Fatalf("%s: %d %s on one CPU, %d on several", name, av.Len(), what, bv.Len())
		}
		for i := 0; i < av.Len(); i++ {
			if !reflect.DeepEqual(av.Index(i).Interface(), bv.Index(i).Interface()) {
				t.Fatalf("%s: %s %d differs\none CPU:  %+v\nseveral: %+v", name, what, i, av.Index(i).Interface(), bv.Index(i).Interface())
			}
		}
	}
	firstDiff("libraries", serial.Libraries, parallel.Libraries)
	firstDiff("datasets", serial.Pipeline.Datasets, parallel.Pipeline.Datasets)
	firstDiff("flows", serial.Pipeline.Flows, parallel.Pipeline.Flows)
	firstDiff("sources", serial.Pipeline.Sources, parallel.Pipeline.Sources)
	firstDiff("diagnostics", serial.Diagnostics, parallel.Diagnostics)
	firstDiff("column results", columnsView(serial), columnsView(parallel))
}

// pipelineFolders lists testdata's pipelines: each folder of testdata and
// of testdata/broken.
func pipelineFolders(t *testing.T) []string {
	var out []string
	for _, parent := range []string{"../testdata", "../testdata/broken"} {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() && e.Name() != "broken" {
				out = append(out, filepath.Join(parent, e.Name()))
			}
		}
	}
	return out
}

// TestParallelLoadEqualsSerial: a load on several CPUs (files read and
// analysed by several workers, the column check level by level on
// several) gives what a load on one gives, on every testdata pipeline
// and on a generated one large enough for the parallel column check.
func TestParallelLoadEqualsSerial(t *testing.T) {
	folders := pipelineFolders(t)
	if len(folders) < 10 {
		t.Fatalf("only %d testdata pipelines found", len(folders))
	}
	for _, dir := range folders {
		sameLoad(t, dir, loadOn(t, dir, 1), loadOn(t, dir, 4))
	}
	root := t.TempDir()
	if err := gen.Write(root, gen.Config{Datasets: 3 * parallelFrom, Width: 16, SampleRows: 5, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	// A few files with errors, so the diagnostics' order is exercised
	// too: an unknown column, an unknown table, a syntax error.
	broken := map[int]string{
		17:  "SELECT no_such_column FROM " + gen.Name(1) + "\n",
		50:  "SELECT * FROM no_such_table\n",
		101: "SELECT id, FROM " + gen.Name(90) + " WHERE\n",
	}
	for i, text := range broken {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(gen.File(i))), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	serial, parallel := loadOn(t, root, 1), loadOn(t, root, 4)
	if len(serial.Diagnostics) < len(broken) {
		t.Fatalf("the generated pipeline's broken files gave %d diagnostics, want at least %d:\n%v", len(serial.Diagnostics), len(broken), diagStrings(serial))
	}
	sameLoad(t, fmt.Sprintf("generated pipeline of %d datasets", 3*parallelFrom), serial, parallel)
}
