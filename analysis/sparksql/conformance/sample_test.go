package conformance

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "judge the whole corpus and rewrite testdata/known-disagreements.txt")

// knownPath is the ratchet of known disagreements.
const knownPath = "testdata/known-disagreements.txt"

// sampleEvery is the sample TestSample judges: every 10th query of each
// golden file.
const sampleEvery = 10

var (
	corpusOnce  sync.Once
	corpusCases []Case
	corpusErr   error
	theCorpus   *Corpus
)

// loadCorpus downloads the corpus into the cache if it is missing (once
// per test binary) and reads its cases; without it the test fails,
// saying where it comes from.
func loadCorpus(t *testing.T) (*Corpus, []Case) {
	t.Helper()
	corpusOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		theCorpus, corpusErr = Ensure(ctx, DefaultVersion, t.Logf)
		if corpusErr == nil {
			corpusCases, corpusErr = theCorpus.LoadCases()
		}
	})
	if corpusErr != nil {
		dir, _ := CorpusDir(DefaultVersion)
		t.Fatalf("Spark's SQL test corpus is needed (downloaded once from Maven Central into %s): %v", dir, corpusErr)
	}
	return theCorpus, corpusCases
}

// TestCorpusShape guards the reader: the corpus must yield about as many
// queries and rejections as Spark 4.1's does, so that a change in its
// format cannot make the comparison vacuous.
func TestCorpusShape(t *testing.T) {
	_, cases := loadCorpus(t)
	rejects, files := 0, map[string]bool{}
	for _, c := range cases {
		files[c.File] = true
		if !c.Spark.Parsed {
			rejects++
		}
	}
	if len(cases) < 15000 || rejects < 300 || len(files) < 300 {
		t.Fatalf("the corpus yields %d queries in %d files, %d rejected by Spark's parser: fewer than expected, has the golden format changed?", len(cases), len(files), rejects)
	}
}

// TestAnalyzerResultsAgree checks the verdict rule on a second source:
// every analyzer-results/ golden file must hold the same queries as its
// results/ twin, with the same parse verdict and error class.
func TestAnalyzerResultsAgree(t *testing.T) {
	c, cases := loadCorpus(t)
	byID := map[string]Case{}
	for _, k := range cases {
		byID[k.ID()] = k
	}
	root := filepath.Join(c.Dir, "analyzer-results")
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql.out") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".out")
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		qs, err := ParseGolden(string(text))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		for _, q := range qs {
			k, ok := byID[name+"#"+strconv.Itoa(q.Ordinal)]
			switch {
			case !ok:
				t.Errorf("%s#%d: not in results/", name, q.Ordinal)
			case k.Text != q.Text:
				t.Errorf("%s#%d: text differs from results/", name, q.Ordinal)
			case k.Spark.Parsed != q.Spark.Parsed || k.Spark.Class != q.Spark.Class:
				t.Errorf("%s#%d: results/ says %s, analyzer-results/ %s", name, q.Ordinal, k.Spark, q.Spark)
			}
			checked++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10000 {
		t.Errorf("only %d analyzer-results queries checked", checked)
	}
}

// TestSample judges every 10th query of each golden file with Thund's
// parser and holds it to the ratchet: a disagreement not in
// testdata/known-disagreements.txt fails, and so does a listed one that
// now agrees (regenerate the list then). With -update it judges the whole
// corpus and rewrites the list instead.
func TestSample(t *testing.T) {
	c, cases := loadCorpus(t)
	if *update {
		r := Run(c.Version, cases, Thund, nil)
		f, err := os.Create(knownPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteKnown(f, c.Version, r.Disagreements()); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d of %d queries agree; %d disagreements written to %s", r.Agree, r.Queries, len(r.Disagreements()), knownPath)
		return
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
	keep := Every(sampleEvery)
	r := Run(c.Version, cases, Thund, keep)
	var fresh []string
	disagree := map[string]bool{}
	for _, v := range r.Disagreements() {
		disagree[v.ID()] = true
		if !known[v.ID()] {
			fresh = append(fresh, v.ID()+": Spark "+v.Spark.String()+"; Thund "+v.Thund())
		}
	}
	var stale []string
	for _, k := range cases {
		if keep(k) && known[k.ID()] && !disagree[k.ID()] {
			stale = append(stale, k.ID())
		}
	}
	sort.Strings(stale)
	t.Logf("sample of %d queries: %d agree, %d known disagreements", r.Queries, r.Agree, len(r.Disagreements())-len(fresh))
	if len(fresh) > 0 {
		t.Errorf("%d sampled queries disagree with Spark and are not in %s (the query text is in the golden file under %s/results/):\n%s",
			len(fresh), knownPath, c.Dir, strings.Join(fresh, "\n"))
	}
	if len(stale) > 0 {
		t.Errorf("%d queries listed in %s now agree with Spark: regenerate the list with `make conformance` (or go test -run TestSample -update):\n%s",
			len(stale), knownPath, strings.Join(stale, "\n"))
	}
}

// TestNoQueryTextCheckedIn makes sure that what the harness writes into
// the repository (docs/conformance.md and the known list) holds no query
// text from the corpus: no query of 24 characters or more appears in it
// whole.
func TestNoQueryTextCheckedIn(t *testing.T) {
	_, cases := loadCorpus(t)
	for _, path := range []string{"../../../docs/conformance.md", knownPath} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (make conformance writes it)", err)
		}
		text := string(b)
		seen := map[string]bool{}
		for _, c := range cases {
			q := strings.TrimSpace(c.Text)
			if len(q) < 24 || seen[q] {
				continue
			}
			seen[q] = true
			if strings.Contains(text, q) {
				t.Errorf("%s holds the text of %s", path, c.ID())
			}
		}
	}
}
