// Package par is the project's one worker-pool pattern: independent jobs
// 0..n-1 on a bounded number of goroutines (golang.org/x/sync/errgroup),
// each writing only its own outputs, so that results never depend on the
// number of workers or the order jobs finish in.
package par

import (
	"context"
	"errors"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// Each calls fn(ctx, i) for every i in [0, n) on at most workers
// goroutines (workers <= 0: GOMAXPROCS). When a job fails, ctx (the one fn
// receives) is cancelled and the jobs not yet started are skipped. Each
// returns the error of the lowest index that failed for a reason of its
// own (not the cancellation that another job's failure caused), else the
// parent context's error, else nil.
func Each(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			errs[i] = fn(gctx, i)
			return errs[i]
		})
	}
	g.Wait()
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return err
		}
		if first == nil {
			first = err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return first
}

// Chunks calls fn(lo, hi) on contiguous chunks covering [0, n), one per
// available CPU (n < minChunk: one call), for cheap per-item work where a
// job per item would cost more than the item.
func Chunks(n, minChunk int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n < minChunk {
		fn(0, n)
		return
	}
	size := (n + workers - 1) / workers
	var g errgroup.Group
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		g.Go(func() error { fn(lo, hi); return nil })
	}
	g.Wait()
}
