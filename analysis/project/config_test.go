package project

import (
	"reflect"
	"testing"

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
	for _, text := range []string{"", "# nothing\n", "backends:\nspark:\nsamples:\npreview:\n", "\xef\xbb\xbf"} {
		cfg, diags := ParseConfig("thund.yaml", []byte(text))
		checkDiags(t, "thund.yaml", text, diags, nil)
		if cfg.Backends != nil || cfg.SparkRemote != "" || cfg.SparkVersion != "" || cfg.Samples != nil || cfg.PreviewLimit != 0 {
			t.Errorf("%q: cfg = %+v", text, cfg)
		}
	}
	// An unquoted 4.2 is a YAML float, and still the version "4.2".
	cfg, diags := ParseConfig("thund.yaml", []byte("spark: {version: 4.2}\nbackends: spark-4.2\n"))
	if len(diags) != 0 || cfg.SparkVersion != "4.2" || !reflect.DeepEqual(cfg.Backends, []ir.Backend{ir.Spark42}) {
		t.Errorf("cfg = %+v, diags = %v", cfg, diags)
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
		{"bad backend", "backends: [native, spark-4.0]\n", []wantDiag{{C, E, "spark-4.0", "use `native`, `spark-4.1` or `spark-4.2` (nearest: `spark-4.1`)"}}},
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
		{"version", "spark:\n  version: '4.0'\n", []wantDiag{{C, E, "'4.0'", `must be "4.1" or "4.2"`}}},
		{"spark scalar", "spark: sc://x\n", []wantDiag{{C, E, "sc://x", "must be a mapping"}}},
		{"limit zero", "preview:\n  limit: 0\n", []wantDiag{{C, E, "0", "positive whole number"}}},
		{"limit text", "preview: {limit: lots}\n", []wantDiag{{C, E, "lots", "positive whole number"}}},
		{"limit float", "preview: {limit: 1.5}\n", []wantDiag{{C, E, "1.5", "positive whole number"}}},
		{"limit huge", "preview: {limit: 99999999999999999999}\n", []wantDiag{{C, E, "99999999999999999999", "positive whole number"}}},
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
