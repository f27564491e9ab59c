package labels

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Ranks returns the 1-based rank of every value of x in ascending order,
// tied values sharing the mean of the ranks they occupy (fractional ranking),
// so that the result does not depend on how ties are broken.
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1 // mean of ranks i+1 .. j+1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// RankPearson is the Pearson correlation coefficient of the orders of x and
// y (their fractional ranks), which is what the LOVBench paper (section
// 4.2.3) compares: "the total order of terms based on the predicted
// satisfaction probability with the total order of terms based on the
// CBRBench judgments". With ties it equals Spearman's rho computed by the
// Pearson formula on mid-ranks. NaN when fewer than two values or when
// either order is constant.
func RankPearson(x, y []float64) float64 {
	if len(x) < 2 || len(x) != len(y) {
		return math.NaN()
	}
	return stat.Correlation(Ranks(x), Ranks(y), nil)
}

// KendallTauB is Kendall's tau-b of x and y (Kendall 1945), which corrects
// tau for ties as expert labels have many:
//
//	tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2))
//
// with C and D the concordant and discordant pairs, n0 = n(n-1)/2, n1 the
// pairs tied in x and n2 the pairs tied in y. NaN when fewer than two values
// or when either x or y is constant. O(n^2), meant for expert judgment sets.
func KendallTauB(x, y []float64) float64 {
	n := len(x)
	if n < 2 || n != len(y) {
		return math.NaN()
	}
	var c, d, tx, ty float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case (dx > 0) == (dy > 0):
				c++
			default:
				d++
			}
		}
	}
	n0 := float64(n) * float64(n-1) / 2
	den := math.Sqrt((n0 - tx) * (n0 - ty))
	if den == 0 {
		return math.NaN()
	}
	return (c - d) / den
}
