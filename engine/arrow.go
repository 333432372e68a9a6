//go:build duckdb_arrow

package engine

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// queryArrowOn runs query on conn through DuckDB's Arrow interface (the
// duckdb_arrow build tag, which the Makefile always sets).
func queryArrowOn(ctx context.Context, conn *sql.Conn, query string, fn func(array.RecordReader) error) error {
	return conn.Raw(func(dc any) error {
		g, err := guardOf(dc)
		if err != nil {
			return err
		}
		// The Arrow interface prepares the text itself (running all but
		// the last statement of a text of several): check it first.
		st, err := g.prepareOne(ctx, query)
		if err != nil {
			return explain(err)
		}
		st.Close()
		ar, err := duckdb.NewArrowFromConn(g.c)
		if err != nil {
			return fmt.Errorf("arrow interface: %w", err)
		}
		lctx, cancel := limited(ctx, g.timeout)
		defer cancel()
		rdr, err := ar.QueryContext(lctx, query)
		if err = limitErr(ctx, lctx, g.timeout, err); err != nil {
			return explain(err)
		}
		defer rdr.Release()
		if err := fn(rdr); err != nil {
			return err
		}
		return explain(rdr.Err())
	})
}
