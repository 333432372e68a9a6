package engine

import (
	"strings"
	"testing"
)

// TestAutoLoaderCSVIsText: Auto Loader reads a CSV file's columns as
// STRING unless cloudFiles.inferColumnTypes is true (Databricks' schema
// inference), in SQL (cloud_files) and in Python (cloudFiles) alike;
// read_files and a read with the option infer the types.
func TestAutoLoaderCSVIsText(t *testing.T) {
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"cloud_files", "p.sql", "CREATE OR REFRESH STREAMING TABLE o AS SELECT id, amount, day FROM STREAM cloud_files('/landing/orders', 'csv');\n", "VARCHAR VARCHAR VARCHAR"},
		{"inferColumnTypes", "p.sql", "CREATE OR REFRESH STREAMING TABLE o AS SELECT id, amount, day FROM STREAM cloud_files('/landing/orders', 'csv', map('cloudFiles.inferColumnTypes', 'true'));\n", "INTEGER DOUBLE DATE"},
		{"read_files", "p.sql", "CREATE OR REFRESH MATERIALIZED VIEW o AS SELECT id, amount, day FROM read_files('/landing/orders', format => 'csv');\n", "INTEGER DOUBLE DATE"},
		{"python cloudFiles", "p.py", "import dlt\n\n@dlt.table\ndef o():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"csv\").option(\"header\", \"true\").load(\"/landing/orders\")\n", "VARCHAR VARCHAR VARCHAR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, res := runFiles(t, t.TempDir(), map[string]string{
				"thund.yaml":               "dialect: databricks\n",
				"samples/orders/part1.csv": "id,amount,day\n1,2.5,2024-01-01\n",
				tc.file:                    tc.text,
			})
			if d := res.Datasets["o"]; d == nil || d.Phase != Completed {
				t.Fatalf("o = %+v", d)
			}
			rows, err := s.DB().Query("SELECT data_type FROM information_schema.columns WHERE table_name = 'o' AND column_name IN ('id', 'amount', 'day') ORDER BY ordinal_position")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var types []string
			for rows.Next() {
				var ty string
				if err := rows.Scan(&ty); err != nil {
					t.Fatal(err)
				}
				types = append(types, ty)
			}
			if got := strings.Join(types, " "); got != tc.want {
				t.Errorf("types %s, want %s", got, tc.want)
			}
		})
	}
}

// TestPythonAutoLoaderJSON: a Python cloudFiles load of JSON files gets
// Auto Loader's inference, as cloud_files(path, 'json') does: every
// column a STRING without cloudFiles.inferColumnTypes, Spark's types and
// the fields sorted by name with it.
func TestPythonAutoLoaderJSON(t *testing.T) {
	for opt, want := range map[string]string{
		"": "country:VARCHAR seq:VARCHAR user_id:VARCHAR",
		".option(\"cloudFiles.inferColumnTypes\", \"true\")": "country:VARCHAR seq:BIGINT user_id:BIGINT",
	} {
		s, res := runFiles(t, t.TempDir(), map[string]string{
			"thund.yaml":           "dialect: databricks\n",
			"samples/users/1.json": "{\"user_id\": 1, \"seq\": 1, \"country\": \"US\"}\n",
			"a.py":                 "import dlt\n\n@dlt.table\ndef o():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"json\")" + opt + ".load(\"/Volumes/m/w/users\")\n",
		})
		if d := res.Datasets["o"]; d == nil || d.Phase != Completed {
			t.Fatalf("%q: o = %+v", opt, d)
		}
		rows, err := s.DB().Query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'o' ORDER BY ordinal_position")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var n, ty string
			if err := rows.Scan(&n, &ty); err != nil {
				t.Fatal(err)
			}
			got = append(got, n+":"+ty)
		}
		rows.Close()
		if strings.Join(got, " ") != want {
			t.Errorf("%q: columns %v, want %s", opt, got, want)
		}
	}
}
