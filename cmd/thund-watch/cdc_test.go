package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cdcCopy copies testdata/cdc into a temporary folder with thund.yaml
// replaced by config.
func cdcCopy(t *testing.T, config string) string {
	t.Helper()
	dir := copyPipeline(t, "cdc")
	if err := os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cdcRefusal is what each Spark version refuses of testdata/cdc (both
// tables Delta tables, customers_scd1 SCD 1, customers_scd2 SCD 2), by
// file, at the @cdc value (line 7, column 10).
var cdcRefusal = map[string]map[string]string{
	// No apply-changes flow at all.
	"4.1": {
		"customers_scd1": "customers_scd1 uses CDC apply changes, which spark-4.1 cannot run: ",
		"customers_scd2": "customers_scd2 uses CDC apply changes, which spark-4.1 cannot run: ",
	},
	// SCD 1 only, and into no format here (Delta is refused).
	"4.2": {
		"customers_scd1": "customers_scd1 applies changes (@cdc), which spark-4.2 does only into a table that supports row-level operations (MERGE), and its table format, delta, does not",
		"customers_scd2": "customers_scd2 uses CDC apply changes as SCD type 2, which spark-4.2 cannot run: ",
	},
	// No table format that merges loads into Spark 4.3.0.
	"4.3": {
		"customers_scd1": "customers_scd1 applies changes (@cdc), which spark-4.3 does only into a table that supports row-level operations (MERGE), and its table format, delta, does not",
		"customers_scd2": "customers_scd2 applies changes (@cdc), which spark-4.3 does only into a table that supports row-level operations (MERGE), and its table format, delta, does not",
	},
}

// TestCheckRefusesCDCOnSpark: --check on testdata/cdc with a Spark backend
// and that Spark version in thund.yaml (the issue-18 setup, where
// spark-4.2 passed and the push sent the apply-changes flows as plain
// appends) gives an error at each @cdc value that version cannot apply,
// naming the backend, and exits 1.
func TestCheckRefusesCDCOnSpark(t *testing.T) {
	for _, version := range []string{"4.1", "4.2", "4.3"} {
		t.Run(version, func(t *testing.T) {
			dir := cdcCopy(t, fmt.Sprintf("backends: [native, spark-%s]\nspark:\n  version: %q\n", version, version))
			var out, errb bytes.Buffer
			if code := run([]string{"--check", dir}, &out, &errb); code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
			}
			for file, msg := range cdcRefusal[version] {
				want := fmt.Sprintf("%s.sql:7:10: error: %s", file, msg)
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			errs := fmt.Sprintf("%d errors", len(cdcRefusal[version]))
			if len(cdcRefusal[version]) == 1 {
				errs = "1 error"
			}
			sum := "3 datasets, 3 flows: " + errs + ", 0 warnings"
			for _, want := range []string{"[unsupported-on-backend]", sum} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			if errb.Len() > 0 {
				t.Errorf("stderr: %s", errb.String())
			}
		})
	}
}

// TestCheckSparkVersionWithoutBackends: `spark: version: "4.2"` without
// `backends:` checks spark-4.2 beside native (it checked spark-4.1).
func TestCheckSparkVersionWithoutBackends(t *testing.T) {
	dir := cdcCopy(t, "spark:\n  version: \"4.2\"\n")
	var out, errb bytes.Buffer
	if code := run([]string{"--check", dir}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	for file, msg := range cdcRefusal["4.2"] {
		if want := file + ".sql:7:10: error: " + msg; !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "spark-4.1") {
		t.Errorf("spark-4.1 checked though thund.yaml says 4.2:\n%s", out.String())
	}
}

// listenCounting listens on a loopback port and counts the connections
// made to it: a push that is refused before anything is sent makes none.
func listenCounting(t *testing.T) (remote string, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return "sc://" + l.Addr().String(), accepted
}

// TestOncePushRefusesCDC: --once --spark with `spark: version` 4.1, 4.2
// or 4.3 refuses what that version cannot apply of testdata/cdc before
// connecting: the errors are printed at each @cdc value and the exit
// status is 1.
func TestOncePushRefusesCDC(t *testing.T) {
	for _, version := range []string{"4.1", "4.2", "4.3"} {
		t.Run(version, func(t *testing.T) {
			dir := cdcCopy(t, fmt.Sprintf("backends: [native, spark-%s]\nspark:\n  version: %q\n", version, version))
			remote, accepted := listenCounting(t)
			var out, errb bytes.Buffer
			if code := run([]string{"--once", "--limit", "1", "--spark", remote, "--dry-run", dir}, &out, &errb); code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
			}
			wants := []string{fmt.Sprintf("spark  not sent to %s: %d finding(s) spark-%s cannot run", remote, len(cdcRefusal[version]), version)}
			for file, msg := range cdcRefusal[version] {
				wants = append(wants, fmt.Sprintf("%s.sql:7:10: error: %s", file, msg))
			}
			for _, want := range wants {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			if n := accepted.Load(); n != 0 {
				t.Errorf("%d connection(s) to the Spark server: the refused pipeline was sent", n)
			}
		})
	}
}

// TestWatchPushRefusesCDC: watch mode's push after each run (the same
// lowering as --once) refuses testdata/cdc for spark-4.2 without
// connecting.
func TestWatchPushRefusesCDC(t *testing.T) {
	dir := cdcCopy(t, "backends: [native, spark-4.2]\nspark:\n  version: \"4.2\"\n")
	remote, accepted := listenCounting(t)
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"--json", "--spark", remote, "--dry-run", dir}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, code := startWatch(ctx, o, &stderr)
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, 1<<20)
	// The first Spark line says what the push did: "refused", or
	// "running" (or "failed" to connect) when the pipeline went out.
	spark := ""
	for spark == "" && sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		if obj["type"] == "event" && obj["backend"] != nil && obj["backend"] != "" {
			spark = sc.Text()
		}
	}
	refused := strings.Contains(spark, `"phase":"refused"`) && strings.Contains(spark, `"backend":"spark-4.2"`) &&
		strings.Contains(spark, "not sent to "+remote)
	cdcErrors := 0
	// The refusal's diagnostics follow it.
	for refused && cdcErrors < 2 && sc.Scan() {
		var obj map[string]any
		json.Unmarshal(sc.Bytes(), &obj)
		msg := fmt.Sprint(obj["message"])
		if obj["type"] == "diagnostic" && obj["backend"] == "spark-4.2" && obj["severity"] == "error" &&
			(strings.Contains(msg, cdcRefusal["4.2"]["customers_scd1"]) || strings.Contains(msg, cdcRefusal["4.2"]["customers_scd2"])) {
			cdcErrors++
		}
	}
	cancel()
	go func() {
		for sc.Scan() {
		}
	}()
	<-code
	if !refused || cdcErrors != 2 {
		t.Fatalf("first Spark line %s, then %d CDC errors; want the push refused for spark-4.2 with two (stderr %s)", spark, cdcErrors, stderr.String())
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connection(s) to the Spark server: the refused pipeline was sent", n)
	}
}
