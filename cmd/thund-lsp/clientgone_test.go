package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRealBinaryClientGone builds the real thund-lsp (go build -tags
// duckdb_arrow, as make build does) and checks that it exits promptly when
// its client goes away in the middle of a request that would otherwise run
// forever (a thund/run of range(100000000000) on DuckDB): stdin closed,
// the client process killed (with the server's stdout still read, and with
// it gone too), and over --listen the TCP connection closed or reset. It
// also checks that --listen refuses addresses off the loopback interface.
func TestRealBinaryClientGone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := buildReal(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	slow := filepath.Join(root, "slow.sql")
	os.WriteFile(slow, []byte("SELECT count(*) AS n FROM range(100000000000) a, range(10) b\n"), 0o644)
	initialize := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}}}
	run := map[string]any{"jsonrpc": "2.0", "id": 2, "method": "thund/run", "params": map[string]any{"uri": "file://" + slow, "workDoneToken": "run"}}

	// runStarted reads the server's messages until the run reports that
	// it began ($/progress begin), so the query is in flight.
	runStarted := func(t *testing.T, r *bufio.Reader) {
		t.Helper()
		for {
			m, err := readFrame(r)
			if err != nil {
				t.Fatalf("reading the server before the run began: %v", err)
			}
			if string(m["method"]) == `"$/progress"` && strings.Contains(string(m["params"]), `"begin"`) {
				return
			}
		}
	}
	exits := func(t *testing.T, cmd *exec.Cmd, what string, allowSignal bool) {
		t.Helper()
		start := time.Now()
		code := waitExit(t, cmd, 15*time.Second)
		took := time.Since(start)
		t.Logf("%s: exited %v later, status %d", what, took.Round(time.Millisecond), code)
		if code != 0 && !(allowSignal && code == -1) {
			t.Fatalf("%s: exit status %d", what, code)
		}
	}
	start := func(t *testing.T, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		t.Cleanup(func() {
			if cmd.ProcessState == nil && cmd.Process != nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		return cmd
	}

	t.Run("stdin closed mid-request", func(t *testing.T) {
		cmd := start(t)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewReader(stdout)
		writeFrame(stdin, initialize)
		writeFrame(stdin, run)
		runStarted(t, out)
		stdin.Close()
		go io.Copy(io.Discard, out)
		exits(t, cmd, "stdin closed during thund/run", false)
	})

	// The client is another process (sh writing the requests, then
	// sleeping with the pipe open); it is killed with SIGKILL.
	killedClient := func(t *testing.T, readAfter bool) {
		reqs := filepath.Join(t.TempDir(), "requests")
		var b bytes.Buffer
		writeFrame(&b, initialize)
		writeFrame(&b, run)
		os.WriteFile(reqs, b.Bytes(), 0o644)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		client := exec.Command("sh", "-c", `cat "$1"; exec sleep 600`, "sh", reqs)
		client.Stdout = pw
		cmd := start(t)
		cmd.Stdin = pr
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := client.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		pw.Close()
		out := bufio.NewReader(stdout)
		runStarted(t, out)
		client.Process.Kill()
		client.Wait()
		if readAfter {
			go io.Copy(io.Discard, out)
			exits(t, cmd, "client killed during thund/run", false)
			return
		}
		// Nothing reads the server's output any more either: its next
		// write fails (EPIPE, or SIGPIPE on stdout), and it must still go.
		stdout.Close()
		exits(t, cmd, "client killed during thund/run, output closed too", true)
	}
	t.Run("client process killed mid-request", func(t *testing.T) { killedClient(t, true) })
	t.Run("client process killed mid-request, output gone", func(t *testing.T) { killedClient(t, false) })

	tcp := func(t *testing.T, reset bool) {
		cmd := start(t, "--listen", "127.0.0.1:0")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		se := bufio.NewReader(stderr)
		var at string
		for at == "" {
			line, err := se.ReadString('\n')
			if err != nil {
				t.Fatalf("no listening line: %v", err)
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				at = m[1]
			}
		}
		go io.Copy(io.Discard, se)
		conn, err := net.DialTimeout("tcp", at, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		writeFrame(conn, initialize)
		writeFrame(conn, run)
		runStarted(t, bufio.NewReader(conn))
		if reset {
			conn.(*net.TCPConn).SetLinger(0) // close with RST
		}
		conn.Close()
		exits(t, cmd, "TCP connection dropped during thund/run", false)
	}
	t.Run("TCP connection closed mid-request", func(t *testing.T) { tcp(t, false) })
	t.Run("TCP connection reset mid-request", func(t *testing.T) { tcp(t, true) })

	t.Run("listen refuses other interfaces", func(t *testing.T) {
		addrs := []string{"0.0.0.0:0", "192.0.2.1:0", "[2001:db8::1]:0", "example.com:0"}
		if ifs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range ifs {
				if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && ip.IP.To4() != nil {
					addrs = append(addrs, net.JoinHostPort(ip.IP.String(), "0")) // this machine's own address
					break
				}
			}
		}
		for _, addr := range addrs {
			cmd := start(t, "--listen", addr)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, 10*time.Second); code != 2 {
				t.Errorf("--listen %s: exit status %d, want 2; stderr: %s", addr, code, stderr.String())
			}
			if msg := stderr.String(); !strings.Contains(msg, "loopback") || strings.Contains(msg, "listening on") {
				t.Errorf("--listen %s: stderr %q, want a refusal naming the loopback interface", addr, msg)
			}
		}
	})
}

// buildReal builds cmd/thund-lsp into a temporary folder.
func buildReal(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "thund-lsp")
	out, err := exec.Command(gobin, "build", "-tags", "duckdb_arrow", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
