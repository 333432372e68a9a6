package engine

import (
	"context"

	"github.com/thund-dev/thund/ir"
)

// runStreamingFlow runs a streaming flow whose stream is a sample folder.
// This first version processes every micro-batch file in one pass (the
// available_now trigger in append mode); per-file triggers, output modes,
// watermarks and CDC are built in streaming_*.go.
func (st *runState) runStreamingFlow(ctx context.Context, d *ir.Dataset, f *ir.Flow, appendTo bool) error {
	return st.runBatchFlow(ctx, d, f, appendTo)
}
