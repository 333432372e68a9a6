package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DuckDB never reads the pipeline folder. A sample is read from a mirror
// of it in the session's private temp folder, made of the files Thund
// checked: inside the pipeline folder once every symbolic link is
// resolved, in no hidden folder (.git, .ssh, ...), and regular files. A
// mirrored file is a hard link to the checked file (a copy when the temp
// folder is on another file system), under its root-relative path, so
// file names, and the folder a stream reads, look as they do in the
// pipeline folder. Since allowed_directories names only the temp and
// state folders, a query naming any other path, the pipeline's own files
// included, is refused by DuckDB's sandbox.

// ErrSamplePath marks a sample path Thund refuses to read.
var ErrSamplePath = errors.New("sample refused")

// checkedFile resolves the root-relative path rel and returns the real
// file behind it, or why it may not be read. Messages name rel, never
// what a link points to.
func (s *Session) checkedFile(rel string) (string, fs.FileInfo, error) {
	if hidden(rel) {
		return "", nil, fmt.Errorf("%w: %s is in a hidden folder or is a hidden file; Thund never reads those", ErrSamplePath, rel)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.Root, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("sample %s does not exist (or is a link to nothing); create it, or bind another file", rel)
		}
		return "", nil, fmt.Errorf("sample %s: cannot be read", rel)
	}
	inside, err := filepath.Rel(s.Root, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return "", nil, fmt.Errorf("%w: %s leads outside the pipeline folder through a symbolic link; Thund reads only files inside it", ErrSamplePath, rel)
	}
	if hidden(filepath.ToSlash(inside)) {
		return "", nil, fmt.Errorf("%w: %s leads into a hidden folder through a symbolic link; Thund never reads those", ErrSamplePath, rel)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, fmt.Errorf("sample %s: cannot be read", rel)
	}
	return real, fi, nil
}

// hidden reports whether a slash-separated relative path has a component
// starting with a dot (but "." and "..", which Rel never leaves inside).
func hidden(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}

// relOf returns abs relative to the root, slash-separated.
func (s *Session) relOf(abs string) string {
	rel, err := filepath.Rel(s.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// mirrorPath is where the root-relative file rel appears for DuckDB.
func (s *Session) mirrorPath(rel string) string {
	return filepath.Join(s.mirror, filepath.FromSlash(rel))
}

// fromMirror turns a mirror path back into the pipeline folder's path.
func (s *Session) fromMirror(p string) string {
	if rel, err := filepath.Rel(s.mirror, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Join(s.Root, rel)
	}
	return p
}

// mirrorFiles makes the mirror of the folder (or glob) that rels came
// from hold exactly the files rels: each checked and linked, and any
// other mirrored file that matches pattern (a mirror path pattern)
// removed.
func (s *Session) mirrorFiles(rels []string, pattern string) error {
	s.mirrorMu.Lock()
	defer s.mirrorMu.Unlock()
	want := map[string]bool{}
	for _, rel := range rels {
		real, fi, err := s.checkedFile(rel)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", ErrSamplePath, rel)
		}
		dst := s.mirrorPath(rel)
		want[dst] = true
		if strings.EqualFold(filepath.Ext(rel), ".csv") {
			done, err := mirrorOneLineEnd(real, fi, dst)
			if err != nil {
				return fmt.Errorf("sample %s: %w", rel, err)
			}
			if done {
				continue
			}
		}
		if err := linkOrCopy(real, fi, dst); err != nil {
			return fmt.Errorf("sample %s: %w", rel, err)
		}
	}
	if pattern != "" {
		old, _ := filepath.Glob(pattern)
		for _, f := range old {
			if !want[f] {
				os.Remove(f)
			}
		}
	}
	return nil
}

// A CSV file whose lines end some with CRLF and some with LF (files
// written on two systems, concatenated) is read by Spark line by line
// whatever the ending, while DuckDB's sniffer takes one line ending for
// the file and gives up on the other lines. Such a file is mirrored with
// every CRLF written as LF, which changes no value Spark reads (its CSV
// reader splits lines on either), nor any line number.

// mixedLineEndBytes is the largest file checked for mixed line endings;
// a longer one is mirrored as it is.
const mixedLineEndBytes = 64 << 20

// mirrorOneLineEnd writes dst as the CSV file real (with info fi) with its
// CRLF line ends as LF when it mixes CRLF and LF ends, and reports whether
// it did; a file with one kind of line end is left to linkOrCopy.
func mirrorOneLineEnd(real string, fi fs.FileInfo, dst string) (bool, error) {
	if fi.Size() > mixedLineEndBytes {
		return false, nil
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	crlf := bytes.Count(data, []byte("\r\n"))
	if crlf == 0 || crlf == bytes.Count(data, []byte("\n")) {
		return false, nil
	}
	out := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, out) {
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".thund-tmp-"+filepath.Base(dst))
	os.Remove(tmp)
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("mirror: %w", err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("mirror: %w", err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("mirror: %w", err)
	}
	return true, nil
}

// linkOrCopy makes dst the file real (with info fi), unless it already is.
func linkOrCopy(real string, fi fs.FileInfo, dst string) error {
	if di, err := os.Stat(dst); err == nil {
		if os.SameFile(di, fi) || (di.Size() == fi.Size() && di.ModTime().Equal(fi.ModTime()) && di.Mode().IsRegular()) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".thund-tmp-"+filepath.Base(dst))
	os.Remove(tmp)
	if err := os.Link(real, tmp); err != nil {
		if err := copyFile(real, tmp, fi); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("mirror: %w", err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("mirror: %w", err)
	}
	return nil
}

func copyFile(src, dst string, fi fs.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// scrubbed is err with the session's private paths replaced: a mirrored
// sample by its path in the pipeline folder, the temp folder by a word.
// A message never shows where the session keeps its files.
func (s *Session) scrubbed(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := s.scrubText(msg)
	if out == msg {
		return err
	}
	return &scrubbedError{msg: out, err: err}
}

// scrubText is scrubbed for a message's text.
func (s *Session) scrubText(msg string) string {
	msg = strings.ReplaceAll(msg, s.mirror+string(filepath.Separator), "")
	return strings.ReplaceAll(msg, s.tempDir, "(Thund's temp folder)")
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
