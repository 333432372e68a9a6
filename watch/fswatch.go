package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// batch is a debounced set of changed paths (root-relative, slash-
// separated). Rescan is set when the kernel dropped events: every file
// must then be compared.
type batch struct {
	paths  []string
	rescan bool
}

// fsWatcher watches a folder tree with fsnotify, folders created later
// included, and delivers the changed paths in debounced batches.
type fsWatcher struct {
	root     string
	skip     func(rel string) bool
	debounce time.Duration
	warn     func(string)

	fsw     *fsnotify.Watcher
	dirs    map[string]bool // watched folders, absolute
	batches chan batch
}

// newFSWatcher starts watching root and every folder below it that skip
// does not reject. Batches flow once run is called.
func newFSWatcher(root string, skip func(string) bool, debounce time.Duration, warn func(string)) (*fsWatcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &fsWatcher{root: root, skip: skip, debounce: debounce, warn: warn, fsw: fsw, dirs: map[string]bool{}, batches: make(chan batch)}
	if err := w.addTree(root); err != nil {
		fsw.Close()
		return nil, err
	}
	return w, nil
}

// rel returns the root-relative, slash-separated form of an absolute path.
func (w *fsWatcher) rel(abs string) (string, bool) {
	r, err := filepath.Rel(w.root, abs)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// addTree watches dir and the folders below it. Only failing to watch the
// root itself is an error.
func (w *fsWatcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == w.root {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != w.root {
			if r, ok := w.rel(p); !ok || w.skip(r) {
				return fs.SkipDir
			}
		}
		if w.dirs[p] {
			return nil
		}
		if err := w.fsw.Add(p); err != nil {
			if p == w.root {
				return err
			}
			w.warn("cannot watch " + p + ": " + err.Error())
			return fs.SkipDir
		}
		w.dirs[p] = true
		return nil
	})
}

// forget drops the watches of a folder that is gone (deleted or renamed
// away) and of every folder below it.
func (w *fsWatcher) forget(abs string) {
	prefix := abs + string(filepath.Separator)
	for d := range w.dirs {
		if d == abs || strings.HasPrefix(d, prefix) {
			w.fsw.Remove(d)
			delete(w.dirs, d)
		}
	}
}

// run turns events into batches until ctx is done, then closes the
// watcher. A batch is ready once no event arrived for the debounce
// interval; batches not yet taken merge with newer events, so a busy
// consumer gets one batch with everything.
func (w *fsWatcher) run(ctx context.Context) {
	defer w.fsw.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := map[string]bool{}
	pendingRescan := false
	var ready *batch
	for {
		var out chan batch
		var next batch
		if ready != nil {
			out, next = w.batches, *ready
		}
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if !w.note(ev, pending) {
				continue
			}
			timer.Reset(w.debounce)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				pendingRescan = true
				w.addTree(w.root)
				timer.Reset(w.debounce)
				continue
			}
			w.warn("watching files: " + err.Error())
		case <-timer.C:
			if ready == nil {
				ready = &batch{}
			}
			seen := map[string]bool{}
			for _, p := range ready.paths {
				seen[p] = true
			}
			for p := range pending {
				if !seen[p] {
					ready.paths = append(ready.paths, p)
				}
			}
			sort.Strings(ready.paths)
			ready.rescan = ready.rescan || pendingRescan
			pending, pendingRescan = map[string]bool{}, false
		case out <- next:
			ready = nil
		}
	}
}

// note records one event in pending and reports whether it matters.
// Attribute changes (a chmod, a touch) count too: a file made readable
// again must be read again. They re-run nothing by themselves, since runs
// follow content hashes, so a touch only reports that nothing changed.
func (w *fsWatcher) note(ev fsnotify.Event, pending map[string]bool) bool {
	r, ok := w.rel(ev.Name)
	if !ok || w.skip(r) {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Files created in a new folder before its watch was added
			// raise no event: the batch lists the folder, and the
			// reconciler walks it. A folder deleted and created again
			// at once (a checkout, rm -r then a copy) may still be
			// listed as watched when its removal is noted after the
			// new folder exists: its old watch died with the old
			// folder, so the new one is always watched afresh.
			w.forget(ev.Name)
			w.addTree(ev.Name)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, err := os.Lstat(ev.Name); err != nil {
			w.forget(ev.Name)
		}
	}
	pending[r] = true
	return true
}
