package measures

import (
	"math"
	"math/rand/v2"
	"testing"
)

// a = (1 2 3 4 5), b = (2 4 3 6 7): d = (1 2 0 2 2), mean 1.4,
// sum of squared deviations 0.16+0.36+1.96+0.36+0.36 = 3.2, sd = sqrt(0.8),
// se = sqrt(0.8)/sqrt(5) = 0.4, t = 3.5 with 4 degrees of freedom.
// For 4 degrees of freedom the two-sided p is I_x(2, 1/2) with
// x = 4/(4+t^2); with y = 1-x = 0.7538462,
// I_x(2, 1/2) = 1 - (1.5 sqrt(y) - 0.5 y^1.5) = 0.0248962.
func TestPairedTTestHand(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, 4, 3, 6, 7}
	r := PairedTTest(a, b)
	if !near(r.T, 3.5, 1e-12) || r.DF != 4 {
		t.Errorf("t = %v df = %d, want 3.5 and 4", r.T, r.DF)
	}
	if !near(r.P, 0.0248962, 1e-6) {
		t.Errorf("p = %.7f, want 0.0248962", r.P)
	}
	// Swapping the runs flips t and keeps p.
	if s := PairedTTest(b, a); !near(s.T, -3.5, 1e-12) || !near(s.P, r.P, 1e-12) {
		t.Errorf("swapped: t = %v p = %v", s.T, s.P)
	}
	// Identical runs: p = 1; constant non-zero difference: p = 0.
	if r := PairedTTest(a, a); r.P != 1 {
		t.Errorf("identical runs p = %v", r.P)
	}
	if r := PairedTTest(a, []float64{2, 3, 4, 5, 6}); r.P != 0 || !math.IsInf(r.T, 1) {
		t.Errorf("constant shift: t = %v p = %v", r.T, r.P)
	}
}

// Darwin's Zea mays differences (cross- minus self-fertilised heights, in
// eighths of an inch), the example of scipy.stats.wilcoxon's documentation,
// which gives statistic 24 and the exact p-value 0.041259765625: the two
// negative differences -48 and -67 have ranks 10 and 14, W- = 24, and
// 2 P(S <= 24) = 2 * 676 / 2^15.
func TestWilcoxonDarwinExact(t *testing.T) {
	d := []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}
	zero := make([]float64, len(d))
	r := Wilcoxon(zero, d)
	if r.WMinus != 24 || r.WPlus != 96 || r.N != 15 || !r.Exact {
		t.Errorf("W- = %v W+ = %v n = %d exact = %v, want 24, 96, 15, true", r.WMinus, r.WPlus, r.N, r.Exact)
	}
	if r.P != 0.041259765625 {
		t.Errorf("p = %.12f, want 0.041259765625", r.P)
	}
	// All five differences positive: p = 2/32.
	if r := Wilcoxon(zero[:5], []float64{1, 2, 3, 4, 5}); r.P != 0.0625 {
		t.Errorf("all positive n=5: p = %v, want 0.0625", r.P)
	}
}

// d = (1 2 2 3 -4 5 6 7) has a tie, so the normal approximation is used:
// ranks 1, 2.5, 2.5, 4, 5 (negative), 6, 7, 8; W+ = 31, W- = 5;
// mean 8*9/4 = 18, variance 8*9*17/24 - (2^3-2)/48 = 50.875,
// z = 13/sqrt(50.875) = 1.8225991, p = erfc(z/sqrt 2) = 0.0683641.
func TestWilcoxonNormalWithTies(t *testing.T) {
	d := []float64{1, 2, 2, 3, -4, 5, 6, 7}
	r := Wilcoxon(make([]float64, len(d)), d)
	if r.Exact || r.WPlus != 31 || r.WMinus != 5 {
		t.Errorf("exact = %v W+ = %v W- = %v", r.Exact, r.WPlus, r.WMinus)
	}
	if !near(r.Z, 1.8225991, 1e-6) || !near(r.P, 0.0683641, 1e-6) {
		t.Errorf("z = %.7f p = %.7f, want 1.8225991 0.0683641", r.Z, r.P)
	}
	// Zero differences are dropped; all zero gives p = 1.
	if r := Wilcoxon([]float64{1, 2}, []float64{1, 2}); r.P != 1 || r.N != 0 {
		t.Errorf("all zero: %+v", r)
	}
}

// d = (1 2 0 2 2): observed sum 7; only the 2 assignments with all
// non-zero signs equal reach |sum| = 7, times 2 signs of the zero: 4/32.
func TestRandomisationExact(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, 4, 3, 6, 7}
	if p := RandomisationTest(a, b, 0, 1); p != 0.125 {
		t.Errorf("p = %v, want 0.125", p)
	}
}

// bruteRandomisation enumerates all 2^n sign assignments.
func bruteRandomisation(d []float64) float64 {
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	hits := 0
	for mask := 0; mask < 1<<len(d); mask++ {
		s := 0.0
		for i, x := range d {
			if mask>>i&1 == 1 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= math.Abs(obs)-1e-9 {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<len(d))
}

// With n = 18 > ExactRandomisationMax the test samples; with 100000
// trials its standard error is below 0.0016, so it must be within 0.006
// of the exhaustive enumeration. The same seed gives the same p.
func TestRandomisationSampledMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	n := 18
	a, b := make([]float64, n), make([]float64, n)
	d := make([]float64, n)
	for i := range a {
		a[i] = rng.Float64()
		b[i] = a[i] + rng.NormFloat64()*0.3 + 0.08
		d[i] = b[i] - a[i]
	}
	want := bruteRandomisation(d)
	got := RandomisationTest(a, b, 100000, 42)
	if math.Abs(got-want) > 0.006 {
		t.Errorf("sampled p = %v, enumeration %v", got, want)
	}
	if again := RandomisationTest(a, b, 100000, 42); again != got {
		t.Errorf("same seed gave %v then %v", got, again)
	}
	// A constant positive difference on 30 queries: no random assignment
	// but the all-positive and all-negative ones (probability 2^-29) reaches
	// the observed mean, so p = 1/(1+trials) unless one of them is drawn.
	c := make([]float64, 30)
	for i := range c {
		c[i] = 0.1
	}
	if p := RandomisationTest(make([]float64, 30), c, 999, 3); p != 1.0/1000 {
		t.Errorf("constant difference p = %v, want 0.001", p)
	}
}
