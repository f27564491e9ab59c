package clickmodels

import (
	"math/rand/v2"
	"testing"
)

// benchPriorHists is the prior histograms of 20,000 pairs spread over the
// rank buckets and exposure classes as on a sparse log: evidence N from
// 0.1 to about 400 (log-uniform), relevance from Beta(2, 5), a third of
// the pairs never clicked.
func benchPriorHists() [][exposureClasses]priorHist {
	rng := rand.New(rand.NewPCG(5, 6))
	by := make([][exposureClasses]priorHist, rankBuckets)
	for range 20000 {
		n := 0.1 * float64(int(1+rng.ExpFloat64()*1.5*8)) * (1 + rng.Float64())
		x, y := rng.ExpFloat64()+rng.ExpFloat64(), rng.ExpFloat64()*5
		k := 0.0
		if rng.IntN(3) > 0 {
			k = min(n, n*x/(x+y)*(0.5+rng.Float64()))
		}
		by[rng.IntN(10)][exposureClass(1+rng.ExpFloat64()*8)].add(k, n)
	}
	return by
}

// BenchmarkPriorTableOf: one parameter's table of priors (the pooled,
// rank-bucket and cell fits), as every fit writing its intervals does per
// parameter.
func BenchmarkPriorTableOf(b *testing.B) {
	by := benchPriorHists()
	for b.Loop() {
		priorTableOf(by, true)
	}
}
