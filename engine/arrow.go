//go:build duckdb_arrow

package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// queryArrowOn runs query on conn through DuckDB's Arrow interface (the
// duckdb_arrow build tag, which the Makefile always sets).
func queryArrowOn(ctx context.Context, conn *sql.Conn, query string, fn func(array.RecordReader) error) error {
	return conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return fmt.Errorf("arrow interface: %w", err)
		}
		rdr, err := ar.QueryContext(ctx, query)
		if err != nil {
			return explain(err)
		}
		defer rdr.Release()
		if err := fn(rdr); err != nil {
			return err
		}
		return explain(rdr.Err())
	})
}
