package sdplower

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/thund-dev/thund/sparkconnect"
)

func TestBothPrefersOwnFailure(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	waitCancel := func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return &sparkconnect.Error{Kind: sparkconnect.Canceled, Op: "x", Err: ctx.Err()}
		case <-time.After(10 * time.Second):
			return errors.New("not canceled")
		}
	}
	fail := func(err error) func(context.Context) error { return func(context.Context) error { return err } }
	ok := func(context.Context) error { return nil }
	for _, tc := range []struct {
		name string
		a, b func(context.Context) error
		want error
	}{
		{"both fine", ok, ok, nil},
		{"a fails, b canceled", fail(errA), waitCancel, errA},
		{"b fails, a canceled", waitCancel, fail(errB), errB},
		{"both fail", fail(errA), fail(errB), errA},
		{"b fails alone", ok, fail(errB), errB},
	} {
		start := time.Now()
		got := both(context.Background(), tc.a, tc.b)
		if got != tc.want {
			t.Errorf("%s: both = %v, want %v", tc.name, got, tc.want)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: the failure did not cancel the other lane", tc.name)
		}
	}
}
