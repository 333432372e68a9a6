package conformance

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// testJar builds a jar (a zip) with a small sql-tests folder and some
// other entries.
func testJar(t *testing.T, extra ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files := map[string]string{
		"META-INF/MANIFEST.MF":                  "Manifest-Version: 1.0\n",
		"sql-tests/inputs/a.sql":                "--SET spark.sql.ansi.doubleQuotedIdentifiers=true\nSELECT 1;\n",
		"sql-tests/inputs/nonansi/a.sql":        "--IMPORT a.sql\n",
		"sql-tests/results/a.sql.out":           syntheticResults,
		"sql-tests/results/nonansi/a.sql.out":   syntheticAnalysis,
		"sql-tests/results/a.sql.out.java21":    "not read\n",
		"sql-tests/analyzer-results/a.sql.out":  syntheticAnalysis,
		"org/apache/spark/sql/SomeSuite.class":  "\xca\xfe\xba\xbe",
		"sql-tests/inputs/":                     "",
		"sql-tests/results/subdir/":             "",
		"sql-tests/results/subdir/b.sql.out":    "-- header only\n",
		"sql-tests/inputs/subdir/b.sql":         "",
		"sql-tests/results/subdir/c.sql.out":    "-- !query\nSELECT 2\n-- !query schema\nstruct<2:int>\n-- !query output\n2\n",
		"sql-tests/inputs/subdir/c.sql":         "SELECT 2;\n",
		"sql-tests/analyzer-results/subdir/x.q": "ignored",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		files[extra[i]] = extra[i+1]
	}
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serve serves jar at /x.jar and sum (the jar's SHA-1 unless given) at
// /x.jar.sha1, counting requests.
func serve(t *testing.T, jar []byte, sum string) (url string, hits *atomic.Int32) {
	t.Helper()
	if sum == "" {
		h := sha1.Sum(jar)
		sum = hex.EncodeToString(h[:])
	}
	hits = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/x.jar":
			w.Write(jar)
		case "/x.jar.sha1":
			w.Write([]byte(sum + "  x.jar\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/x.jar", hits
}

func TestEnsureDownloadsOnceAndReads(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("THUND_CACHE", cache)
	url, hits := serve(t, testJar(t), "")
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, f) }
	c, err := ensureFrom(context.Background(), "9.9.9", url, logf)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "spark-sql-tests", "9.9.9", "sql-tests"); c.Dir != want {
		t.Errorf("Dir = %s, want %s", c.Dir, want)
	}
	if len(logged) != 1 || hits.Load() != 2 {
		t.Errorf("logged %v, %d requests", logged, hits.Load())
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "..", "..", "..", "META-INF")); err == nil {
		t.Error("extracted an entry outside sql-tests/")
	}
	if entries, _ := os.ReadDir(filepath.Dir(filepath.Dir(c.Dir))); len(entries) != 1 {
		t.Errorf("temporary files left in the cache: %v", entries)
	}
	// Cached: no more requests.
	c2, err := Ensure(context.Background(), "9.9.9", logf)
	if err != nil || c2.Dir != c.Dir || c2.SHA1 != c.SHA1 || hits.Load() != 2 {
		t.Fatalf("second Ensure: %+v, %v, %d requests", c2, err, hits.Load())
	}

	files, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "a.sql nonansi/a.sql subdir/b.sql subdir/c.sql" {
		t.Errorf("files: %s", got)
	}
	cases, err := c.LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 7+2+0+1 {
		t.Fatalf("%d cases", len(cases))
	}
	if c0 := cases[0]; c0.ID() != "a.sql#1" || !c0.Settings.DoubleQuotedIdentifiers() {
		t.Errorf("first case %s %+v", c0.ID(), c0.Settings)
	}
	if c7 := cases[7]; c7.ID() != "nonansi/a.sql#1" || c7.Settings.ANSI {
		t.Errorf("eighth case %s %+v", c7.ID(), c7.Settings)
	}
}

func TestEnsureRefusesCorruptJar(t *testing.T) {
	t.Setenv("THUND_CACHE", t.TempDir())
	url, _ := serve(t, testJar(t), strings.Repeat("ab", 20))
	_, err := ensureFrom(context.Background(), "9.9.9", url, nil)
	if err == nil || !strings.Contains(err.Error(), "SHA-1") || !strings.Contains(err.Error(), url) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Open("9.9.9"); err == nil {
		t.Error("a corrupt jar left a corpus behind")
	}
}

func TestEnsureRefusesUnsafeEntry(t *testing.T) {
	t.Setenv("THUND_CACHE", t.TempDir())
	url, _ := serve(t, testJar(t, "sql-tests/../../evil", "x"), "")
	if _, err := ensureFrom(context.Background(), "9.9.9", url, nil); err == nil || !strings.Contains(err.Error(), "unsafe") {
		t.Fatalf("err = %v", err)
	}
}

func TestEnsureOfflineNamesURL(t *testing.T) {
	t.Setenv("THUND_CACHE", t.TempDir())
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/x.jar"
	srv.Close() // nothing listens there now
	_, err := ensureFrom(context.Background(), "9.9.9", url, nil)
	if err == nil || !strings.Contains(err.Error(), url+".sha1") {
		t.Fatalf("err = %v", err)
	}
	url2, _ := serve(t, nil, "")
	_, err = ensureFrom(context.Background(), "9.9.9", url2+"-missing", nil)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), url2+"-missing") {
		t.Fatalf("err = %v", err)
	}
}

func TestJarURL(t *testing.T) {
	want := "https://repo1.maven.org/maven2/org/apache/spark/spark-sql_2.13/4.1.3/spark-sql_2.13-4.1.3-tests.jar"
	if got := JarURL("4.1.3"); got != want {
		t.Errorf("JarURL = %s", got)
	}
}
