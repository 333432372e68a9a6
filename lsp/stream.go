package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// stream frames LSP messages (Content-Length headers) like jsonrpc2's own
// stream, but survives bad input: a malformed header is skipped up to the
// next Content-Length header, and a body that is not a JSON-RPC message is
// answered with a ParseError / InvalidRequest response (id null), as
// JSON-RPC 2.0 says, instead of ending the connection. Only the end of the
// input (or a read error) ends it.
type stream struct {
	conn   io.ReadWriteCloser
	in     *bufio.Reader
	logger *log.Logger
	mu     sync.Mutex // serialises writes
}

func newStream(conn io.ReadWriteCloser, logger *log.Logger) *stream {
	return &stream{conn: conn, in: bufio.NewReader(conn), logger: logger}
}

// maxMessage bounds one message's body; a larger Content-Length is treated
// as a malformed header.
const maxMessage = 256 << 20

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		length, n, err := s.readHeader()
		total += n
		if err != nil {
			return nil, total, err
		}
		if length < 0 {
			continue // a malformed header, skipped
		}
		data := make([]byte, length)
		if _, err := io.ReadFull(s.in, data); err != nil {
			return nil, total, fmt.Errorf("read message body: %w", err)
		}
		total += length
		msg, err := jsonrpc2.DecodeMessage(data)
		if err != nil {
			code := jsonrpc2.ParseError
			if json.Valid(data) {
				code = jsonrpc2.InvalidRequest
			}
			s.logger.Printf("malformed message (%v); answered with an error, connection kept", err)
			s.replyError(code, err.Error())
			continue
		}
		if c, ok := msg.(*jsonrpc2.Call); ok && c.ID() == jsonrpc2.NewNumberID(0) {
			// jsonrpc2 cannot tell the id "" from 0 and would answer a
			// request with id "" as id 0 (a fuzzing finding): refuse
			// such a request, answering with its own id.
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(data, &req) == nil && string(req.ID) == `""` {
				s.replyErrorID(req.ID, jsonrpc2.InvalidRequest, "invalid request: the empty string cannot be a request id here; use a number or a non-empty string")
				continue
			}
		}
		if _, ok := msg.(*jsonrpc2.Response); ok {
			// jsonrpc2 takes a message without a method for a response,
			// but one with an empty "method" is a request, which must be
			// answered (a fuzzing finding: it used to go unanswered).
			var req struct {
				Method *string         `json:"method"`
				ID     json.RawMessage `json:"id"`
			}
			if json.Unmarshal(data, &req) == nil && req.Method != nil {
				s.replyErrorID(req.ID, jsonrpc2.InvalidRequest, "invalid request: empty method name")
				continue
			}
		}
		return msg, total, nil
	}
}

// readHeader reads one header block and returns the body length, or -1
// when the block was malformed (and skipped).
func (s *stream) readHeader() (int64, int64, error) {
	var total int64
	length := int64(0)
	bad := false
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			return 0, total, fmt.Errorf("read header: %w", err)
		}
		line = strings.TrimSpace(line)
		// Resynchronise after junk: a header may follow leftover bytes of
		// a skipped message on the same line.
		if i := strings.Index(line, "Content-Length:"); i > 0 {
			line = line[i:]
			bad, length = false, 0
		}
		if line == "" {
			if length == 0 {
				bad = true
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = true
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n <= 0 || n > maxMessage {
				bad = true
				continue
			}
			length = n
		}
	}
	if bad {
		s.logger.Printf("malformed message header skipped")
		s.replyError(jsonrpc2.ParseError, "malformed message header")
		return -1, total, nil
	}
	return length, total, nil
}

// replyError writes an error response with a null id.
func (s *stream) replyError(code jsonrpc2.Code, message string) {
	s.replyErrorID(nil, code, message)
}

// replyErrorID writes an error response with the given id (nil: null).
func (s *stream) replyErrorID(id json.RawMessage, code jsonrpc2.Code, message string) {
	var v any // null
	if len(id) > 0 {
		v = id
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      v,
		"error":   map[string]any{"code": code, "message": message},
	})
	s.writeRaw(body)
}

func (s *stream) writeRaw(body []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := fmt.Fprintf(s.conn, "Content-Length: %d\r\n\r\n", len(body))
	if err != nil {
		return int64(n), err
	}
	m, err := s.conn.Write(body)
	return int64(n + m), err
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// jsonrpc2's messages marshal themselves; calling that directly skips
	// encoding/json's re-validation of the whole output, which cost more
	// than building a 2,000-item completion reply.
	var body []byte
	var err error
	if m, ok := msg.(json.Marshaler); ok {
		body, err = m.MarshalJSON()
	} else {
		body, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("marshal message: %w", err)
	}
	return s.writeRaw(body)
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error { return s.conn.Close() }
