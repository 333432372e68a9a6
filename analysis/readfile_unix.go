//go:build unix

package analysis

import (
	"io/fs"
	"syscall"
	"unsafe"
)

// readBufSize is the size of a reader's buffer; a larger file grows it.
const readBufSize = 64 << 10

// fileReader reads whole files as strings with a buffer of its own: an
// open, reads until end of file, and a close, without os.File's
// bookkeeping (two fstat calls, a poller registration attempt, a
// finalizer) and with one allocation, the text itself. A load of a
// pipeline reads thousands of small files, where those costs are most of
// the reading. One reader is used by one goroutine at a time.
type fileReader struct{ buf []byte }

// read returns the content of the file at name. Its errors are
// *fs.PathError, as os.ReadFile's.
func (r *fileReader) read(name string) (string, error) {
	fd, err := retryEINTR(func() (int, error) { return syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, readBufSize)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		k, err := retryEINTR(func() (int, error) { return syscall.Read(fd, r.buf[n:]) })
		if err != nil {
			return "", &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if k == 0 {
			break
		}
		n += k
	}
	if n == 0 {
		return "", nil
	}
	b := make([]byte, n)
	copy(b, r.buf[:n])
	return unsafe.String(&b[0], n), nil // b is never written again
}

// retryEINTR calls f until it is not interrupted by a signal.
func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
