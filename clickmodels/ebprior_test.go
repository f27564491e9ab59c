package clickmodels

import (
	"context"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestEmpiricalPriorHand checks two plain EM iterations of exact SDBN
// with the empirical prior (Options.EmpiricalPrior, ebprior.go) against a
// hand computation on a log of one query and two SERPs:
//
//	A: x y, click on x (rank 0)
//	B: y x, no click
//
// Iteration 1 reads every value at 1/2, so its prior is PyClick's.
// SDBN's exact E-step (gamma = 1) at a = s = 1/2:
//
//	A: rank 0 clicked and last: aNum 1 / 1; Z = 1 - (1-s) car_1 =
//	   1 - (1/2)(1/2) = 3/4, sNum s/Z = 2/3 / 1; rank 1 (y): e = 1/2,
//	   q = e (1 - car_1) / (1 - e car_1) = 1/3, aNum a (1-q) = 1/3 / 1
//	B: no click, car_0 = 3/4: q_0 = q_1 = 1, aNum 0 / 1 at both ranks
//
// so iteration 1 gives x: a = (1+1)/4 = 1/2, s = (1+2/3)/3 = 5/9; y:
// a = (1+1/3)/4 = 1/3, s = 1/2; and the prior means of attractiveness
// per rank from the same counts: m_0 = (1+1)/(2+2) = 1/2,
// m_1 = (1+1/3)/(2+2) = 1/3.
//
// Iteration 2, at a_x = 1/2, s_x = 5/9, a_y = 1/3, s_y = 1/2:
//
//	A: Z = 1 - (4/9)(1/3) = 23/27, sNum = (5/9)/Z = 15/23; e = 4/9,
//	   q = (4/9)(2/3)/(23/27) = 8/23, y's aNum (1/3)(15/23) = 5/23
//	B: car_1 = 1/2, car_0 = 1/3 + (2/3)(1/2) = 2/3: q_0 = q_1 = 1, aNum 0
//
// Each pair is shown once at each rank, so its prior mean is the mean of
// the ranks', (1/2 + 1/3)/2 = 5/12, with weight 2; satisfaction keeps
// PyClick's 1 / 2:
//
//	a_x = (1 + 0 + 2 (5/12)) / (2 + 2) = 11/24     (PyClick's prior: 1/2)
//	a_y = (5/23 + 0 + 2 (5/12)) / (2 + 2) = 145/552 (7/23)
//	s_x = (1 + 15/23) / (2 + 1) = 38/69,  s_y = 1/2
//
// The model's globals are SDBN's (none beyond the continuation's slot):
// the prior means are not part of the model.
func TestEmpiricalPriorHand(t *testing.T) {
	log := &sessions.Log{}
	for _, s := range []sessions.SERP{
		{SessionID: "A", Query: "q", Results: []string{"x", "y"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "B", Query: "q", Results: []string{"y", "x"}},
	} {
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []int{1, 2} {
		m, err := Fit(context.Background(), d, SDBN, Options{Iterations: it, Exact: true, EmpiricalPrior: true, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		x, y := m.Pair("q", "x"), m.Pair("q", "y")
		if len(m.Global) != SDBN.GlobalParams(d.Ranks()) {
			t.Errorf("%d global values in the model, want %d", len(m.Global), SDBN.GlobalParams(d.Ranks()))
		}
		if it == 1 {
			near(t, "a_x", m.Attr[x], 1.0/2)
			near(t, "s_x", m.Sat[x], 5.0/9)
			near(t, "a_y", m.Attr[y], 1.0/3)
			near(t, "s_y", m.Sat[y], 1.0/2)
			continue
		}
		near(t, "a_x", m.Attr[x], 11.0/24)
		near(t, "s_x", m.Sat[x], 38.0/69)
		near(t, "a_y", m.Attr[y], 145.0/552)
		near(t, "s_y", m.Sat[y], 1.0/2)
	}
	// PyClick's estimator ignores the option: its pseudo-counts stay 1 / 2.
	for _, k := range []Kind{SDBN, DBN, CCM, DCM} {
		a, err := Fit(context.Background(), d, k, Options{Iterations: 3, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), d, k, Options{Iterations: 3, EmpiricalPrior: true, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		for p := range a.Attr {
			if a.Attr[p] != b.Attr[p] {
				t.Errorf("%v pyclick: attractiveness of pair %d %v with the option, %v without", k, p, b.Attr[p], a.Attr[p])
			}
		}
	}
}
