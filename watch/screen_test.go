package watch

import (
	"os"
	"testing"
)

// failing fails every write, as a closed pipe does.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestOutputRecordsWriteFailures: a failure to write or encode output is
// kept for the next report to warn about, once.
func TestOutputRecordsWriteFailures(t *testing.T) {
	o := newOutput(failing{}, true, false)
	o.objects(map[string]any{"type": "run"})
	if err := o.takeErr(); err == nil {
		t.Fatal("a failed write left no error")
	}
	if err := o.takeErr(); err != nil {
		t.Fatalf("the error was reported twice: %v", err)
	}
	ok := newOutput(&syncBuffer{}, true, false)
	ok.objects(map[string]any{"bad": make(chan int)})
	if err := ok.takeErr(); err == nil {
		t.Fatal("a value JSON cannot encode left no error")
	}
}
