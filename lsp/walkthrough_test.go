package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestRetailEveryColumnAndCTE is issue 19's walkthrough on testdata/retail:
// every name in every query that hovers as a column or a CTE also jumps to
// a definition, has references (its own name among them), and is renamed
// (a rename with edits; only a source's column is refused, with the
// reason).
func TestRetailEveryColumnAndCTE(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	files, err := filepath.Glob(filepath.Join(root, "transformations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	ident := regexp.MustCompile("[A-Za-z_][A-Za-z0-9_]*")
	kinds := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		u, _ := c.open(t, f)
		base := filepath.Base(f)
		for _, m := range ident.FindAllStringIndex(text, -1) {
			lineStart := strings.LastIndex(text[:m[0]], "\n") + 1
			if strings.Contains(text[lineStart:m[0]], "--") {
				continue // a comment or a pragma
			}
			word := text[m[0]:m[1]]
			pos := posOf(t, text, word, strings.Count(text[:m[0]], word), 1)
			at := base + ":" + word + "@" + strings.TrimSpace(text[lineStart:m[1]])
			var h *protocol.Hover
			c.call(t, protocol.MethodTextDocumentHover, tdp(u, pos), &h)
			if h == nil {
				continue
			}
			first, _, _ := strings.Cut(h.Contents.Value, "\n")
			kind := ""
			switch {
			case strings.Contains(first, "· common table expression"):
				kind = "CTE"
			case strings.HasPrefix(first, "**"+word+"**") && !strings.Contains(first, "· source table") && !strings.Contains(first, "view") && !strings.Contains(first, "table"):
				kind = "column"
			case strings.HasPrefix(first, "**"+word+"** · ") && strings.Contains(h.Contents.Value, "olumn of"):
				kind = "column"
			default:
				continue
			}
			kinds[kind]++
			if h.Range == nil || h.Range.Start.Line != pos.Line {
				t.Errorf("%s: hover range %+v", at, h.Range)
			}
			var defs []protocol.Location
			c.call(t, protocol.MethodTextDocumentDefinition, tdp(u, pos), &defs)
			if len(defs) == 0 {
				t.Errorf("%s: no definition", at)
			}
			var refs []protocol.Location
			c.call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp(u, pos),
				Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &refs)
			self := false
			for _, r := range refs {
				self = self || filepath.Base(r.URI.Filename()) == base && r.Range.Start.Line == pos.Line &&
					r.Range.Start.Character <= pos.Character && pos.Character <= r.Range.End.Character
			}
			if !self {
				t.Errorf("%s: the references (%d) do not hold the name itself", at, len(refs))
			}
			var prep map[string]any
			_, perr := c.conn.Call(context.Background(), protocol.MethodTextDocumentPrepareRename,
				&protocol.PrepareRenameParams{TextDocumentPositionParams: tdp(u, pos)}, &prep)
			if perr != nil {
				if rpcCode(t, perr) != RequestFailed || !strings.Contains(perr.Error(), "is a column of the source") {
					t.Errorf("%s: prepareRename refused: %v", at, perr)
				}
				kinds["source column"]++
				continue
			}
			if ph, _ := prep["placeholder"].(string); !strings.EqualFold(ph, word) {
				t.Errorf("%s: prepareRename placeholder %v", at, prep)
			}
			var edit struct {
				DocumentChanges []json.RawMessage `json:"documentChanges"`
			}
			_, rerr := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename,
				&protocol.RenameParams{TextDocumentPositionParams: tdp(u, pos), NewName: "renamed_" + strings.ToLower(word)}, &edit)
			switch {
			case rerr != nil:
				// on retail, every column but a source's can be renamed
				t.Errorf("%s: rename refused: %v", at, rerr)
			default:
				edits := workspaceEdits(t, edit.DocumentChanges)
				if len(edits[base]) == 0 {
					t.Errorf("%s: the rename does not edit its own file: %v", at, edits)
				}
			}
		}
	}
	// What the walk met: retail's CTEs (product_sales and ranked, at
	// their definitions and references), its columns, and the source
	// columns, whose rename is refused.
	if kinds["CTE"] < 5 || kinds["column"] < 100 || kinds["source column"] < 10 {
		t.Errorf("the walk met %v", kinds)
	}
	t.Logf("walked %v", kinds)
}
