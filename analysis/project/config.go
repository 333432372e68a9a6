package project

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/thund-dev/thund/ir"
	"go.yaml.in/yaml/v3"
)

// SampleConfig is one `samples:` entry of thund.yaml: rows for a source
// table from a file, a glob or a folder of micro-batches.
type SampleConfig struct {
	// Table is the source table, lower-cased.
	Table string
	// Path is the sample path as written, relative to the root.
	Path string
	// Loc is the range of the path value.
	Loc ir.Loc
}

// Config is the content of thund.yaml, thund's own settings.
type Config struct {
	// Backends are the backends diagnostics check; nil when not set (the
	// caller applies ir.DefaultBackends).
	Backends []ir.Backend
	// Dialect is `dialect`: "spark" (Spark SQL, also when not set),
	// "databricks" (Spark SQL with Databricks' pipeline statements: a
	// Lakeflow Declarative Pipelines project) or "duckdb" (DuckDB's
	// syntax, for a pipeline that only runs natively).
	Dialect string
	// SparkRemote is the Spark Connect endpoint (sc://host:port).
	SparkRemote string
	// SparkVersion is "4.1", "4.2" or "4.3", "" when not set (SparkBackend
	// then gives the newest).
	SparkVersion string
	// BundlePipeline and BundleTarget are `databricks.pipeline` and
	// `databricks.target`: which pipeline resource of databricks.yml the
	// folder is, and whose variables apply ("" for the first pipeline
	// and the default target).
	BundlePipeline string
	BundleTarget   string
	// Catalog and Schema are `databricks.catalog` and `databricks.schema`:
	// the pipeline's default catalog and schema, as a Lakeflow pipeline's
	// settings give them, for a folder whose spec or bundle does not
	// name them (a folder from the Lakeflow editor has neither); "" when
	// not set.
	Catalog string
	Schema  string
	Samples []SampleConfig
	// PreviewLimit is the rows per preview page, at most PreviewMaxRows;
	// 0 when not set.
	PreviewLimit int
	// QueryTimeout is `limits.query_timeout`, the longest one statement
	// of a run, a description or a preview may take (engine
	// Options.QueryTimeout), in (0, MaxQueryTimeout]; 0 when not set.
	QueryTimeout time.Duration
	// MemoryLimit is `limits.memory`, DuckDB's memory_limit, as a size
	// such as "2GB" or "512MiB" (normalised: no space, the unit spelled
	// KB, MB, GB, TB, KiB, MiB, GiB or TiB); "" when not set.
	MemoryLimit string
	// TempLimit is `limits.temp`, DuckDB's max_temp_directory_size, in
	// the same form as MemoryLimit; "" when not set.
	TempLimit string
	// Loc is each value's location by key path: "backends", "dialect", "spark",
	// "spark.remote", "spark.version", "samples", "preview",
	// "preview.limit", "limits", "limits.query_timeout", "limits.memory",
	// "limits.temp".
	Loc map[string]ir.Loc
}

// PreviewMaxRows is the most rows one preview page holds, wherever the
// page size comes from: `preview.limit` in thund.yaml (a larger value is
// an error), a thund/preview request or thund-watch --limit (both are
// clamped to it). A page is converted to Go values whole, so this bounds
// what one preview can cost.
const PreviewMaxRows = 10_000

// MaxQueryTimeout is the largest `limits.query_timeout` thund.yaml may
// set.
const MaxQueryTimeout = time.Hour

// MaxMemoryLimit and MaxTempLimit are the largest `limits.memory` and
// `limits.temp` thund.yaml may set, in bytes: a folder from a stranger
// must not be able to let a query take the whole machine.
const (
	MaxMemoryLimit = 16 << 30
	MaxTempLimit   = 64 << 30
)

const maxQueryTimeoutText = "1h"

var (
	configKeys  = []string{"backends", "dialect", "spark", "databricks", "samples", "preview", "limits"}
	bundleKeys  = []string{"pipeline", "target", "catalog", "schema"}
	dialects    = []string{"spark", "duckdb", "databricks"}
	sparkKeys   = []string{"remote", "version"}
	previewKeys = []string{"limit"}
	limitsKeys  = []string{"query_timeout", "memory", "temp"}
	versions    = []string{"4.1", "4.2", "4.3"}
	// sizeUnits are the units a DuckDB size in `limits` may use,
	// matched without regard to case.
	sizeUnits  = []string{"KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"}
	durationRE = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*$`)
	sizeRE     = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)[ \t]*([A-Za-z]+)$`)
)

// ParseConfig parses thund.yaml text. file is the path used in diagnostics.
// Unknown keys are warnings; bad values are errors and leave the setting
// unset.
func ParseConfig(file string, text []byte) (Config, []ir.Diagnostic) {
	d := newDoc(file, ir.CodeConfigError, text)
	cfg := Config{Loc: map[string]ir.Loc{}}
	root := resolve(d.parse())
	if d.failed || root == nil || isNull(root) {
		return cfg, d.diags
	}
	if root.Kind != yaml.MappingNode {
		d.errorf(d.at(root), "%s must be a mapping of settings (backends, dialect, spark, samples, preview, limits), not %s", file, kindName(root))
		return cfg, d.diags
	}
	for _, p := range d.pairs(root, ir.Warning) {
		loc := d.valueLoc(p.key, p.raw)
		switch p.name {
		case "backends":
			cfg.Loc["backends"] = loc
			cfg.Backends = d.configBackends(p)
		case "dialect":
			cfg.Loc["dialect"] = loc
			if v, ok := d.configScalar(p); ok {
				if v != "spark" && v != "duckdb" && v != "databricks" {
					d.errorf(d.at(p.raw), "`dialect` must be `spark` (the default: queries are Spark SQL), `databricks` (Spark SQL with Databricks' pipeline statements, checked against the databricks backend) or `duckdb` (a pipeline that only runs natively, in DuckDB's syntax), not `%s`%s", v, didYouMean(v, dialects))
					break
				}
				cfg.Dialect = v
			}
		case "spark":
			cfg.Loc["spark"] = loc
			d.configSpark(p, &cfg)
		case "databricks":
			cfg.Loc["databricks"] = loc
			d.configBundle(p, &cfg)
		case "samples":
			cfg.Loc["samples"] = loc
			cfg.Samples = d.configSamples(p)
		case "preview":
			cfg.Loc["preview"] = loc
			d.configPreview(p, &cfg)
		case "limits":
			cfg.Loc["limits"] = loc
			d.configLimits(p, &cfg)
		default:
			d.unknownKey(p, "", configKeys)
		}
	}
	return cfg, d.diags
}

// unknownKey warns about a key thund.yaml does not define.
func (d *doc) unknownKey(p pair, section string, allowed []string) {
	where := d.file
	if section != "" {
		where = "`" + section + "` of " + d.file
	}
	d.add(ir.Warning, ir.CodeConfigError, d.at(p.key), fmt.Sprintf("unknown key `%s` in %s, ignored (known: %s)%s", p.name, where, strings.Join(allowed, ", "), didYouMean(p.name, allowed)))
}

// section checks that a value is a mapping (an empty value is allowed and
// means "not set").
func (d *doc) section(p pair, example string) bool {
	switch {
	case isNull(p.val):
		return false
	case p.val.Kind != yaml.MappingNode:
		d.errorf(d.at(p.raw), "`%s` must be a mapping (%s), not %s", p.name, example, kindName(p.val))
		return false
	}
	return true
}

// configBackends reads `backends:`, a list of backend names (a single name
// is accepted too).
func (d *doc) configBackends(p pair) []ir.Backend {
	names := make([]string, len(ir.AllBackends))
	for i, b := range ir.AllBackends {
		names[i] = string(b)
	}
	var items []*yaml.Node
	switch {
	case isNull(p.val):
		return nil
	case p.val.Kind == yaml.ScalarNode:
		items = []*yaml.Node{p.val}
	case p.val.Kind == yaml.SequenceNode:
		items = p.val.Content
	default:
		d.errorf(d.at(p.raw), "`backends` must be a list such as `[native, spark-4.1]`, not %s", kindName(p.val))
		return nil
	}
	if len(items) == 0 {
		d.add(ir.Warning, ir.CodeConfigError, d.at(p.raw), fmt.Sprintf("`backends` is empty, so the default (%s) applies: list at least one of %s", joinBackends(ir.DefaultBackends), quoteList(names)))
		return nil
	}
	var out []ir.Backend
	for _, raw := range items {
		it := resolve(raw)
		if it.Kind != yaml.ScalarNode || isNull(it) {
			d.errorf(d.at(raw), "a backend must be one of %s, not %s", quoteList(names), kindName(it))
			continue
		}
		b, ok := ir.ParseBackend(it.Value)
		if !ok {
			d.errorf(d.at(raw), "unknown backend `%s`: use %s (nearest: `%s`)", it.Value, quoteList(names), nearest(it.Value, names))
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == b
		}
		if dup {
			d.add(ir.Warning, ir.CodeConfigError, d.at(raw), fmt.Sprintf("backend `%s` is listed twice", b))
			continue
		}
		out = append(out, b)
	}
	return out
}

func joinBackends(bs []ir.Backend) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = string(b)
	}
	return strings.Join(s, ", ")
}

// configBundle reads `databricks: {pipeline, target}`, which choose among
// the pipelines and targets of the folder's databricks.yml.
func (d *doc) configBundle(p pair, cfg *Config) {
	if !d.section(p, "`pipeline: my_pipeline`, `target: dev`, `catalog: main`, `schema: sales`") {
		return
	}
	for _, e := range d.pairs(p.val, ir.Warning) {
		switch e.name {
		case "pipeline", "target", "catalog", "schema":
			cfg.Loc["databricks."+e.name] = d.valueLoc(e.key, e.raw)
			v, ok := d.configScalar(e)
			if !ok {
				continue
			}
			switch e.name {
			case "pipeline":
				cfg.BundlePipeline = v
			case "target":
				cfg.BundleTarget = v
			case "catalog":
				cfg.Catalog = v
			default:
				cfg.Schema = v
			}
		default:
			d.unknownKey(e, "databricks", bundleKeys)
		}
	}
}

// configSpark reads `spark: {remote, version}`.
func (d *doc) configSpark(p pair, cfg *Config) {
	if !d.section(p, "`remote: sc://host:15002`, `version: \"4.1\"`") {
		return
	}
	for _, e := range d.pairs(p.val, ir.Warning) {
		switch e.name {
		case "remote":
			cfg.Loc["spark.remote"] = d.valueLoc(e.key, e.raw)
			v, ok := d.configScalar(e)
			if !ok {
				continue
			}
			if !strings.HasPrefix(v, "sc://") {
				d.errorf(d.at(e.raw), "`spark.remote` must be a Spark Connect URL starting with `sc://` (for example `sc://localhost:15002`), not `%s`", v)
				continue
			}
			cfg.SparkRemote = v
		case "version":
			cfg.Loc["spark.version"] = d.valueLoc(e.key, e.raw)
			v, ok := d.configScalar(e)
			if !ok {
				continue
			}
			if _, ok := SparkBackendOf(v); !ok {
				d.errorf(d.at(e.raw), "`spark.version` must be \"4.1\", \"4.2\" or \"4.3\", not `%s` (nearest: \"%s\")", v, nearest(v, versions))
				continue
			}
			cfg.SparkVersion = v
		default:
			d.unknownKey(e, "spark", sparkKeys)
		}
	}
}

// SparkBackendOf returns the backend of a `spark.version` value ("4.1"
// is spark-4.1), or false when Thund supports no such version.
func SparkBackendOf(version string) (ir.Backend, bool) {
	for _, v := range versions {
		if v == version {
			return ir.Backend("spark-" + v), true
		}
	}
	return "", false
}

// SparkBackend is the Spark backend thund.yaml says a push targets: that
// of `spark.version`, else the newest Spark backend `backends` lists. It
// is false when thund.yaml says neither: a push then lowers for the
// server's own version (and for the newest supported when it cannot tell).
func (c Config) SparkBackend() (ir.Backend, bool) {
	if b, ok := SparkBackendOf(c.SparkVersion); ok {
		return b, true
	}
	for i := len(ir.SparkBackends) - 1; i >= 0; i-- {
		for _, b := range c.Backends {
			if b == ir.SparkBackends[i] {
				return b, true
			}
		}
	}
	return ir.SparkBackends[len(ir.SparkBackends)-1], false
}

// CheckedBackends are the backends diagnostics check: `backends` when
// set; otherwise native and, when `spark.version` names one, that Spark
// version (a pipeline meant for Spark 4.2 is checked against 4.2, not
// against the default), or native and databricks for `dialect:
// databricks`; nil when none is set (the caller applies
// ir.DefaultBackends).
func (c Config) CheckedBackends() []ir.Backend {
	if len(c.Backends) > 0 {
		return c.Backends
	}
	if c.Dialect == "databricks" {
		return []ir.Backend{ir.Native, ir.Databricks}
	}
	if b, ok := SparkBackendOf(c.SparkVersion); ok {
		return []ir.Backend{ir.Native, b}
	}
	return nil
}

// configScalar reads a single value; empty values are not set (no error),
// lists and mappings are errors.
func (d *doc) configScalar(e pair) (string, bool) {
	switch {
	case isNull(e.val):
		return "", false
	case e.val.Kind != yaml.ScalarNode:
		d.errorf(d.at(e.raw), "`%s` must be a single value, not %s", e.name, kindName(e.val))
		return "", false
	}
	return e.val.Value, true
}

// configSamples reads `samples:`, source table to path.
func (d *doc) configSamples(p pair) []SampleConfig {
	if !d.section(p, "`orders: samples/orders.csv`") {
		return nil
	}
	var out []SampleConfig
	seen := map[string]bool{}
	for _, e := range d.pairs(p.val, ir.Warning) {
		table := strings.ToLower(strings.TrimSpace(e.name))
		if table == "" {
			d.errorf(d.at(e.key), "a sample needs a table name: `table: path`")
			continue
		}
		v, ok := d.configScalar(e)
		if !ok || strings.TrimSpace(v) == "" {
			if ok || isNull(e.val) {
				d.errorf(d.valueLoc(e.key, e.raw), "sample `%s` has no path: give a file, a glob or a folder of micro-batches, relative to the pipeline folder", e.name)
			}
			continue
		}
		loc := d.at(e.raw)
		if !filepath.IsAbs(v) && !strings.HasPrefix(v, "/") && !Inside(".", v) {
			d.add(ir.Error, ir.CodePathEscape, loc, fmt.Sprintf("sample path `%s` leaves the pipeline folder: keep samples inside it", v))
			continue
		}
		if seen[table] {
			d.add(ir.Warning, ir.CodeConfigError, d.at(e.key), fmt.Sprintf("sample for `%s` is given twice (table names ignore case): the last one wins", table))
			for i := range out {
				if out[i].Table == table {
					out = append(out[:i], out[i+1:]...)
					break
				}
			}
		}
		seen[table] = true
		out = append(out, SampleConfig{Table: table, Path: v, Loc: loc})
	}
	return out
}

// configPreview reads `preview: {limit}`.
func (d *doc) configPreview(p pair, cfg *Config) {
	if !d.section(p, "`limit: 500`") {
		return
	}
	for _, e := range d.pairs(p.val, ir.Warning) {
		if e.name != "limit" {
			d.unknownKey(e, "preview", previewKeys)
			continue
		}
		cfg.Loc["preview.limit"] = d.valueLoc(e.key, e.raw)
		v, ok := d.configScalar(e)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 32)
		if err != nil || n <= 0 {
			d.errorf(d.at(e.raw), "`preview.limit` must be a positive whole number of rows (for example 500), not `%s`", v)
			continue
		}
		if n > PreviewMaxRows {
			d.errorf(d.at(e.raw), "`preview.limit` is at most %d rows per page, not %s: page through larger results (the default page size applies)", PreviewMaxRows, v)
			continue
		}
		cfg.PreviewLimit = int(n)
	}
}

// configLimits reads `limits: {query_timeout, memory, temp}`.
func (d *doc) configLimits(p pair, cfg *Config) {
	if !d.section(p, "`query_timeout: 2m`, `memory: 2GB`, `temp: 4GB`") {
		return
	}
	for _, e := range d.pairs(p.val, ir.Warning) {
		switch e.name {
		case "query_timeout":
			cfg.Loc["limits.query_timeout"] = d.valueLoc(e.key, e.raw)
			v, ok := d.configScalar(e)
			if !ok {
				continue
			}
			t, err := parseTimeout(v)
			switch {
			case err != nil:
				d.errorf(d.at(e.raw), "`limits.query_timeout` must be a duration such as `30s`, `2m` or `1m30s` (a bare number is seconds), not `%s`", v)
				continue
			case t <= 0:
				d.errorf(d.at(e.raw), "`limits.query_timeout` must be positive (for example `30s`), not `%s`", v)
				continue
			case t > MaxQueryTimeout:
				d.errorf(d.at(e.raw), "`limits.query_timeout` is at most %s, not `%s`", maxQueryTimeoutText, v)
				continue
			}
			cfg.QueryTimeout = t
		case "memory", "temp":
			key := "limits." + e.name
			cfg.Loc[key] = d.valueLoc(e.key, e.raw)
			v, ok := d.configScalar(e)
			if !ok {
				continue
			}
			size, msg := parseSize(v)
			if msg != "" {
				d.errorf(d.at(e.raw), "`%s` must be a size such as `512MB`, `2GB` or `1GiB`, not `%s`: %s", key, v, msg)
				continue
			}
			max := int64(MaxMemoryLimit)
			if e.name == "temp" {
				max = MaxTempLimit
			}
			if sizeBytes(size) > float64(max) {
				d.errorf(d.at(e.raw), "`%s` is at most %dGiB, not `%s`", key, max>>30, v)
				continue
			}
			if e.name == "memory" {
				cfg.MemoryLimit = size
			} else {
				cfg.TempLimit = size
			}
		default:
			d.unknownKey(e, "limits", limitsKeys)
		}
	}
}

// parseTimeout reads a Go duration ("30s", "2m", "1m30s", "500ms") or a
// bare number of seconds ("30", "1.5"). A number too large for a
// time.Duration comes back as the largest one, so that the caller says
// "at most".
func parseTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case math.IsNaN(f):
			return 0, fmt.Errorf("%s is not a number", v)
		case f > MaxQueryTimeout.Seconds():
			return math.MaxInt64, nil
		case f < 0:
			return -1, nil
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	t, err := time.ParseDuration(v)
	if err != nil && durationRE.MatchString(v) {
		return math.MaxInt64, nil // well formed, so too large
	}
	return t, err
}

// sizeBytes is the bytes of a size parseSize normalised (KB = 1000,
// KiB = 1024, as DuckDB reads them).
func sizeBytes(size string) float64 {
	i := strings.IndexFunc(size, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if i <= 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(size[:i], 64)
	mult := map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}[strings.ToUpper(size[i:])]
	return f * mult
}

// parseSize checks a DuckDB size, a positive number and one of sizeUnits
// ("2GB", "512 MiB", "1.5gb"), and returns it normalised ("2GB",
// "512MiB", "1.5GB"), or why it is not one.
func parseSize(v string) (string, string) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return "", "give a number, then one of " + strings.Join(sizeUnits, ", ")
	}
	unit := ""
	for _, u := range sizeUnits {
		if strings.EqualFold(u, m[2]) {
			unit = u
		}
	}
	if unit == "" {
		return "", fmt.Sprintf("unknown unit `%s`; use one of %s%s", m[2], strings.Join(sizeUnits, ", "), didYouMean(m[2], sizeUnits))
	}
	if f, err := strconv.ParseFloat(m[1], 64); err != nil || f <= 0 {
		return "", "the size must be more than 0"
	}
	return m[1] + unit, ""
}
