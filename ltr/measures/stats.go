package measures

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds the paired significance tests: the
// paired t-test, the Wilcoxon signed-rank test (the test of
// the matchmaking offline evaluation (docs/measures.md), "Evaluation of statistical
// significance") and a paired randomisation (sign-flip permutation) test.
// All take per-query values a (the baseline) and b, paired by index, test
// the two-sided null hypothesis of no difference, and work on d_i = b_i - a_i.
// They never return NaN: with fewer than two usable pairs the p-value is 1.

// TTest is the result of a paired t-test.
type TTest struct {
	T  float64 // t = mean(d) / (sd(d)/sqrt(n)); ±Inf when sd(d) = 0 and mean(d) != 0
	DF int     // degrees of freedom n-1
	P  float64 // two-sided p-value from Student's t with n-1 degrees of freedom
}

// PairedTTest returns the paired t-test of b against a.
func PairedTTest(a, b []float64) TTest {
	n := len(a)
	if n < 2 {
		return TTest{P: 1}
	}
	mean := 0.0
	for i := range a {
		mean += b[i] - a[i]
	}
	mean /= float64(n)
	ss := 0.0
	for i := range a {
		e := b[i] - a[i] - mean
		ss += e * e
	}
	sd := math.Sqrt(ss / float64(n-1))
	res := TTest{DF: n - 1}
	if sd == 0 {
		if mean == 0 {
			res.P = 1
			return res
		}
		res.T = math.Copysign(math.Inf(1), mean)
		return res
	}
	res.T = mean / (sd / math.Sqrt(float64(n)))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	res.P = math.Min(1, 2*st.Survival(math.Abs(res.T)))
	return res
}

// WilcoxonResult is the result of a Wilcoxon signed-rank test.
type WilcoxonResult struct {
	WPlus, WMinus float64 // rank sums of the positive and negative differences
	N             int     // number of non-zero differences
	Exact         bool    // p from the exact null distribution
	Z             float64 // normal approximation statistic (when not Exact)
	P             float64 // two-sided p-value
}

// ExactWilcoxonMax is the largest number of non-zero differences for which
// the Wilcoxon test uses the exact null distribution (when there are no
// ties among |d|); above it, or with ties, it uses the normal approximation.
const ExactWilcoxonMax = 50

// Wilcoxon returns the Wilcoxon signed-rank test of b against a. Zero
// differences are dropped (Wilcoxon's method), |d| are ranked with tied
// values getting their average rank. Without ties and with n <=
// ExactWilcoxonMax the p-value is exact: 2 P(S <= min(W+, W-)) for S the
// sum of a random subset of {1..n}. Otherwise it is the normal
// approximation with the tie correction and no continuity correction:
//
//	z = (W+ - n(n+1)/4) / sqrt(n(n+1)(2n+1)/24 - sum_t (t^3 - t)/48)
func Wilcoxon(a, b []float64) WilcoxonResult {
	var d []float64
	for i := range a {
		if x := b[i] - a[i]; x != 0 {
			d = append(d, x)
		}
	}
	n := len(d)
	res := WilcoxonResult{N: n, P: 1}
	if n == 0 {
		return res
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return math.Abs(d[idx[i]]) < math.Abs(d[idx[j]]) })
	ties := false
	tieCorr := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(d[idx[j+1]]) == math.Abs(d[idx[i]]) {
			j++
		}
		rank := float64(i+j+2) / 2 // average of ranks i+1..j+1
		for k := i; k <= j; k++ {
			if d[idx[k]] > 0 {
				res.WPlus += rank
			} else {
				res.WMinus += rank
			}
		}
		if t := float64(j - i + 1); t > 1 {
			ties = true
			tieCorr += t*t*t - t
		}
		i = j + 1
	}
	if !ties && n <= ExactWilcoxonMax {
		res.Exact = true
		w := int(math.Round(math.Min(res.WPlus, res.WMinus)))
		res.P = math.Min(1, 2*signedRankCDF(n, w))
		return res
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	variance := nf*(nf+1)*(2*nf+1)/24 - tieCorr/48
	if variance <= 0 {
		return res
	}
	res.Z = (res.WPlus - mean) / math.Sqrt(variance)
	res.P = math.Min(1, math.Erfc(math.Abs(res.Z)/math.Sqrt2))
	return res
}

// signedRankCDF returns P(S <= w) where S is the sum of a uniformly random
// subset of {1, ..., n}, by counting subsets per sum (dynamic programming
// in float64, exact for n <= 50).
func signedRankCDF(n, w int) float64 {
	max := n * (n + 1) / 2
	if w >= max {
		return 1
	}
	if w < 0 {
		return 0
	}
	count := make([]float64, max+1)
	count[0] = 1
	for k := 1; k <= n; k++ {
		for s := max; s >= k; s-- {
			count[s] += count[s-k]
		}
	}
	c := 0.0
	for s := 0; s <= w; s++ {
		c += count[s]
	}
	return c / math.Exp2(float64(n))
}

// ExactRandomisationMax is the largest number of pairs for which the
// randomisation test enumerates all 2^n sign assignments instead of
// sampling.
const ExactRandomisationMax = 16

// RandomisationTest returns the two-sided p-value of the paired
// randomisation test: under the null hypothesis each difference d_i is as
// likely to be -d_i, so the p-value is the share of sign assignments whose
// |mean| is at least the observed |mean(d)|. Up to ExactRandomisationMax
// pairs all 2^n assignments are enumerated (exact); otherwise trials random
// assignments are drawn from a PCG generator seeded with seed, and
// p = (1 + hits)/(1 + trials), which keeps p > 0 (Phipson and Smyth).
func RandomisationTest(a, b []float64, trials int, seed uint64) float64 {
	n := len(a)
	if n == 0 {
		return 1
	}
	d := make([]float64, n)
	obs := 0.0
	for i := range a {
		d[i] = b[i] - a[i]
		obs += d[i]
	}
	obs = math.Abs(obs)
	// Compare sums, with a relative tolerance so that the assignment equal
	// to the observed one always counts despite rounding.
	tol := 1e-9 * (1 + obs)
	if n <= ExactRandomisationMax {
		hits := 0
		total := 1 << n
		for mask := 0; mask < total; mask++ {
			s := 0.0
			for i, x := range d {
				if mask&(1<<i) != 0 {
					s -= x
				} else {
					s += x
				}
			}
			if math.Abs(s) >= obs-tol {
				hits++
			}
		}
		return float64(hits) / float64(total)
	}
	if trials < 1 {
		trials = 1
	}
	db := make([]uint64, n) // the differences as IEEE 754 bit patterns
	for i, x := range d {
		db[i] = math.Float64bits(x)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c6f7662656e6368)) // "lovbench"
	hits := 0
	for t := 0; t < trials; t++ {
		s := 0.0
		for lo := 0; lo < n; lo += 64 {
			bits := rng.Uint64()
			for _, x := range db[lo:min(lo+64, n)] {
				// Flip the sign bit of x when the random bit is set:
				// branch-free, as the bits are unpredictable.
				s += math.Float64frombits(x ^ (bits&1)<<63)
				bits >>= 1
			}
		}
		if math.Abs(s) >= obs-tol {
			hits++
		}
	}
	return float64(1+hits) / float64(1+trials)
}
