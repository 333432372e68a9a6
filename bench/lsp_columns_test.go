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

// BenchmarkLSPColumnCompletionAfterEdit: the user types `a.` in a select
// list of a 2,000-file pipeline and the client asks for completion at once:
// each didChange (a new text, which does not parse) is followed by a
// completion at the cursor, which offers the columns of a's table.
func BenchmarkLSPColumnCompletionAfterEdit(b *testing.B) {
	c, u, text := pipeline2k(b)
	const anchor = "SELECT a.id, "
	if !strings.Contains(text, anchor) {
		b.Fatalf("the file has no %q:\n%s", anchor, text)
	}
	// the typo pipeline2k opened the file with, fixed
	c.change(b, u, 2, text)
	c.waitVersion(b, u, 2)
	version := int32(2)
	do := func() time.Duration {
		version++
		typed := fmt.Sprintf("%s/* %d */ a.", anchor, version)
		next := strings.Replace(text, anchor, typed, 1)
		pos := positionAt(next, typed, len(typed))
		var list protocol.CompletionList
		start := time.Now()
		c.change(b, u, version, next)
		c.call(b, protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &list)
		took := time.Since(start)
		found := false
		for _, it := range list.Items {
			found = found || it.Label == "customer_id"
		}
		if !found {
			b.Fatalf("completion after a. lacks customer_id: %d items", len(list.Items))
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
