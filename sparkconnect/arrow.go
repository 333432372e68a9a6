package sparkconnect

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// QueryArrow runs a SQL query and decodes the Arrow IPC streams the server
// returns into record batches, read through the returned reader in the
// server's order. The reader holds every batch in memory (read back is
// for previews and checks, not bulk export); the caller must Release it.
//
// When the server sends no batch at all (it does for some empty
// results), the reader has an empty schema and no rows.
func (c *Client) QueryArrow(ctx context.Context, query string) (array.RecordReader, error) {
	var (
		schema  *arrow.Schema
		records []arrow.RecordBatch
	)
	release := func() {
		for _, r := range records {
			r.Release()
		}
	}
	n := 0
	err := c.Query(ctx, query, func(data []byte, _ int64) error {
		n++
		rdr, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return fmt.Errorf("spark connect SQL query: Arrow batch %d: %w", n, err)
		}
		defer rdr.Release()
		if schema == nil {
			schema = rdr.Schema()
		} else if !schema.Equal(rdr.Schema()) {
			return fmt.Errorf("spark connect SQL query: Arrow batch %d has schema %s, the first had %s", n, rdr.Schema(), schema)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			records = append(records, rec)
		}
		if err := rdr.Err(); err != nil {
			return fmt.Errorf("spark connect SQL query: Arrow batch %d: %w", n, err)
		}
		return nil
	})
	if err != nil {
		release()
		return nil, err
	}
	if schema == nil {
		schema = arrow.NewSchema(nil, nil)
	}
	rr, err := array.NewRecordReader(schema, records)
	// The reader retains what it keeps; drop our references.
	release()
	if err != nil {
		return nil, fmt.Errorf("spark connect SQL query: %w", err)
	}
	return rr, nil
}
