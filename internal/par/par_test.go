package par

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// Every job runs once and writes its own output, whatever the workers.
func TestEachRunsEveryJob(t *testing.T) {
	for _, w := range []int{0, 1, 3, 100} {
		out := make([]int, 50)
		if err := Each(context.Background(), len(out), w, func(_ context.Context, i int) error { out[i] = i * i; return nil }); err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if v != i*i {
				t.Fatalf("workers %d: out[%d] = %d", w, i, v)
			}
		}
	}
}

// The error of the lowest failing index wins over later ones and over the
// cancellation the failure causes in other jobs.
func TestEachFirstErrorByIndex(t *testing.T) {
	err := Each(context.Background(), 10, 1, func(ctx context.Context, i int) error {
		if i == 3 || i == 7 {
			return fmt.Errorf("job %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "job 3" {
		t.Errorf("err = %v, want job 3", err)
	}
	// With workers, job 5 fails; jobs 6 and 7, already running, wait for
	// the cancellation and return it; later jobs are skipped.
	var started atomic.Int32
	err = Each(context.Background(), 20, 3, func(ctx context.Context, i int) error {
		started.Add(1)
		switch {
		case i < 5:
			return nil
		case i == 5:
			return errors.New("job 5")
		}
		<-ctx.Done()
		return ctx.Err()
	})
	if err == nil || err.Error() != "job 5" {
		t.Errorf("err = %v, want job 5 (not a cancellation)", err)
	}
	if n := started.Load(); n >= 20 {
		t.Errorf("%d jobs started after job 5 failed, want the rest skipped", n)
	}
}

// A cancelled parent context is returned as such.
func TestEachParentCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Each(ctx, 5, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Chunks covers [0, n) exactly once.
func TestChunksCover(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 1000} {
		seen := make([]int32, n)
		Chunks(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n %d: item %d covered %d times", n, i, c)
			}
		}
	}
}
