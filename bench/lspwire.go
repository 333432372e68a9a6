// Package bench holds Thund's benchmarks (the _test.go files, run by
// `make bench`) and the LSP wire helpers they share with the side-by-side
// driver in bench/compare: framing a message and reading framed messages
// from a language server's stdout.
package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Frame writes one LSP message (JSON with a Content-Length header) to w.
func Frame(w io.Writer, msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode LSP message: %w", err)
	}
	if _, err = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return fmt.Errorf("write LSP message: %w", err)
	}
	return nil
}

// ReadMessage reads one framed LSP message from r and returns its body.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read LSP header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad LSP header %q: %w", line, err)
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("LSP message without Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read LSP body: %w", err)
	}
	return body, nil
}

// ReadUntil reads framed messages until one whose JSON contains want. When
// seen is not nil, it records whether a message containing also went by
// before that one.
func ReadUntil(r *bufio.Reader, want, also string, seen *bool) error {
	for {
		body, err := ReadMessage(r)
		if err != nil {
			return err
		}
		if strings.Contains(string(body), want) {
			return nil
		}
		if seen != nil && also != "" && strings.Contains(string(body), also) {
			*seen = true
		}
	}
}
