package lsp

// The hostile-folder suite (issue #14) through a real thund-lsp session:
// lsp.Serve over a pipe, initialized on the attack folder, which then
// opens one .sql file (didOpen: analysis, then the column description
// DescribeDelay later), opens the rest, hovers and asks for completion on
// every line, and previews (thund/preview) each dataset, then shuts down.
// The folders are those of cmd/thund-watch/hostile_test.go (the two
// suites cannot share code across packages; keep them in step): a root
// with `git init` run inside it, a canary folder outside, HOME and TMPDIR
// of their own. Afterwards: every file and folder under the temp folder
// is as it was (path, mode, size, mtime, link target), .git/config holds
// the same bytes, the attack's targets do not exist, no byte the server
// sent (answers, notifications, its log) holds a secret or the path of
// the folder outside, errors are published at the attack's lines, and
// the previews of the attack's datasets are refused, naming the function
// or the limit.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/preview"
)

const lspHostileSecret = "TOPSECRET_hostile_lsp_9d41"

// lspHostileBound is how long one request (a preview of a query that
// never ends, say) may take before the test calls it a hang.
const lspHostileBound = 90 * time.Second

// lspAttack is one attack folder and what must hold after the session.
type lspAttack struct {
	name string
	// files go into the root, or the folder outside for "OUT/..."; {ROOT}
	// and {OUT} are replaced by the two folders' absolute paths.
	files map[string]string
	// links are symlinks in the root, to targets with {ROOT}/{OUT}.
	links map[string]string
	// blocked are datasets whose preview must not succeed.
	blocked []string
	// at maps a file to the (1-based) lines where an error must be
	// published; any one of the lines will do.
	at map[string][]int
	// refuse maps a dataset to a text its preview's refusal must name
	// (with the dataset's name), or an error published in its file.
	refuse map[string]string
	// forbid are texts no byte from the server may hold.
	forbid []string
	// private: previews, hovers and diagnostic messages must not hold the
	// home folder, the temp folder or the root's path (the server's
	// messages carry file URIs, which hold the root).
	private bool
	// absent are paths that must never exist.
	absent []string
}

func lspAttacks() []lspAttack {
	copyGit := "COPY (SELECT '[core]' || chr(10) || chr(9) || 'fsmonitor = touch PWNED' AS a) TO '{ROOT}/.git/config' (HEADER false, QUOTE '', DELIMITER chr(1))"
	more := "COPY (SELECT 1 AS a) TO '{ROOT}/pwned_%[1]s.csv'; ATTACH '{ROOT}/pwned_%[1]s.db' AS z; EXPORT DATABASE '{ROOT}/pwned_%[1]s_export'; CREATE OR REPLACE MACRO pwned_%[1]s() AS 1"
	mv := "-- @kind: materialized_view\n"
	absent := func(tag string) []string {
		return []string{"{ROOT}/pwned_" + tag + ".csv", "{ROOT}/pwned_" + tag + ".db", "{ROOT}/pwned_" + tag + "_export"}
	}
	return []lspAttack{
		{
			name: "expect_estring",
			files: map[string]string{
				"a.sql":  mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + copyGit + "; SELECT (E'\\''\nSELECT 1 AS x\n",
				"a2.sql": mv + "-- @expect.e: E'\\'' = 'a') FROM range(1); " + fmt.Sprintf(more, "a") + "; SELECT (E'\\''\nSELECT 1 AS x\n",
			},
			blocked: []string{"a", "a2"},
			at:      map[string][]int{"a.sql": {2}, "a2.sql": {2}},
			absent:  absent("a"),
		},
		{
			name: "cdc_dollar",
			files: map[string]string{
				"samples/changes/batch-1.csv": "id,seq,_change_type,v\n1,1,INSERT,a\n2,2,INSERT,b\n",
				"c.sql":                       "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($$'$$ = 'a') FROM range(1); " + copyGit + "; SELECT ('x' = $$'$$)\nSELECT * FROM STREAM(changes)\n",
				"c2.sql":                      "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq deletes=($t$'$t$ = 'a') FROM range(1); " + fmt.Sprintf(more, "b") + "; SELECT ('x' = $t$'$t$)\nSELECT * FROM STREAM(changes)\n",
			},
			blocked: []string{"c", "c2"},
			at:      map[string][]int{"c.sql": {2}, "c2.sql": {2}},
			absent:  absent("b"),
		},
		{
			name: "cr_comment",
			files: map[string]string{
				"q.sql":  mv + "SELECT 1 AS x --\r; " + copyGit + "; " + fmt.Sprintf(more, "c") + "; SELECT 2 AS y\n, 3 AS z\n",
				"q2.sql": mv + "SELECT 1 AS x -- note\r; " + fmt.Sprintf(more, "c2") + ";\rSELECT 2 AS y -- \n, 3 AS z\n",
			},
			blocked: []string{"q", "q2"},
			at:      map[string][]int{"q.sql": {2, 3}, "q2.sql": {2, 3, 4, 5}},
			absent:  append(absent("c"), absent("c2")...),
		},
		{
			name: "dollar_1x",
			files: map[string]string{
				"q.sql": mv + "SELECT 1x$$, 2 AS b; " + copyGit + "; " + fmt.Sprintf(more, "d") + "; SELECT 1 y$$, 3 AS c\n",
			},
			blocked: []string{"q"},
			at:      map[string][]int{"q.sql": {2}},
			absent:  absent("d"),
		},
		{
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
			blocked: []string{"q", "q2"},
			at:      map[string][]int{"q.sql": {2}, "q2.sql": {2, 3}},
			absent:  []string{"{OUT}/created.csv", "{OUT}/exported", "{OUT}/created_rel.csv"},
		},
		{
			name: "sample_link",
			links: map[string]string{
				"samples/linkdir": "{OUT}/stolen",
				"samples/lnk.csv": "{OUT}/stolen/secret_name_x.csv",
			},
			files: map[string]string{
				"OUT/stolen/secret_name_x.csv":  "a\n" + lspHostileSecret + "\n",
				"OUT/stolen/secret_name_y.json": "{\"a\": \"" + lspHostileSecret + "\"}\n",
				"thund.yaml":                    "backends: [native]\nsamples:\n  src: samples/linkdir\n",
				"q.sql":                         mv + "SELECT * FROM src\n",
				"p.sql":                         mv + "-- @sample.src2: samples/linkdir/*.csv\nSELECT * FROM src2\n",
				"l.sql":                         mv + "SELECT * FROM lnk\n",
			},
			blocked: []string{"q", "p", "l"},
			at:      map[string][]int{"thund.yaml": {3}, "p.sql": {2}},
			forbid:  []string{"secret_name"},
		},
		{
			name: "settings",
			files: map[string]string{
				"settings.sql":   mv + "SELECT * FROM duckdb_settings()\n",
				"cursetting.sql": mv + "SELECT current_setting('home_directory') AS h, current_setting('temp_directory') AS t\n",
				"getenv.sql":     mv + "SELECT getenv('HOME') AS h\n",
				"extensions.sql": mv + "SELECT * FROM duckdb_extensions()\n",
				"secrets.sql":    mv + "SELECT * FROM duckdb_secrets()\n",
			},
			blocked: []string{"settings", "cursetting", "getenv", "extensions", "secrets"},
			refuse: map[string]string{"settings": "duckdb_settings", "cursetting": "current_setting", "getenv": "getenv",
				"extensions": "duckdb_extensions", "secrets": "duckdb_secrets"},
			private: true,
		},
		{
			name: "hidden_reads",
			files: map[string]string{
				".hidden/h.csv":  "a\n" + lspHostileSecret + "\n",
				".env.csv":       "a\n" + lspHostileSecret + "\n",
				"gitcfg.sql":     mv + "SELECT * FROM read_csv('{ROOT}/.git/config')\n",
				"gitcfg_rel.sql": mv + "SELECT * FROM read_csv('.git/config', header = false)\n",
				"gittext.sql":    mv + "SELECT * FROM read_text('{ROOT}/.git/config')\n",
				"gitfrom.sql":    mv + "SELECT * FROM '.git/config'\n",
				"gitglob.sql":    mv + "SELECT * FROM glob('{ROOT}/.git/*')\n",
				"hidden.sql":     mv + "SELECT * FROM read_csv_auto('{ROOT}/.hidden/h.csv')\n",
				"hiddenfrom.sql": mv + "SELECT * FROM '{ROOT}/.env.csv'\n",
				"hiddenrel.sql":  mv + "FROM '.env.csv'\n",
			},
			blocked: []string{"gitcfg", "gitcfg_rel", "gittext", "gitfrom", "gitglob", "hidden", "hiddenfrom", "hiddenrel"},
			forbid:  []string{"repositoryformatversion", "/.git/HEAD", "/.git/description"},
		},
		{
			name: "limits",
			files: map[string]string{
				"thund.yaml":  "backends: [native]\nlimits:\n  query_timeout: 2s\n",
				"huge.sql":    mv + "SELECT * FROM range(1000000000000) WHERE range < 0\n",
				"endless.sql": mv + "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r\n",
			},
			blocked: []string{"huge", "endless"},
			refuse:  map[string]string{"huge": "limits.query_timeout", "endless": "limits.query_timeout"},
		},
	}
}

// lspFolder is an attack laid out on disk, with its listing before.
type lspFolder struct {
	a                              lspAttack
	base, root, outside, home, tmp string
	gitConfig                      []byte
	before                         map[string]string
}

func newLSPFolder(t *testing.T, a lspAttack) *lspFolder {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	h := &lspFolder{a: a, base: base, root: filepath.Join(base, "pipeline"), outside: filepath.Join(base, "outside"),
		home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{h.root, h.outside, h.home, h.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(h.outside, "canary.txt"), lspHostileSecret+"\n")
	write(filepath.Join(h.home, ".netrc"), "machine example.com password "+lspHostileSecret+"\n")
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", h.root)
		cmd.Env = append(os.Environ(), "HOME="+h.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	} else {
		write(filepath.Join(h.root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
		write(filepath.Join(h.root, ".git", "HEAD"), "ref: refs/heads/main\n")
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
		write(filepath.Join(dir, filepath.FromSlash(rel)), h.expand(text))
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
	time.Sleep(20 * time.Millisecond)
	h.before = h.listing(t)
	return h
}

func (h *lspFolder) expand(s string) string {
	return strings.NewReplacer("{ROOT}", h.root, "{OUT}", h.outside).Replace(s)
}

// listing returns everything under base but the temp folder: path ->
// mode, size, mtime, link target.
func (h *lspFolder) listing(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(h.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == h.tmp {
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

// diskChanges returns what changed on disk since the folder was made:
// files and folders new, changed or gone, a rewritten .git/config, the
// attack's targets.
func (h *lspFolder) diskChanges(t *testing.T) []string {
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
	if b, err := os.ReadFile(filepath.Join(h.root, ".git", "config")); err != nil || string(b) != string(h.gitConfig) {
		diffs = append(diffs, fmt.Sprintf(".git/config was rewritten (err %v):\n%s", err, b))
	}
	for _, p := range h.a.absent {
		if _, err := os.Lstat(h.expand(p)); !errors.Is(err, fs.ErrNotExist) {
			diffs = append(diffs, h.expand(p)+" exists: a smuggled statement wrote it")
		}
	}
	return diffs
}

// checkDisk asserts nothing changed on disk.
func (h *lspFolder) checkDisk(t *testing.T) {
	t.Helper()
	if d := h.diskChanges(t); len(d) > 0 {
		t.Errorf("on disk:\n  %s", strings.Join(d, "\n  "))
	}
}

// teeConn records every byte read from the server.
type teeConn struct {
	net.Conn
	rec *syncBuffer
}

func (c teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.rec.Write(p[:n])
	return n, err
}

// startHostileSession is startStorm with every byte from the server
// recorded in rec.
func startHostileSession(t *testing.T, rec *syncBuffer) *stormClient {
	t.Helper()
	a, b := net.Pipe()
	c := &stormClient{t: t, conn: teeConn{b, rec}, done: make(chan struct{}), rdr: make(chan struct{}), logs: &syncBuffer{},
		sentAt: map[string]time.Time{}, kind: map[string]string{}, answers: map[string]stormAnswer{},
		diags: map[string]protocol.PublishDiagnosticsParams{}, changed: make(chan struct{}, 1)}
	go func() {
		Serve(context.Background(), a, log.New(c.logs, "", 0))
		a.Close()
		close(c.done)
	}()
	go c.read()
	t.Cleanup(func() {
		b.Close()
		<-c.rdr
	})
	return c
}

// answer waits up to d for the answer to id; when none comes, it sends
// $/cancelRequest and waits 30 s more. It reports whether the answer came
// within d; a zero answer's at means none came at all.
func answer(t *testing.T, c *stormClient, id string, d time.Duration) (stormAnswer, bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	cancelled := false
	for {
		c.mu.Lock()
		a, ok := c.answers[id]
		c.mu.Unlock()
		if ok {
			return a, !cancelled
		}
		if time.Now().After(deadline) {
			if cancelled {
				return stormAnswer{}, false
			}
			n, _ := strconv.Atoi(id)
			c.notify("$/cancelRequest", map[string]any{"id": n})
			cancelled, deadline = true, time.Now().Add(30*time.Second)
		}
		select {
		case <-c.changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hostileSession is what a session on an attack folder showed.
type hostileSession struct {
	opened   []string                                     // disk changes after open, describe and hovers (zero-click)
	all      string                                       // every byte from the server, and its log
	texts    string                                       // previews, hovers, completions, diagnostic messages
	diags    map[string]protocol.PublishDiagnosticsParams // last published, by file relative to the root
	previews map[string]stormAnswer                       // by dataset
	hung     []string                                     // requests never answered
}

// session runs the LSP session on the folder: open one .sql file, wait
// for its diagnostics and the description, open the rest, hover and
// complete on every line, preview every dataset, shut down.
func (h *lspFolder) session(t *testing.T, datasets []string) *hostileSession {
	t.Helper()
	t.Setenv("HOME", h.home)
	t.Setenv("TMPDIR", h.tmp)
	t.Chdir(h.root)
	var rec syncBuffer
	c := startHostileSession(t, &rec)
	res := &hostileSession{previews: map[string]stormAnswer{}}
	var texts strings.Builder
	call := func(kind, method string, params any, d time.Duration) (stormAnswer, bool) {
		a, ok := answer(t, c, c.call(kind, method, params), d)
		if !ok {
			how := "cancelled with $/cancelRequest then, it answered " + strconv.Quote(a.message)
			if a.at.IsZero() {
				how = "not even after $/cancelRequest"
			}
			res.hung = append(res.hung, fmt.Sprintf("%s %v (%s)", method, params, how))
		}
		texts.Write(a.result)
		texts.WriteString("\n" + a.message + "\n")
		return a, ok
	}
	if _, ok := call("initialize", "initialize", map[string]any{"rootUri": string(uri.File(h.root)), "capabilities": map[string]any{}}, 30*time.Second); !ok {
		t.Fatal("initialize was not answered")
	}
	c.notify("initialized", map[string]any{})
	var sqls []string
	filepath.WalkDir(h.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".sql") && !strings.Contains(p, "/.") {
			sqls = append(sqls, p)
		}
		return nil
	})
	sort.Strings(sqls)
	if len(sqls) == 0 {
		t.Fatal("no .sql file in the attack folder")
	}
	open := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": string(uri.File(p)), "languageId": "sql", "version": 1, "text": string(b)}})
		return string(b)
	}
	texts0 := map[string]string{sqls[0]: open(sqls[0])}
	// Diagnostics come Debounce after the open, the description's
	// DescribeDelay after that: wait until the folder is quiet well past
	// both.
	quiet := Debounce + DescribeDelay + time.Second
	c.settle(quiet, lspHostileBound)
	for _, p := range sqls[1:] {
		texts0[p] = open(p)
	}
	c.settle(quiet, lspHostileBound)
	for _, p := range sqls {
		lines := strings.FieldsFunc(texts0[p], func(r rune) bool { return r == '\n' || r == '\r' })
		for l := range lines {
			for _, ch := range []int{0, 4, 10, 16, 30} {
				pos := map[string]any{"textDocument": map[string]any{"uri": string(uri.File(p))}, "position": map[string]any{"line": l, "character": ch}}
				call("hover", "textDocument/hover", pos, 30*time.Second)
				if ch == 16 {
					call("completion", "textDocument/completion", pos, 30*time.Second)
				}
			}
		}
	}
	// Nothing was asked to run yet: whatever changed on disk by now,
	// opening the folder did.
	res.opened = h.diskChanges(t)
	for _, name := range datasets {
		file := filepath.Join(h.root, name+".sql")
		a, _ := call("preview", "thund/preview", map[string]any{"uri": string(uri.File(file)), "dataset": name}, lspHostileBound)
		res.previews[name] = a
	}
	c.settle(quiet, lspHostileBound)
	call("shutdown", "shutdown", nil, 30*time.Second)
	c.notify("exit", nil)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Errorf("the server did not exit within 30 s of exit")
	}
	c.mu.Lock()
	res.diags = map[string]protocol.PublishDiagnosticsParams{}
	for u, p := range c.diags {
		rel, _ := filepath.Rel(h.root, uri.URI(u).Filename())
		res.diags[filepath.ToSlash(rel)] = p
		for _, d := range p.Diagnostics {
			texts.WriteString(d.Message + "\n")
		}
	}
	c.mu.Unlock()
	c.checkMessages()
	res.all = rec.String() + "\n" + c.logs.String()
	res.texts = texts.String()
	return res
}

// check asserts everything the session must leave behind.
func (h *lspFolder) check(t *testing.T, s *hostileSession) {
	t.Helper()
	if len(s.opened) > 0 {
		t.Errorf("zero-click: opening the folder (didOpen, the description, hovers, completion; no preview yet) changed the disk:\n  %s", strings.Join(s.opened, "\n  "))
	} else if d := h.diskChanges(t); len(d) > 0 {
		t.Errorf("after the previews, on disk:\n  %s", strings.Join(d, "\n  "))
	}
	for _, r := range s.hung {
		t.Errorf("not answered within %v: %s", lspHostileBound, r)
	}
	bad := append([]string{lspHostileSecret, h.outside}, h.a.forbid...)
	if h.a.private {
		bad = append(bad, h.home, h.tmp)
	}
	for _, str := range bad {
		if i := strings.Index(s.all, str); i >= 0 {
			t.Errorf("the server sent %q: ...%s...", str, s.all[max(0, i-300):min(len(s.all), i+len(str)+100)])
		}
	}
	if h.a.private {
		if i := strings.Index(s.texts, h.root); i >= 0 {
			t.Errorf("a preview, hover or diagnostic holds the root's path: ...%s...", s.texts[max(0, i-300):min(len(s.texts), i+len(h.root)+100)])
		}
	}
	var files []string
	for f := range h.a.at {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		found := false
		for _, d := range s.diags[f].Diagnostics {
			for _, l := range h.a.at[f] {
				found = found || d.Severity == protocol.DiagnosticSeverityError && int(d.Range.Start.Line) == l-1
			}
		}
		if !found {
			t.Errorf("%s: no error published at line %v; published: %+v", f, h.a.at[f], s.diags[f].Diagnostics)
		}
	}
	for _, name := range h.a.blocked {
		a, ok := s.previews[name]
		if !ok {
			continue
		}
		var p struct {
			Error     string `json:"error"`
			TotalRows int64  `json:"total_rows"`
		}
		json.Unmarshal(a.result, &p)
		if a.code == 0 && p.Error == "" {
			t.Errorf("preview of %s succeeded (%d rows): the attack ran: %s", name, p.TotalRows, a.result)
		}
		if word, ok := h.a.refuse[name]; ok {
			msg := p.Error + a.message
			inFile := false
			for _, d := range s.diags[name+".sql"].Diagnostics {
				inFile = inFile || d.Severity == protocol.DiagnosticSeverityError && strings.Contains(d.Message, word)
			}
			if !inFile && !(strings.Contains(msg, word) && strings.Contains(msg, name)) {
				t.Errorf("preview of %s: refusal %q does not name %s and the dataset, and no error in %s.sql does", name, msg, word, name)
			}
		}
	}
}

// TestHostileLSP runs every attack folder through a thund-lsp session.
func TestHostileLSP(t *testing.T) {
	for _, a := range lspAttacks() {
		t.Run(a.name, func(t *testing.T) {
			h := newLSPFolder(t, a)
			s := h.session(t, a.blocked)
			h.check(t, s)
		})
	}
}

// TestHostileLSPPreviewCaps: thund.yaml cannot raise the preview page past
// project.PreviewMaxRows (it is an error there, and a request asking for
// more gets that many), and a value over preview.MaxValueBytes comes back
// cut, with the note, so neither a huge page nor a huge value reaches the
// client.
func TestHostileLSPPreviewCaps(t *testing.T) {
	h := newLSPFolder(t, lspAttack{name: "caps", files: map[string]string{
		"thund.yaml": "backends: [native]\npreview:\n  limit: 3000000\n",
		"many.sql":   "-- @kind: materialized_view\nSELECT range AS n FROM range(30000)\n",
		"wide.sql":   "-- @kind: materialized_view\nSELECT repeat('x', 2000000) AS v\n",
	}, at: map[string][]int{"thund.yaml": {3}}})
	t.Setenv("HOME", h.home)
	t.Setenv("TMPDIR", h.tmp)
	var rec syncBuffer
	c := startHostileSession(t, &rec)
	openAll(c, h.root, map[string]string{"many.sql": "-- @kind: materialized_view\nSELECT range AS n FROM range(30000)\n"})
	c.settle(Debounce+DescribeDelay+time.Second, lspHostileBound)
	type page struct {
		Rows      [][]any              `json:"rows"`
		Limit     int                  `json:"limit"`
		TotalRows int64                `json:"total_rows"`
		Truncated []preview.Truncation `json:"truncated"`
		Error     string               `json:"error"`
	}
	get := func(name string, limit int) (page, int) {
		t.Helper()
		params := map[string]any{"uri": string(uri.File(filepath.Join(h.root, name+".sql"))), "dataset": name}
		if limit > 0 {
			params["limit"] = limit
		}
		a, ok := answer(t, c, c.call("preview", "thund/preview", params), lspHostileBound)
		if !ok || a.code != 0 {
			t.Fatalf("preview of %s: answered %v, error %d %s", name, ok, a.code, a.message)
		}
		var p page
		if err := json.Unmarshal(a.result, &p); err != nil || p.Error != "" {
			t.Fatalf("preview of %s: %v %s", name, err, p.Error)
		}
		return p, len(a.result)
	}
	for _, limit := range []int{0, 3000000} {
		p, _ := get("many", limit)
		if len(p.Rows) > project.PreviewMaxRows || p.Limit > project.PreviewMaxRows {
			t.Errorf("preview with limit %d: a page of %d rows (limit %d), want at most %d", limit, len(p.Rows), p.Limit, project.PreviewMaxRows)
		}
		if p.TotalRows != 30000 {
			t.Errorf("preview with limit %d: total_rows %d, want 30000", limit, p.TotalRows)
		}
	}
	p, size := get("wide", 0)
	if len(p.Rows) != 1 || len(p.Rows[0]) != 1 {
		t.Fatalf("preview of wide: %+v", p.Rows)
	}
	v, _ := p.Rows[0][0].(string)
	if len(v) > preview.MaxValueBytes+len(preview.TruncatedNote(2000000)) || !strings.HasSuffix(v, preview.TruncatedNote(2000000)) {
		t.Errorf("a 2,000,000-byte value came back as %d bytes, ending %q; want it cut to %d bytes and the note", len(v), v[max(0, len(v)-40):], preview.MaxValueBytes)
	}
	if size > 1<<20 {
		t.Errorf("the answer is %d bytes", size)
	}
	c.mu.Lock()
	found := false
	for u, d := range c.diags {
		if strings.HasSuffix(u, "/thund.yaml") {
			for _, x := range d.Diagnostics {
				found = found || x.Severity == protocol.DiagnosticSeverityError && x.Range.Start.Line == 2
			}
		}
	}
	c.mu.Unlock()
	if !found {
		t.Errorf("no error published at thund.yaml:3 for preview.limit: 3000000")
	}
	c.wait(c.call("shutdown", "shutdown", nil), 30*time.Second)
	c.notify("exit", nil)
	<-c.done
	h.checkDisk(t)
}
