package engine

import (
	"context"
	"path/filepath"
	"testing"
)

// TestNamesEndingAlike runs testdata/naming_qualified as `thund-watch
// --once` does: a.x and b.x (two schemas), the source raw.orders and the
// dataset orders, and files read from a path ending in the dataset name
// customers are distinct relations, each with its own rows, also in a
// second run of the same session limited to one dataset.
func TestNamesEndingAlike(t *testing.T) {
	snap, s := load(t, filepath.Join("..", "testdata", "naming_qualified"))
	want := map[string]string{
		"a.x":           "id\n1\n",
		"b.x":           "id\n2\n",
		"both_x":        "id\n1\n2\n",
		"orders":        "id,doubled\n1,20\n2,40\n",
		"order_total":   "total\n60\n",
		"customers_raw": "id,name\n1,ann\n2,bob\n3,cy\n",
		"customers":     "id,name\n1,ANN\n2,BOB\n3,CY\n",
	}
	for run, only := range []map[string]bool{nil, {"order_total": true}} {
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Only: only})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range res.Order {
			if d := res.Datasets[k]; d.Phase != Completed {
				t.Fatalf("run %d: %s %s: %s", run, d.Name, d.Phase, d.Error)
			}
		}
		for name, rows := range want {
			if got := datasetRows(t, s, name); got != rows {
				t.Errorf("run %d: %s holds\n%s want\n%s", run, name, got, rows)
			}
		}
	}
}
