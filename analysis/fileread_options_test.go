package analysis

import (
	"reflect"
	"testing"
)

// TestFileReadOf checks the format and options read from the calls of a
// read of files as written.
func TestFileReadOf(t *testing.T) {
	cases := []struct {
		call string
		want FileRead
	}{
		{"read_files('/Volumes/x/orders', format => 'json', multiLine => true, `cloudFiles.x` => 'y')",
			FileRead{Format: "json", Options: map[string]string{"multiLine": "true", "cloudFiles.x": "y"}}},
		{"read_files('/landing/o', format => \"CSV\", header => 'true', schema => 'a INT')",
			FileRead{Format: "csv", Options: map[string]string{"header": "true"}, Schema: true}},
		{"cloud_files(\"${source}/orders\", \"json\", map(\"cloudFiles.inferColumnTypes\", \"true\"))",
			FileRead{Format: "json", Options: map[string]string{"cloudFiles.inferColumnTypes": "true"}, AutoLoader: true}},
		{"cloud_files('/l/o', 'csv')", FileRead{Format: "csv", Options: map[string]string{}, AutoLoader: true}},
		{"STREAM read_files('/l/o', format => 'json')", FileRead{Format: "json", Options: map[string]string{}}},
		{"json.`/data/events`", FileRead{Format: "json", Options: map[string]string{}}},
		{"read_files('/l/o', format => concat('js', 'on'))", FileRead{Options: map[string]string{}, Computed: true}},
	}
	for _, c := range cases {
		got, ok := FileReadOf(c.call)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("FileReadOf(%s) = %+v, %v; want %+v", c.call, got, ok, c.want)
		}
	}
	if _, ok := FileReadOf("orders"); ok {
		t.Errorf("a table name is not a read of files")
	}
	if (FileRead{AutoLoader: true}).InfersColumnTypes() {
		t.Errorf("Auto Loader infers column types only with cloudFiles.inferColumnTypes")
	}
	if !(FileRead{AutoLoader: true, Options: map[string]string{"cloudFiles.inferColumnTypes": "TRUE"}}).InfersColumnTypes() || !(FileRead{}).InfersColumnTypes() {
		t.Errorf("inferColumnTypes true, or a read that is not Auto Loader's, infers column types")
	}
}
