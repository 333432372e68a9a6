// Package sparkconnect is Thund's Spark Connect client: a gRPC connection
// to a Spark Connect 4.1 server, one session on it, and the pipeline
// commands Spark Declarative Pipelines need. The stubs in package pb are
// generated from the project's own subset of the protocol (proto/).
//
// Every call is bounded: a context without a deadline gets the client's
// call timeout, and errors say what failed and what to do (a server that
// is not running, a timeout, an expired session, a graph the server does
// not know).
package sparkconnect

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/thund-dev/thund/sparkconnect/pb"
)

// DefaultPort is the port Spark Connect listens on unless told otherwise.
const DefaultPort = 15002

// ClientType is what the client reports to the server.
const ClientType = "thund"

// Options adjust a client. Zero values take the defaults.
type Options struct {
	// DialTimeout bounds connecting (default 10 s).
	DialTimeout time.Duration
	// CallTimeout bounds each call whose context has no deadline
	// (default 2 min).
	CallTimeout time.Duration
	// SessionID is the session to use (a UUID); a new one by default.
	SessionID string
	// UserID names the user to the server (default "thund").
	UserID string
}

// Client is one session on a Spark Connect server. It is safe for
// concurrent use.
type Client struct {
	// URL is the server as given to Dial, normalised (sc://host:port).
	URL       string
	addr      string
	conn      *grpc.ClientConn
	stub      pb.SparkConnectServiceClient
	sessionID string
	userID    string
	opts      Options

	mu sync.Mutex
	// serverSession is the server-side session id the server reported
	// first; sent back so a restarted server says so instead of silently
	// starting a new session.
	serverSession string
}

// Target is a parsed sc:// URL.
type Target struct {
	Host      string
	Port      int
	UserID    string
	SessionID string
}

// ParseURL parses a Spark Connect URL: sc://host[:port][/;key=value;...].
// It accepts the user_id and session_id parameters; TLS and tokens are
// refused, as this client speaks plain gRPC to a local server.
func ParseURL(raw string) (Target, error) {
	var t Target
	if !strings.HasPrefix(raw, "sc://") {
		return t, fmt.Errorf("spark connect URL %q must start with sc:// (for example sc://127.0.0.1:%d)", raw, DefaultPort)
	}
	rest := strings.TrimPrefix(raw, "sc://")
	hostport, params, _ := strings.Cut(rest, "/")
	if hostport == "" {
		return t, fmt.Errorf("spark connect URL %q has no host (for example sc://127.0.0.1:%d)", raw, DefaultPort)
	}
	t.Port = DefaultPort
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port.
		host = strings.Trim(hostport, "[]")
	} else {
		p, perr := strconv.Atoi(port)
		if perr != nil || p <= 0 || p > 65535 {
			return t, fmt.Errorf("spark connect URL %q has an invalid port %q", raw, port)
		}
		t.Port = p
	}
	t.Host = host
	for _, kv := range strings.Split(strings.TrimPrefix(params, ";"), ";") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return t, fmt.Errorf("spark connect URL %q: parameter %q is not key=value", raw, kv)
		}
		v, _ = url.PathUnescape(v)
		switch k {
		case "user_id":
			t.UserID = v
		case "session_id":
			if !isUUID(v) {
				return t, fmt.Errorf("spark connect URL %q: session_id %q is not a UUID", raw, v)
			}
			t.SessionID = v
		case "use_ssl", "token":
			if k == "use_ssl" && v == "false" {
				continue
			}
			return t, fmt.Errorf("spark connect URL %q: %s is not supported; thund connects to a local server over plain gRPC", raw, k)
		default:
			// Spark's clients ignore parameters they do not know too
			// (user_agent, grpc_max_message_size...).
		}
	}
	return t, nil
}

// Dial connects to the Spark Connect server at rawURL (sc://host:port) and
// opens a session. It fails fast, with a hint to start one, when nothing
// listens there.
func Dial(ctx context.Context, rawURL string, opts Options) (*Client, error) {
	t, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 2 * time.Minute
	}
	if opts.SessionID == "" {
		opts.SessionID = t.SessionID
	}
	if opts.SessionID == "" {
		opts.SessionID = newUUID()
	}
	if opts.UserID == "" {
		opts.UserID = t.UserID
	}
	if opts.UserID == "" {
		opts.UserID = "thund"
	}
	addr := net.JoinHostPort(t.Host, strconv.Itoa(t.Port))
	c := &Client{
		URL:       "sc://" + addr,
		addr:      addr,
		sessionID: opts.SessionID,
		userID:    opts.UserID,
		opts:      opts,
	}
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(128<<20)),
	)
	if err != nil {
		return nil, fmt.Errorf("spark connect %s: %w", c.URL, err)
	}
	c.conn = conn
	c.stub = pb.NewSparkConnectServiceClient(conn)
	dctx, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	if err := c.waitReady(dctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// waitReady connects and waits until the connection is up, failing on the
// first refused attempt rather than retrying until the deadline.
func (c *Client) waitReady(ctx context.Context) error {
	c.conn.Connect()
	for {
		s := c.conn.GetState()
		switch s {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return &Error{Kind: ServerDown, Op: "connect", URL: c.URL}
		}
		if !c.conn.WaitForStateChange(ctx, s) {
			if ctx.Err() == context.DeadlineExceeded {
				return &Error{Kind: Timeout, Op: "connect", URL: c.URL,
					Message: fmt.Sprintf("no answer within %s", c.opts.DialTimeout)}
			}
			return &Error{Kind: Canceled, Op: "connect", URL: c.URL, Err: ctx.Err()}
		}
	}
}

// SessionID returns the client's session id.
func (c *Client) SessionID() string { return c.sessionID }

// Close releases the session on the server (bounded by a short timeout)
// and closes the connection.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, rerr := c.stub.ReleaseSession(ctx, &pb.ReleaseSessionRequest{
		SessionId:   c.sessionID,
		UserContext: c.userContext(),
		ClientType:  ptr(ClientType),
	})
	cerr := c.conn.Close()
	if rerr != nil {
		if e := c.wrap("ReleaseSession", rerr, ctx); !errors.Is(e, ErrServerDown) && !errors.Is(e, ErrSessionExpired) {
			return e
		}
	}
	return cerr
}

// ReleaseSession ends the session on the server but keeps the connection:
// later calls fail with ErrSessionExpired. Tests use it to expire a session.
func (c *Client) ReleaseSession(ctx context.Context) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	_, err := c.stub.ReleaseSession(ctx, &pb.ReleaseSessionRequest{
		SessionId:   c.sessionID,
		UserContext: c.userContext(),
		ClientType:  ptr(ClientType),
	})
	if err != nil {
		return c.wrap("ReleaseSession", err, ctx)
	}
	return nil
}

func (c *Client) userContext() *pb.UserContext {
	return &pb.UserContext{UserId: c.userID, UserName: c.userID}
}

// bound gives ctx the call timeout when it has no deadline.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.opts.CallTimeout)
}

// Execute runs plan and calls fn with each response, in order, until the
// server ends the stream. It stops at fn's first error and returns it. op
// names the call in errors ("StartRun", "SQL"...). A context without a
// deadline gets the call timeout.
func (c *Client) Execute(ctx context.Context, op string, plan *pb.Plan, fn func(*pb.ExecutePlanResponse) error) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	req := &pb.ExecutePlanRequest{
		SessionId:   c.sessionID,
		UserContext: c.userContext(),
		Plan:        plan,
		ClientType:  ptr(ClientType),
		OperationId: ptr(newUUID()),
	}
	c.mu.Lock()
	if c.serverSession != "" {
		req.ClientObservedServerSideSessionId = ptr(c.serverSession)
	}
	c.mu.Unlock()
	stream, err := c.stub.ExecutePlan(ctx, req)
	if err != nil {
		return c.wrap(op, err, ctx)
	}
	for {
		resp, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return c.wrap(op, err, ctx)
		}
		if s := resp.GetServerSideSessionId(); s != "" {
			c.mu.Lock()
			if c.serverSession == "" {
				c.serverSession = s
			}
			c.mu.Unlock()
		}
		if err := fn(resp); err != nil {
			return err
		}
	}
}

// Query runs a SQL query and calls fn with each Arrow IPC stream the
// server returns (a schema message and record batches each).
func (c *Client) Query(ctx context.Context, query string, fn func(arrowIPC []byte, rows int64) error) error {
	plan := &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{
		RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: query}},
	}}}
	return c.Execute(ctx, "SQL query", plan, func(r *pb.ExecutePlanResponse) error {
		if b := r.GetArrowBatch(); b != nil {
			return fn(b.GetData(), b.GetRowCount())
		}
		return nil
	})
}

// SQL runs a SQL statement for its effect (SET, CREATE, DROP...).
func (c *Client) SQL(ctx context.Context, statement string) error {
	plan := &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{
		CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{
			Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: statement}}},
		}},
	}}}
	return c.Execute(ctx, "SQL statement", plan, func(*pb.ExecutePlanResponse) error { return nil })
}

func ptr[T any](v T) *T { return &v }

// newUUID returns a random (version 4) UUID, as Spark wants for session
// and operation ids.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}
