package clickmodels

import "testing"

// The prior relevance of UBM is the attractiveness prior of the rank bucket
// (mean rank rounded; past the last bucket, the last); DBN's is the
// bucket's prior of the relevance a·s itself (SatPriors), whatever the
// attractiveness prior.
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
	if a, b := PriorRelevance(DBN, u, 1); a != 1 || b != 3 {
		t.Errorf("DBN: Beta(%v, %v), want Beta(1, 3)", a, b)
	}
}
