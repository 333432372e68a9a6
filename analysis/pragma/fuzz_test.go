package pragma

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// FuzzHeader runs ScanHeader, ParseBlock and Interpret on arbitrary text:
// they must not panic, and every range must lie inside the text with Start
// <= End, with the texts the locations promise.
func FuzzHeader(f *testing.F) {
	for _, seed := range []string{
		"",
		"-- @",
		"\xef\xbb\xbf-- Doc\r\n-- @kind: table\r\nSELECT 1",
		"-- @kind: materialised_view\n-- @kind: view\nSELECT 1",
		"-- @expect.x: (a > 0 ON VIOLATION DROP ROW) on violation fail update\n",
		"-- @expect.y: s = 'abc\n-- @expect.z: a)\n",
		"-- @trigger: processing_time '10 secs'\n-- @watermark: ts, 5\n",
		"-- @cdc: keys=a, b sequence_by=ts scd=3 deletes=(op = 'D'\n",
		"-- @source: files path=\"my dir/*.json\" format=xml\n",
		"-- @backends: [native, spark-4.3\n-- @partition_by: (a,,b)\n",
		"-- @name: `a``b`.c\n-- @flow: .\n-- @target: db.\n",
		"-- @conf.a..b: 1\n-- @property.-x-: 2\n-- @sample.t: \n",
		"\t--\t@bad key: x\r-- @key value\r\n-- @kind.x: y\n",
		"-- caf\xe9 \xff\xfe\n-- @comment: \xf0\x9f\x98\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b := ScanHeader("f.sql", text)
		if b.Start != 0 || b.End < 0 || b.End > len(text) {
			t.Fatalf("header %d..%d in %d bytes", b.Start, b.End, len(text))
		}
		checkBlock(t, text, b)
		blocks := []Block{b, ParseBlock("f.sql", text, len(text)/3, len(text)), ParseBlock("f.sql", text, b.End, len(text))}
		for _, blk := range blocks[1:] {
			if blk.Start < 0 || blk.Start > blk.End || blk.End > len(text) {
				t.Fatalf("block %d..%d in %d bytes", blk.Start, blk.End, len(text))
			}
			checkBlock(t, text, blk)
		}
		for _, blk := range blocks {
			s, ds := Interpret("f.sql", blk)
			for _, d := range ds {
				checkLoc(t, text, d.Loc, d.Message)
				for _, r := range d.Related {
					checkLoc(t, text, r.Loc, r.Message)
				}
			}
			checkSettings(t, text, s)
		}
	})
}

func checkLoc(t *testing.T, text string, l ir.Loc, what string) {
	t.Helper()
	if l.File != "f.sql" || l.Start < 0 || l.Start > l.End || l.End > len(text) {
		t.Fatalf("bad range %+v (text %d bytes) for %q", l, len(text), what)
	}
}

func checkBlock(t *testing.T, text string, b Block) {
	t.Helper()
	for _, d := range b.Diags {
		checkLoc(t, text, d.Loc, d.Message)
		if d.Loc.Start < b.Start || d.Loc.End > b.End || d.Loc.Start == d.Loc.End {
			t.Fatalf("syntax diagnostic %+v outside block %d..%d or empty", d.Loc, b.Start, b.End)
		}
	}
	for _, p := range b.Pragmas {
		for _, l := range []ir.Loc{p.Line, p.KeyLoc, p.ValueLoc} {
			checkLoc(t, text, l, p.Key)
		}
		if p.Name != "" {
			checkLoc(t, text, p.NameLoc, p.Key)
			if text[p.NameLoc.Start:p.NameLoc.End] != p.Name {
				t.Fatalf("NameLoc text %q, Name %q", text[p.NameLoc.Start:p.NameLoc.End], p.Name)
			}
		}
		if text[p.KeyLoc.Start:p.KeyLoc.End] != "@"+p.Key {
			t.Fatalf("KeyLoc text %q, Key %q", text[p.KeyLoc.Start:p.KeyLoc.End], p.Key)
		}
		if !p.Bare && text[p.ValueLoc.Start:p.ValueLoc.End] != p.Value {
			t.Fatalf("ValueLoc text %q, Value %q", text[p.ValueLoc.Start:p.ValueLoc.End], p.Value)
		}
		if p.Line.Start < b.Start || p.Line.End > b.End {
			t.Fatalf("pragma line %+v outside block %d..%d", p.Line, b.Start, b.End)
		}
	}
}

func checkSettings(t *testing.T, text string, s Settings) {
	t.Helper()
	locs := []ir.Loc{s.KindLoc, s.NameLoc, s.FlowLoc, s.TargetLoc, s.OutputLoc, s.BackendsLoc}
	for _, e := range s.Expectations {
		locs = append(locs, e.Loc, e.SQLLoc)
		checkLoc(t, text, e.SQLLoc, e.Name)
		if text[e.SQLLoc.Start:e.SQLLoc.End] != e.SQL {
			t.Fatalf("expectation SQLLoc text %q, SQL %q", text[e.SQLLoc.Start:e.SQLLoc.End], e.SQL)
		}
	}
	for _, x := range s.Samples {
		locs = append(locs, x.Loc, x.KeyLoc, x.NameLoc)
	}
	if s.Source != nil {
		locs = append(locs, s.Source.Loc)
	}
	if s.Trigger != nil {
		locs = append(locs, s.Trigger.Loc)
	}
	if s.Watermark != nil {
		locs = append(locs, s.Watermark.Loc)
	}
	if s.CDC != nil {
		locs = append(locs, s.CDC.Loc)
	}
	for _, l := range locs {
		if l.IsZero() {
			continue
		}
		checkLoc(t, text, l, "setting")
	}
}

// FuzzValue aims the fuzzer at the value parsers: it builds one pragma line
// from every known key and an arbitrary value.
func FuzzValue(f *testing.F) {
	for _, seed := range []string{
		"processing_time '10 seconds'", "keys=(a, b) sequence_by=ts deletes=(x", "kafka topic='t", "a > 0 ON VIOLATION",
		"[native,", "(a, `b", "ts, ", "`", "files path=/ format=csv", "db.`x`.", "'", "( )",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		for _, k := range Keys {
			key := k.Key
			if k.Dotted {
				key += ".n"
			}
			text := "-- @" + key + ": " + value + "\nSELECT 1"
			b := ScanHeader("f.sql", text)
			checkBlock(t, text, b)
			s, ds := Interpret("f.sql", b)
			for _, d := range ds {
				checkLoc(t, text, d.Loc, d.Message)
			}
			checkSettings(t, text, s)
		}
	})
}
