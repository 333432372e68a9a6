package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/thund-dev/thund/bench"
)

// lspEdits starts the thund-lsp binary on stdio, opens file (inside the
// pipeline at root) and times n edits: each didChange until the server
// publishes diagnostics for that version. Edits alternate between a
// misspelt reference and the original text, so every version has new
// diagnostics. After each edit it waits settle, so that the column
// description the server runs after a quiet spell does not overlap the
// next edit. The timings include the server's debounce.
func lspEdits(ctx context.Context, bin, root, file string, n int, settle time.Duration) (Stats, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return Stats{}, fmt.Errorf("lsp edit: %w", err)
	}
	good := string(text)
	bad := strings.Replace(good, "FROM ds_", "FROM dz_", 1)
	if bad == good {
		return Stats{}, fmt.Errorf("lsp edit: %s reads no dataset to misspell", file)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Stats{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Stats{}, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return Stats{}, fmt.Errorf("start %s: %w", bin, err)
	}
	defer func() {
		bench.Frame(stdin, map[string]any{"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
		bench.Frame(stdin, map[string]any{"jsonrpc": "2.0", "method": "exit"})
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()

	// published carries the version of every publishDiagnostics for the file.
	u := "file://" + file
	published := make(chan int, 64)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			body, err := bench.ReadMessage(r)
			if err != nil {
				readErr <- err
				return
			}
			var m struct {
				Method string `json:"method"`
				Params struct {
					URI     string `json:"uri"`
					Version *int   `json:"version"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "textDocument/publishDiagnostics" && m.Params.URI == u && m.Params.Version != nil {
				published <- *m.Params.Version
			}
		}
	}()
	wait := func(v int) error {
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case got := <-published:
				if got == v {
					return nil
				}
			case err := <-readErr:
				return fmt.Errorf("thund-lsp: %w", err)
			case <-deadline:
				return fmt.Errorf("thund-lsp: no diagnostics for version %d within 2 minutes", v)
			}
		}
	}
	send := func(msg map[string]any) error {
		msg["jsonrpc"] = "2.0"
		return bench.Frame(stdin, msg)
	}
	if err := send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}}}); err != nil {
		return Stats{}, err
	}
	send(map[string]any{"method": "initialized", "params": map[string]any{}})
	send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "sql", "version": 1, "text": bad}}})
	// Opened with the typo, so that the first analysis publishes.
	if err := wait(1); err != nil {
		return Stats{}, err
	}
	time.Sleep(settle)
	var s Stats
	version := 1
	for i := 0; i < n+3; i++ { // three warm-up edits
		version++
		next := good
		if version%2 == 1 {
			next = bad
		}
		start := time.Now()
		if err := send(map[string]any{"method": "textDocument/didChange", "params": map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"text": next}},
		}}); err != nil {
			return s, err
		}
		if err := wait(version); err != nil {
			return s, err
		}
		if i >= 3 {
			s.Samples = append(s.Samples, time.Since(start))
		}
		time.Sleep(settle)
	}
	return s, nil
}
