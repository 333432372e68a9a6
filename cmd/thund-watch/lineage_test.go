package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckLineage(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"--check", "--lineage", "clean_orders.amount", "../../testdata/retail"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"Lineage of clean_orders.amount · DECIMAL(21,2) (transformations/clean_orders.sql:16)", // Spark: INT * DECIMAL(10,2)
		"clean_orders.amount\n├── orders.quantity (expression)\n└── orders.unit_price (expression)\n",
		"Downstream, the columns computed from it:\nclean_orders.amount\n├── order_lines.amount (passthrough)\n",
		"billable_lines.amount (passthrough)",
		"daily_revenue.revenue (aggregate)",
		"order_lines.discount (expression)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}

	out.Reset()
	if code := run([]string{"--check", "--json", "--lineage", "order_lines.amount", "../../testdata/retail"}, &out, &errb); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	var obj struct {
		Type     string `json:"type"`
		Upstream struct {
			Children []struct {
				ID   struct{ Table, Column string } `json:"id"`
				Kind string                         `json:"kind"`
			} `json:"children"`
		} `json:"upstream"`
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if err := json.Unmarshal([]byte(first), &obj); err != nil || obj.Type != "lineage" || len(obj.Upstream.Children) == 0 ||
		obj.Upstream.Children[0].ID.Table != "clean_orders" || obj.Upstream.Children[0].Kind != "passthrough" {
		t.Errorf("--json lineage object: %v %+v\n%s", err, obj, first)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--check", "--lineage", "clean_orders.nope", "../../testdata/retail"}, 2, "clean_orders has no column nope; its columns: order_id,"},
		{[]string{"--check", "--lineage", "nowhere.x", "../../testdata/retail"}, 2, "nowhere is not a dataset or source table"},
		{[]string{"--check", "--lineage", "amount", "../../testdata/retail"}, 2, "give DATASET.COLUMN"},
		{[]string{"--lineage", "clean_orders.amount", "../../testdata/retail"}, 2, "--lineage goes with --check"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.msg)
		}
	}
}
