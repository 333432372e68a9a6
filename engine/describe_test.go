package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestDescriberDefine(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cols, err := d.Define(ctx, "db.base", "SELECT 1 AS id, 'x' AS name, [1.5] AS xs")
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{{"id", "INTEGER"}, {"name", "VARCHAR"}, {"xs", "DECIMAL(2,1)[]"}}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %v", cols)
	}
	// Positions are byte offsets into the query passed, past multi-byte
	// characters and line breaks.
	query := "SELECT 'é€🚀' AS tag,\r\n  nmae FROM base"
	_, err = d.Define(ctx, "next", query)
	var e *SQLError
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a *SQLError", err)
	}
	if e.Type != "Binder" || e.Subtype != "COLUMN_NOT_FOUND" || e.Name != "nmae" || !reflect.DeepEqual(e.Candidates, []string{"name"}) {
		t.Errorf("error %+v", e)
	}
	if e.Position < 0 || query[e.Position:e.Position+4] != "nmae" {
		t.Errorf("position %d", e.Position)
	}
	if err := d.Append(ctx, "base", "SELECT 2 AS id"); err != nil {
		t.Errorf("append by name: %v", err)
	}
	if err := d.Check(ctx, "base", "id > 0 AND name <> ''"); err != nil {
		t.Errorf("check: %v", err)
	}
	// Bound in DuckDB's rendering, "(idd > 0)": the name, not an offset.
	if err := d.Check(ctx, "base", "idd > 0"); !errors.As(err, &e) || e.Name != "idd" || e.Position != -1 {
		t.Errorf("check: %v", err)
	}
}

// TestDescriberSandboxed: the describing connection is as sandboxed as
// every other, and its temporary tables are not visible to them.
func TestDescriberSandboxed(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Define(ctx, "x", "SELECT * FROM read_csv('/etc/passwd')"); !errors.Is(err, ErrSandbox) {
		t.Errorf("reading outside the root: %v", err)
	}
	if _, err := d.Define(ctx, "hidden", "SELECT 1 AS a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "SELECT * FROM hidden"); err == nil {
		t.Error("another connection sees the describing connection's tables")
	}
	// Other connections keep plain-text errors.
	err = s.Exec(ctx, "SELECT nope")
	if err == nil || err.Error()[0] == '{' {
		t.Errorf("plain error expected, got %v", err)
	}
}

// TestDescriberOneAtATime: a second Describer waits for the first.
func TestDescriberOneAtATime(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.Describer(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second Describer: %v", err)
	}
	if _, err := d.Define(ctx, "t", "SELECT 1 AS a"); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close() // twice is fine
	d2, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if _, err := d2.Columns(ctx, "t"); err == nil {
		t.Error("the first Describer's table survived Close")
	}
}

// TestDescriberSources: samples become empty tables, kept while the files
// do not change.
func TestDescriberSources(t *testing.T) {
	snap, s := load(t, "../testdata/retail")
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if failed := d.RegisterSources(ctx, snap.Pipeline); len(failed) > 0 {
		t.Fatal(failed)
	}
	cols, err := d.Columns(ctx, "customers")
	if err != nil || len(cols) != 4 || cols[3] != (Column{"signup_date", "DATE"}) {
		t.Fatalf("customers: %v %v", cols, err)
	}
	d.Close()
	if len(s.desc.sources) != 3 {
		t.Errorf("kept sources: %v", s.desc.sources)
	}
	// A changed sample is sniffed again.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sig := filesSignature(filepath.Join(dir, "*.csv"))
	if err := os.WriteFile(filepath.Join(dir, "y.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if filesSignature(filepath.Join(dir, "*.csv")) == sig {
		t.Error("a new file does not change the signature")
	}
}
