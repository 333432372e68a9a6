package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/watch"
)

// --limit over project.PreviewMaxRows shows that many rows, and says so.
func TestLimitFlagIsBounded(t *testing.T) {
	dir := testutil.TempTree(t, map[string]string{"thund.yaml": "backends: [native]\n", "big.sql": "SELECT x AS n FROM range(12000) AS r(x)\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"--once", "--json", "--limit", "3000000", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "--limit 3000000: a preview shows at most 10000 rows per dataset") {
		t.Errorf("stderr: %s", errb.String())
	}
	rows := -1
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var obj struct {
			Type string `json:"type"`
			Rows []any  `json:"rows"`
		}
		if json.Unmarshal(sc.Bytes(), &obj) == nil && obj.Type == "preview" {
			rows = len(obj.Rows)
		}
	}
	if rows != project.PreviewMaxRows {
		t.Fatalf("preview of %d rows, want %d", rows, project.PreviewMaxRows)
	}
}

func TestQueryTimeoutFlagErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--once", "--query-timeout", "-1s", "."}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "give a positive duration") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"--once", "--query-timeout", "soon", "."}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
}

// --once: --query-timeout wins over thund.yaml, thund.yaml over the
// 10-minute default.
func TestOnceEngineOptions(t *testing.T) {
	cfg := project.Config{QueryTimeout: time.Minute, MemoryLimit: "1GB", TempLimit: "2GB"}
	for _, tc := range []struct {
		o    options
		cfg  project.Config
		want engine.Options
	}{
		{options{}, project.Config{}, engine.Options{QueryTimeout: watch.DefaultQueryTimeout}},
		{options{state: "s"}, cfg, engine.Options{StateDir: "s", QueryTimeout: time.Minute, MemoryLimit: "1GB", TempLimit: "2GB"}},
		{options{queryTimeout: 5 * time.Second}, cfg, engine.Options{QueryTimeout: 5 * time.Second, MemoryLimit: "1GB", TempLimit: "2GB"}},
	} {
		if got := onceEngineOptions(tc.o, tc.cfg); got != tc.want {
			t.Errorf("onceEngineOptions(%+v, %+v) = %+v, want %+v", tc.o, tc.cfg, got, tc.want)
		}
	}
	if watch.DefaultQueryTimeout != 10*time.Minute {
		t.Errorf("watch.DefaultQueryTimeout = %s", watch.DefaultQueryTimeout)
	}
}

// A statement over the time limit fails its dataset with the limit and
// the setting that raises it; --query-timeout overrides thund.yaml.
func TestOnceQueryTimeout(t *testing.T) {
	slow := "SELECT count(*) AS n FROM range(100000000000) a\n"
	for _, tc := range []struct {
		name, yaml string
		args       []string
	}{
		{"thund.yaml", "backends: [native]\nlimits:\n  query_timeout: 1s\n", nil},
		{"flag", "backends: [native]\nlimits:\n  query_timeout: 1h\n", []string{"--query-timeout", "1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testutil.TempTree(t, map[string]string{"thund.yaml": tc.yaml, "slow.sql": slow, "fast.sql": "SELECT 1 AS x\n"})
			var out, errb bytes.Buffer
			code := run(append(append([]string{"--once"}, tc.args...), dir), &out, &errb)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
			}
			for _, want := range []string{"✗ slow", "stopped after the query time limit of 1s", "limits.query_timeout", "✓ fast"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
