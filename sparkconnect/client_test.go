package sparkconnect_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

func TestMain(m *testing.M) { sparktest.Main(m) }

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		port int
		user string
		err  string
	}{
		{in: "sc://127.0.0.1:15002", host: "127.0.0.1", port: 15002},
		{in: "sc://localhost", host: "localhost", port: 15002},
		{in: "sc://[::1]:4000/;user_id=ana", host: "::1", port: 4000, user: "ana"},
		{in: "sc://h:1/;use_ssl=false;user_agent=x", host: "h", port: 1},
		{in: "http://h:1", err: "must start with sc://"},
		{in: "sc://", err: "has no host"},
		{in: "sc://h:99999", err: "invalid port"},
		{in: "sc://h:1/;token=abc", err: "token is not supported"},
		{in: "sc://h:1/;session_id=nope", err: "is not a UUID"},
	} {
		got, err := sparkconnect.ParseURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseURL(%q) error = %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Host != tc.host || got.Port != tc.port || got.UserID != tc.user {
			t.Errorf("ParseURL(%q) = %+v, %v; want host %q port %d user %q", tc.in, got, err, tc.host, tc.port, tc.user)
		}
	}
}

// Nothing listens: Dial fails at once and says how to start a server.
func TestDialServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	start := time.Now()
	_, err = sparkconnect.Dial(context.Background(), "sc://"+addr, sparkconnect.Options{})
	if !errors.Is(err, sparkconnect.ErrServerDown) {
		t.Fatalf("Dial to a closed port = %v, want ErrServerDown", err)
	}
	if want := "no Spark Connect server at sc://" + addr + ": " + sparkconnect.StartHint; err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
	if !strings.Contains(err.Error(), "spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer") {
		t.Errorf("error text %q does not say how to start a server outside Thund's repository", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Dial took %v to notice a closed port", d)
	}
}

// A peer that accepts connections but never speaks gRPC: Dial gives up at
// its timeout instead of hanging.
func TestDialSilentPeerTimesOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	_, err = sparkconnect.Dial(context.Background(), "sc://"+l.Addr().String(), sparkconnect.Options{DialTimeout: 500 * time.Millisecond})
	if err == nil {
		t.Fatal("Dial to a silent peer succeeded")
	}
	if !errors.Is(err, sparkconnect.ErrTimeout) && !errors.Is(err, sparkconnect.ErrServerDown) {
		t.Errorf("Dial to a silent peer = %v, want a timeout or server-down error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Dial took %v with a 500ms timeout", d)
	}
}

func TestSparkQuery(t *testing.T) {
	c := sparktest.Client(t)
	var rows int64
	var batches int
	err := c.Query(context.Background(), "SELECT id FROM range(5)", func(b []byte, n int64) error {
		if len(b) == 0 {
			t.Error("empty Arrow batch")
		}
		batches++
		rows += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 5 || batches == 0 {
		t.Errorf("got %d rows in %d batches, want 5 rows", rows, batches)
	}
}

func TestSparkServerErrorCarriesClass(t *testing.T) {
	c := sparktest.Client(t)
	err := c.Query(context.Background(), "SELECT no_such_column FROM range(1)", func([]byte, int64) error { return nil })
	var se *sparkconnect.Error
	if !errors.As(err, &se) || se.Kind != sparkconnect.Server {
		t.Fatalf("error = %v, want a server error", err)
	}
	if se.Class != "UNRESOLVED_COLUMN.WITH_SUGGESTION" || se.SQLState != "42703" || !strings.Contains(se.Message, "no_such_column") {
		t.Errorf("class %q, state %q, message %q; want Spark's unresolved-column error", se.Class, se.SQLState, se.Message)
	}
}

func TestSparkGraphNotFound(t *testing.T) {
	c := sparktest.Client(t)
	id := "00000000-0000-4000-8000-000000000000"
	dry, storage := true, "file:///tmp/thund-none"
	err := c.StartRun(context.Background(), &pb.PipelineCommand_StartRun{DataflowGraphId: &id, Dry: &dry, Storage: &storage}, nil)
	if !errors.Is(err, sparkconnect.ErrGraphNotFound) {
		t.Fatalf("StartRun on an unknown graph = %v, want ErrGraphNotFound", err)
	}
	if !strings.Contains(err.Error(), "define the pipeline again") {
		t.Errorf("error %q does not say what to do", err)
	}
}

func TestSparkSessionExpired(t *testing.T) {
	c := sparktest.Client(t)
	if _, err := c.CreateDataflowGraph(context.Background(), "", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.ReleaseSession(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateDataflowGraph(context.Background(), "", "", nil)
	if !errors.Is(err, sparkconnect.ErrSessionExpired) {
		t.Fatalf("call after the session ended = %v, want ErrSessionExpired", err)
	}
	if !strings.Contains(err.Error(), "connect again") {
		t.Errorf("error %q does not say what to do", err)
	}
}

func TestSparkCallTimeout(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	// Long enough to outlast the deadline on any machine.
	err := c.Query(ctx, "SELECT count(*) FROM range(100000000000)", func([]byte, int64) error { return nil })
	if !errors.Is(err, sparkconnect.ErrTimeout) {
		t.Fatalf("query past its deadline = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call returned %v after its 50ms deadline", d)
	}
}

func TestSparkPipelineCalls(t *testing.T) {
	c := sparktest.Client(t)
	ctx := context.Background()
	id, err := c.CreateDataflowGraph(ctx, "spark_catalog", "default", map[string]string{"spark.sql.shuffle.partitions": "2"})
	if err != nil {
		t.Fatal(err)
	}
	mv := pb.OutputType_MATERIALIZED_VIEW
	name := "thund_client_test"
	ident, err := c.DefineOutput(ctx, &pb.PipelineCommand_DefineOutput{DataflowGraphId: &id, OutputName: &name, OutputType: &mv})
	if err != nil {
		t.Fatal(err)
	}
	if ident.GetTableName() != name || ident.GetCatalogName() != "spark_catalog" {
		t.Errorf("DefineOutput resolved to %v", ident)
	}
	_, err = c.DefineFlow(ctx, &pb.PipelineCommand_DefineFlow{
		DataflowGraphId: &id, FlowName: &name, TargetDatasetName: &name,
		Details: &pb.PipelineCommand_DefineFlow_RelationFlowDetails{RelationFlowDetails: &pb.PipelineCommand_DefineFlow_WriteRelationFlowDetails{
			Relation: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT 1 AS x"}}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	dry, storage := true, "file://"+t.TempDir()
	var events []sparkconnect.Event
	err = c.StartRun(ctx, &pb.PipelineCommand_StartRun{DataflowGraphId: &id, Dry: &dry, Storage: &storage}, func(e sparkconnect.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 || events[len(events)-1].Message != "Run is COMPLETED." || events[0].Time.IsZero() {
		t.Errorf("events = %+v, want timestamps and a last \"Run is COMPLETED.\"", events)
	}
	if err := c.DropDataflowGraph(ctx, id); err != nil {
		t.Fatal(err)
	}
}
