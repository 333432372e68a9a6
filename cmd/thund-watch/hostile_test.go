package main

// The hostile-folder suite (issue #14): opening a stranger's pipeline
// folder must never run, write or hang anything. Each attack folder of
// internal/testutil/hostiledir (a root with `git init` run inside it, a
// canary folder outside, HOME and TMPDIR of their own, and here a --state
// folder) goes through every mode of thund-watch: --once (in a child
// process, run from inside the root, ended by a context deadline if it
// hangs), --once --state, --check --columns (also a child), and watch
// mode (in-process, as TestWatchRefusesEscapes starts it; the first run,
// then stop). After each: every file and folder under base (path, mode,
// size, mtime, link target) is as it was, .git/config holds the same
// bytes, the paths an attack aims at do not exist, no output holds a
// secret or the path of the folder outside, and the attack was refused
// where it must be (an error at file:line, the dataset not completed, the
// refusal naming the function or the setting).
//
// lsp/hostile_test.go runs the same folders through a thund-lsp session.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/internal/testutil/hostiledir"
)

// hostileBound is how long any one mode may take on one attack folder
// before the test calls it a hang. It is generous: the assertion is that
// the mode ends, not how fast.
const hostileBound = 90 * time.Second

// hostileFolder is one attack folder of issue #14 laid out on disk, with
// the state folder (the shared layout is hostiledir.Folder's).
type hostileFolder struct {
	*hostiledir.Folder
}

// newHostileFolder lays out the attack, with a --state folder.
func newHostileFolder(t *testing.T, a hostiledir.Attack) *hostileFolder {
	t.Helper()
	return &hostileFolder{hostiledir.NewWithState(t, a)}
}

// check asserts what every mode must leave behind: the same files, the
// same .git/config, no target of the attack, and no secret or outside
// path in output.
func (h *hostileFolder) check(t *testing.T, output string) {
	t.Helper()
	if diffs := h.ListingChanges(t); len(diffs) > 0 {
		t.Errorf("the folders changed:\n  %s", strings.Join(diffs, "\n  "))
	}
	if s := h.GitConfigChange(); s != "" {
		t.Error(s)
	}
	for _, p := range h.Written() {
		t.Errorf("%s exists: a smuggled statement wrote it", p)
	}
	h.checkOutput(t, output)
}

// checkOutput asserts that output holds nothing it must not: nothing
// hostiledir.Folder.Forbidden names, nor the root's path for a private
// attack.
func (h *hostileFolder) checkOutput(t *testing.T, output string) {
	t.Helper()
	bad := h.Forbidden()
	if h.Attack.Private {
		bad = append(bad, h.Root)
	}
	for _, s := range bad {
		if i := strings.Index(output, s); i >= 0 {
			t.Errorf("the output holds %q: ...%s...", s, hostiledir.Excerpt(output, i, len(s)))
		}
	}
}

// hostileMode is what a mode's output can show of a refusal.
type hostileMode int

const (
	// modeOnce: --once, diagnostics (analysis and description) and runs.
	modeOnce hostileMode = iota
	// modeCheck: --check --columns, diagnostics only.
	modeCheck
	// modeWatch: watch mode's first run; it does not describe, so a
	// refusal there is the dataset's failure or an analysis error.
	modeWatch
)

// checkRefused asserts the attack was refused in the output of a mode
// (text form: diagnostics as file:line:col, one ✓/✗/- line per dataset):
// an error at each of the attack's file:line (--once, --check); none of
// the blocked datasets completed, each reported failed or skipped (or
// its file has an error, when the file defines no dataset then), and
// each refusal naming its function or setting (--once, watch mode).
func (h *hostileFolder) checkRefused(t *testing.T, output string, mode hostileMode) {
	t.Helper()
	if mode != modeWatch {
		for _, file := range slices.Sorted(maps.Keys(h.Attack.At)) {
			var lines []string
			for _, l := range h.Attack.At[file] {
				lines = append(lines, strconv.Itoa(l))
			}
			at := regexp.QuoteMeta(file) + `:(` + strings.Join(lines, "|") + `)`
			if !regexp.MustCompile(`(?m)^` + at + `:\d+: error: `).MatchString(output) {
				t.Errorf("no error at %s line %v:\n%s", file, h.Attack.At[file], output)
			}
		}
	}
	if mode == modeCheck {
		return
	}
	for _, name := range h.Attack.Blocked {
		q := regexp.QuoteMeta(name)
		if regexp.MustCompile(`(?m)^✓ ` + q + `\s`).MatchString(output) {
			t.Errorf("%s completed: the attack ran", name)
		} else if !regexp.MustCompile(`(?m)^([✗-] ` + q + `\s|` + q + `\.sql:\d+:\d+: error: )`).MatchString(output) {
			t.Errorf("%s: neither failed nor skipped, and no error in %s.sql:\n%s", name, name, output)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(h.Attack.Refuse)) {
		word := regexp.QuoteMeta(h.Attack.Refuse[name])
		re := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(name) + `\.sql:\d+:\d+: error: .*` + word + `|✗ ` + regexp.QuoteMeta(name) + `\s.*` + word + `)`)
		if !re.MatchString(output) {
			t.Errorf("%s: no error or failure naming %s:\n%s", name, h.Attack.Refuse[name], output)
		}
	}
}

// childEnv is the environment of a child thund-watch: its own HOME and
// TMPDIR inside base.
func (h *hostileFolder) childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "TMPDIR" && k != crashArgsEnv {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+h.Home, "TMPDIR="+h.Tmp)
}

// runChild runs thund-watch with args in a child process (this
// test binary, as TestStateCrashChild), from inside the root, killed if it
// does not end within hostileBound. It returns the exit status and the
// output (stdout and stderr).
func (h *hostileFolder) runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), hostileBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStateCrashChild$", "-test.count=1")
	cmd.Env = append(h.childEnv(), crashArgsEnv+"="+string(raw))
	cmd.Dir = h.Root
	cmd.WaitDelay = 10 * time.Second
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("thund-watch %s did not end within %v (killed): it hangs\n%s", strings.Join(args, " "), hostileBound, out.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("thund-watch %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// TestHostileFolders runs every attack folder through --once, --once
// --state, --check --columns and watch mode.
func TestHostileFolders(t *testing.T) {
	for _, a := range hostiledir.Attacks() {
		t.Run(a.Name, func(t *testing.T) {
			t.Run("once", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--once", "--limit", "50", h.Root)
				h.check(t, out)
				h.checkRefused(t, out, modeOnce)
				if code == 0 {
					t.Errorf("exit status 0, want non-zero (the attack is an error):\n%s", out)
				}
			})
			t.Run("once_state", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--once", "--state", h.State, h.Root)
				h.check(t, out)
				h.checkRefused(t, out, modeOnce)
				if code == 0 {
					t.Errorf("exit status 0, want non-zero (the attack is an error):\n%s", out)
				}
			})
			t.Run("check_columns", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--check", "--columns", h.Root)
				h.check(t, out)
				h.checkRefused(t, out, modeCheck)
				if len(a.At) > 0 && code != 1 {
					t.Errorf("exit status %d, want 1 (errors):\n%s", code, out)
				}
			})
			t.Run("watch", func(t *testing.T) {
				h := newHostileFolder(t, a)
				out, text := h.watchFirstRun(t)
				h.check(t, out)
				h.checkRefused(t, text, modeWatch)
			})
		})
	}
}

// watchFirstRun starts watch mode in this process (--json, previews of
// every dataset), with HOME, TMPDIR and the working folder those of the
// attack, waits for the first run, stops it as Ctrl-C does and returns its
// raw output and the output rewritten as --once prints it.
func (h *hostileFolder) watchFirstRun(t *testing.T) (string, string) {
	t.Helper()
	t.Setenv("HOME", h.Home)
	t.Setenv("TMPDIR", h.Tmp)
	t.Chdir(h.Root)
	var stderr lockedBuffer
	o, err := parseFlags([]string{"--json", "--debounce", "100ms", "--limit", "50", "--preview", strings.Join(h.Attack.Datasets, ","), h.Root}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, code := startWatch(ctx, o, &stderr)
	var raw, text lockedBuffer
	ran := make(chan struct{}, 16)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			raw.Write(append(sc.Bytes(), '\n'))
			text.Write([]byte(onceLine(sc.Bytes()) + "\n"))
			if strings.Contains(sc.Text(), `"type":"run"`) {
				ran <- struct{}{}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case <-ran:
	case <-read:
		t.Errorf("watch mode ended before its first run:\n%s%s", raw.String(), stderr.String())
	case <-time.After(hostileBound):
		t.Errorf("watch mode: no first run within %v: it hangs\n%s", hostileBound, raw.String())
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("watch mode stopped with status %d, want 0", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch mode did not stop within 30 s of its cancellation")
	}
	<-read
	return raw.String() + stderr.String(), text.String() + stderr.String()
}

// onceLine rewrites one NDJSON object of watch mode in the text form of
// --once, for the assertions: a diagnostic as file:line:col: severity:
// message [code], an event as its ✓/✗/- line; anything else as it is.
func onceLine(line []byte) string {
	var o struct {
		Type     string `json:"type"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		Dataset  string `json:"dataset"`
		Phase    string `json:"phase"`
	}
	if json.Unmarshal(line, &o) != nil {
		return string(line)
	}
	msg := strings.ReplaceAll(o.Message, "\n", " ")
	switch {
	case o.Type == "diagnostic":
		return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", o.File, o.Line, o.Column, o.Severity, msg, o.Code)
	case o.Type == "event" && o.Phase == "completed":
		return "✓ " + o.Dataset + " completed"
	case o.Type == "event" && o.Phase == "failed":
		return "✗ " + o.Dataset + " failed: " + msg
	case o.Type == "event" && o.Phase == "skipped":
		return "- " + o.Dataset + " skipped: " + msg
	}
	return string(line)
}
