package lsp

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestCancelIDSpellings: the id of a $/cancelRequest, however the client
// spells it, gives the key of the request it names, and different ids
// give different keys.
func TestCancelIDSpellings(t *testing.T) {
	key := func(raw string) string {
		var id jsonrpc2.ID
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatalf("id %s: %v", raw, err)
		}
		return idKey(id)
	}
	run, seven := idKey(jsonrpc2.NewStringID("run")), idKey(jsonrpc2.NewNumberID(7))
	for raw, want := range map[string]string{`"run"`: run, `"\u0072un"`: run, `7`: seven} {
		if got := key(raw); got != want {
			t.Errorf("id %s: key %s, want %s", raw, got, want)
		}
	}
	if run == seven || key(`"7"`) == seven {
		t.Errorf("distinct ids share a key: %s %s %s", run, seven, key(`"7"`))
	}
}
