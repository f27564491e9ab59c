package clickmodels

import (
	"context"
	"math"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestItemLogLikelihood checks the tolerance's log-likelihood of PBM and
// UBM from merged items (itemll.go) against a hand computation on a log
// whose SERPs have different lengths and one SERP twice, and against the
// per-SERP pass, which the PyClick equality tests cover.
//
//	S1, S4: A B C, click on A (rank 0)
//	S2:     A B, no click
//	S3:     B A, click on A (rank 1)
//
// With a_A = 0.6, a_B = 0.3, a_C = 0.2 and every examination parameter
// j = 0.9 - 0.01 j (j = rank for PBM, rank*R + previous click's rank for
// UBM, R-1 = 9 before the first click), the sum over SERPs of the mean over
// ranks of ln P(c_r | c_<r) is
//
//	PBM: 2/3 [ln(.6 g0) + ln(1-.3 g1) + ln(1-.2 g2)] + 1/2 [ln(1-.6 g0) + ln(1-.3 g1)] + 1/2 [ln(1-.3 g0) + ln(.6 g1)]
//	UBM: 2/3 [ln(.6 g9) + ln(1-.3 g10) + ln(1-.2 g20)] + 1/2 [ln(1-.6 g9) + ln(1-.3 g19)] + 1/2 [ln(1-.3 g9) + ln(.6 g19)]
func TestItemLogLikelihood(t *testing.T) {
	log, d := handLog(t, []sessions.SERP{
		{SessionID: "S1", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "S2", Query: "q", Results: []string{"A", "B"}},
		{SessionID: "S3", Query: "q", Results: []string{"B", "A"}, Clicks: []sessions.Click{{Rank: 1}}},
		{SessionID: "S4", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 0}}},
	})
	g := func(j int) float64 { return 0.9 - 0.01*float64(j) }
	ln := math.Log
	want := map[Kind]float64{
		PBM: 2.0/3*(ln(.6*g(0))+ln(1-.3*g(1))+ln(1-.2*g(2))) + 0.5*(ln(1-.6*g(0))+ln(1-.3*g(1))) + 0.5*(ln(1-.3*g(0))+ln(.6*g(1))),
		UBM: 2.0/3*(ln(.6*g(9))+ln(1-.3*g(10))+ln(1-.2*g(20))) + 0.5*(ln(1-.6*g(9))+ln(1-.3*g(19))) + 0.5*(ln(1-.3*g(9))+ln(.6*g(19))),
	}
	attr := map[string]float64{"A": 0.6, "B": 0.3, "C": 0.2}
	for _, kind := range []Kind{PBM, UBM} {
		ll := func(factorize bool) float64 {
			x, f := trainLLAt(t, d, log, kind, g, attr, factorize)
			if factorize && f.ill == nil {
				t.Fatalf("%v: the factorised fitter did not take the items' log-likelihood", kind)
			}
			return x
		}
		items, perSERP := ll(true), ll(false)
		if math.Abs(items-want[kind]) > 1e-12 {
			t.Errorf("%v: log-likelihood from items %.15f, hand computation %.15f", kind, items, want[kind])
		}
		if math.Abs(items-perSERP) > 1e-12 {
			t.Errorf("%v: log-likelihood from items %.15f, per-SERP pass %.15f", kind, items, perSERP)
		}
	}
}

// handLog returns the log of serps and its prepared data, with the 10
// ranks the hand computations assume.
func handLog(t *testing.T, serps []sessions.SERP) (*sessions.Log, *Data) {
	t.Helper()
	log := &sessions.Log{}
	for _, s := range serps {
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Ranks() != 10 {
		t.Fatalf("ranks %d, the hand computation assumes 10", d.Ranks())
	}
	return log, d
}

// trainLLAt returns the training log-likelihood of d (prepared from log)
// under kind with the global values g(j) and the attractiveness of each
// document attr[name], from the factorised fitter or the per-SERP pass
// (factorize), and the fitter.
func trainLLAt(t *testing.T, d *Data, log *sessions.Log, kind Kind, g func(int) float64, attr map[string]float64, factorize bool) (float64, *fitter) {
	t.Helper()
	ctx := context.Background()
	global := make([]float64, kind.GlobalParams(d.ranks))
	for j := range global {
		global[j] = g(j)
	}
	f := newFitter(ctx, d, kind, Options{Workers: 2}, global, factorize)
	if factorize != (f.fz != nil) {
		t.Fatalf("%v: factorised fitter %v, want %v", kind, f.fz != nil, factorize)
	}
	for p := range f.attr {
		f.attr[p] = attr[log.Docs.Names[d.pairDoc[p]]]
	}
	st := NewStats(kind, d.ranks)
	f.trainLL(ctx, st)
	return st.LL.Float64(), f
}
