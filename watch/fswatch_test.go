package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestFolderRecreatedBeforeItsRemovalIsNoted replays the order in which a
// deleted and at once recreated folder's events can reach the watcher: its
// removal is noted when the new folder already exists, then its creation.
// Saves inside the new folder must still raise events (they were lost
// when the old folder's watch was thought to be alive).
func TestFolderRecreatedBeforeItsRemovalIsNoted(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "transformations")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := newFSWatcher(root, Ignored, time.Millisecond, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.fsw.Close()
	events := make(chan string, 64)
	go func() {
		for ev := range w.fsw.Events {
			events <- ev.Name
		}
	}()
	go func() {
		for range w.fsw.Errors {
		}
	}()
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pending := map[string]bool{}
	w.note(fsnotify.Event{Name: sub, Op: fsnotify.Remove}, pending)
	w.note(fsnotify.Event{Name: sub, Op: fsnotify.Create}, pending)

	file := filepath.Join(sub, "orders.sql")
	if err := os.WriteFile(file, []byte("SELECT 1 AS a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case name := <-events:
			if name == file {
				return
			}
		case <-deadline:
			t.Fatalf("no event for %s within 10 s: the recreated folder is not watched", file)
		}
	}
}
