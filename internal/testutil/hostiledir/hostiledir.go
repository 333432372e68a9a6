// Package hostiledir holds the hostile pipeline folders of issue #14, which
// the hostile-folder suites of cmd/thund-watch (every mode of
// thund-watch) and lsp (a thund-lsp session) open: opening a stranger's
// pipeline folder must never run, write or hang anything.
//
// Each attack is a small pipeline folder in a fresh temporary folder:
//
//	base/pipeline   the pipeline root, with `git init` run inside it
//	base/outside    a folder beside it holding a canary (the secret)
//	base/home       HOME of the process, with a secret of its own
//	base/tmp        TMPDIR of the process (the engine's private temp
//	                folders live there; it is the one folder not listed)
//	base/state      the --state folder, made by NewWithState only
//	                (created beforehand and not listed either)
//
// The package lays the folder out, records what it looked like, and
// tells what changed on disk since; what each mode's output must show is
// for each suite to assert.
package hostiledir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/internal/testutil"
)

// Secret is the text planted in the canary outside the root, in the
// .netrc of the fake HOME and in the attack files that hold a secret: no
// output may hold it.
const Secret = "TOPSECRET_hostile_9d41"

// Attack is one attack folder and what must hold after a mode opened it.
type Attack struct {
	// Name names the attack (and the subtest that runs it).
	Name string
	// Files are written into the root, or into the folder outside when
	// the path starts with "OUT/"; {ROOT} and {OUT} in a text are the
	// absolute paths of the two folders. thund.yaml defaults to
	// `backends: [native]`.
	Files map[string]string
	// Links are symlinks created in the root, to targets with {ROOT} and
	// {OUT} replaced.
	Links map[string]string
	// Datasets are the datasets the folder defines (previewed, in watch
	// mode and in the LSP session).
	Datasets []string
	// Blocked are datasets that must not complete, and whose preview
	// must not succeed.
	Blocked []string
	// At maps a file (slash-separated, relative to the root) to the
	// 1-based lines where an error must be reported (by --once and
	// --check --columns, published by the LSP); any one of the lines
	// will do.
	At map[string][]int
	// Refuse maps a dataset to a text its refusal must name: the refused
	// function, or the setting that raises the limit it hit.
	Refuse map[string]string
	// Forbid are texts no output may hold, beyond the common ones (the
	// secret, the path of the folder outside).
	Forbid []string
	// Private: no output may hold the home folder, the temp folder or
	// the root's absolute path either (where each suite looks for the
	// root is its own: the LSP's messages carry file URIs).
	Private bool
	// Absent are paths ({ROOT}, {OUT}) that must never exist.
	Absent []string
}

// Attacks returns the attack folders of issue #14.
func Attacks() []Attack {
	copyGit := "COPY (SELECT '[core]' || chr(10) || chr(9) || 'fsmonitor = touch PWNED' AS a) TO '{ROOT}/.git/config' (HEADER false, QUOTE '', DELIMITER chr(1))"
	// The rest of a smuggled statement list: a write anywhere in the
	// root, a new database file, a whole export and a macro.
	more := "COPY (SELECT 1 AS a) TO '{ROOT}/pwned_%[1]s.csv'; ATTACH '{ROOT}/pwned_%[1]s.db' AS z; EXPORT DATABASE '{ROOT}/pwned_%[1]s_export'; CREATE OR REPLACE MACRO pwned_%[1]s() AS 1"
	mv := "-- @kind: materialized_view\n"
	changes := "id,seq,_change_type,v\n1,1,INSERT,a\n2,2,INSERT,b\n"
	absent := func(tag string) []string {
		return []string{"{ROOT}/pwned_" + tag + ".csv", "{ROOT}/pwned_" + tag + ".db", "{ROOT}/pwned_" + tag + "_export"}
	}
	return []Attack{
		{
			// (a) E'\'' is a closed string for DuckDB, an open one for a
			// lexer that doubles quotes only: the statement separator
			// after it hides inside "the string".
			Name: "expect_estring",
			Files: map[string]string{
				"a.sql":  mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + copyGit + "; SELECT (E'\\''\nSELECT 1 AS x\n",
				"a2.sql": mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + fmt.Sprintf(more, "a") + "; SELECT (E'\\''\nSELECT 1 AS x\n",
			},
			Datasets: []string{"a", "a2"},
			Blocked:  []string{"a", "a2"},
			At:       map[string][]int{"a.sql": {2}, "a2.sql": {2}},
			Absent:   absent("a"),
		},
		{
			// (b) the same through a @cdc deletes predicate, in dollar
			// quotes, plain and tagged.
			Name: "cdc_dollar",
			Files: map[string]string{
				"samples/changes/batch-1.csv": changes,
				"c.sql":                       "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($$'$$ = 'a') FROM range(1); " + copyGit + "; SELECT ('x' = $$'$$)\nSELECT * FROM STREAM(changes)\n",
				"c2.sql":                      "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($t$'$t$ = 'a') FROM range(1); " + fmt.Sprintf(more, "b") + "; SELECT ('x' = $t$'$t$)\nSELECT * FROM STREAM(changes)\n",
			},
			Datasets: []string{"c", "c2"},
			Blocked:  []string{"c", "c2"},
			At:       map[string][]int{"c.sql": {2}, "c2.sql": {2}},
			Absent:   absent("b"),
		},
		{
			// (c) a -- comment ended by a bare carriage return: a lexer
			// that ends comments at \n only sees one query.
			Name: "cr_comment",
			Files: map[string]string{
				"q.sql":  mv + "SELECT 1 AS x --\r; " + copyGit + "; " + fmt.Sprintf(more, "c") + "; SELECT 2 AS y\n, 3 AS z\n",
				"q2.sql": mv + "SELECT 1 AS x -- note\r; " + fmt.Sprintf(more, "c2") + ";\rSELECT 2 AS y -- \n, 3 AS z\n",
			},
			Datasets: []string{"q", "q2"},
			Blocked:  []string{"q", "q2"},
			At:       map[string][]int{"q.sql": {2, 3}, "q2.sql": {2, 3, 4, 5}},
			Absent:   append(absent("c"), absent("c2")...),
		},
		{
			// (d) 1x$$ ... y$$: a dollar-quoted string for one lexer, an
			// alias x$$ for DuckDB's.
			Name: "dollar_1x",
			Files: map[string]string{
				"q.sql": mv + "SELECT 1x$$, 2 AS b; " + copyGit + "; " + fmt.Sprintf(more, "d") + "; SELECT 1 y$$, 3 AS c\n",
			},
			Datasets: []string{"q"},
			Blocked:  []string{"q"},
			At:       map[string][]int{"q.sql": {2}},
			Absent:   absent("d"),
		},
		{
			// (e) COPY and EXPORT through dangling symlinks inside the
			// root that point outside: the targets must never be created.
			Name: "dangling_link",
			Links: map[string]string{
				"dangling.csv": "{OUT}/created.csv",
				"dlink_export": "{OUT}/exported",
				"rel.csv":      "../outside/created_rel.csv",
			},
			Files: map[string]string{
				"q.sql":  mv + "SELECT 1x$$, 2 AS b; COPY (SELECT 1 AS a) TO '{ROOT}/dangling.csv'; EXPORT DATABASE '{ROOT}/dlink_export'; SELECT 1 y$$, 3 AS c\n",
				"q2.sql": mv + "SELECT 1 AS x --\r; COPY (SELECT 1 AS a) TO '{ROOT}/rel.csv'; CREATE OR REPLACE MACRO pwned_e() AS 1; SELECT 2 AS y\n, 3 AS z\n",
			},
			Datasets: []string{"q", "q2"},
			Blocked:  []string{"q", "q2"},
			At:       map[string][]int{"q.sql": {2}, "q2.sql": {2, 3}},
			Absent:   []string{"{OUT}/created.csv", "{OUT}/exported", "{OUT}/created_rel.csv"},
		},
		{
			// (f) samples through symlinks to an outside folder: in
			// thund.yaml, in a pragma, and by convention. The outside
			// folder mixes formats, so a reader would name its files.
			Name: "sample_link",
			Links: map[string]string{
				"samples/linkdir": "{OUT}/stolen",
				"samples/lnk.csv": "{OUT}/stolen/secret_name_x.csv",
			},
			Files: map[string]string{
				"OUT/stolen/secret_name_x.csv":  "a\n" + Secret + "\n",
				"OUT/stolen/secret_name_y.json": "{\"a\": \"" + Secret + "\"}\n",
				"thund.yaml":                    "backends: [native]\nsamples:\n  src: samples/linkdir\n",
				"q.sql":                         mv + "SELECT * FROM src\n",
				"p.sql":                         mv + "-- @sample.src2: samples/linkdir/*.csv\nSELECT * FROM src2\n",
				"l.sql":                         mv + "SELECT * FROM lnk\n",
			},
			Datasets: []string{"q", "p", "l"},
			Blocked:  []string{"q", "p", "l"},
			At:       map[string][]int{"thund.yaml": {3}, "p.sql": {2}},
			Forbid:   []string{"secret_name"},
		},
		{
			// (g) functions that show settings, paths and the
			// environment: refused by name.
			Name: "settings",
			Files: map[string]string{
				"settings.sql":   mv + "SELECT * FROM duckdb_settings()\n",
				"cursetting.sql": mv + "SELECT current_setting('home_directory') AS h, current_setting('temp_directory') AS t\n",
				"getenv.sql":     mv + "SELECT getenv('HOME') AS h\n",
				"extensions.sql": mv + "SELECT * FROM duckdb_extensions()\n",
				"secrets.sql":    mv + "SELECT * FROM duckdb_secrets()\n",
			},
			Datasets: []string{"settings", "cursetting", "getenv", "extensions", "secrets"},
			Blocked:  []string{"settings", "cursetting", "getenv", "extensions", "secrets"},
			Refuse: map[string]string{"settings": "duckdb_settings", "cursetting": "current_setting", "getenv": "getenv",
				"extensions": "duckdb_extensions", "secrets": "duckdb_secrets"},
			Private: true,
		},
		{
			// (h) .git and hidden files inside the root are not readable.
			Name: "hidden_reads",
			Files: map[string]string{
				".hidden/h.csv":  "a\n" + Secret + "\n",
				".env.csv":       "a\n" + Secret + "\n",
				"gitcfg.sql":     mv + "SELECT * FROM read_csv('{ROOT}/.git/config')\n",
				"gitcfg_rel.sql": mv + "SELECT * FROM read_csv('.git/config', header = false)\n",
				"gittext.sql":    mv + "SELECT * FROM read_text('{ROOT}/.git/config')\n",
				"gitfrom.sql":    mv + "SELECT * FROM '.git/config'\n",
				"gitglob.sql":    mv + "SELECT * FROM glob('{ROOT}/.git/*')\n",
				"hidden.sql":     mv + "SELECT * FROM read_csv_auto('{ROOT}/.hidden/h.csv')\n",
				"hiddenfrom.sql": mv + "SELECT * FROM '{ROOT}/.env.csv'\n",
				"hiddenrel.sql":  mv + "FROM '.env.csv'\n",
			},
			Datasets: []string{"gitcfg", "gitcfg_rel", "gittext", "gitfrom", "gitglob", "hidden", "hiddenfrom", "hiddenrel"},
			Blocked:  []string{"gitcfg", "gitcfg_rel", "gittext", "gitfrom", "gitglob", "hidden", "hiddenfrom", "hiddenrel"},
			Forbid:   []string{"repositoryformatversion", "/.git/HEAD", "/.git/description"},
		},
		{
			// Limits: a scan of 10^12 rows and a recursive CTE that never
			// ends stop at limits.query_timeout, naming it.
			Name: "limits",
			Files: map[string]string{
				"thund.yaml":  "backends: [native]\nlimits:\n  query_timeout: 2s\n",
				"huge.sql":    mv + "SELECT * FROM range(1000000000000) AS r(x) WHERE x < 0\n",
				"endless.sql": mv + "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r\n",
			},
			Datasets: []string{"huge", "endless"},
			Blocked:  []string{"huge", "endless"},
			Refuse:   map[string]string{"huge": "limits.query_timeout", "endless": "limits.query_timeout"},
		},
	}
}

// Folder is one attack laid out on disk, with what it looked like before
// anything ran.
type Folder struct {
	// Attack is the attack laid out.
	Attack Attack
	// Base is the temporary folder that holds the others; Root the
	// pipeline root, Outside the folder beside it with the canary, Home
	// and Tmp the HOME and TMPDIR for the process under test.
	Base, Root, Outside, Home, Tmp string
	// State is the --state folder, "" unless made by NewWithState.
	State string

	gitConfig []byte
	before    map[string]string
}

// New writes the attack into a fresh temporary folder, runs `git init`
// in the root (a hand-written .git/config without git) and records the
// listing. It skips t when symlinks cannot be made.
func New(t testing.TB, a Attack) *Folder {
	t.Helper()
	return newFolder(t, a, false)
}

// NewWithState is New with an empty --state folder base/state too, which
// the listing leaves out as it does the temp folder.
func NewWithState(t testing.TB, a Attack) *Folder {
	t.Helper()
	return newFolder(t, a, true)
}

func newFolder(t testing.TB, a Attack, state bool) *Folder {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	h := &Folder{Attack: a, Base: base, Root: filepath.Join(base, "pipeline"), Outside: filepath.Join(base, "outside"),
		Home: filepath.Join(base, "home"), Tmp: filepath.Join(base, "tmp")}
	dirs := []string{h.Root, h.Outside, h.Home, h.Tmp}
	if state {
		h.State = filepath.Join(base, "state")
		dirs = append(dirs, h.State)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, filepath.Join(h.Outside, "canary.txt"), Secret+"\n")
	testutil.WriteFile(t, filepath.Join(h.Home, ".netrc"), "machine example.com password "+Secret+"\n")
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", h.Root)
		cmd.Env = append(os.Environ(), "HOME="+h.Home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	} else {
		testutil.WriteFile(t, filepath.Join(h.Root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
		testutil.WriteFile(t, filepath.Join(h.Root, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	files := map[string]string{"thund.yaml": "backends: [native]\n"}
	for k, v := range a.Files {
		files[k] = v
	}
	for rel, text := range files {
		dir := h.Root
		if r, ok := strings.CutPrefix(rel, "OUT/"); ok {
			dir, rel = h.Outside, r
		}
		testutil.WriteFile(t, filepath.Join(dir, filepath.FromSlash(rel)), h.Expand(text))
	}
	for rel, target := range a.Links {
		p := filepath.Join(h.Root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(h.Expand(target), p); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	var err error
	if h.gitConfig, err = os.ReadFile(filepath.Join(h.Root, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	// Let a write that happens at once show in the mtimes.
	time.Sleep(20 * time.Millisecond)
	h.before = h.listing(t)
	return h
}

// Expand replaces {ROOT} and {OUT} in s by the absolute paths of the root
// and the folder outside.
func (h *Folder) Expand(s string) string {
	return strings.NewReplacer("{ROOT}", h.Root, "{OUT}", h.Outside).Replace(s)
}

// listing returns every file, folder and link under base except the temp
// folder and the state folder: path -> mode, size, mtime, link target.
func (h *Folder) listing(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(h.Base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == h.Tmp || (h.State != "" && p == h.State) {
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
		rel, _ := filepath.Rel(h.Base, p)
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ListingChanges returns, sorted, the files, folders and links under base
// (but the temp and state folders) that are new, changed (mode, size,
// mtime, link target) or gone since the folder was made.
func (h *Folder) ListingChanges(t testing.TB) []string {
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
	return diffs
}

// GitConfigChange returns "" when the root's .git/config holds the bytes
// it held when the folder was made, else what it holds now.
func (h *Folder) GitConfigChange() string {
	if b, err := os.ReadFile(filepath.Join(h.Root, ".git", "config")); err != nil || string(b) != string(h.gitConfig) {
		return fmt.Sprintf(".git/config was rewritten (err %v):\n%s", err, b)
	}
	return ""
}

// Written returns the paths of the attack's Absent (expanded) that exist.
func (h *Folder) Written() []string {
	var out []string
	for _, p := range h.Attack.Absent {
		if _, err := os.Lstat(h.Expand(p)); !errors.Is(err, fs.ErrNotExist) {
			out = append(out, h.Expand(p))
		}
	}
	return out
}

// DiskChanges returns what changed on disk since the folder was made:
// ListingChanges, then GitConfigChange and Written, each said as a line.
func (h *Folder) DiskChanges(t testing.TB) []string {
	t.Helper()
	diffs := h.ListingChanges(t)
	if s := h.GitConfigChange(); s != "" {
		diffs = append(diffs, s)
	}
	for _, p := range h.Written() {
		diffs = append(diffs, p+" exists: a smuggled statement wrote it")
	}
	return diffs
}

// Forbidden returns the texts no output of any mode may hold: the
// secret, the path of the folder outside and the attack's Forbid, and,
// for a Private attack, the home and temp folders too. (Where the root's
// path must not show is for each suite to say.)
func (h *Folder) Forbidden() []string {
	bad := append([]string{Secret, h.Outside}, h.Attack.Forbid...)
	if h.Attack.Private {
		bad = append(bad, h.Home, h.Tmp)
	}
	return bad
}

// Excerpt returns s around the n bytes at i: up to 300 bytes before and
// 100 after, for an error message.
func Excerpt(s string, i, n int) string {
	return s[max(0, i-300):min(len(s), i+n+100)]
}
