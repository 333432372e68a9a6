package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlagsAfterTheFolder: flags may follow the folder (thund-watch
// --once DIR --limit 5), as in most command lines; a second folder is
// still a mistake, and after -- every argument is a folder.
func TestFlagsAfterTheFolder(t *testing.T) {
	var out, errb bytes.Buffer
	o, err := parseArgs([]string{"--once", "p", "--limit", "5", "--json"}, &out, &errb)
	if err != nil || o.dir != "p" || o.limit != 5 || !o.json || !o.once {
		t.Fatalf("got dir %q limit %d json %v once %v, err %v: %s", o.dir, o.limit, o.json, o.once, err, errb.String())
	}
	errb.Reset()
	if _, err := parseArgs([]string{"--check", "a", "b"}, &out, &errb); err == nil || !strings.Contains(errb.String(), "expected one pipeline folder, got 2 arguments: a b") {
		t.Errorf("two folders: err %v, %s", err, errb.String())
	}
	errb.Reset()
	if _, err := parseArgs([]string{"--check", "--", "-odd"}, &out, &errb); err != nil {
		t.Errorf("a folder after --: %v %s", err, errb.String())
	}
}
