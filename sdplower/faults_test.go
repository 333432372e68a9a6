package sdplower

// Push against a fake Spark Connect server that answers the pipeline
// commands with empty or wrong results, events naming flows that do not
// exist, and then breaks the run's stream, or that stalls: Push must end
// with a clear *PushError, never panic, never hang past its timeout, and
// leave no goroutine behind.

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

type garbageSpark struct {
	pb.UnimplementedSparkConnectServiceServer
	stall bool
}

func (g *garbageSpark) ExecutePlan(req *pb.ExecutePlanRequest, s grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
	cmd := req.GetPlan().GetCommand().GetPipelineCommand()
	switch cmd.GetCommandType().(type) {
	case *pb.PipelineCommand_CreateDataflowGraph_:
		id := "fake-graph"
		return s.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_PipelineCommandResult{PipelineCommandResult: &pb.PipelineCommandResult{
			ResultType: &pb.PipelineCommandResult_CreateDataflowGraphResult_{CreateDataflowGraphResult: &pb.PipelineCommandResult_CreateDataflowGraphResult{DataflowGraphId: &id}},
		}}})
	case *pb.PipelineCommand_StartRun_:
		if g.stall {
			<-s.Context().Done()
			return s.Context().Err()
		}
		for _, msg := range []string{
			"Flow spark_catalog.default.no_such_flow has FAILED.\nError: nothing",
			"Flow 'x' is RUNNING.",
			"",
			"Flow spark_catalog.default.clean_trips has FAILED.\nError: [TABLE_OR_VIEW_NOT_FOUND] gone",
		} {
			m := msg
			if err := s.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_PipelineEventResult{PipelineEventResult: &pb.PipelineEventResult{Event: &pb.PipelineEvent{Message: &m}}}}); err != nil {
				return err
			}
		}
		return status.Error(codes.Aborted, "run stream cut")
	}
	// Define*, Drop: an answer of the wrong kind.
	return s.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{}}})
}

func (g *garbageSpark) ReleaseSession(context.Context, *pb.ReleaseSessionRequest) (*pb.ReleaseSessionResponse, error) {
	return &pb.ReleaseSessionResponse{}, nil
}

func TestPushFakeGarbage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := load(t, "../testdata/sdp_project")
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused sdp_project: %v", diags)
	}
	for _, stall := range []bool{false, true} {
		name := "garbage"
		if stall {
			name = "stalled run"
		}
		t.Run(name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := grpc.NewServer()
			pb.RegisterSparkConnectServiceServer(srv, &garbageSpark{stall: stall})
			go srv.Serve(l)
			defer srv.Stop()
			c, err := sparkconnect.Dial(context.Background(), "sc://"+l.Addr().String(), sparkconnect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var events []Event
			done := make(chan struct{})
			var res *Result
			go func() {
				defer close(done)
				res, err = Push(context.Background(), c, g, Run{Dry: true, Storage: "file:///nowhere", Timeout: 2 * time.Second}, func(e Event) { events = append(events, e) })
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Push hung past its 2 s timeout")
			}
			var pe *PushError
			if !errors.As(err, &pe) || pe.Step != "StartRun" {
				t.Fatalf("Push = %v (%T), want a StartRun PushError", err, err)
			}
			if stall {
				if !errors.Is(err, sparkconnect.ErrTimeout) {
					t.Errorf("a stalled run: %v, want a timeout", err)
				}
				return
			}
			if !strings.Contains(err.Error(), "clean_trips") || !strings.Contains(err.Error(), "gone") {
				t.Errorf("error %q does not name the failed dataset and Spark's reason", err)
			}
			if res == nil || len(events) != 4 {
				t.Errorf("%d events, want the 4 the server sent", len(events))
			}
			if pe.Err == nil || !strings.Contains(pe.Err.Error(), "run stream cut") {
				t.Errorf("the cut stream is not reported: %v", pe.Err)
			}
		})
	}
}
