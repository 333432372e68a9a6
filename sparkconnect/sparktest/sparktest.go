// Package sparktest gives tests a real Spark Connect server: the one
// already listening on the port scripts/spark.sh gives the Spark version
// THUND_SPARK_VERSION names (4.1.4 on 127.0.0.1:15002 when not set; or
// THUND_SPARK_URL), or one it starts with scripts/spark.sh, once per test
// binary. Set THUND_SKIP_SPARK=1 to skip the tests that need it.
package sparktest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
)

var (
	once    sync.Once
	url     string
	setErr  error
	release string
)

// Skipped reports whether THUND_SKIP_SPARK asks to skip Spark tests.
func Skipped() bool { return os.Getenv("THUND_SKIP_SPARK") == "1" }

// URL returns the server's URL, starting the server if nothing answers.
// The server is left running for the other test binaries; `make
// spark-stop` (or `make test-spark`, which calls it) stops it.
func URL() (string, error) {
	once.Do(func() {
		defer func() {
			if setErr == nil {
				release = serverRelease(url)
			}
		}()
		url = os.Getenv("THUND_SPARK_URL")
		if url == "" {
			url = fmt.Sprintf("sc://127.0.0.1:%d", sparkconnect.DefaultPort)
		}
		script, scriptErr := findScript()
		if os.Getenv("THUND_SPARK_URL") == "" && scriptErr == nil {
			// The selected version's port (THUND_SPARK_VERSION).
			if out, err := exec.Command(script, "url").Output(); err == nil {
				url = strings.TrimSpace(string(out))
			}
		}
		if answers(url) {
			return
		}
		if os.Getenv("THUND_SPARK_URL") != "" {
			setErr = fmt.Errorf("no Spark Connect server at THUND_SPARK_URL=%s", url)
			return
		}
		if scriptErr != nil {
			setErr = scriptErr
			return
		}
		cmd := exec.Command(script, "start")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			setErr = fmt.Errorf("%s start: %w", script, err)
			return
		}
		if !answers(url) {
			setErr = fmt.Errorf("%s start succeeded but nothing answers at %s", script, url)
			return
		}
		// The first query of a new server is slow (class loading, JIT):
		// take it here, with room, rather than in a test's budget.
		warmUp(url)
	})
	return url, setErr
}

// Need returns the server URL, skipping t when THUND_SKIP_SPARK=1 and
// failing it when no server can be had.
func Need(t testing.TB) string {
	t.Helper()
	if Skipped() {
		t.Skip("THUND_SKIP_SPARK=1: skipping a test that needs a real Spark Connect server")
	}
	u, err := URL()
	if err != nil {
		t.Fatalf("no Spark Connect server: %v (set THUND_SKIP_SPARK=1 to skip Spark tests)", err)
	}
	return u
}

// Client dials the server for t and closes the client when t ends.
func Client(t testing.TB) *sparkconnect.Client {
	t.Helper()
	u := Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := sparkconnect.Dial(ctx, u, sparkconnect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Release is the Spark release of the server (such as "4.3.0"), read
// from the server itself; "" when there is none.
func Release() string {
	_, _ = URL()
	return release
}

// Backend is the Thund backend of the server's Spark version (spark-4.3
// for 4.3.0); it fails t when the server runs a version Thund does not
// support.
func Backend(t testing.TB) ir.Backend {
	t.Helper()
	Need(t)
	b := ir.Backend("spark-" + sparkconnect.MinorVersion(release))
	if !ir.IsSpark(b) {
		t.Fatalf("the Spark Connect server runs Spark %q, which Thund does not support", release)
	}
	return b
}

// NeedVersion skips t unless the server runs a Spark release of one of
// the given minor versions ("4.2"): for facts of one version only.
func NeedVersion(t testing.TB, minors ...string) {
	t.Helper()
	Need(t)
	for _, m := range minors {
		if sparkconnect.MinorVersion(release) == m {
			return
		}
	}
	t.Skipf("the server runs Spark %s; this test is for Spark %s (THUND_SPARK_VERSION selects the server scripts/spark.sh starts)", release, strings.Join(minors, ", "))
}

func serverRelease(u string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := sparkconnect.Dial(ctx, u, sparkconnect.Options{})
	if err != nil {
		return ""
	}
	defer c.Close()
	v, _ := c.ServerVersion(ctx)
	return v
}

func warmUp(u string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := sparkconnect.Dial(ctx, u, sparkconnect.Options{})
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.Query(ctx, "SELECT count(*) FROM range(10)", func([]byte, int64) error { return nil })
}

func answers(u string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sparkconnect.Dial(ctx, u, sparkconnect.Options{DialTimeout: 3 * time.Second})
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// findScript finds scripts/spark.sh in the module root above the working
// directory (go test runs in the package folder).
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			s := filepath.Join(dir, "scripts", "spark.sh")
			if _, err := os.Stat(s); err != nil {
				return "", fmt.Errorf("cannot start Spark: %s is missing", s)
			}
			return s, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot start Spark: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Main runs a test binary's tests, starting (or finding) the server once
// first unless THUND_SKIP_SPARK=1 or -run selects no Spark test (their
// names contain "Spark"). A start failure is reported by each test that
// needs the server.
func Main(m *testing.M) {
	flag.Parse()
	run := ""
	if f := flag.Lookup("test.run"); f != nil {
		run = f.Value.String()
	}
	if !Skipped() && (run == "" || strings.Contains(run, "Spark")) {
		_, _ = URL()
	}
	os.Exit(m.Run())
}
