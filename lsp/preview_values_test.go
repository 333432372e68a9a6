package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewKeepsDecimalScale: a DECIMAL(10,2) value travels as the
// string "10.80", in the page and in the diff's removed rows, so a client
// that parses JSON numbers as doubles still shows its two decimals; other
// numbers stay JSON numbers.
func TestPreviewKeepsDecimalScale(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	c := startServer(t)
	file := filepath.Join(root, "transformations", "clean_orders.sql")
	u, _ := c.open(t, file)

	var raw json.RawMessage
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "clean_orders", Limit: 1}, &raw)
	var pr struct {
		Columns []struct{ Name, Type string } `json:"columns"`
		Rows    [][]json.RawMessage           `json:"rows"`
	}
	if err := json.Unmarshal(raw, &pr); err != nil || len(pr.Rows) != 1 {
		t.Fatalf("preview: %v %s", err, raw)
	}
	// The columns carry Spark's type names, as hover and completion show
	// them (and the VS Code preview's header).
	var types []string
	for _, c := range pr.Columns {
		types = append(types, c.Name+" "+c.Type)
	}
	if got, want := strings.Join(types, ", "), "order_id INT, customer_id STRING, product_id STRING, order_date DATE, quantity INT, unit_price DECIMAL(10,2), amount DECIMAL(21,2), status STRING"; got != want {
		t.Errorf("preview columns\n got %s\nwant %s", got, want)
	}
	// order_id, customer_id, product_id, order_date, quantity, unit_price, amount, status
	got := []string{string(pr.Rows[0][0]), string(pr.Rows[0][4]), string(pr.Rows[0][5]), string(pr.Rows[0][6])}
	want := []string{`10001`, `1`, `"10.80"`, `"10.80"`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("first row's order_id, quantity, unit_price, amount: got %v, want %v", got, want)
	}

	// Rows gone since the last preview keep their decimals and integers.
	b, _ := os.ReadFile(file)
	c.change(t, u, 2, strings.Replace(string(b), "FROM orders", "FROM orders WHERE order_id <> '10001'", 1))
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "clean_orders", Limit: 1}, &raw)
	var pr2 struct {
		Diff struct {
			Removed [][]json.RawMessage `json:"removed"`
		} `json:"diff"`
	}
	if err := json.Unmarshal(raw, &pr2); err != nil || len(pr2.Diff.Removed) != 1 {
		t.Fatalf("second preview: %v %s", err, raw)
	}
	r := pr2.Diff.Removed[0]
	got = []string{string(r[0]), string(r[4]), string(r[5]), string(r[6])}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("removed row's order_id, quantity, unit_price, amount: got %v, want %v", got, want)
	}
}
