package clickmodels

import (
	"fmt"
	"testing"
)

// TestPairPosteriors: a UBM fit of 100 pairs shown once at rank 0, 60
// clicked (K = N = 1) and 40 not (K = 0, N = 1), whose prior is Beta(1.2,
// 0.8) (TestPriorSeenOnceCell: concentration 2, the spread unidentified;
// mean the share clicked, 0.6 within 0.005). A clicked pair's posterior
// before the scale is Beta(1.2 + 1, 0.8): concentration 3, mean 2.2/3; a
// skipped one's Beta(1.2, 0.8 + 1). UBM's relevance is its
// attractiveness, so the relevance posterior is the same; the relevance
// file's Beta (RelevanceDists) is this one spread over the scale set,
// whose mean is at least the unscaled mean (the scales are >= 1 here:
// the largest examination parameter is 0.9).
func TestPairPosteriors(t *testing.T) {
	const R = 10
	m := &Model{Kind: UBM, Ranks: R, QueryNames: []string{"q"}, Global: filled(R*R, 0.5)}
	m.Global[R-1] = 0.9
	ev := &Evidence{Level: 0.9}
	for i := range 100 {
		m.DocNames = append(m.DocNames, fmt.Sprintf("d%d", i))
		m.PairQuery = append(m.PairQuery, 0)
		m.PairDoc = append(m.PairDoc, int32(i))
		k := 0.0
		if i < 60 {
			k = 1
		}
		m.Attr = append(m.Attr, 0.3+0.4*k)
		ev.AttrK, ev.AttrN = append(ev.AttrK, k), append(ev.AttrN, 1)
		ev.Rank, ev.Shown, ev.Ranks = append(ev.Rank, 0), append(ev.Shown, 1), append(ev.Ranks, 1)
	}
	m.Evidence = ev
	post, err := m.PairPosteriors()
	if err != nil {
		t.Fatal(err)
	}
	dists, _, err := m.RelevanceDists()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    int
		mean float64
	}{{0, 2.2 / 3}, {99, 1.2 / 3}} {
		pp := post[c.p]
		nearTol(t, "attractiveness concentration", pp.AttrAlpha+pp.AttrBeta, 3, 1e-9)
		nearTol(t, "attractiveness mean", pp.AttrAlpha/(pp.AttrAlpha+pp.AttrBeta), c.mean, 0.002)
		if pp.Alpha != pp.AttrAlpha || pp.Beta != pp.AttrBeta {
			t.Errorf("pair %d: relevance Beta(%v, %v), want the attractiveness's Beta(%v, %v)", c.p, pp.Alpha, pp.Beta, pp.AttrAlpha, pp.AttrBeta)
		}
		d := dists[c.p]
		if got, min := d.Alpha/(d.Alpha+d.Beta), pp.Alpha/(pp.Alpha+pp.Beta); got < min-1e-12 {
			t.Errorf("pair %d: the relevance file's mean %v below the unscaled %v", c.p, got, min)
		}
	}
	if p, err := (&Model{Kind: UBM, Ranks: R}).PairPosteriors(); p != nil || err != nil {
		t.Errorf("without Evidence: %v, %v, want nil, nil", p, err)
	}
}
