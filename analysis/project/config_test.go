package project

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/ir"
)

func TestParseConfigValid(t *testing.T) {
	text := `backends: [native, spark-4.1]     # which backends
spark:
  remote: sc://localhost:15002
  version: "4.1"
samples:
  Orders: data/orders_small.parquet
  events: "samples/events/"
preview:
  limit: 500
`
	cfg, diags := ParseConfig("thund.yaml", []byte(text))
	checkDiags(t, "thund.yaml", text, diags, nil)
	if !reflect.DeepEqual(cfg.Backends, []ir.Backend{ir.Native, ir.Spark41}) {
		t.Errorf("backends = %v", cfg.Backends)
	}
	if cfg.SparkRemote != "sc://localhost:15002" || cfg.SparkVersion != "4.1" || cfg.PreviewLimit != 500 {
		t.Errorf("cfg = %+v", cfg)
	}
	if len(cfg.Samples) != 2 {
		t.Fatalf("samples = %+v", cfg.Samples)
	}
	if s := cfg.Samples[0]; s.Table != "orders" || s.Path != "data/orders_small.parquet" || rangeText(t, text, s.Loc) != "data/orders_small.parquet" {
		t.Errorf("sample 0 = %+v", s)
	}
	if s := cfg.Samples[1]; s.Table != "events" || s.Path != "samples/events/" || rangeText(t, text, s.Loc) != `"samples/events/"` {
		t.Errorf("sample 1 = %+v", s)
	}
	for key, want := range map[string]string{
		"backends": "[native, spark-4.1]", "spark.remote": "sc://localhost:15002", "spark.version": `"4.1"`, "preview.limit": "500",
	} {
		if got := rangeText(t, text, cfg.Loc[key]); got != want {
			t.Errorf("Loc[%s] = %q, want %q", key, got, want)
		}
	}
}

func TestParseConfigDefaults(t *testing.T) {
	for _, text := range []string{"", "# nothing\n", "backends:\nspark:\nsamples:\npreview:\nlimits:\n", "limits:\n  query_timeout:\n  memory:\n", "\xef\xbb\xbf"} {
		cfg, diags := ParseConfig("thund.yaml", []byte(text))
		checkDiags(t, "thund.yaml", text, diags, nil)
		if cfg.Backends != nil || cfg.SparkRemote != "" || cfg.SparkVersion != "" || cfg.Samples != nil || cfg.PreviewLimit != 0 ||
			cfg.QueryTimeout != 0 || cfg.MemoryLimit != "" || cfg.TempLimit != "" {
			t.Errorf("%q: cfg = %+v", text, cfg)
		}
	}
	// An unquoted 4.2 is a YAML float, and still the version "4.2".
	cfg, diags := ParseConfig("thund.yaml", []byte("spark: {version: 4.2}\nbackends: spark-4.2\n"))
	if len(diags) != 0 || cfg.SparkVersion != "4.2" || !reflect.DeepEqual(cfg.Backends, []ir.Backend{ir.Spark42}) {
		t.Errorf("cfg = %+v, diags = %v", cfg, diags)
	}
}

// TestSparkBackend: `spark.version` picks the backend a push targets (else
// the newest Spark `backends` lists; when neither says, the newest, and
// false) and, without `backends`, the one --check checks beside native;
// `backends` wins when set.
func TestSparkBackend(t *testing.T) {
	tests := []struct {
		text    string
		push    ir.Backend
		checked []ir.Backend
	}{
		{"", "", nil},
		{"spark:\n  remote: sc://localhost:15002\n", "", nil},
		{"spark:\n  version: \"4.1\"\n", ir.Spark41, []ir.Backend{ir.Native, ir.Spark41}},
		{"spark:\n  version: \"4.2\"\n", ir.Spark42, []ir.Backend{ir.Native, ir.Spark42}},
		{"spark: {version: 4.3}\n", ir.Spark43, []ir.Backend{ir.Native, ir.Spark43}},
		{"backends: [native]\nspark:\n  version: \"4.2\"\n", ir.Spark42, []ir.Backend{ir.Native}},
		{"backends: [spark-4.1]\n", ir.Spark41, []ir.Backend{ir.Spark41}},
		{"backends: [native, spark-4.2, spark-4.1]\n", ir.Spark42, []ir.Backend{ir.Native, ir.Spark42, ir.Spark41}},
		{"backends: [native]\n", "", []ir.Backend{ir.Native}},
	}
	for _, tt := range tests {
		cfg, diags := ParseConfig("thund.yaml", []byte(tt.text))
		if len(diags) != 0 {
			t.Errorf("%q: %v", tt.text, diags)
			continue
		}
		got, ok := cfg.SparkBackend()
		if tt.push == "" && (ok || got != ir.Spark43) || tt.push != "" && (!ok || got != tt.push) {
			t.Errorf("%q: SparkBackend() = %s, %v; want %q (\"\": the newest, false)", tt.text, got, ok, tt.push)
		}
		if got := cfg.CheckedBackends(); !reflect.DeepEqual(got, tt.checked) {
			t.Errorf("%q: CheckedBackends() = %v, want %v", tt.text, got, tt.checked)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	E, W := ir.Error, ir.Warning
	C := ir.CodeConfigError
	tests := []struct {
		name string
		text string
		want []wantDiag
	}{
		{"bad backend", "backends: [native, spark-4.0]\n", []wantDiag{{C, E, "spark-4.0", "use `native`, `spark-4.1`, `spark-4.2`, `spark-4.3` or `databricks` (nearest: `spark-4.1`)"}}},
		{"bad backend block", "backends:\n  - natve\n", []wantDiag{{C, E, "natve", "nearest: `native`"}}},
		{"backend list item", "backends: [[native]]\n", []wantDiag{{C, E, "[native]", "must be one of"}}},
		{"backends mapping", "backends: {a: b}\n", []wantDiag{{C, E, "{a: b}", "must be a list"}}},
		{"backends empty", "backends: []\n", []wantDiag{{C, W, "[]", "is empty"}}},
		{"backend twice", "backends: [native, native]\n", []wantDiag{{C, W, "native", "listed twice"}}},
		{"unknown key", "backend: [native]\n", []wantDiag{{C, W, "backend", "did you mean `backends`"}}},
		{"unknown spark key", "spark:\n  remot: sc://x\n", []wantDiag{{C, W, "remot", "did you mean `remote`"}}},
		{"unknown preview key", "preview:\n  limt: 5\n", []wantDiag{{C, W, "limt", "did you mean `limit`"}}},
		{"remote scheme", "spark:\n  remote: http://localhost:15002\n", []wantDiag{{C, E, "http://localhost:15002", "starting with `sc://`"}}},
		{"remote list", "spark:\n  remote: [a]\n", []wantDiag{{C, E, "[a]", "single value"}}},
		{"version", "spark:\n  version: '4.0'\n", []wantDiag{{C, E, "'4.0'", `must be "4.1", "4.2" or "4.3"`}}},
		{"spark scalar", "spark: sc://x\n", []wantDiag{{C, E, "sc://x", "must be a mapping"}}},
		{"limit zero", "preview:\n  limit: 0\n", []wantDiag{{C, E, "0", "positive whole number"}}},
		{"limit text", "preview: {limit: lots}\n", []wantDiag{{C, E, "lots", "positive whole number"}}},
		{"limit float", "preview: {limit: 1.5}\n", []wantDiag{{C, E, "1.5", "positive whole number"}}},
		{"limit huge", "preview: {limit: 99999999999999999999}\n", []wantDiag{{C, E, "99999999999999999999", "positive whole number"}}},
		{"limit over max", "preview:\n  limit: 3000000\n", []wantDiag{{C, E, "3000000", "at most 10000 rows per page"}}},
		{"limits scalar", "limits: 30s\n", []wantDiag{{C, E, "30s", "`limits` must be a mapping"}}},
		{"unknown limits key", "limits:\n  query_timout: 1m\n", []wantDiag{{C, W, "query_timout", "did you mean `query_timeout`"}}},
		{"unknown limits key memory", "limits:\n  mem: 1GB\n", []wantDiag{{C, W, "mem", "known: query_timeout, memory, temp"}}},
		{"timeout text", "limits: {query_timeout: forever}\n", []wantDiag{{C, E, "forever", "must be a duration such as `30s`"}}},
		{"timeout zero", "limits: {query_timeout: 0}\n", []wantDiag{{C, E, "0", "must be positive"}}},
		{"timeout zero unit", "limits: {query_timeout: 0s}\n", []wantDiag{{C, E, "0s", "must be positive"}}},
		{"timeout negative", "limits: {query_timeout: -5s}\n", []wantDiag{{C, E, "-5s", "must be positive"}}},
		{"timeout negative number", "limits: {query_timeout: -5}\n", []wantDiag{{C, E, "-5", "must be positive"}}},
		{"timeout over an hour", "limits:\n  query_timeout: 61m\n", []wantDiag{{C, E, "61m", "at most 1h"}}},
		{"timeout seconds over an hour", "limits:\n  query_timeout: 3601\n", []wantDiag{{C, E, "3601", "at most 1h"}}},
		{"timeout overflow", "limits:\n  query_timeout: 99999999999h\n", []wantDiag{{C, E, "99999999999h", "at most 1h"}}},
		{"timeout nan", "limits:\n  query_timeout: .nan\n", []wantDiag{{C, E, ".nan", "must be a duration"}}},
		{"timeout list", "limits:\n  query_timeout: [1m]\n", []wantDiag{{C, E, "[1m]", "single value"}}},
		{"memory no unit", "limits: {memory: 2048}\n", []wantDiag{{C, E, "2048", "`limits.memory` must be a size such as `512MB`"}}},
		{"memory bad unit", "limits: {memory: 2GX}\n", []wantDiag{{C, E, "2GX", "unknown unit `GX`"}}},
		{"memory unit typo", "limits: {memory: 2 GiBs}\n", []wantDiag{{C, E, "2 GiBs", "did you mean `GiB`"}}},
		{"memory percent", "limits: {memory: 80%}\n", []wantDiag{{C, E, "80%", "give a number, then one of KB, MB"}}},
		{"memory zero", "limits: {memory: 0GB}\n", []wantDiag{{C, E, "0GB", "more than 0"}}},
		{"memory quote", "limits: {memory: \"1GB'; SET x\"}\n", []wantDiag{{C, E, "\"1GB'; SET x\"", "must be a size"}}},
		{"memory over the cap", "limits: {memory: 17GiB}\n", []wantDiag{{C, E, "17GiB", "`limits.memory` is at most 16GiB"}}},
		{"memory over the cap in TB", "limits: {memory: 1TB}\n", []wantDiag{{C, E, "1TB", "at most 16GiB"}}},
		{"temp over the cap", "limits: {temp: 65GiB}\n", []wantDiag{{C, E, "65GiB", "`limits.temp` is at most 64GiB"}}},
		{"temp bad", "limits:\n  temp: lots\n", []wantDiag{{C, E, "lots", "`limits.temp` must be a size"}}},
		{"sample escape", "samples:\n  orders: ../../etc/passwd\n", []wantDiag{{ir.CodePathEscape, E, "../../etc/passwd", "leaves the pipeline folder"}}},
		{"sample empty", "samples:\n  orders:\n", []wantDiag{{C, E, "orders", "has no path"}}},
		{"sample blank", "samples:\n  orders: ' '\n", []wantDiag{{C, E, "' '", "has no path"}}},
		{"sample list", "samples:\n  orders: [a, b]\n", []wantDiag{{C, E, "[a, b]", "single value"}}},
		{"sample twice", "samples:\n  orders: a.csv\n  ORDERS: b.csv\n", []wantDiag{{C, W, "ORDERS", "given twice"}}},
		{"samples list", "samples: [a]\n", []wantDiag{{C, E, "[a]", "must be a mapping"}}},
		{"not a mapping", "native\n", []wantDiag{{C, E, "native", "must be a mapping"}}},
		{"syntax", "spark:\n  remote: sc://x\n version: 4.1\n", []wantDiag{{C, E, "version: 4.1", "YAML syntax error"}}},
		{"tab", "spark:\n\tremote: sc://x\n", []wantDiag{{C, E, "\t", "replace the tab"}}},
		{"invalid utf8", "samples:\n  orders: caf\xe9.csv\n", []wantDiag{{ir.CodeFileEncoding, E, "\xe9", "not valid UTF-8"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := ParseConfig("thund.yaml", []byte(tc.text))
			checkDiags(t, "thund.yaml", tc.text, diags, tc.want)
		})
	}
}

func TestParseConfigKeepsGoodValues(t *testing.T) {
	cfg, _ := ParseConfig("thund.yaml", []byte("backends: [native, bogus]\nsamples:\n  a: ../x.csv\n  b: b.csv\n  A: a.csv\n"))
	if !reflect.DeepEqual(cfg.Backends, []ir.Backend{ir.Native}) {
		t.Errorf("backends = %v", cfg.Backends)
	}
	if len(cfg.Samples) != 2 || cfg.Samples[0].Table != "b" || cfg.Samples[1].Table != "a" || cfg.Samples[1].Path != "a.csv" {
		t.Errorf("samples = %+v", cfg.Samples)
	}
}

func TestParseConfigLimits(t *testing.T) {
	text := "limits:\n  query_timeout: 2m\n  memory: 512 mb\n  temp: 1.5GiB\npreview:\n  limit: 10000\n"
	cfg, diags := ParseConfig("thund.yaml", []byte(text))
	checkDiags(t, "thund.yaml", text, diags, nil)
	if cfg.QueryTimeout != 2*time.Minute || cfg.MemoryLimit != "512MB" || cfg.TempLimit != "1.5GiB" || cfg.PreviewLimit != PreviewMaxRows {
		t.Errorf("cfg = %+v", cfg)
	}
	for key, want := range map[string]string{
		"limits.query_timeout": "2m", "limits.memory": "512 mb", "limits.temp": "1.5GiB",
		"limits": "query_timeout: 2m",
	} {
		if got := strings.TrimSpace(rangeText(t, text, cfg.Loc[key])); got != want {
			t.Errorf("Loc[%s] = %q, want %q", key, got, want)
		}
	}
	for v, want := range map[string]time.Duration{
		"30s": 30 * time.Second, "30": 30 * time.Second, "1.5": 1500 * time.Millisecond, "1m30s": 90 * time.Second,
		"500ms": 500 * time.Millisecond, "1h": time.Hour, "3600": time.Hour, "'45s'": 45 * time.Second,
	} {
		cfg, diags := ParseConfig("thund.yaml", []byte("limits: {query_timeout: "+v+"}\n"))
		if len(diags) != 0 || cfg.QueryTimeout != want {
			t.Errorf("query_timeout %s: got %s, diags %v", v, cfg.QueryTimeout, diags)
		}
	}
	for v, want := range map[string]string{"2GB": "2GB", "2gb": "2GB", "4 GB": "4GB", "100KiB": "100KiB", "64kb": "64KB", "1mib": "1MiB", "3 GiB": "3GiB", "0.01TB": "0.01TB"} {
		cfg, diags := ParseConfig("thund.yaml", []byte("limits: {memory: "+v+", temp: "+v+"}\n"))
		if len(diags) != 0 || cfg.MemoryLimit != want || cfg.TempLimit != want {
			t.Errorf("size %s: memory %q temp %q, diags %v", v, cfg.MemoryLimit, cfg.TempLimit, diags)
		}
	}
}

// A bad limit leaves that setting unset (the engine's default applies)
// and keeps the good ones.
func TestParseConfigBadLimitsUnset(t *testing.T) {
	cfg, diags := ParseConfig("thund.yaml", []byte("limits:\n  query_timeout: 2h\n  memory: 2GB\n  temp: -1GB\npreview:\n  limit: 20000\n"))
	if len(diags) != 3 {
		t.Fatalf("diags = %v", diags)
	}
	if cfg.QueryTimeout != 0 || cfg.MemoryLimit != "2GB" || cfg.TempLimit != "" || cfg.PreviewLimit != 0 {
		t.Errorf("cfg = %+v", cfg)
	}
	for _, key := range []string{"limits", "limits.query_timeout", "limits.memory", "limits.temp", "preview.limit"} {
		if _, ok := cfg.Loc[key]; !ok {
			t.Errorf("no Loc[%s]", key)
		}
	}
}
