package sparkconnect

import (
	"context"
	"fmt"
	"time"

	"github.com/thund-dev/thund/sparkconnect/pb"
)

// Event is one pipeline event as Spark 4.1 sends it: a time and a text.
type Event struct {
	Time    time.Time
	Message string
}

// pipeline runs one pipeline command and returns its command result, if
// the server sent one; events go to onEvent (may be nil).
func (c *Client) pipeline(ctx context.Context, op string, cmd *pb.PipelineCommand, onEvent func(Event)) (*pb.PipelineCommandResult, error) {
	plan := &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{
		CommandType: &pb.Command_PipelineCommand{PipelineCommand: cmd},
	}}}
	var result *pb.PipelineCommandResult
	err := c.Execute(ctx, op, plan, func(r *pb.ExecutePlanResponse) error {
		switch {
		case r.GetPipelineCommandResult() != nil:
			result = r.GetPipelineCommandResult()
		case r.GetPipelineEventResult() != nil && onEvent != nil:
			ev := r.GetPipelineEventResult().GetEvent()
			e := Event{Message: ev.GetMessage()}
			if ts := ev.GetTimestamp(); ts != nil {
				e.Time = ts.AsTime()
			}
			onEvent(e)
		}
		return nil
	})
	return result, err
}

// CreateDataflowGraph creates an empty dataflow graph with the default
// catalog and database (either may be empty) and SQL settings, and returns
// its id.
func (c *Client) CreateDataflowGraph(ctx context.Context, catalog, database string, conf map[string]string) (string, error) {
	g := &pb.PipelineCommand_CreateDataflowGraph{SqlConf: conf}
	if catalog != "" {
		g.DefaultCatalog = ptr(catalog)
	}
	if database != "" {
		g.DefaultDatabase = ptr(database)
	}
	res, err := c.pipeline(ctx, "CreateDataflowGraph",
		&pb.PipelineCommand{CommandType: &pb.PipelineCommand_CreateDataflowGraph_{CreateDataflowGraph: g}}, nil)
	if err != nil {
		return "", err
	}
	id := res.GetCreateDataflowGraphResult().GetDataflowGraphId()
	if id == "" {
		return "", &Error{Op: "CreateDataflowGraph", URL: c.URL, Message: "the server returned no graph id"}
	}
	return id, nil
}

// DefineOutput declares an output (table, materialized view, temporary
// view or sink) and returns the identifier the server resolved it to.
func (c *Client) DefineOutput(ctx context.Context, o *pb.PipelineCommand_DefineOutput) (*pb.ResolvedIdentifier, error) {
	res, err := c.pipeline(ctx, fmt.Sprintf("DefineOutput %s", o.GetOutputName()),
		&pb.PipelineCommand{CommandType: &pb.PipelineCommand_DefineOutput_{DefineOutput: o}}, nil)
	if err != nil {
		return nil, err
	}
	return res.GetDefineOutputResult().GetResolvedIdentifier(), nil
}

// DefineFlow declares a flow and returns the identifier the server
// resolved its name to.
func (c *Client) DefineFlow(ctx context.Context, f *pb.PipelineCommand_DefineFlow) (*pb.ResolvedIdentifier, error) {
	res, err := c.pipeline(ctx, fmt.Sprintf("DefineFlow %s", f.GetFlowName()),
		&pb.PipelineCommand{CommandType: &pb.PipelineCommand_DefineFlow_{DefineFlow: f}}, nil)
	if err != nil {
		return nil, err
	}
	return res.GetDefineFlowResult().GetResolvedIdentifier(), nil
}

// DefineSQLGraphElements registers every dataset and flow of a SQL file,
// given its path (for messages) and its text as written.
func (c *Client) DefineSQLGraphElements(ctx context.Context, graphID, path, text string) error {
	_, err := c.pipeline(ctx, fmt.Sprintf("DefineSqlGraphElements %s", path),
		&pb.PipelineCommand{CommandType: &pb.PipelineCommand_DefineSqlGraphElements_{
			DefineSqlGraphElements: &pb.PipelineCommand_DefineSqlGraphElements{
				DataflowGraphId: ptr(graphID), SqlFilePath: ptr(path), SqlText: ptr(text),
			}}}, nil)
	return err
}

// StartRun starts a run (or a dry run) of a graph and streams its events
// to onEvent until the run ends. The error is the run's failure, if any.
func (c *Client) StartRun(ctx context.Context, r *pb.PipelineCommand_StartRun, onEvent func(Event)) error {
	op := "StartRun"
	if r.GetDry() {
		op = "StartRun (dry run)"
	}
	_, err := c.pipeline(ctx, op, &pb.PipelineCommand{CommandType: &pb.PipelineCommand_StartRun_{StartRun: r}}, onEvent)
	return err
}

// DropDataflowGraph drops a graph from the session.
func (c *Client) DropDataflowGraph(ctx context.Context, graphID string) error {
	_, err := c.pipeline(ctx, "DropDataflowGraph",
		&pb.PipelineCommand{CommandType: &pb.PipelineCommand_DropDataflowGraph_{
			DropDataflowGraph: &pb.PipelineCommand_DropDataflowGraph{DataflowGraphId: ptr(graphID)},
		}}, nil)
	return err
}
