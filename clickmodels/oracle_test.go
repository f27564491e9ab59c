package clickmodels

import "testing"

// TestOracleRelevanceDists: six UBM pairs of rank bucket 0 in three
// exposure classes. Shown once, true attractiveness 0.2, 0.4, 0.6: mean
// 0.4, variance 0.08/3, alpha + beta = 0.4·0.6/(0.08/3) - 1 = 8, so the
// oracle prior Beta(3.2, 4.8); a pair of them with 2 successes in 3
// trials has the posterior Beta(5.2, 5.8). Shown 100 times, 0.6 and 0.8:
// mean 0.7, variance 0.01, alpha + beta = 0.21/0.01 - 1 = 20, Beta(14,
// 6). Shown 8 times, one pair (0.4): too few for a cell of its own, it
// takes the rank bucket's, over all six (0.2, 0.4, 0.6, 0.6, 0.8, 0.4):
// mean 0.5, variance 1.72/6 - 0.25 = 11/300, alpha + beta = 75/11 - 1 =
// 64/11, Beta(32/11, 32/11).
func TestOracleRelevanceDists(t *testing.T) {
	m := &Model{Kind: UBM, QueryNames: []string{"q"}, DocNames: []string{"a", "b", "c", "d", "e", "f"},
		PairQuery: []int32{0, 0, 0, 0, 0, 0}, PairDoc: []int32{0, 1, 2, 3, 4, 5}, Attr: []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
		Evidence: &Evidence{Level: 0.9, Rank: []float64{0, 0.2, 0.4, 0, 0.1, 0.3}, Shown: []float64{1, 1, 1, 100, 100, 8},
			AttrK: []float64{2, 0, 0, 0, 0, 0}, AttrN: []float64{3, 0, 0, 0, 0, 0}}}
	truth := []float64{0.2, 0.4, 0.6, 0.6, 0.8, 0.4}
	ds, err := m.OracleRelevanceDists(truth, nil)
	if err != nil {
		t.Fatal(err)
	}
	nearTol(t, "alpha", ds[0].Alpha, 5.2, 1e-12)
	nearTol(t, "beta", ds[0].Beta, 5.8, 1e-12)
	nearTol(t, "alpha without evidence", ds[1].Alpha, 3.2, 1e-12)
	lo, hi := BetaInterval(5.2, 5.8, 0.9)
	nearTol(t, "lower", ds[0].Lower, lo, 1e-12)
	nearTol(t, "upper", ds[0].Upper, hi, 1e-12)
	nearTol(t, "alpha shown 100 times", ds[3].Alpha, 14, 1e-9)
	nearTol(t, "beta shown 100 times", ds[4].Beta, 6, 1e-9)
	nearTol(t, "alpha of the rank bucket", ds[5].Alpha, 32.0/11, 1e-9)
	nearTol(t, "beta of the rank bucket", ds[5].Beta, 32.0/11, 1e-9)
	if _, err := m.OracleRelevanceDists(truth[:1], nil); err == nil {
		t.Error("wrong number of true values accepted")
	}
	// DBN: the second prior is on the relevance a·s, as the fitted one.
	// All attractivenesses 0.5, so the true a·s of the pairs shown once
	// are 0.1, 0.2, 0.3: mean 0.2, variance 0.02/3, alpha + beta =
	// 0.2·0.8/(0.02/3) - 1 = 23: Beta(4.6, 18.4) for a pair without
	// evidence.
	m.Kind, m.Sat = DBN, []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	m.Evidence.SatK, m.Evidence.SatN = make([]float64, 6), make([]float64, 6)
	ds, err = m.OracleRelevanceDists([]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, truth)
	if err != nil {
		t.Fatal(err)
	}
	nearTol(t, "DBN alpha", ds[1].Alpha, 4.6, 1e-9)
	nearTol(t, "DBN beta", ds[1].Beta, 18.4, 1e-9)
	if _, err := m.OracleRelevanceDists(truth, nil); err == nil {
		t.Error("DBN without true satisfactions accepted")
	}
}
