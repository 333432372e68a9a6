package report

import (
	"database/sql"
	"fmt"
	"runtime/debug"
	"strings"

	// The DuckDB driver, asked for its library version.
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/ir"
)

// VersionLine is what `--version` prints for a binary: Thund's version
// (the module version, else the VCS revision it was built from), the
// DuckDB library it embeds, and the Spark backends it checks (and pushes
// to over Spark Connect).
func VersionLine(binary string) string {
	var spark []string
	for _, b := range ir.SparkBackends {
		spark = append(spark, strings.TrimPrefix(string(b), "spark-"))
	}
	return fmt.Sprintf("%s %s (DuckDB %s; Spark %s over Spark Connect)", binary, thundVersion(), duckDBVersion(), strings.Join(spark, ", "))
}

// thundVersion is the main module's version, or "devel" with the
// revision and "+dirty" for a build from a modified work tree.
func thundVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	out := "devel"
	if rev != "" {
		out += " " + rev[:min(12, len(rev))]
		if dirty {
			out += "+dirty"
		}
	}
	return out
}

// duckDBVersion asks the embedded DuckDB library for its version (an
// in-memory database that touches no file).
func duckDBVersion() string {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return "unknown"
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT library_version FROM pragma_version()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}
