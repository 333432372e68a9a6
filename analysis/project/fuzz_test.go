package project

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// checkLocs fails when a location is not a range of text in file.
func checkLocs(t *testing.T, file string, text []byte, what string, locs ...ir.Loc) {
	t.Helper()
	for _, l := range locs {
		if l.File != file || l.Start < 0 || l.Start > l.End || l.End > len(text) {
			t.Fatalf("%s: bad location %+v for %d bytes of %s", what, l, len(text), file)
		}
	}
}

// checkDiagLocs fails on diagnostics outside text or without a message.
func checkDiagLocs(t *testing.T, file string, text []byte, diags []ir.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Message == "" || d.Code == "" || d.Severity < ir.Error || d.Severity > ir.Hint {
			t.Fatalf("incomplete diagnostic %+v", d)
		}
		checkLocs(t, file, text, d.Message, d.Loc)
	}
}

var fuzzSeeds = []string{
	"",
	"\xef\xbb\xbf",
	"name: p\nstorage: file:///s\n",
	"name: my_pipeline\nstorage: file:///tmp/s\ncatalog: main\nschema: sales\nconfiguration:\n  spark.sql.shuffle.partitions: \"8\"\n  n: 8\nlibraries:\n  - glob:\n      include: transformations/**\n  - glob: {include: \"a/**/*.sql\", exclude: x}\n",
	"name: &n p\nstorage: *n\nlibraries: [{glob: {include: *n}}]\n",
	"name: p\r\nstorage: file:///s\r\nfoo: 1\r\n",
	"name: p\u0085storage: s\u2028x: 'é'\n",
	"name: p\n\tstorage: file:///s\n",
	"a: [1, {b: \"c\\\"\n",
	"a: |\n  x\nb: >-\n  y\n",
	"- a\n- b\n",
	"name: p\n---\nx: y\n",
	"name: p\xff\xfe\n",
	"a: !!str &x 5\nb: !!map {c: d}\n",
	"backends: [native, spark-4.0]\nspark:\n  remote: sc://h:1\n  version: \"4.2\"\nsamples:\n  Orders: ../x.csv\n  b: /abs.csv\npreview:\n  limit: 500\n",
	"spark: {version: 4.1, remote: [x]}\npreview: {limit: -1, x: 2}\nsamples: {a: , b: [c]}\n",
}

func FuzzSpec(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		const file = "pipe/spark-pipeline.yml"
		orig := string(text)
		spec, diags := ParseSpec(file, text)
		if string(text) != orig {
			t.Fatal("ParseSpec changed its input")
		}
		checkDiagLocs(t, file, text, diags)
		for key, l := range spec.Loc {
			checkLocs(t, file, text, "Loc["+key+"]", l)
		}
		for _, lib := range spec.Libraries {
			checkLocs(t, file, text, "library "+lib.Include, lib.Loc)
		}
		p := &Project{SpecFile: file, Spec: spec, HasSpec: true}
		_, ldiags := p.Libraries([]string{"a.sql", "transformations/b.sql", "transformations/c.py", "x/y/z.txt"})
		for _, d := range ldiags {
			if d.Loc.File != file || d.Loc.Start < 0 || d.Loc.Start > d.Loc.End || d.Loc.End > len(text) {
				t.Fatalf("library diagnostic out of range: %+v", d)
			}
		}
	})
}

func FuzzConfig(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		const file = "thund.yaml"
		orig := string(text)
		cfg, diags := ParseConfig(file, text)
		if string(text) != orig {
			t.Fatal("ParseConfig changed its input")
		}
		checkDiagLocs(t, file, text, diags)
		for key, l := range cfg.Loc {
			checkLocs(t, file, text, "Loc["+key+"]", l)
		}
		for _, s := range cfg.Samples {
			checkLocs(t, file, text, "sample "+s.Table, s.Loc)
			if !Inside(".", s.Path) && s.Path[0] != '/' {
				t.Fatalf("escaping sample kept: %+v", s)
			}
		}
		if cfg.PreviewLimit < 0 {
			t.Fatalf("negative limit %d", cfg.PreviewLimit)
		}
	})
}
