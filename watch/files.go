package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// Ignored reports whether a root-relative, slash-separated path is none of
// the pipeline's business: anything hidden (a name starting with "."; this
// covers .git, .#lock files and vim's .name.swp), target/ and node_modules/
// (as analysis skips those folders), and editor scratch files: *.swp, *.swx, *.swo,
// *~, vim's 4913 write probe, and *.tmp.
func Ignored(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if strings.HasPrefix(p, ".") {
			return true
		}
		if p == "target" || p == "node_modules" {
			return true
		}
	}
	base := parts[len(parts)-1]
	switch {
	case base == "4913", strings.HasSuffix(base, "~"):
		return true
	}
	switch strings.ToLower(path.Ext(base)) {
	case ".swp", ".swx", ".swo", ".tmp":
		return true
	}
	return false
}

// bigFile is the size above which a file is fingerprinted by size and
// modification time instead of its content.
const bigFile = 8 << 20

// fingerprint identifies one version of a file.
type fingerprint struct {
	size int64
	mod  time.Time
	// sum is the content hash, or "size:mtime" for big files.
	sum string
}

// files fingerprints the files of a pipeline root and turns a batch of
// changed paths into analysis changes.
type files struct {
	root string
	fps  map[string]fingerprint // by root-relative path
}

func newFiles(root string) *files {
	return &files{root: root, fps: map[string]fingerprint{}}
}

func (f *files) abs(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

// read fingerprints a file and returns its text when it is small, or when
// want is set (a library or project file, which analysis needs in full).
func (f *files) read(rel string, fi fs.FileInfo, want bool) (fingerprint, *string, error) {
	fp := fingerprint{size: fi.Size(), mod: fi.ModTime()}
	if fi.Size() > bigFile && !want {
		fp.sum = fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
		return fp, nil, nil
	}
	b, err := os.ReadFile(f.abs(rel))
	if err != nil {
		return fp, nil, err
	}
	h := sha256.Sum256(b)
	fp.sum = hex.EncodeToString(h[:16])
	text := string(b)
	return fp, &text, nil
}

// current returns a file's fingerprint, computing it only when the file's
// size or modification time moved since it was last taken.
func (f *files) current(rel string) (string, bool) {
	fi, err := os.Stat(f.abs(rel))
	if err != nil || !fi.Mode().IsRegular() {
		delete(f.fps, rel)
		return "", false
	}
	if fp, ok := f.fps[rel]; ok && fp.size == fi.Size() && fp.mod.Equal(fi.ModTime()) {
		return fp.sum, true
	}
	fp, _, err := f.read(rel, fi, false)
	if err != nil {
		return "unreadable: " + err.Error(), true
	}
	f.fps[rel] = fp
	return fp.sum, true
}

// Sample fingerprints a source's sample: a file, a folder of micro-batches
// or a glob, by the names and contents of the files it reads.
func (f *files) Sample(src *ir.Source) string {
	rel := path.Clean(src.Sample)
	abs := f.abs(rel)
	var names []string
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		batch, err := engine.BatchFiles(abs)
		if err != nil {
			return "unreadable: " + err.Error()
		}
		for _, b := range batch {
			if r, err := filepath.Rel(f.root, b); err == nil {
				names = append(names, filepath.ToSlash(r))
			}
		}
	} else if err == nil {
		names = []string{rel}
	} else if strings.ContainsAny(rel, "*?[") {
		matches, _ := filepath.Glob(abs)
		for _, m := range matches {
			if r, err := filepath.Rel(f.root, m); err == nil {
				names = append(names, filepath.ToSlash(r))
			}
		}
		sort.Strings(names)
	}
	if len(names) == 1 && names[0] == rel {
		sum, ok := f.current(rel)
		if !ok {
			return "missing"
		}
		return sum
	}
	h := sha256.New()
	for _, n := range names {
		sum, _ := f.current(n)
		field(h, n, sum)
	}
	return fmt.Sprintf("%d files %s", len(names), sum(h))
}

// changes turns changed paths (root-relative; files or folders, existing
// or not) into analysis changes against snap, and lists the files whose
// content or existence really changed. A path that no longer exists
// deletes it and every file the snapshot has below it; a folder adds
// every file below it. A file whose fingerprint did not move is no change.
func (f *files) changes(snap *analysis.Snapshot, paths []string) ([]analysis.Change, []string) {
	known := map[string]bool{}
	for _, p := range snap.Files {
		known[p] = true
	}
	libs := map[string]bool{}
	for _, l := range snap.Libraries {
		libs[l] = true
	}
	touched := map[string]bool{}
	var deleted []string
	for _, p := range paths {
		fi, err := os.Stat(f.abs(p))
		switch {
		case err != nil:
			deleted = append(deleted, p)
		case fi.IsDir():
			filepath.WalkDir(f.abs(p), func(a string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				r, rerr := filepath.Rel(f.root, a)
				if rerr != nil {
					return nil
				}
				r = filepath.ToSlash(r)
				if Ignored(r) {
					if d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if !d.IsDir() {
					touched[r] = true
				}
				return nil
			})
			// Files the snapshot has below the folder but that are gone.
			deleted = append(deleted, p)
		default:
			touched[p] = true
		}
	}
	for _, p := range deleted {
		if _, err := os.Lstat(f.abs(p)); err != nil && known[p] {
			touched[p] = true
		}
		prefix := p + "/"
		for _, k := range snap.Files {
			if strings.HasPrefix(k, prefix) {
				if _, err := os.Lstat(f.abs(k)); err != nil {
					touched[k] = true
				}
			}
		}
	}
	order := make([]string, 0, len(touched))
	for p := range touched {
		order = append(order, p)
	}
	sort.Strings(order)
	var out []analysis.Change
	var changed []string
	for _, p := range order {
		fi, err := os.Stat(f.abs(p))
		// A symlink to a file outside the root is not the pipeline's
		// (project.Walk leaves it out too): it counts as absent.
		if err != nil || !fi.Mode().IsRegular() || !project.ResolvesInside(f.root, f.abs(p)) {
			delete(f.fps, p)
			if known[p] {
				out = append(out, analysis.Change{Path: p})
				changed = append(changed, p)
			}
			continue
		}
		want := strings.HasSuffix(p, ".sql") || isProjectFile(p) || libs[p]
		fp, text, err := f.read(p, fi, want)
		if err != nil {
			// Unreadable for now (being written, say): its next event
			// brings it back.
			continue
		}
		old, had := f.fps[p]
		f.fps[p] = fp
		if cur, ok := snap.Text(p); ok && known[p] && want && text != nil {
			// The snapshot's text is the truth for what analysis read
			// (the file may have changed between the first analysis and
			// its first fingerprint).
			if cur == *text {
				continue
			}
		} else if had && old.sum == fp.sum && known[p] {
			continue
		}
		if text == nil || !want {
			// Analysis keeps only library and project texts; an empty
			// text says the file exists without holding its content.
			empty := ""
			text = &empty
		}
		out = append(out, analysis.Change{Path: p, Text: text})
		changed = append(changed, p)
	}
	return out, changed
}

// isProjectFile reports whether p is the spec, thund.yaml or a YAML file
// of a Databricks bundle.
func isProjectFile(p string) bool {
	switch p {
	case "spark-pipeline.yml", "spark-pipeline.yaml", "thund.yaml", "thund.yml":
		return true
	}
	// A Databricks bundle's databricks.yml and the YAML files it includes.
	return project.IsBundleFile(p)
}

// prime fingerprints every file of the snapshot, so the first save of any
// file can tell a real change from a touch.
func (f *files) prime(snap *analysis.Snapshot) {
	for _, p := range snap.Files {
		f.current(p)
	}
}
