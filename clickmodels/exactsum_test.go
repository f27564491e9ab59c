package clickmodels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactSum checks the accumulator against math/big's exact sum of the
// same values (an independent implementation), in two orders.
func TestExactSum(t *testing.T) {
	// Hand cases: 1e16 + 1 - 1e16 is 1 exactly (float64 sums give 0 or 2);
	// 0.1 + 0.2 rounds to the float nearest 0.1+0.2 (exactly), which is
	// 0.30000000000000004; the smallest denormal survives.
	hand := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1e16, 1, -1e16}, 1},
		{[]float64{0.1, 0.2}, 0.30000000000000004},
		{[]float64{math.SmallestNonzeroFloat64, 1, -1}, math.SmallestNonzeroFloat64},
		{[]float64{math.MaxFloat64, -math.MaxFloat64, 3}, 3},
		{nil, 0},
		{[]float64{-2.5, 0.5}, -2},
	}
	for _, h := range hand {
		var s ExactSum
		for _, x := range h.xs {
			s.Add(x)
		}
		if got := s.Float64(); got != h.want {
			t.Errorf("sum %v = %v, want %v", h.xs, got, h.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		xs := make([]float64, 1000)
		exact := new(big.Float).SetPrec(4000)
		for i := range xs {
			xs[i] = (rng.Float64() - 0.3) * math.Pow(2, float64(rng.IntN(120)-60))
			exact.Add(exact, new(big.Float).SetFloat64(xs[i]))
		}
		want, _ := exact.Float64()
		var a, b, c ExactSum
		for i := range xs {
			a.Add(xs[i])
			if i%2 == 0 {
				b.Add(xs[len(xs)-1-i])
			} else {
				c.Add(xs[len(xs)-1-i])
			}
		}
		raw, _ := c.MarshalBinary()
		var c2 ExactSum
		if err := c2.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		b.Merge(&c2)
		if a.Float64() != want || b.Float64() != want {
			t.Fatalf("trial %d: %v and %v, want %v", trial, a.Float64(), b.Float64(), want)
		}
	}
}
