package measures

import (
	"runtime"
	"sort"
	"sync"
)

// sortedDesc returns a copy of x sorted in decreasing order.
func sortedDesc(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Sort(sort.Reverse(sort.Float64Slice(y)))
	return y
}

// parallelChunks calls fn on contiguous chunks [lo, hi) covering [0, n),
// one goroutine per available CPU. Callers write only to their own
// indices, so results do not depend on the number of workers.
func parallelChunks(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n < 64 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += size {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+size, n))
	}
	wg.Wait()
}

// parallelItems calls fn(i) for every i in [0, n), spreading the items over
// one goroutine per available CPU (for few, expensive items).
func parallelItems(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
