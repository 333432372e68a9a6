package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// columnNeedle is a column reference every generated query has.
const columnNeedle = "customer_id"

// BenchmarkLSPColumnHover: hover on a column reference in a 2,000-file
// pipeline (its type and origin, from the column lineage).
func BenchmarkLSPColumnHover(b *testing.B) {
	benchRequest(b, protocol.MethodTextDocumentHover, func(u protocol.DocumentURI, text string) any {
		return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: positionAt(text, columnNeedle, 2)}
	}, func(res json.RawMessage) error {
		if !strings.Contains(string(res), "**customer_id**") {
			return fmt.Errorf("hover %s", res)
		}
		return nil
	})
}

// BenchmarkLSPColumnHoverAfterEdit: a column hover sent right after a
// didChange of the same file: the request brings the snapshot up to date
// and computes the column model of the edited flow again.
func BenchmarkLSPColumnHoverAfterEdit(b *testing.B) {
	c, u, text := pipeline2k(b)
	pos := positionAt(text, columnNeedle, 2)
	version := int32(1)
	do := func() time.Duration {
		version++
		var res json.RawMessage
		start := time.Now()
		c.change(b, u, version, fmt.Sprintf("-- edit %d\n%s", version, text))
		c.call(b, protocol.MethodTextDocumentHover, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position: protocol.Position{Line: pos.Line + 1, Character: pos.Character}}, &res)
		took := time.Since(start)
		if !strings.Contains(string(res), "**customer_id**") {
			b.Fatalf("hover %s", res)
		}
		return took
	}
	for i := 0; i < 10; i++ {
		do()
	}
	n := max(b.N, minSamples)
	d := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := 0; i < n; i++ {
		d = append(d, do())
	}
	b.StopTimer()
	reportLatencies(b, d, 0)
}
