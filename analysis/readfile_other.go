//go:build !unix

package analysis

import "os"

// fileReader reads whole files as strings (os.ReadFile where the direct
// system calls of readfile_unix.go are not available).
type fileReader struct{}

// read returns the content of the file at name.
func (r *fileReader) read(name string) (string, error) {
	b, err := os.ReadFile(name)
	return string(b), err
}
