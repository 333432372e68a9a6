package sparkconnect_test

// Spark faults against fake servers: a local gRPC server implementing the
// generated SparkConnectService that stalls, answers late, breaks off, or
// answers with garbage (wrong oneofs, truncated Arrow, no result, error
// statuses with odd details). Every call must end with a clear error or
// a well-formed result, within its timeout, and leave no goroutine behind
// (goleak).

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

// hangBound is how long a call may take before the test calls it a hang;
// only a failing test waits that long.
const hangBound = 20 * time.Second

// fakeSpark is a gRPC server whose ExecutePlan does what the test says.
type fakeSpark struct {
	pb.UnimplementedSparkConnectServiceServer
	exec func(*pb.ExecutePlanRequest, grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error
	srv  *grpc.Server
	url  string
	once sync.Once
}

func (f *fakeSpark) ExecutePlan(req *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
	return f.exec(req, s)
}

func (f *fakeSpark) ReleaseSession(context.Context, *pb.ReleaseSessionRequest) (*pb.ReleaseSessionResponse, error) {
	return &pb.ReleaseSessionResponse{}, nil
}

// stop closes every connection at once, as a server that dies does.
func (f *fakeSpark) stop() { f.once.Do(f.srv.Stop) }

func startFake(t *testing.T, exec func(*pb.ExecutePlanRequest, grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error) *fakeSpark {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSpark{exec: exec, srv: grpc.NewServer(), url: "sc://" + l.Addr().String()}
	pb.RegisterSparkConnectServiceServer(f.srv, f)
	go f.srv.Serve(l)
	return f
}

// dialFake connects with a short call timeout.
func dialFake(t *testing.T, f *fakeSpark, call time.Duration) *sparkconnect.Client {
	t.Helper()
	c, err := sparkconnect.Dial(context.Background(), f.url, sparkconnect.Options{DialTimeout: 5 * time.Second, CallTimeout: call})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// arrowStream encodes rows of one int64 column as an Arrow IPC stream.
func arrowStream(t *testing.T, vals ...int64) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func arrowResponse(data []byte, rows int64) *pb.ExecutePlanResponse {
	return &pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_ArrowBatch_{ArrowBatch: &pb.ExecutePlanResponse_ArrowBatch{Data: data, RowCount: rows}}}
}

// statusWith builds a gRPC status error with details.
func statusWith(t *testing.T, code codes.Code, msg string, details ...*errdetails.ErrorInfo) error {
	t.Helper()
	st := status.New(code, msg)
	for _, d := range details {
		var err error
		if st, err = st.WithDetails(d); err != nil {
			t.Fatal(err)
		}
	}
	return st.Err()
}

// bounded runs fn and fails the test if it takes longer than hangBound.
func bounded(t *testing.T, what string, fn func() error) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err, time.Since(start)
	case <-time.After(hangBound):
		t.Fatalf("%s hung for %s", what, hangBound)
		return nil, 0
	}
}

func TestFakeServerFaults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type result struct {
		rows int64
		err  error
	}
	query := func(c *sparkconnect.Client) result {
		rdr, err := c.QueryArrow(context.Background(), "SELECT id FROM t")
		if err != nil {
			return result{err: err}
		}
		defer rdr.Release()
		var n int64
		for rdr.Next() {
			n += rdr.RecordBatch().NumRows()
		}
		return result{rows: n}
	}
	valid := arrowStream(t, 1, 2, 3)
	cases := []struct {
		name string
		exec func(*pb.ExecutePlanRequest, grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error
		// want: "rows=N" for a result, or a sentinel / text the error
		// must carry.
		rows    int64
		wantErr error
		text    string
	}{
		{name: "stalls forever", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			<-s.Context().Done()
			return s.Context().Err()
		}, wantErr: sparkconnect.ErrTimeout, text: "timed out"},
		{name: "answers after the timeout", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			select {
			case <-time.After(3 * time.Second):
				return s.Send(arrowResponse(valid, 3))
			case <-s.Context().Done():
				return s.Context().Err()
			}
		}, wantErr: sparkconnect.ErrTimeout, text: "timed out"},
		{name: "trickles past the timeout", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			for {
				if err := s.Send(&pb.ExecutePlanResponse{}); err != nil {
					return err
				}
				select {
				case <-time.After(50 * time.Millisecond):
				case <-s.Context().Done():
					return s.Context().Err()
				}
			}
		}, wantErr: sparkconnect.ErrTimeout},
		{name: "no result_complete (as Spark's non-reattachable execution)", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return s.Send(arrowResponse(valid, 3))
		}, rows: 3},
		{name: "wrong oneofs only", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			for _, r := range []*pb.ExecutePlanResponse{
				{},
				{ResponseType: &pb.ExecutePlanResponse_PipelineCommandResult{PipelineCommandResult: &pb.PipelineCommandResult{}}},
				{ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{}}},
				{ResponseType: &pb.ExecutePlanResponse_PipelineEventResult{}},
				{ResponseType: &pb.ExecutePlanResponse_ArrowBatch_{}},
			} {
				if err := s.Send(r); err != nil {
					return err
				}
			}
			return nil
		}, text: "Arrow batch 1"},
		{name: "truncated Arrow", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return s.Send(arrowResponse(valid[:len(valid)/2], 3))
		}, text: "Arrow batch 1"},
		{name: "garbage Arrow", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return s.Send(arrowResponse([]byte("\xff\xff\xff\xffnot arrow at all"), 3))
		}, text: "Arrow batch 1"},
		{name: "schema changes between batches", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			if err := s.Send(arrowResponse(valid, 3)); err != nil {
				return err
			}
			schema := arrow.NewSchema([]arrow.Field{{Name: "other", Type: arrow.BinaryTypes.String}}, nil)
			var buf bytes.Buffer
			w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
			w.Close()
			return s.Send(arrowResponse(buf.Bytes(), 0))
		}, text: "Arrow batch 2 has schema"},
		{name: "breaks off after a batch", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			if err := s.Send(arrowResponse(valid, 3)); err != nil {
				return err
			}
			return status.Error(codes.Internal, "executor lost")
		}, text: "executor lost"},
		{name: "session expired", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return statusWith(t, codes.FailedPrecondition, "[INVALID_HANDLE.SESSION_NOT_FOUND] The handle is invalid.",
				&errdetails.ErrorInfo{Reason: "org.apache.spark.SparkSQLException", Metadata: map[string]string{"errorClass": "INVALID_HANDLE.SESSION_NOT_FOUND"}})
		}, wantErr: sparkconnect.ErrSessionExpired, text: "connect again"},
		{name: "session changed, class only in the text", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return status.Error(codes.Internal, "[INVALID_HANDLE.SESSION_CHANGED] The existing Spark server driver instance has restarted.")
		}, wantErr: sparkconnect.ErrSessionExpired},
		{name: "error info without metadata", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return statusWith(t, codes.Internal, "boom", &errdetails.ErrorInfo{})
		}, text: "boom"},
		{name: "odd details and message", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			st := status.New(codes.Unknown, "[unterminated class \u202e\x00 "+strings.Repeat("x", 1<<16))
			st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Hour)}, &errdetails.DebugInfo{StackEntries: []string{"a", ""}},
				&errdetails.ErrorInfo{Metadata: map[string]string{"errorClass": "", "sqlState": "\x00"}})
			return st.Err()
		}, text: "[unterminated class"},
		{name: "empty error", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			return status.Error(codes.Internal, "")
		}, text: "SQL query on sc://"},
		{name: "server dies mid-stream", exec: func(_ *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
			if err := s.Send(arrowResponse(valid, 3)); err != nil {
				return err
			}
			// Signals the test to kill the server (below), then waits.
			dying <- struct{}{}
			<-s.Context().Done()
			return nil
		}, wantErr: sparkconnect.ErrServerDown, text: "not answering"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t, tc.exec)
			defer f.stop()
			// A short call timeout where the case is about timing out;
			// elsewhere a loose one, so a slow machine does not turn a
			// garbage answer into a timeout.
			call := 30 * time.Second
			if tc.wantErr == sparkconnect.ErrTimeout {
				call = 500 * time.Millisecond
			}
			c := dialFake(t, f, call)
			defer c.Close()
			if strings.HasPrefix(tc.name, "server dies") {
				go func() { <-dying; f.stop() }()
			}
			var r result
			err, took := bounded(t, tc.name, func() error { r = query(c); return r.err })
			if tc.wantErr == nil && tc.text == "" {
				if err != nil || r.rows != tc.rows {
					t.Fatalf("got %d rows, %v; want %d rows", r.rows, err, tc.rows)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error (%d rows)", r.rows)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %q (after %s), want %v", err, took, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not say %q", err, tc.text)
			}
			if len(err.Error()) > 1<<17 {
				t.Errorf("error text of %d bytes", len(err.Error()))
			}
		})
	}
}

// dying tells the "server dies mid-stream" case's test to stop the server.
var dying = make(chan struct{}, 1)

// TestFakePipelineGarbage sends the pipeline commands wrong or empty
// answers: each call says what is wrong instead of returning a zero value
// as if it had worked, or at least does not panic or hang.
func TestFakePipelineGarbage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := startFake(t, func(req *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
		switch req.GetPlan().GetCommand().GetPipelineCommand().GetCommandType().(type) {
		case *pb.PipelineCommand_CreateDataflowGraph_:
			// An Arrow batch where the graph id should be.
			return s.Send(arrowResponse([]byte("junk"), 1))
		case *pb.PipelineCommand_StartRun_:
			// Events with no time and odd text, then a broken stream.
			for _, msg := range []string{"", "Flow 'x' has FAILED", "\u202e\x00", strings.Repeat("y", 1<<16)} {
				if err := s.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_PipelineEventResult{PipelineEventResult: &pb.PipelineEventResult{Event: &pb.PipelineEvent{Message: &msg}}}}); err != nil {
					return err
				}
			}
			return status.Error(codes.DataLoss, "stream cut")
		}
		return s.Send(&pb.ExecutePlanResponse{})
	})
	defer f.stop()
	c := dialFake(t, f, 2*time.Second)
	defer c.Close()
	ctx := context.Background()
	err, _ := bounded(t, "CreateDataflowGraph", func() error { _, err := c.CreateDataflowGraph(ctx, "", "", nil); return err })
	if err == nil || !strings.Contains(err.Error(), "no graph id") {
		t.Errorf("CreateDataflowGraph with garbage = %v, want a missing graph id error", err)
	}
	var events []sparkconnect.Event
	err, _ = bounded(t, "StartRun", func() error {
		id, dry, storage := "g", true, "file:///nowhere"
		return c.StartRun(ctx, &pb.PipelineCommand_StartRun{DataflowGraphId: &id, Dry: &dry, Storage: &storage}, func(e sparkconnect.Event) { events = append(events, e) })
	})
	if err == nil || !strings.Contains(err.Error(), "stream cut") || len(events) != 4 {
		t.Errorf("StartRun: %d events, error %v; want 4 events and the cut", len(events), err)
	}
	if !events[0].Time.IsZero() {
		t.Errorf("an event without a timestamp got %v", events[0].Time)
	}
	// DefineOutput with an empty answer returns no identifier and no
	// error (the server's resolution is advisory: sdplower then maps
	// events by the names it defined; TestPushFakeGarbage in sdplower
	// checks that this path holds).
	err, _ = bounded(t, "DefineOutput", func() error {
		name, id := "x", "g"
		ident, err := c.DefineOutput(ctx, &pb.PipelineCommand_DefineOutput{DataflowGraphId: &id, OutputName: &name})
		if ident != nil {
			t.Errorf("DefineOutput with an empty answer resolved to %v", ident)
		}
		return err
	})
	if err != nil {
		t.Errorf("DefineOutput with an empty answer: %v", err)
	}
}
