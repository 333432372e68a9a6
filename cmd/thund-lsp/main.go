// Command thund-lsp is Thund's language server, speaking LSP over stdio (the
// default) or TCP on the loopback interface (--listen 127.0.0.1:PORT). What
// it serves is listed in package lsp and docs/lsp.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"

	"github.com/thund-dev/thund/lsp"
)

func main() {
	listen := flag.String("listen", "", "serve one client over TCP at this loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT) instead of stdio")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "thund-lsp: language server for SQL pipelines.\n\nUsage:\n  thund-lsp [--listen 127.0.0.1:PORT]\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	logger := log.New(os.Stderr, "thund-lsp: ", log.LstdFlags)
	ctx := context.Background()
	if *listen == "" {
		if err := lsp.Serve(ctx, stdio{}, logger); err != nil {
			logger.Fatal(err)
		}
		return
	}
	addr, ok := loopbackAddr(*listen)
	if !ok {
		fmt.Fprintf(os.Stderr, "thund-lsp: --listen %q: give a loopback address such as 127.0.0.1:7777 or localhost:7777; thund-lsp never listens on other interfaces\n", *listen)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Fatalf("listen on %s: %v", addr, err)
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

// loopbackAddr returns the address to listen on for --listen: a loopback
// IP and a port, or localhost, which means 127.0.0.1 (taken literally, not
// looked up: a hosts file mapping localhost elsewhere must not open the
// server to the network). Anything else is refused.
func loopbackAddr(s string) (string, bool) {
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
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
