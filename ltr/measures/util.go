package measures

import (
	"context"
	"sort"

	"github.com/lovbench/lovbench/internal/par"
)

// sortedDesc returns a copy of x sorted in decreasing order.
func sortedDesc(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Sort(sort.Reverse(sort.Float64Slice(y)))
	return y
}

// parallelChunks calls fn on contiguous chunks [lo, hi) covering [0, n),
// one per available CPU (par.Chunks). Callers write only to their own
// indices, so results do not depend on the number of workers.
func parallelChunks(n int, fn func(lo, hi int)) { par.Chunks(n, 64, fn) }

// parallelItems calls fn(i) for every i in [0, n) on up to one goroutine
// per available CPU (par.Each; for few, expensive items).
func parallelItems(n int, fn func(i int)) {
	par.Each(context.Background(), n, 0, func(_ context.Context, i int) error { fn(i); return nil })
}
