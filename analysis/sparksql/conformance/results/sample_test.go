package results

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
)

// knownPath is the ratchet of known defects.
const knownPath = "testdata/known-defects.txt"

// sampleEvery picks the sample TestResultsSample replays: every 10th
// golden file by name (whole files, as a file's queries read the views
// it creates).
const sampleEvery = 10

// TestResultsSample replays a sample of the corpus natively and holds it
// to the ratchet: a silent mismatch or native error not listed in
// testdata/known-defects.txt fails, and so does a listed one that is now
// fixed (regenerate the list with `make conformance` then).
func TestResultsSample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := conformance.Ensure(ctx, conformance.DefaultVersion, t.Logf)
	if err != nil {
		dir, _ := conformance.CorpusDir(conformance.DefaultVersion)
		t.Fatalf("Spark's SQL test corpus is needed (downloaded once from Maven Central into %s): %v", dir, err)
	}
	cases, err := c.LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	files, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	sample := map[string]bool{}
	for i, f := range files {
		if i%sampleEvery == 0 {
			sample[f.Name] = true
		}
	}
	r, err := Run(ctx, c, cases, func(f string) bool { return sample[f] }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kf, err := os.Open(knownPath)
	if err != nil {
		t.Fatalf("%v (make conformance writes it)", err)
	}
	known, err := ReadKnown(kf)
	kf.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r.SelfContained() < 300 {
		t.Fatalf("the sample has only %d self-contained queries: has the corpus or the harness changed?", r.SelfContained())
	}
	var fresh, fixed []string
	for _, f := range r.Files {
		for _, v := range f.Verdicts {
			defect := v.Class == Mismatch || v.Class == NativeError
			switch k, listed := known[v.ID()]; {
			case defect && (!listed || k != v.Class.String()):
				fresh = append(fresh, v.ID()+": "+v.Class.String()+": "+v.Reason)
			case !defect && listed:
				fixed = append(fixed, v.ID()+" (now "+v.Class.String()+")")
			}
		}
	}
	sort.Strings(fresh)
	sort.Strings(fixed)
	t.Logf("sample of %d files: %d self-contained queries, %d equal, %d refused, %d both error, %d native errors, %d silent mismatches",
		len(r.Files), r.SelfContained(), r.Counts[Equal], r.Counts[Refused], r.Counts[BothError], r.Counts[NativeError], r.Counts[Mismatch])
	if len(fresh) > 0 {
		t.Errorf("%d sampled queries are defects not in %s (the query text is in the golden file under %s/results/):\n%s",
			len(fresh), knownPath, c.Dir, strings.Join(fresh, "\n"))
	}
	for _, v := range r.AnalysisFalseErrors() {
		t.Errorf("%s: Spark runs it, the semantic model rejects it: %s", v.ID(), v.Reason)
	}
	if len(fixed) > 0 {
		t.Errorf("%d queries listed in %s are no longer defects: regenerate the list with `make conformance`:\n%s",
			len(fixed), knownPath, strings.Join(fixed, "\n"))
	}
}
