package clickmodels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refSum is the reference for ExactSum, computed with math/big (an
// independent implementation): each addend cut towards zero to a multiple
// of 2^-52, the cut values added exactly, the total rounded once to the
// nearest float64 (ties to even).
func refSum(xs []float64) float64 {
	total := new(big.Int)
	for _, x := range xs {
		f := new(big.Float).SetFloat64(x)
		f.SetMantExp(f, 52)
		q, _ := f.Int(nil) // truncates towards zero
		total.Add(total, q)
	}
	f := new(big.Float).SetInt(total)
	f.SetMantExp(f, -52)
	r, _ := f.Float64()
	return r
}

// TestExactSum checks the accumulator on hand cases and against refSum in
// several orders and groupings.
func TestExactSum(t *testing.T) {
	// Hand cases: 1e16 + 1 - 1e16 is 1 exactly (float64 sums give 0 or 2);
	// 0.1 and 0.2 have bits below 2^-52 (their lowest are 2^-56 and
	// 2^-55): cut, they lose 5/8 and 1/4 of 2^-52, and their sum,
	// 0.3 - 0.875·2^-52 + (0.1+0.2-0.3), rounds to 0.2999999999999998;
	// 2^-52 survives a cancellation, 2^-53 is below the grid; 4 + 2^-51
	// lies halfway between 4 and its successor and rounds to even, and one
	// more 2^-52 rounds it up; addends around 2^11, where Add leaves the
	// one-conversion path.
	hand := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1e16, 1, -1e16}, 1},
		{[]float64{0.1, 0.2}, 0.2999999999999998},
		{[]float64{0x1p-52, 1, -1}, 0x1p-52},
		{[]float64{0x1p-53, 1, -1}, 0},
		{[]float64{4, 0x1p-51}, 4},
		{[]float64{4, 0x1p-51, 0x1p-52}, 4 + 0x1p-50},
		{[]float64{-4, -0x1p-51, -0x1p-52}, -4 - 0x1p-50},
		{nil, 0},
		{[]float64{-2.5, 0.5}, -2},
		{[]float64{0x1p61, 0x1p61, 0x1p61, -0x1p61}, 0x1p62},
		{[]float64{2048.25, -2047.75}, 0.5},
		{[]float64{-2048.25, 2047.75, 0x1p-52}, -0.5 + 0x1p-52},
		{[]float64{2048 - 0x1p-42, 0x1p-42}, 2048},
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
	for trial := 0; trial < 200; trial++ {
		xs := make([]float64, 1+rng.IntN(1000))
		for i := range xs {
			xs[i] = (rng.Float64() - 0.3) * math.Pow(2, float64(rng.IntN(120)-80))
			if rng.IntN(8) == 0 && i > 0 {
				xs[i] = -xs[i-1] // cancellations
			}
		}
		want := refSum(xs)
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

// TestExactSumSpecial checks NaN, the infinities and addends beyond the
// range, and that the encoding keeps them.
func TestExactSumSpecial(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, math.NaN()}, math.NaN()},
		{[]float64{1, math.Inf(1)}, math.Inf(1)},
		{[]float64{1, math.Inf(-1)}, math.Inf(-1)},
		{[]float64{math.Inf(1), math.Inf(-1)}, math.NaN()},
		{[]float64{0x1p62}, math.Inf(1)},
		{[]float64{-math.MaxFloat64}, math.Inf(-1)},
	}
	for _, c := range cases {
		var s ExactSum
		for _, x := range c.xs {
			s.Add(x)
		}
		raw, _ := s.MarshalBinary()
		var s2 ExactSum
		if err := s2.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		for _, got := range []float64{s.Float64(), s2.Float64()} {
			if math.Float64bits(got) != math.Float64bits(c.want) && !(math.IsNaN(got) && math.IsNaN(c.want)) {
				t.Errorf("sum %v = %v, want %v", c.xs, got, c.want)
			}
		}
	}
	var s ExactSum
	if err := s.UnmarshalBinary(make([]byte, 16)); err == nil {
		t.Error("a 16-byte encoding was accepted")
	}
}

// TestExactSumRounding checks Float64's rounding against refSum over the
// accumulator's range: ties, sticky bits far below the window, sums beyond
// 2^63 and sums that cancel to a few units of 2^-52.
func TestExactSumRounding(t *testing.T) {
	check := func(xs []float64) {
		t.Helper()
		var s ExactSum
		for _, x := range xs {
			s.Add(x)
		}
		if got, want := s.Float64(), refSum(xs); math.Float64bits(got) != math.Float64bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("sum of %v = %v, want %v", xs, got, want)
		}
	}
	check([]float64{0x1p60, 0x1p-52})                                                        // sticky far below
	check([]float64{0x1p60, 0x1p8, 0x1p-52})                                                 // tie at 2^8 broken by 2^-52
	check([]float64{0x1p60, 0x1p7})                                                          // exact tie, to even
	check([]float64{0x1p61, 0x1p61, 0x1p61})                                                 // near the top of the addends
	check([]float64{-0x1p61, -0x1p61, 0x1p-52})                                              // negative near the top
	check([]float64{0x1p61, 0x1p61, 0x1p61, 0x1p61, 0x1p61, 0x1p61, 0x1p61, 0x1p61, 0x1p61}) // above 2^63
	check([]float64{0x1p-40, 0x1p-52, -0x1p-45})                                             // below 1, hi word 0
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 5000; trial++ {
		xs := make([]float64, 1+rng.IntN(8))
		base := rng.IntN(100) - 60
		for i := range xs {
			e := base + rng.IntN(40) - 20
			x := math.Ldexp(1+rng.Float64(), min(e, 58))
			if rng.IntN(2) == 0 {
				x = -x
			}
			if rng.IntN(4) == 0 && i > 0 {
				x = -xs[i-1] + math.Ldexp(rng.Float64(), e-50) // near cancellation
			}
			xs[i] = x
		}
		check(xs)
	}
}
