package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkPushReadsServerVersion: a push reads the server's Spark
// version from the server and lowers for it, saying so when thund.yaml
// names another version (or none); when thund.yaml names the server's
// version there is nothing to say.
func TestSparkPushReadsServerVersion(t *testing.T) {
	remote := sparktest.Need(t)
	release := sparktest.Release()
	server := sparkconnect.MinorVersion(release)
	other := "4.1"
	if server == other {
		other = "4.3"
	}
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"another version", "spark:\n  version: \"" + other + "\"\n",
			"spark  the server runs Spark " + release + " and thund.yaml says `spark: version: \"" + other + "\"`: lowering for spark-" + server + ", the server's version\n"},
		{"no version", "",
			"spark  the server runs Spark " + release + " and thund.yaml names no Spark version: lowering for spark-" + server + "\n"},
		{"the server's version", "spark:\n  version: \"" + server + "\"\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, "../../testdata/sdp_project", dir)
			if c.yaml != "" {
				if err := os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte(c.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out, errb bytes.Buffer
			if code := run([]string{"--once", "--limit", "1", "--spark", remote, "--dry-run", dir}, &out, &errb); code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
			}
			got := out.String()
			if c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, got)
			}
			if c.want == "" && strings.Contains(got, "the server runs Spark") {
				t.Errorf("a note on the version though thund.yaml names the server's:\n%s", got)
			}
			if !strings.Contains(got, "spark  dry run completed") {
				t.Errorf("no completed dry run:\n%s", got)
			}
			if !ir.IsSpark(ir.Backend("spark-" + server)) {
				t.Errorf("the server's Spark %s is not a supported backend", release)
			}
		})
	}
}
