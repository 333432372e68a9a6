// Command thund-lsp is Thund's language server, speaking LSP over stdio (the
// default) or TCP on the loopback interface (--listen 127.0.0.1:PORT). What
// it serves is listed in package lsp and docs/lsp.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/lsp"
	"github.com/thund-dev/thund/report"
)

const usage = `thund-lsp: language server for SQL pipelines (Spark Declarative Pipelines format).

Usage:
  thund-lsp [--stdio]                 serve one client over standard input and output (the default)
  thund-lsp --listen 127.0.0.1:PORT   serve one client over TCP on the loopback interface
  thund-lsp --version

Flags:
`

func main() {
	listen, code, done := parseArgs(os.Args[1:], os.Stdout, os.Stderr)
	if done {
		os.Exit(code)
	}
	logger := log.New(os.Stderr, "thund-lsp: ", log.LstdFlags)
	go releaseIdle() // memory.go
	ctx := context.Background()
	if listen == "" {
		if err := lsp.Serve(ctx, stdio{}, logger); err != nil {
			logger.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		logger.Fatalf("listen on %s: %v", listen, err)
	}
	logger.Printf("listening on %s", ln.Addr())
	conn, err := ln.Accept()
	ln.Close()
	if err != nil {
		logger.Fatalf("accept: %v", err)
	}
	if err := lsp.Serve(ctx, conn, logger); err != nil {
		logger.Fatal(err)
	}
}

// parseArgs reads the command line. It returns the loopback address of
// --listen ("" for stdio), or done with the exit status when the command
// ends here: 0 after --help or --version, 2 after a usage error, written
// to stderr in one line with a pointer to --help (as thund-watch does).
func parseArgs(args []string, stdout, stderr io.Writer) (listen string, code int, done bool) {
	fs := flag.NewFlagSet("thund-lsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("listen", "", "serve one client over TCP at this loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT) instead of stdio")
	fs.Bool("stdio", false, "serve over standard input and output (the default; accepted for editors that pass it)")
	version := fs.Bool("version", false, "print the version of thund-lsp, of its DuckDB and the Spark versions it checks, and exit")
	fail := func(format string, a ...any) (string, int, bool) {
		fmt.Fprintf(stderr, "thund-lsp: "+format+"\n", a...)
		fmt.Fprintln(stderr, "see thund-lsp --help")
		return "", 2, true
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.VisitAll(func(f *flag.Flag) {
				name, text := flag.UnquoteUsage(f)
				fmt.Fprintf(stdout, "  --%s %s\n        %s\n", f.Name, name, text)
			})
			return "", 0, true
		}
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
			msg = "unknown flag --" + strings.TrimLeft(name, "-")
		} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
			msg = "flag --" + strings.TrimLeft(name, "-") + " needs a value"
		}
		return fail("%s", msg)
	}
	if *version {
		fmt.Fprintln(stdout, report.VersionLine("thund-lsp"))
		return "", 0, true
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q: thund-lsp takes no folder or file (the editor names the workspace when it connects)", fs.Arg(0))
	}
	stdioSet := false
	fs.Visit(func(f *flag.Flag) { stdioSet = stdioSet || f.Name == "stdio" })
	if *addr == "" {
		return "", 0, false
	}
	if stdioSet {
		return fail("--stdio and --listen exclude each other: serve over stdio or over TCP")
	}
	a, ok := loopbackAddr(*addr)
	if !ok {
		return fail("--listen %q: give a loopback address and a port number, such as 127.0.0.1:7777 or localhost:7777; thund-lsp never listens on other interfaces", *addr)
	}
	return a, 0, false
}

// loopbackAddr returns the address to listen on for --listen: a loopback
// IP and a port, or localhost, which means 127.0.0.1 (taken literally, not
// looked up: a hosts file mapping localhost elsewhere must not open the
// server to the network). Anything else is refused.
func loopbackAddr(s string) (string, bool) {
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", false
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n > 65535 {
		return "", false
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", false
	}
	return net.JoinHostPort(host, port), true
}

// stdio joins standard input and output into one connection.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error {
	if err := os.Stdin.Close(); err != nil {
		return err
	}
	return os.Stdout.Close()
}

var _ io.ReadWriteCloser = stdio{}
