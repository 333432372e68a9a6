package engine

// DuckDBOnlyFunction reports whether name (lower case) called with args
// arguments is one of DuckDB's own functions that Spark SQL lacks
// (analysis.NotPortable): a query calling one was written for DuckDB, and
// a native run runs its text instead of refusing its translation. Plain
// --check follows the same rule (translate.Options.DuckDBOnly).
func DuckDBOnlyFunction(name string, args int) bool { return duckDBOnly(name, args) }
