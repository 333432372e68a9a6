package main

// The hostile-folder suite (issue #14): opening a stranger's pipeline
// folder must never run, write or hang anything. Each attack is a small
// pipeline folder in a fresh temporary folder:
//
//	base/pipeline   the pipeline root, with `git init` run inside it
//	base/outside    a folder beside it holding a canary (the secret)
//	base/home       HOME of the process, with a secret of its own
//	base/tmp        TMPDIR of the process (the engine's private temp
//	                folders live there; it is the one folder not listed)
//	base/state      the --state folder, when a mode gives one (created
//	                beforehand and not listed either)
//
// and goes through every mode of thund-watch: --once (in a child process,
// run from inside the root, ended by a context deadline if it hangs),
// --once --state, --check --columns (also a child), and watch mode
// (in-process, as TestWatchRefusesEscapes starts it; the first run, then
// stop). After each: every file and folder under base (path, mode, size,
// mtime, link target) is as it was, .git/config holds the same bytes, the
// paths an attack aims at do not exist, no output holds a secret or the
// path of the folder outside, and the attack was refused where it must be
// (an error at file:line, the dataset not completed, the refusal naming
// the function or the setting).
//
// lsp/hostile_test.go runs the same folders through a thund-lsp session.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// hostileBound is how long any one mode may take on one attack folder
// before the test calls it a hang. It is generous: the assertion is that
// the mode ends, not how fast.
const hostileBound = 90 * time.Second

// hostileAttack is one attack folder and what must hold after it.
type hostileAttack struct {
	name string
	// files are written into the root, or into the folder outside when
	// the path starts with "OUT/"; {ROOT} and {OUT} in a text are the
	// absolute paths of the two folders. thund.yaml defaults to
	// `backends: [native]`.
	files map[string]string
	// links are symlinks created in the root, to targets with {ROOT} and
	// {OUT} replaced.
	links map[string]string
	// datasets are the datasets the folder defines (previewed, in watch
	// mode and in the LSP session).
	datasets []string
	// blocked are datasets that must not complete.
	blocked []string
	// at are regular expressions of `file:line` (relative to the root)
	// where --once and --check --columns must report an error.
	at []string
	// refuse maps a dataset to a text its refusal must name, in --once
	// and watch mode: the refused function, or the setting that raises
	// the limit it hit.
	refuse map[string]string
	// forbid are texts no output may hold, beyond the common ones (the
	// secret marker, the path of the folder outside).
	forbid []string
	// private: no output may hold the home folder, the temp folder or
	// the root's absolute path either.
	private bool
	// absent are paths ({ROOT}, {OUT}) that must never exist.
	absent []string
}

// hostileAttacks returns the attack folders of issue #14.
func hostileAttacks() []hostileAttack {
	copyGit := "COPY (SELECT '[core]' || chr(10) || chr(9) || 'fsmonitor = touch PWNED' AS a) TO '{ROOT}/.git/config' (HEADER false, QUOTE '', DELIMITER chr(1))"
	// The rest of a smuggled statement list: a write anywhere in the
	// root, a new database file, a whole export and a macro.
	more := "COPY (SELECT 1 AS a) TO '{ROOT}/pwned_%[1]s.csv'; ATTACH '{ROOT}/pwned_%[1]s.db' AS z; EXPORT DATABASE '{ROOT}/pwned_%[1]s_export'; CREATE OR REPLACE MACRO pwned_%[1]s() AS 1"
	mv := "-- @kind: materialized_view\n"
	changes := "id,seq,_change_type,v\n1,1,INSERT,a\n2,2,INSERT,b\n"
	absent := func(tag string) []string {
		return []string{"{ROOT}/pwned_" + tag + ".csv", "{ROOT}/pwned_" + tag + ".db", "{ROOT}/pwned_" + tag + "_export"}
	}
	return []hostileAttack{
		{
			// (a) E'\'' is a closed string for DuckDB, an open one for a
			// lexer that doubles quotes only: the statement separator
			// after it hides inside "the string".
			name: "expect_estring",
			files: map[string]string{
				"a.sql":  mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + copyGit + "; SELECT (E'\\''\nSELECT 1 AS x\n",
				"a2.sql": mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + fmt.Sprintf(more, "a") + "; SELECT (E'\\''\nSELECT 1 AS x\n",
			},
			datasets: []string{"a", "a2"},
			blocked:  []string{"a", "a2"},
			at:       []string{`a\.sql:2`, `a2\.sql:2`},
			absent:   absent("a"),
		},
		{
			// (b) the same through a @cdc deletes predicate, in dollar
			// quotes, plain and tagged.
			name: "cdc_dollar",
			files: map[string]string{
				"samples/changes/batch-1.csv": changes,
				"c.sql":                       "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($$'$$ = 'a') FROM range(1); " + copyGit + "; SELECT ('x' = $$'$$)\nSELECT * FROM STREAM(changes)\n",
				"c2.sql":                      "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($t$'$t$ = 'a') FROM range(1); " + fmt.Sprintf(more, "b") + "; SELECT ('x' = $t$'$t$)\nSELECT * FROM STREAM(changes)\n",
			},
			datasets: []string{"c", "c2"},
			blocked:  []string{"c", "c2"},
			at:       []string{`c\.sql:2`, `c2\.sql:2`},
			absent:   absent("b"),
		},
		{
			// (c) a -- comment ended by a bare carriage return: a lexer
			// that ends comments at \n only sees one query.
			name: "cr_comment",
			files: map[string]string{
				"q.sql":  mv + "SELECT 1 AS x --\r; " + copyGit + "; " + fmt.Sprintf(more, "c") + "; SELECT 2 AS y\n, 3 AS z\n",
				"q2.sql": mv + "SELECT 1 AS x -- note\r; " + fmt.Sprintf(more, "c2") + ";\rSELECT 2 AS y -- \n, 3 AS z\n",
			},
			datasets: []string{"q", "q2"},
			blocked:  []string{"q", "q2"},
			at:       []string{`q\.sql:[23]`, `q2\.sql:[2-5]`},
			absent:   append(absent("c"), absent("c2")...),
		},
		{
			// (d) 1x$$ ... y$$: a dollar-quoted string for one lexer, an
			// alias x$$ for DuckDB's.
			name: "dollar_1x",
			files: map[string]string{
				"q.sql": mv + "SELECT 1x$$, 2 AS b; " + copyGit + "; " + fmt.Sprintf(more, "d") + "; SELECT 1 y$$, 3 AS c\n",
			},
			datasets: []string{"q"},
			blocked:  []string{"q"},
			at:       []string{`q\.sql:2`},
			absent:   absent("d"),
		},
		{
			// (e) COPY and EXPORT through dangling symlinks inside the
			// root that point outside: the targets must never be created.
			name: "dangling_link",
			links: map[string]string{
				"dangling.csv": "{OUT}/created.csv",
				"dlink_export": "{OUT}/exported",
				"rel.csv":      "../outside/created_rel.csv",
			},
			files: map[string]string{
				"q.sql":  mv + "SELECT 1x$$, 2 AS b; COPY (SELECT 1 AS a) TO '{ROOT}/dangling.csv'; EXPORT DATABASE '{ROOT}/dlink_export'; SELECT 1 y$$, 3 AS c\n",
				"q2.sql": mv + "SELECT 1 AS x --\r; COPY (SELECT 1 AS a) TO '{ROOT}/rel.csv'; CREATE OR REPLACE MACRO pwned_e() AS 1; SELECT 2 AS y\n, 3 AS z\n",
			},
			datasets: []string{"q", "q2"},
			blocked:  []string{"q", "q2"},
			at:       []string{`q\.sql:2`, `q2\.sql:[23]`},
			absent:   []string{"{OUT}/created.csv", "{OUT}/exported", "{OUT}/created_rel.csv"},
		},
		{
			// (f) samples through symlinks to an outside folder: in
			// thund.yaml, in a pragma, and by convention. The outside
			// folder mixes formats, so a reader would name its files.
			name: "sample_link",
			links: map[string]string{
				"samples/linkdir": "{OUT}/stolen",
				"samples/lnk.csv": "{OUT}/stolen/secret_name_x.csv",
			},
			files: map[string]string{
				"OUT/stolen/secret_name_x.csv":  "a\n" + secretMarker + "\n",
				"OUT/stolen/secret_name_y.json": "{\"a\": \"" + secretMarker + "\"}\n",
				"thund.yaml":                    "backends: [native]\nsamples:\n  src: samples/linkdir\n",
				"q.sql":                         mv + "SELECT * FROM src\n",
				"p.sql":                         mv + "-- @sample.src2: samples/linkdir/*.csv\nSELECT * FROM src2\n",
				"l.sql":                         mv + "SELECT * FROM lnk\n",
			},
			datasets: []string{"q", "p", "l"},
			blocked:  []string{"q", "p", "l"},
			at:       []string{`thund\.yaml:3`, `p\.sql:2`},
			forbid:   []string{"secret_name"},
		},
		{
			// (g) functions that show settings, paths and the
			// environment: refused by name.
			name: "settings",
			files: map[string]string{
				"settings.sql":   mv + "SELECT * FROM duckdb_settings()\n",
				"cursetting.sql": mv + "SELECT current_setting('home_directory') AS h, current_setting('temp_directory') AS t\n",
				"getenv.sql":     mv + "SELECT getenv('HOME') AS h\n",
				"extensions.sql": mv + "SELECT * FROM duckdb_extensions()\n",
				"secrets.sql":    mv + "SELECT * FROM duckdb_secrets()\n",
			},
			datasets: []string{"settings", "cursetting", "getenv", "extensions", "secrets"},
			blocked:  []string{"settings", "cursetting", "getenv", "extensions", "secrets"},
			refuse: map[string]string{"settings": "duckdb_settings", "cursetting": "current_setting", "getenv": "getenv",
				"extensions": "duckdb_extensions", "secrets": "duckdb_secrets"},
			private: true,
		},
		{
			// (h) .git and hidden files inside the root are not readable.
			name: "hidden_reads",
			files: map[string]string{
				".hidden/h.csv":  "a\n" + secretMarker + "\n",
				".env.csv":       "a\n" + secretMarker + "\n",
				"gitcfg.sql":     mv + "SELECT * FROM read_csv('{ROOT}/.git/config')\n",
				"gitcfg_rel.sql": mv + "SELECT * FROM read_csv('.git/config', header = false)\n",
				"gittext.sql":    mv + "SELECT * FROM read_text('{ROOT}/.git/config')\n",
				"gitfrom.sql":    mv + "SELECT * FROM '.git/config'\n",
				"gitglob.sql":    mv + "SELECT * FROM glob('{ROOT}/.git/*')\n",
				"hidden.sql":     mv + "SELECT * FROM read_csv_auto('{ROOT}/.hidden/h.csv')\n",
				"hiddenfrom.sql": mv + "SELECT * FROM '{ROOT}/.env.csv'\n",
				"hiddenrel.sql":  mv + "FROM '.env.csv'\n",
			},
			datasets: []string{"gitcfg", "gitcfg_rel", "gittext", "gitfrom", "gitglob", "hidden", "hiddenfrom", "hiddenrel"},
			blocked:  []string{"gitcfg", "gitcfg_rel", "gittext", "gitfrom", "gitglob", "hidden", "hiddenfrom", "hiddenrel"},
			forbid:   []string{"repositoryformatversion", "/.git/HEAD", "/.git/description"},
		},
		{
			// Limits: a scan of 10^12 rows and a recursive CTE that never
			// ends stop at limits.query_timeout, naming it.
			name: "limits",
			files: map[string]string{
				"thund.yaml":  "backends: [native]\nlimits:\n  query_timeout: 2s\n",
				"huge.sql":    mv + "SELECT * FROM range(1000000000000) WHERE range < 0\n",
				"endless.sql": mv + "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r\n",
			},
			datasets: []string{"huge", "endless"},
			blocked:  []string{"huge", "endless"},
			refuse:   map[string]string{"huge": "limits.query_timeout", "endless": "limits.query_timeout"},
		},
	}
}

// hostileFolder is one attack laid out on disk, with what it looked like
// before anything ran.
type hostileFolder struct {
	a                              hostileAttack
	base, root, outside, home, tmp string
	state                          string
	gitConfig                      []byte
	before                         map[string]string
}

// newHostileFolder writes the attack into a fresh temporary folder, runs
// `git init` in the root (a hand-written .git/config without git) and
// records the listing.
func newHostileFolder(t *testing.T, a hostileAttack) *hostileFolder {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	h := &hostileFolder{a: a, base: base, root: filepath.Join(base, "pipeline"), outside: filepath.Join(base, "outside"),
		home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), state: filepath.Join(base, "state")}
	for _, d := range []string{h.root, h.outside, h.home, h.tmp, h.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(h.outside, "canary.txt"), secretMarker+"\n")
	mustWrite(t, filepath.Join(h.home, ".netrc"), "machine example.com password "+secretMarker+"\n")
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", h.root)
		cmd.Env = append(os.Environ(), "HOME="+h.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	} else {
		mustWrite(t, filepath.Join(h.root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
		mustWrite(t, filepath.Join(h.root, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	files := map[string]string{"thund.yaml": "backends: [native]\n"}
	for k, v := range a.files {
		files[k] = v
	}
	for rel, text := range files {
		dir := h.root
		if r, ok := strings.CutPrefix(rel, "OUT/"); ok {
			dir, rel = h.outside, r
		}
		mustWrite(t, filepath.Join(dir, filepath.FromSlash(rel)), h.expand(text))
	}
	for rel, target := range a.links {
		p := filepath.Join(h.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(h.expand(target), p); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	var err error
	if h.gitConfig, err = os.ReadFile(filepath.Join(h.root, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	// Let a write that happens at once show in the mtimes.
	time.Sleep(20 * time.Millisecond)
	h.before = h.listing(t)
	return h
}

func (h *hostileFolder) expand(s string) string {
	return strings.NewReplacer("{ROOT}", h.root, "{OUT}", h.outside).Replace(s)
}

// listing returns every file, folder and link under base except the temp
// folder and the state folder: path -> mode, size, mtime, link target.
func (h *hostileFolder) listing(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(h.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == h.tmp || p == h.state {
			return filepath.SkipDir
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		rel, _ := filepath.Rel(h.base, p)
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// check asserts what every mode must leave behind: the same files, the
// same .git/config, no target of the attack, and no secret or outside
// path in output.
func (h *hostileFolder) check(t *testing.T, output string) {
	t.Helper()
	after := h.listing(t)
	var diffs []string
	for p, v := range after {
		if w, ok := h.before[p]; !ok {
			diffs = append(diffs, "new:     "+p+" ("+v+")")
		} else if w != v {
			diffs = append(diffs, "changed: "+p+" ("+w+" => "+v+")")
		}
	}
	for p := range h.before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "gone:    "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("the folders changed:\n  %s", strings.Join(diffs, "\n  "))
	}
	if b, err := os.ReadFile(filepath.Join(h.root, ".git", "config")); err != nil || string(b) != string(h.gitConfig) {
		t.Errorf(".git/config was rewritten (err %v):\n%s", err, b)
	}
	for _, p := range h.a.absent {
		if _, err := os.Lstat(h.expand(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists: a smuggled statement wrote it", h.expand(p))
		}
	}
	h.checkOutput(t, output)
}

// checkOutput asserts that output holds nothing it must not.
func (h *hostileFolder) checkOutput(t *testing.T, output string) {
	t.Helper()
	bad := append([]string{secretMarker, h.outside}, h.a.forbid...)
	if h.a.private {
		bad = append(bad, h.home, h.tmp, h.root)
	}
	for _, s := range bad {
		if i := strings.Index(output, s); i >= 0 {
			t.Errorf("the output holds %q: ...%s...", s, output[max(0, i-300):min(len(output), i+len(s)+100)])
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
		for _, at := range h.a.at {
			if !regexp.MustCompile(`(?m)^` + at + `:\d+: error: `).MatchString(output) {
				t.Errorf("no error at %s:\n%s", at, output)
			}
		}
	}
	if mode == modeCheck {
		return
	}
	for _, name := range h.a.blocked {
		q := regexp.QuoteMeta(name)
		if regexp.MustCompile(`(?m)^✓ ` + q + `\s`).MatchString(output) {
			t.Errorf("%s completed: the attack ran", name)
		} else if !regexp.MustCompile(`(?m)^([✗-] ` + q + `\s|` + q + `\.sql:\d+:\d+: error: )`).MatchString(output) {
			t.Errorf("%s: neither failed nor skipped, and no error in %s.sql:\n%s", name, name, output)
		}
	}
	var names []string
	for n := range h.a.refuse {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		word := regexp.QuoteMeta(h.a.refuse[name])
		re := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(name) + `\.sql:\d+:\d+: error: .*` + word + `|✗ ` + regexp.QuoteMeta(name) + `\s.*` + word + `)`)
		if !re.MatchString(output) {
			t.Errorf("%s: no error or failure naming %s:\n%s", name, h.a.refuse[name], output)
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
	return append(env, "HOME="+h.home, "TMPDIR="+h.tmp)
}

// runHostileChild runs thund-watch with args in a child process (this
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
	cmd.Dir = h.root
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
	for _, a := range hostileAttacks() {
		t.Run(a.name, func(t *testing.T) {
			t.Run("once", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--once", "--limit", "50", h.root)
				h.check(t, out)
				h.checkRefused(t, out, modeOnce)
				if code == 0 {
					t.Errorf("exit status 0, want non-zero (the attack is an error):\n%s", out)
				}
			})
			t.Run("once_state", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--once", "--state", h.state, h.root)
				h.check(t, out)
				h.checkRefused(t, out, modeOnce)
				if code == 0 {
					t.Errorf("exit status 0, want non-zero (the attack is an error):\n%s", out)
				}
			})
			t.Run("check_columns", func(t *testing.T) {
				h := newHostileFolder(t, a)
				code, out := h.runChild(t, "--check", "--columns", h.root)
				h.check(t, out)
				h.checkRefused(t, out, modeCheck)
				if len(a.at) > 0 && code != 1 {
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
	t.Setenv("HOME", h.home)
	t.Setenv("TMPDIR", h.tmp)
	t.Chdir(h.root)
	var stderr lockedBuffer
	o, err := parseFlags([]string{"--json", "--debounce", "100ms", "--limit", "50", "--preview", strings.Join(h.a.datasets, ","), h.root}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		c := watchUntil(ctx, o, pw, &stderr)
		pw.Close()
		code <- c
	}()
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
