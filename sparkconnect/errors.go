package sparkconnect

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Kind classifies a failed call.
type Kind int

// Error kinds.
const (
	// Server is an error the server reported (analysis, runtime...).
	Server Kind = iota
	// ServerDown: nothing answers at the address, or the connection broke.
	ServerDown
	// Timeout: the call's deadline passed.
	Timeout
	// Canceled: the caller canceled the call.
	Canceled
	// SessionExpired: the server no longer knows the session (released,
	// timed out, or the server restarted).
	SessionExpired
	// GraphNotFound: the server does not know the dataflow graph.
	GraphNotFound
)

// Sentinels for errors.Is.
var (
	ErrServerDown     = errors.New("spark connect server down")
	ErrTimeout        = errors.New("spark connect call timed out")
	ErrSessionExpired = errors.New("spark connect session expired")
	ErrGraphNotFound  = errors.New("dataflow graph not found")
)

// Error is a failed Spark Connect call.
type Error struct {
	Kind Kind
	// Op names the call (CreateDataflowGraph, StartRun, SQL query...).
	Op  string
	URL string
	// Class is Spark's error class (UNRESOLVED_COLUMN.WITH_SUGGESTION...)
	// and SQLState its SQL state, when the server gave them.
	Class    string
	SQLState string
	// Message is the server's text, or what went wrong locally.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// StartHint says how to start a Spark Connect server, in Thund's
// repository and anywhere else (pyspark ships spark-submit and the
// Connect server, but no start script).
const StartHint = "start one with `make spark-start` in Thund's repository; elsewhere, with Java 17 and `pip install 'pyspark[connect]==4.1.4'`, run `spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer --conf spark.connect.grpc.binding.port=15002`"

func (e *Error) Error() string {
	switch e.Kind {
	case ServerDown:
		msg := fmt.Sprintf("no Spark Connect server at %s: %s", e.URL, StartHint)
		if e.Op != "connect" && e.Op != "" {
			msg = fmt.Sprintf("%s: the Spark Connect server at %s is not answering (%s)", e.Op, e.URL, StartHint)
		}
		if e.Message != "" {
			msg += " (" + e.Message + ")"
		}
		return msg
	case Timeout:
		return fmt.Sprintf("%s on %s timed out: %s; is the server overloaded? check its log, or raise the timeout", e.Op, e.URL, e.Message)
	case Canceled:
		return fmt.Sprintf("%s on %s canceled", e.Op, e.URL)
	case SessionExpired:
		return fmt.Sprintf("%s on %s: the Spark Connect session expired or the server restarted (%s); connect again", e.Op, e.URL, e.Message)
	case GraphNotFound:
		return fmt.Sprintf("%s on %s: the server does not know this dataflow graph (%s); it was dropped or the server restarted: define the pipeline again", e.Op, e.URL, e.Message)
	}
	return fmt.Sprintf("%s on %s: %s", e.Op, e.URL, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of e's kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrServerDown:
		return e.Kind == ServerDown
	case ErrTimeout:
		return e.Kind == Timeout
	case ErrSessionExpired:
		return e.Kind == SessionExpired
	case ErrGraphNotFound:
		return e.Kind == GraphNotFound
	}
	return false
}

// wrap turns a gRPC error into an *Error, using the Spark error class from
// the status's ErrorInfo detail when there is one.
func (c *Client) wrap(op string, err error, ctx context.Context) error {
	e := &Error{Op: op, URL: c.URL, Err: err}
	st, ok := status.FromError(err)
	if !ok {
		e.Message = err.Error()
		return e
	}
	e.Message = strings.TrimSpace(st.Message())
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			e.Class = info.GetMetadata()["errorClass"]
			e.SQLState = info.GetMetadata()["sqlState"]
		}
	}
	if e.Class == "" {
		e.Class = classFromMessage(e.Message)
	}
	switch {
	case st.Code() == codes.Unavailable:
		e.Kind = ServerDown
		e.Message = ""
	case st.Code() == codes.DeadlineExceeded || (ctx != nil && ctx.Err() == context.DeadlineExceeded):
		e.Kind = Timeout
		if d, ok := ctx.Deadline(); ok {
			e.Message = fmt.Sprintf("deadline %s passed", d.Format("15:04:05.000"))
		}
	case st.Code() == codes.Canceled:
		e.Kind = Canceled
	case strings.HasPrefix(e.Class, "INVALID_HANDLE.SESSION"):
		e.Kind = SessionExpired
	case e.Class == "DATAFLOW_GRAPH_NOT_FOUND":
		e.Kind = GraphNotFound
	}
	return e
}

// classFromMessage reads a leading "[ERROR_CLASS] " from a server message.
func classFromMessage(msg string) string {
	if !strings.HasPrefix(msg, "[") {
		return ""
	}
	end := strings.IndexByte(msg, ']')
	if end < 0 {
		return ""
	}
	c := msg[1:end]
	for _, r := range c {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return ""
		}
	}
	return c
}
