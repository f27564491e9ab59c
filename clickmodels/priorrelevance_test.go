package clickmodels

import (
	"math"
	"testing"
)

// The prior relevance of UBM is the attractiveness prior of the rank bucket
// (mean rank rounded; past the last bucket, the last); DBN's is the Beta
// with the moments of the product of the attractiveness and satisfaction
// priors: Beta(2, 2) and Beta(1, 3) have means 1/2 and 1/4 and second
// moments 3/10 and 1/10, so the product has mean 1/8 and second moment
// 3/100, variance 3/100 - 1/64 = 23/1600, and alpha + beta =
// (1/8)(7/8)/(23/1600) - 1 = 175/23 - 1 = 152/23.
func TestPriorRelevance(t *testing.T) {
	u := UncertaintyReport{AttrPriors: []BetaPrior{{Alpha: 5, Beta: 1}, {Alpha: 2, Beta: 2}}, SatPriors: []BetaPrior{{Alpha: 9, Beta: 9}, {Alpha: 1, Beta: 3}}}
	ubm := UncertaintyReport{AttrPriors: u.AttrPriors}
	for _, c := range []struct {
		rank float64
		a, b float64
	}{{0, 5, 1}, {0.4, 5, 1}, {0.6, 2, 2}, {1, 2, 2}, {7, 2, 2}} {
		if a, b := PriorRelevance(UBM, ubm, c.rank); a != c.a || b != c.b {
			t.Errorf("UBM at rank %v: Beta(%v, %v), want Beta(%v, %v)", c.rank, a, b, c.a, c.b)
		}
	}
	a, b := PriorRelevance(DBN, u, 1)
	if c := 152.0 / 23; math.Abs(a-c/8) > 1e-12 || math.Abs(b-7*c/8) > 1e-12 {
		t.Errorf("DBN: Beta(%v, %v), want Beta(%v, %v)", a, b, 152.0/23/8, 7*152.0/23/8)
	}
}
