package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests run this test binary as the server: with THUND_LSP_AS_MAIN set,
// TestMain runs main() (the same code as bin/thund-lsp) with the flags
// given after the program name.
func TestMain(m *testing.M) {
	if os.Getenv("THUND_LSP_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// server starts thund-lsp with args; its stderr is returned as a reader.
func server(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "THUND_LSP_AS_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, stdin, stdout, bufio.NewReader(stderr)
}

func writeFrame(w io.Writer, msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func readFrame(r *bufio.Reader) (map[string]json.RawMessage, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, errors.New("no Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(body, &m)
}

// waitExit waits for the process and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		t.Fatalf("thund-lsp did not exit within %v", d)
		return -1
	}
}

var listening = regexp.MustCompile(`listening on (\S+)`)

// TestListenTCP: --listen 127.0.0.1:0 picks a free port and logs it on
// stderr ("listening on ADDR"); a client connects there and speaks LSP;
// shutdown and exit end the process with status 0.
func TestListenTCP(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", "LOCALHOST:0"} {
		t.Run(addr, func(t *testing.T) {
			if strings.HasPrefix(addr, "[::1]") {
				if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
					t.Skip("no IPv6 loopback here")
				} else {
					ln.Close()
				}
			}
			cmd, _, _, stderr := server(t, "--listen", addr)
			lines := make(chan string, 1)
			go func() {
				for {
					line, err := stderr.ReadString('\n')
					if err != nil {
						close(lines)
						return
					}
					if m := listening.FindStringSubmatch(line); m != nil {
						lines <- m[1]
					}
				}
			}()
			var at string
			select {
			case a, ok := <-lines:
				if !ok {
					t.Fatal("thund-lsp exited without saying where it listens")
				}
				at = a
			case <-time.After(30 * time.Second):
				t.Fatal(`no "listening on ADDR" line on stderr`)
			}
			host, port, err := net.SplitHostPort(at)
			if err != nil || !net.ParseIP(host).IsLoopback() || port == "0" {
				t.Fatalf("listening on %q: want a loopback address with the chosen port", at)
			}
			conn, err := net.DialTimeout("tcp", at, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			r := bufio.NewReader(conn)
			if err := writeFrame(conn, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}}); err != nil {
				t.Fatal(err)
			}
			m, err := readFrame(r)
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Capabilities map[string]any `json:"capabilities"`
				ServerInfo   struct{ Name string }
			}
			if err := json.Unmarshal(m["result"], &res); err != nil || res.ServerInfo.Name != "thund-lsp" || res.Capabilities["hoverProvider"] != true {
				t.Fatalf("initialize over TCP: %s (%v)", m["result"], err)
			}
			writeFrame(conn, map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
			writeFrame(conn, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
			if m, err = readFrame(r); err != nil || string(m["id"]) != "2" {
				t.Fatalf("shutdown: %v %v", m, err)
			}
			writeFrame(conn, map[string]any{"jsonrpc": "2.0", "method": "exit"})
			if code := waitExit(t, cmd, 10*time.Second); code != 0 {
				t.Fatalf("exit status %d after shutdown and exit", code)
			}
		})
	}
}

// TestListenTCPClientGoesAway: the server ends when its TCP client
// disconnects without shutdown.
func TestListenTCPClientGoesAway(t *testing.T) {
	cmd, _, _, stderr := server(t, "--listen", "127.0.0.1:0")
	var at string
	for at == "" {
		line, err := stderr.ReadString('\n')
		if err != nil {
			t.Fatalf("no listening line: %v", err)
		}
		if m := listening.FindStringSubmatch(line); m != nil {
			at = m[1]
		}
	}
	go io.Copy(io.Discard, stderr)
	conn, err := net.Dial("tcp", at)
	if err != nil {
		t.Fatal(err)
	}
	writeFrame(conn, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}})
	if _, err := readFrame(bufio.NewReader(conn)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if code := waitExit(t, cmd, 10*time.Second); code != 0 {
		t.Fatalf("exit status %d after the client went away", code)
	}
}

// TestListenRefusesOtherInterfaces: anything but a loopback IP is refused
// with exit status 2 and a message, before listening.
func TestListenRefusesOtherInterfaces(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:7777", ":7777", "[::]:7777", "localhost", "localhost.example.com:7777", "127.0.0.1", "127.0.0.1:", "nonsense"} {
		t.Run(addr, func(t *testing.T) {
			cmd, _, _, stderr := server(t, "--listen", addr)
			msg, _ := io.ReadAll(stderr)
			if code := waitExit(t, cmd, 10*time.Second); code != 2 {
				t.Fatalf("--listen %s: exit status %d, want 2; stderr: %s", addr, code, msg)
			}
			if !strings.Contains(string(msg), "loopback") || strings.Contains(string(msg), "listening on") {
				t.Fatalf("--listen %s: stderr %q", addr, msg)
			}
		})
	}
}

// TestStdio: over stdio, initialize is answered; closing stdin ends the
// server with status 0; a malformed frame is answered with a parse error
// and the server goes on.
func TestStdio(t *testing.T) {
	t.Run("stdin closed", func(t *testing.T) {
		cmd, stdin, stdout, stderr := server(t)
		go io.Copy(io.Discard, stderr)
		writeFrame(stdin, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}})
		if m, err := readFrame(bufio.NewReader(stdout)); err != nil || string(m["id"]) != "1" {
			t.Fatalf("initialize over stdio: %v %v", m, err)
		}
		stdin.Close()
		if code := waitExit(t, cmd, 10*time.Second); code != 0 {
			t.Fatalf("exit status %d after stdin closed", code)
		}
	})
	t.Run("malformed frame", func(t *testing.T) {
		cmd, stdin, stdout, stderr := server(t)
		errs := make(chan string, 1)
		go func() { b, _ := io.ReadAll(stderr); errs <- string(b) }()
		out := bufio.NewReader(stdout)
		io.WriteString(stdin, "Content-Length: 12\r\n\r\n{not json!!}")
		if m, err := readFrame(out); err != nil || !strings.Contains(string(m["error"]), "-32700") {
			t.Fatalf("malformed frame: %v %v, want a parse error", m, err)
		}
		writeFrame(stdin, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": map[string]any{}})
		if m, err := readFrame(out); err != nil || string(m["id"]) != "2" {
			t.Fatalf("initialize after a malformed frame: %v %v", m, err)
		}
		stdin.Close()
		code := waitExit(t, cmd, 10*time.Second)
		msg := <-errs
		if code != 0 || strings.Contains(msg, "panic") {
			t.Fatalf("exit status %d, stderr %q", code, msg)
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		cmd, _, _, stderr := server(t, "--bogus")
		io.ReadAll(stderr)
		if code := waitExit(t, cmd, 10*time.Second); code != 2 {
			t.Fatalf("exit status %d for an unknown flag, want 2", code)
		}
	})
}

// TestArgs: --version prints the versions, --stdio is accepted, and
// every mistake (an extra argument, a port that is no number, an
// unknown flag) is a one-line usage error with exit status 2.
func TestArgs(t *testing.T) {
	var out, errb strings.Builder
	if _, code, done := parseArgs([]string{"--version"}, &out, &errb); !done || code != 0 || !regexp.MustCompile(`^thund-lsp \S.* \(DuckDB v\d+\.\d+\.\d+; Spark 4\.1`).MatchString(out.String()) {
		t.Errorf("--version: done %v, code %d, stdout %q", done, code, out.String())
	}
	if addr, _, done := parseArgs([]string{"--stdio"}, &out, &errb); done || addr != "" {
		t.Errorf("--stdio: done %v, addr %q (stderr %q)", done, addr, errb.String())
	}
	if addr, _, done := parseArgs([]string{"--listen", "localhost:7777"}, &out, &errb); done || addr != "127.0.0.1:7777" {
		t.Errorf("--listen localhost:7777: done %v, addr %q", done, addr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--listen", "127.0.0.1:abc"}, "give a loopback address and a port number"},
		{[]string{"--listen", "127.0.0.1:70000"}, "give a loopback address and a port number"},
		{[]string{"--stdio", "--listen", "127.0.0.1:7777"}, "exclude each other"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
	} {
		var stdout, stderr strings.Builder
		_, code, done := parseArgs(tc.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if !done || code != 2 || len(lines) != 2 || !strings.Contains(lines[0], tc.want) || lines[1] != "see thund-lsp --help" {
			t.Errorf("%v: done %v, code %d, stderr %q; want %q and a pointer to --help", tc.args, done, code, stderr.String(), tc.want)
		}
	}
	var help, stderr strings.Builder
	if _, code, done := parseArgs([]string{"--help"}, &help, &stderr); !done || code != 0 || !strings.Contains(help.String(), "  --listen ") || strings.Contains(help.String(), "  -listen") {
		t.Errorf("--help: code %d, stdout %q", code, help.String())
	}
}
