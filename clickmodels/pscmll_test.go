package clickmodels

import (
	"math"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestPSCMItemLogLikelihood checks the tolerance's log-likelihood of PSCM
// from merged items (pscmll.go) against a hand computation on a log with a
// return, a clicked rank crossed by two steps, SERPs of two lengths and
// one SERP twice, and against the per-SERP pass (pscmProbs).
//
//	S1, S4: A B C, clicks on C (rank 2) then A (rank 0): steps
//	        start -> 2 (ranks 0 1 2), 2 -> 0 (ranks 1 0), 0 -> end (ranks 1 2)
//	S2:     A B C, click on B (rank 1): start -> 1 (ranks 0 1), 1 -> end (rank 2)
//	S3:     B A, no click: start -> end (ranks 0 1)
//
// With R = 10 ranks, s = e = 10 (start, end), g(i, m, n) = gamma_imn =
// 0.9 - 0.0005 ((i 11 + m) 11 + n) and a_A = 0.6, a_B = 0.3, a_C = 0.2, the
// probability of an unclicked rank is the product over the steps crossing
// it of (1 - a g), that of a clicked one 1 minus it, and the sum over SERPs
// of the mean over ranks of their logarithms is
//
//	2/3 [ln(1 - (1-.6 g(0,s,2))(1-.6 g(0,2,0))) + ln((1-.3 g(1,s,2))(1-.3 g(1,2,0))(1-.3 g(1,0,e)))
//	     + ln(1 - (1-.2 g(2,s,2))(1-.2 g(2,0,e)))]
//	+ 1/3 [ln(1-.6 g(0,s,1)) + ln(.3 g(1,s,1)) + ln(1-.2 g(2,1,e))]
//	+ 1/2 [ln(1-.3 g(0,s,e)) + ln(1-.6 g(1,s,e))]
func TestPSCMItemLogLikelihood(t *testing.T) {
	log, d := handLog(t, []sessions.SERP{
		{SessionID: "S1", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 2, TimePassed: 1}, {Rank: 0, TimePassed: 2}}},
		{SessionID: "S2", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 1, TimePassed: 1}}},
		{SessionID: "S3", Query: "q", Results: []string{"B", "A"}},
		{SessionID: "S4", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 2, TimePassed: 1}, {Rank: 0, TimePassed: 2}}},
	})
	const s, e = 10, 10
	gj := func(j int) float64 { return 0.9 - 0.0005*float64(j) }
	g := func(i, m, n int) float64 { return gj((i*11+m)*11 + n) }
	ln := math.Log
	want := 2.0/3*(ln(1-(1-.6*g(0, s, 2))*(1-.6*g(0, 2, 0)))+ln((1-.3*g(1, s, 2))*(1-.3*g(1, 2, 0))*(1-.3*g(1, 0, e)))+
		ln(1-(1-.2*g(2, s, 2))*(1-.2*g(2, 0, e)))) +
		1.0/3*(ln(1-.6*g(0, s, 1))+ln(.3*g(1, s, 1))+ln(1-.2*g(2, 1, e))) +
		0.5*(ln(1-.3*g(0, s, e))+ln(1-.6*g(1, s, e)))
	attr := map[string]float64{"A": 0.6, "B": 0.3, "C": 0.2}
	ll := func(factorize bool) float64 {
		x, f := trainLLAt(t, d, log, PSCM, gj, attr, factorize)
		if factorize && f.pll == nil {
			t.Fatal("the factorised fitter did not take the items' log-likelihood")
		}
		return x
	}
	items, perSERP := ll(true), ll(false)
	if math.Abs(items-want) > 1e-12 {
		t.Errorf("log-likelihood from items %.15f, hand computation %.15f", items, want)
	}
	if math.Abs(items-perSERP) > 1e-12 {
		t.Errorf("log-likelihood from items %.15f, per-SERP pass %.15f", items, perSERP)
	}
}
