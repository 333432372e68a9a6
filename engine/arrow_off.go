//go:build !duckdb_arrow

package engine

import (
	"context"
	"database/sql"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// queryArrowOn reports that this binary was built without DuckDB's Arrow
// interface: results are read through Arrow only with the duckdb_arrow
// build tag (`make build` sets it; `go build -tags duckdb_arrow` does too).
func queryArrowOn(context.Context, *sql.Conn, string, func(array.RecordReader) error) error {
	return errors.New("this build of Thund has no Arrow results: rebuild with `make build` (or go build -tags duckdb_arrow)")
}
