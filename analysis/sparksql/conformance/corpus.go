package conformance

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultVersion is the Spark release whose SQL test corpus the harness
// reads. The pinned pyspark is 4.1.4, but Maven Central has no test jar
// for 4.1.4, so this is the newest 4.1 release that has one.
const DefaultVersion = "4.1.3"

// MavenBase is where the test jars are fetched from.
const MavenBase = "https://repo1.maven.org/maven2"

// JarURL returns the address of spark-sql's test jar for version.
func JarURL(version string) string {
	return fmt.Sprintf("%s/org/apache/spark/spark-sql_2.13/%s/spark-sql_2.13-%s-tests.jar", MavenBase, version, version)
}

// CacheRoot returns the folder Thund caches downloads in: $THUND_CACHE, or
// ~/.cache/thund as scripts/spark.sh has it.
func CacheRoot() (string, error) {
	if c := os.Getenv("THUND_CACHE"); c != "" {
		return c, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("conformance: no cache folder (set THUND_CACHE): %w", err)
	}
	return filepath.Join(home, ".cache", "thund"), nil
}

// Corpus is an extracted copy of Spark's SQL test corpus: Dir holds the
// jar's sql-tests folder (inputs/, results/, analyzer-results/).
type Corpus struct {
	Version string
	// Dir is the sql-tests folder.
	Dir string
	// SHA1 is the checksum of the jar it came from, as Maven Central
	// published it.
	SHA1 string
}

// completeMarker is written last into an extracted corpus; a folder
// without it is not used.
const completeMarker = ".thund-complete"

// CorpusDir returns the folder the corpus of version is (or will be)
// extracted to: <cache>/spark-sql-tests/<version>.
func CorpusDir(version string) (string, error) {
	root, err := CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "spark-sql-tests", version), nil
}

// Open returns the corpus of version if it is already in the cache, and
// an error wrapping fs.ErrNotExist if it is not.
func Open(version string) (*Corpus, error) {
	dir, err := CorpusDir(version)
	if err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(filepath.Join(dir, completeMarker))
	if err != nil {
		return nil, fmt.Errorf("conformance: Spark %s SQL test corpus not in %s: %w", version, dir, err)
	}
	return &Corpus{Version: version, Dir: filepath.Join(dir, "sql-tests"), SHA1: strings.TrimSpace(string(sum))}, nil
}

// Ensure returns the corpus of version, downloading spark-sql's test jar
// from Maven Central and extracting its sql-tests folder into the cache
// the first time. The jar is checked against the SHA-1 Maven Central
// publishes beside it. Concurrent callers (two test binaries) each
// extract into a private folder and the first rename wins.
func Ensure(ctx context.Context, version string, logf func(format string, args ...any)) (*Corpus, error) {
	if c, err := Open(version); err == nil {
		return c, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return ensureFrom(ctx, version, JarURL(version), logf)
}

// ensureFrom is Ensure with the jar's address given (tests serve their
// own).
func ensureFrom(ctx context.Context, version, url string, logf func(format string, args ...any)) (*Corpus, error) {
	dir, err := CorpusDir(version)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("conformance: create cache folder: %w", err)
	}
	if logf != nil {
		logf("downloading Spark %s's SQL test corpus from %s into %s", version, url, dir)
	}
	want, err := fetchSHA1(ctx, url+".sha1")
	if err != nil {
		return nil, err
	}
	jar, err := os.CreateTemp(parent, version+".jar-*")
	if err != nil {
		return nil, fmt.Errorf("conformance: temporary jar: %w", err)
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	got, size, err := download(ctx, url, jar)
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, fmt.Errorf("conformance: %s has SHA-1 %s, but %s.sha1 says %s: the download is corrupt, try again", url, got, url, want)
	}
	tmp, err := os.MkdirTemp(parent, version+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("conformance: temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	n, err := extract(jar, size, tmp)
	if err != nil {
		return nil, fmt.Errorf("conformance: extract %s: %w", url, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("conformance: %s has no sql-tests/ folder", url)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(want+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("conformance: mark corpus complete: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have finished first; its copy is as good.
		if c, oerr := Open(version); oerr == nil {
			return c, nil
		}
		// A folder left without its marker by a killed run is replaced.
		if rerr := os.RemoveAll(dir); rerr != nil {
			return nil, fmt.Errorf("conformance: replace incomplete %s: %w", dir, rerr)
		}
		if err := os.Rename(tmp, dir); err != nil {
			return nil, fmt.Errorf("conformance: install corpus: %w", err)
		}
	}
	return Open(version)
}

// client has a generous overall limit: the jar is about 47 MB.
var client = &http.Client{Timeout: 10 * time.Minute}

// get starts a GET of url and fails with a message naming url when it
// cannot be reached or does not answer 200.
func get(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("conformance: request %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("conformance: cannot download %s (Spark's SQL test corpus; needs network access to Maven Central): %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("conformance: cannot download %s: %s", url, resp.Status)
	}
	return resp, nil
}

// fetchSHA1 reads a Maven .sha1 file: the hex digest, possibly followed
// by a file name.
func fetchSHA1(ctx context.Context, url string) (string, error) {
	resp, err := get(ctx, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return "", fmt.Errorf("conformance: read %s: %w", url, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || len(f[0]) != 40 {
		return "", fmt.Errorf("conformance: %s holds no SHA-1", url)
	}
	if _, err := hex.DecodeString(f[0]); err != nil {
		return "", fmt.Errorf("conformance: %s holds no SHA-1: %w", url, err)
	}
	return strings.ToLower(f[0]), nil
}

// download copies url into w and returns the SHA-1 of what it copied.
func download(ctx context.Context, url string, w io.Writer) (string, int64, error) {
	resp, err := get(ctx, url)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	h := sha1.New()
	n, err := io.Copy(io.MultiWriter(w, h), resp.Body)
	if err != nil {
		return "", 0, fmt.Errorf("conformance: download %s: %w", url, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// extract writes the jar's sql-tests/ entries under dir and returns how
// many files it wrote. Entry names that would leave dir are refused.
func extract(r io.ReaderAt, size int64, dir string) (int, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range zr.File {
		name := f.Name
		if !strings.HasPrefix(name, "sql-tests/") || strings.HasSuffix(name, "/") {
			continue
		}
		if clean := path.Clean(name); clean != name || strings.Contains(name, "..") || strings.Contains(name, "\\") {
			return n, fmt.Errorf("unsafe entry name %q", name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return n, err
		}
		if err := extractFile(f, dst); err != nil {
			return n, fmt.Errorf("%s: %w", name, err)
		}
		n++
	}
	return n, nil
}

func extractFile(f *zip.File, dst string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// GoldenFile is one golden result file of the corpus and the input file
// it was generated from.
type GoldenFile struct {
	// Name is the input file's path under inputs/, slash-separated, such
	// as "nonansi/date.sql". Queries are named Name#ordinal.
	Name string
	// Golden is the result file on disk (results/<Name>.out).
	Golden string
	// Input is the input file on disk (inputs/<Name>); it may be missing.
	Input string
}

// Files lists the corpus's golden result files (results/**/*.sql.out;
// the .java21 variants are skipped), sorted by name.
func (c *Corpus) Files() ([]GoldenFile, error) {
	results := filepath.Join(c.Dir, "results")
	var out []GoldenFile
	err := filepath.WalkDir(results, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".sql.out") {
			return nil
		}
		rel, err := filepath.Rel(results, p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".out")
		out = append(out, GoldenFile{
			Name:   name,
			Golden: p,
			Input:  filepath.Join(c.Dir, "inputs", filepath.FromSlash(name)),
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("conformance: list golden files: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
