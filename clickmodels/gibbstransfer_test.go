package clickmodels

import (
	"context"
	"math"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestSubsetKeyByHand checks the subset's rule against keys computed
// outside the code (a Python program of FNV-1a 64 and the splitmix64
// finaliser: key = Mix(0x67696262735f7375 XOR FNV1a(q)) >> 11), and the
// bound of a rate: at rate 0.6 the queries q2 (key / 2^53 = 0.573), q4
// (0.475) and q7 (0.508) are in, q0 (0.888), q1 (0.792), q3 (0.867), q5
// (0.784) and q6 (0.870) out.
func TestSubsetKeyByHand(t *testing.T) {
	want := map[string]uint64{
		"q0": 7997746254485114, "q1": 7132047303606066, "q2": 5162457448144385, "q3": 7805738448089259,
		"q4": 4275780597548917, "q5": 7063520626280223, "q6": 7837325880174784, "q7": 4579770705410343,
	}
	for q, k := range want {
		if got := subsetKey(q); got != k {
			t.Errorf("subsetKey(%q) = %d, want %d", q, got, k)
		}
	}
	if b := subsetBound(0.6); b != 5404319552844595 { // floor(0.6 x 2^53)
		t.Errorf("subsetBound(0.6) = %d", b)
	}
	if subsetBound(1) != 1<<53 || subsetBound(2) != 1<<53 || subsetBound(0) != 0 {
		t.Errorf("subsetBound(1, 2, 0) = %d, %d, %d", subsetBound(1), subsetBound(2), subsetBound(0))
	}
	if r := subsetRate(75_000, 750_000); r != 0.1 {
		t.Errorf("subsetRate(75,000 of 750,000) = %v", r)
	}
	if r := subsetRate(75_000, 50_000); r != 1 {
		t.Errorf("subsetRate(75,000 of 50,000) = %v, want 1", r)
	}
}

// TestTransferMapByHand checks a cell's map on two pairs computed by
// hand: sampler's (mean, variance) (0.3, 0.01) and (0.3, 0.02), the
// counts' (0.25, 0.02) and (0.5, 0.03). rho = 0.6 / 0.75 = 0.8; the
// residuals 0.3 - 0.2 and 0.3 - 0.4 square to 0.01 each, so phi = (0.03
// + 0.02) / 0.05 = 1. The counts' Beta(2, 6) (mean 0.25, variance 12 /
// (64 x 9) = 1/48) then becomes the Beta of mean 0.2 and variance 1/48:
// concentration 0.16 x 48 - 1 = 6.68, Beta(1.336, 5.344).
func TestTransferMapByHand(t *testing.T) {
	var s transferSums
	s.add(0.3, 0.01, 0.25, 0.02)
	s.add(0.3, 0.02, 0.5, 0.03)
	m := s.fit()
	if math.Abs(m.Rho-0.8) > 1e-9 || math.Abs(m.Phi-1) > 1e-8 || m.Pairs != 2 {
		t.Fatalf("map %+v, want rho 0.8, phi 1, 2 pairs", m)
	}
	a, b := m.beta(2, 6)
	if math.Abs(a-1.336) > 1e-6 || math.Abs(b-5.344) > 1e-6 {
		t.Errorf("Beta(%v, %v), want (1.336, 5.344)", a, b)
	}
	// Order-free: the same pairs the other way round, the same bits.
	var r transferSums
	r.add(0.3, 0.02, 0.5, 0.03)
	r.add(0.3, 0.01, 0.25, 0.02)
	if r.fit() != m {
		t.Errorf("map %+v in the other order, %+v", r.fit(), m)
	}
	// Without pairs: the counts' Beta as it is.
	if a, b := (&transferSums{}).fit().beta(2, 6); math.Abs(a-2) > 1e-12 || math.Abs(b-6) > 1e-12 {
		t.Errorf("empty map: Beta(%v, %v), want (2, 6)", a, b)
	}
}

// TestGibbsSubset fits DBN and SDBN with the sampler on the queries of
// rate 0.6 (GibbsSetting.SubsetRate): the pairs of q2, q4 and q7 (in, by
// TestSubsetKeyByHand's keys) get the sampler's Betas, those of q0, q1,
// q3, q5 and q6 none, and their written Betas are the counts' corrected
// (neither the counts' nor zero); a pair held by its impressions keeps
// the counts' Beta.
func TestGibbsSubset(t *testing.T) {
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	in := map[string]bool{"q2": true, "q4": true, "q7": true}
	out := map[string]bool{"q0": true, "q1": true, "q3": true, "q5": true, "q6": true}
	for _, kind := range []Kind{DBN, SDBN} {
		fitWith := func(g GibbsSetting) *Model {
			opt := EstimatorExact.Options()
			opt.Workers, opt.Gibbs = 2, g
			m, err := Fit(context.Background(), d, kind, opt)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		counts, _, err := fitWith(GibbsSetting{}).RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		m := fitWith(GibbsSetting{BurnIn: 3, Sweeps: 5, RefitEvery: 2, PoolSat: true, RankOnly: true, HoldShown: 100, Subset: 1, SubsetRate: 0.6})
		dists, rep, err := m.RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		if rep.GibbsTransfer == nil {
			t.Fatalf("%v: no transfer maps in the report", kind)
		}
		seen := map[string]bool{}
		for p := range m.PairQuery {
			q := m.QueryNames[m.PairQuery[p]]
			ev := m.Evidence
			switch {
			case q == "grouped":
				if ev.RelAlpha[p] != 0 || dists[p] != counts[p] {
					t.Fatalf("%v held pair %d of %s: Beta(%v, %v), %+v against the counts' %+v", kind, p, q, ev.RelAlpha[p], ev.RelBeta[p], dists[p], counts[p])
				}
			case in[q]:
				seen[q] = true
				if !(ev.RelAlpha[p] > 0) || dists[p].Alpha != ev.RelAlpha[p] || dists[p].Beta != ev.RelBeta[p] {
					t.Fatalf("%v pair %d of %s (in the subset): Beta(%v, %v), written %+v", kind, p, q, ev.RelAlpha[p], ev.RelBeta[p], dists[p])
				}
			case out[q]:
				seen[q] = true
				if ev.RelAlpha[p] != 0 || !(dists[p].Alpha > 0) || dists[p] == counts[p] {
					t.Fatalf("%v pair %d of %s (outside): Beta(%v, %v), written %+v, the counts' %+v", kind, p, q, ev.RelAlpha[p], ev.RelBeta[p], dists[p], counts[p])
				}
			}
		}
		if len(seen) != len(in)+len(out) {
			t.Fatalf("%v: the log's pairs cover the queries %v only", kind, seen)
		}
	}
}

// TestGibbsSubsetResolved: IntervalsGibbsSubset on a log of 1,000,000
// training SERPs runs GibbsIntervals on a twentieth of the queries
// (50,000 / 1,000,000), on one of 50,000 on all of them; auto takes it
// above 300,000 training SERPs only (TestResolveIntervals has the rest).
func TestGibbsSubsetResolved(t *testing.T) {
	o := EstimatorExact.Options()
	o.Intervals = IntervalsGibbsSubset
	want := GibbsIntervals()
	want.Subset, want.SubsetRate = 50_000, 0.05
	if g := o.ResolveIntervals(1_000_000).gibbsSetting(); g != want {
		t.Errorf("setting %+v, want %+v", g, want)
	}
	if g := o.ResolveIntervals(50_000).gibbsSetting(); g.SubsetRate != 1 {
		t.Errorf("on 50,000 SERPs: rate %v, want 1", g.SubsetRate)
	}
	if err := o.ResolveIntervals(750_000).check(); err != nil {
		t.Error(err)
	}
	o.Intervals = IntervalsAuto
	for n, want := range map[int64]IntervalMethod{100_000: IntervalsGibbs, 750_000: IntervalsGibbsSubset} {
		if r := o.ResolveIntervals(n).Intervals; r != want {
			t.Errorf("auto on %d SERPs: %s, want %s", n, r, want)
		}
	}
	if m, err := ParseIntervalMethod("Gibbs-Subset"); err != nil || m != IntervalsGibbsSubset {
		t.Errorf("ParseIntervalMethod: %v, %v", m, err)
	}
}
