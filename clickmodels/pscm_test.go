package clickmodels

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// pscmLog is the log of the PSCM hand computations: one query q, documents
// A B C at ranks 0 1 2 on both SERPs, click times in seconds:
//
//	S1: C at 1 s, then A at 2 s (a return up the page): order 2, 0
//	S2: B at 5 s: order 1
func pscmLog(t *testing.T) *sessions.Log {
	t.Helper()
	log := &sessions.Log{}
	for _, s := range []sessions.SERP{
		{SessionID: "S1", Query: "q", Results: []string{"A", "B", "C"},
			Clicks: []sessions.Click{{Rank: 2, TimePassed: 1}, {Rank: 0, TimePassed: 2}}},
		{SessionID: "S2", Query: "q", Results: []string{"A", "B", "C"},
			Clicks: []sessions.Click{{Rank: 1, TimePassed: 5}}},
	} {
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

// TestPSCMHandEM checks two EM iterations of PSCM against a hand
// computation. R = 10, so the start and the end are index 10 (S, E below).
// Every parameter starts at 1/2 with prior counts 1/2. The steps of the
// click sequences (pscm.go) and the gamma each rank is observed under:
//
//	S1 (2, 0): start->2: r0 A g(0,S,2), r1 B g(1,S,2), r2 C g(2,S,2) clicked;
//	           2->0 (up): r1 B g(1,2,0), r0 A g(0,2,0) clicked;
//	           0->end:    r1 B g(1,0,E), r2 C g(2,0,E)
//	S2 (1):    start->1: r0 A g(0,S,1), r1 B g(1,S,1) clicked;
//	           1->end:    r2 C g(2,1,E)
//
// Iteration 1 (a = g = 1/2): an unclicked observation adds
// (1-g)a/(1-ag) = 1/3 to its attractiveness and (1-a)g/(1-ag) = 1/3 to
// its gamma, a click 1 to both; each adds 1 to both denominators:
//
//	A: (1 + 1/3 + 1 + 1/3) / (2 + 3) = 8/15     B: (1 + 1/3*3 + 1) / (2 + 4) = 1/2
//	C: (1 + 1 + 1/3 + 1/3) / (2 + 3) = 8/15
//	every gamma observed once, unclicked: (1 + 1/3) / 3 = 4/9; clicked: 2/3
//
// Iteration 2: unclicked A or C (a = 8/15) under a gamma of 4/9:
// 1-ag = 103/135, adds 40/103 to a and 28/103 to g; unclicked B (a = 1/2)
// under 4/9: 1-ag = 7/9, adds 5/14 to a and 2/7 to g:
//
//	A = C = (1 + 1 + 2*40/103) / 5 = 286/515     B = (1 + 1 + 3*5/14) / 6 = 43/84
//	g(0,S,2) = g(2,0,E) = g(0,S,1) = g(2,1,E) = (1 + 28/103) / 3 = 131/309
//	g(1,S,2) = g(1,2,0) = g(1,0,E) = (1 + 2/7) / 3 = 3/7
//	g(2,S,2) = g(0,2,0) = g(1,S,1) = 2/3
//
// Both E-steps, per SERP and on merged items (factorized.go), give them.
func TestPSCMHandEM(t *testing.T) {
	d, err := Prepare(pscmLog(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	const S, E = 10, 10
	for _, c := range []struct {
		it        int
		factorize bool
	}{{1, true}, {2, true}, {1, false}, {2, false}} {
		it := c.it
		m, err := fit(context.Background(), d, PSCM, Options{Iterations: it, NoIntervals: true}, c.factorize)
		if err != nil {
			t.Fatal(err)
		}
		A, B, C := m.Pair("q", "A"), m.Pair("q", "B"), m.Pair("q", "C")
		g := func(i, prev, next int) float64 { return m.Global[pscmIndex(10, i, prev, next)] }
		if it == 1 {
			near(t, "aA", m.Attr[A], 8.0/15)
			near(t, "aB", m.Attr[B], 0.5)
			near(t, "aC", m.Attr[C], 8.0/15)
			for _, x := range [][3]int{{0, S, 2}, {1, S, 2}, {1, 2, 0}, {1, 0, E}, {2, 0, E}, {0, S, 1}, {2, 1, E}} {
				near(t, "gamma unclicked", g(x[0], x[1], x[2]), 4.0/9)
			}
		} else {
			near(t, "aA", m.Attr[A], 286.0/515)
			near(t, "aB", m.Attr[B], 43.0/84)
			near(t, "aC", m.Attr[C], 286.0/515)
			for _, x := range [][3]int{{0, S, 2}, {2, 0, E}, {0, S, 1}, {2, 1, E}} {
				near(t, "gamma A or C unclicked", g(x[0], x[1], x[2]), 131.0/309)
			}
			for _, x := range [][3]int{{1, S, 2}, {1, 2, 0}, {1, 0, E}} {
				near(t, "gamma B unclicked", g(x[0], x[1], x[2]), 3.0/7)
			}
		}
		for _, x := range [][3]int{{2, S, 2}, {0, 2, 0}, {1, S, 1}} {
			near(t, "gamma clicked", g(x[0], x[1], x[2]), 2.0/3)
		}
		near(t, "unused gamma", g(5, 3, 7), 0.5)
		near(t, "unused gamma at the end", g(0, S, E), 0.5)
	}
}

// TestPSCMHandEvaluate scores S1 under the model after one iteration (the
// values of TestPSCMHandEM): rank i is clicked with probability
// 1 - prod over the steps crossing it of (1 - a g):
//
//	r0 (clicked):   1 - (1 - 8/15*4/9)(1 - 8/15*2/3) = 1 - (103/135)(29/45)
//	r1 (unclicked): (1 - 1/2*4/9)^3 = (7/9)^3
//	r2 (clicked):   1 - (1 - 8/15*2/3)(1 - 8/15*4/9) = 1 - (29/45)(103/135)
//
// With one test SERP, the perplexity at rank r is 1/p_r, the
// log-likelihood the mean of ln p_r. Read back from its parameter file,
// the model scores the same; in rank order (no click times) S1 scores
// differently.
func TestPSCMHandEvaluate(t *testing.T) {
	log := pscmLog(t)
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, PSCM, Options{Iterations: 1, NoIntervals: true})
	if err != nil {
		t.Fatal(err)
	}
	p0 := 1 - (103.0/135)*(29.0/45)
	p1 := math.Pow(7.0/9, 3)
	p2 := p0
	test := log.Head(1)
	met, err := Evaluate(m, test)
	if err != nil {
		t.Fatal(err)
	}
	nearMetrics(t, met, p0, p1, p2)

	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(&buf, "PSCM_params.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Global, m.Global) || !slices.Equal(back.Attr, m.Attr) {
		t.Fatal("PSCM parameters differ after a JSON round trip")
	}
	met2, err := Evaluate(back, test)
	if err != nil {
		t.Fatal(err)
	}
	if met2.Perplexity != met.Perplexity || met2.LogLikelihood != met.LogLikelihood {
		t.Errorf("loaded model: %+v, fitted %+v", met2, met)
	}
	dir := t.TempDir()
	if err := m.WriteFiles(dir, ParamsParquet); err != nil {
		t.Fatal(err)
	}
	fromPQ, err := LoadModel(filepath.Join(dir, "PSCM_params.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromPQ.Global, m.Global) || !slices.Equal(fromPQ.Attr, m.Attr) {
		t.Fatal("PSCM parameters differ after a Parquet round trip")
	}

	// Without the order, S1's clicks are taken in rank order (0, 2).
	flat := &sessions.Log{}
	s1 := sessions.SERP{SessionID: "S1", Query: "q", Results: []string{"A", "B", "C"},
		Clicks: []sessions.Click{{Rank: 0}, {Rank: 2}}}
	if err := flat.Add(&s1); err != nil {
		t.Fatal(err)
	}
	met3, err := Evaluate(m, flat)
	if err != nil {
		t.Fatal(err)
	}
	if met3.Perplexity == met.Perplexity {
		t.Error("PSCM scores S1 the same with and without its click order")
	}
}

// orderedLog is a random log with click times: nq queries of 10 results
// from a pool of documents, random clicks at random times (so that many
// multi-click SERPs are clicked out of rank order, and some repeat a
// click).
func orderedLog(t testing.TB, serps, nq int, seed uint64) *sessions.Log {
	rng := rand.New(rand.NewPCG(seed, 1))
	log := &sessions.Log{}
	docs := []string{"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13"}
	for i := range serps {
		s := sessions.SERP{SessionID: "s", Query: string(rune('a' + i%nq)), Results: make([]string, 10)}
		perm := rng.Perm(len(docs))
		for r := range 10 {
			s.Results[r] = docs[perm[r]]
		}
		for r := range 10 {
			if rng.Float64() < 0.6/float64(r+1) {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: int64(rng.IntN(20))})
			}
		}
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

// TestPSCMWorkers: PSCM's EM gives the same bits with 1 and 4 workers, on
// a log where a third of the multi-click SERPs are clicked out of rank
// order; and the other models' fits do not depend on the click order
// (the same bits with and without it).
func TestPSCMWorkers(t *testing.T) {
	log := orderedLog(t, 30_000, 600, 7)
	if !log.HasOrder() {
		t.Fatal("the test log has no SERP clicked out of rank order")
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ms []*Model
	for _, w := range []int{1, 4} {
		m, err := Fit(context.Background(), d, PSCM, Options{Iterations: 5, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if !slices.Equal(ms[0].Global, ms[1].Global) || !slices.Equal(ms[0].Attr, ms[1].Attr) ||
		!slices.Equal(ms[0].Evidence.AttrK, ms[1].Evidence.AttrK) || !slices.Equal(ms[0].Evidence.AttrN, ms[1].Evidence.AttrN) {
		t.Error("PSCM differs between 1 and 4 workers")
	}
	flat := log.Slice(0, log.Len())
	flat.OrderSERP, flat.OrderOff, flat.OrderRanks = nil, nil, nil
	df, err := Prepare(flat, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{UBM, DBN} {
		a, err := Fit(context.Background(), d, k, Options{Iterations: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), df, k, Options{Iterations: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Global, b.Global) || !slices.Equal(a.Attr, b.Attr) || !slices.Equal(a.Sat, b.Sat) {
			t.Errorf("%v depends on the click order", k)
		}
	}
	pf, err := Fit(context.Background(), df, PSCM, Options{Iterations: 5})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(pf.Global, ms[0].Global) {
		t.Error("PSCM fits the same with and without the click order")
	}
}

// TestPSCMAuthorsHand checks Options.PSCMAuthors, the authors' code, on
// pscmLog by hand: one EM iteration, then the prediction of S1. Fitting,
// the return 2->0 observes ranks 1 and 2 (not 0), and no gamma of a step
// to the end is counted:
//
//	S1: start->2: r0 A g(0,S,2), r1 B g(1,S,2), r2 C g(2,S,2) clicked;
//	    2->0: r1 B g(1,2,0), r2 C g(2,2,0); 0->end: r1 B, r2 C (a only)
//	S2: start->1: r0 A g(0,S,1), r1 B g(1,S,1) clicked; 1->end: r2 C (a only)
//
//	A = (1 + 2/3) / 4 = 5/12    B = (1 + 1/3*3 + 1) / 6 = 1/2
//	C = (1 + 1 + 1/3*3) / 6 = 1/2
//	g(0,2,0) = g(1,0,E) = 1/2 (never counted), g(2,2,0) = 4/9, g(2,S,2) = 2/3
//
// Predicting, every step starts from the start: for S1, start->2 (ranks 0
// to 2 under g(i,S,2)), start->0 (rank 0 under g(0,S,0) = 1/2, never
// trained) and start->end (every rank under g(i,S,E) = 1/2):
//
//	r0 (clicked):   1 - (1 - 5/12*4/9)(1 - 5/24)^2 = 1 - (22/27)(361/576)
//	r1 (unclicked): (1 - 1/2*4/9)(1 - 1/4) = 7/12
//	r2 (clicked):   1 - (1 - 1/2*2/3)(1 - 1/4) = 1/2
func TestPSCMAuthorsHand(t *testing.T) {
	log := pscmLog(t)
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, PSCM, Options{Iterations: 1, NoIntervals: true, PSCMAuthors: true})
	if err != nil {
		t.Fatal(err)
	}
	const S, E = 10, 10
	g := func(i, prev, next int) float64 { return m.Global[pscmIndex(10, i, prev, next)] }
	near(t, "aA", m.Attr[m.Pair("q", "A")], 5.0/12)
	near(t, "aB", m.Attr[m.Pair("q", "B")], 0.5)
	near(t, "aC", m.Attr[m.Pair("q", "C")], 0.5)
	near(t, "g(0,2,0)", g(0, 2, 0), 0.5)
	near(t, "g(1,0,E)", g(1, 0, E), 0.5)
	near(t, "g(2,2,0)", g(2, 2, 0), 4.0/9)
	near(t, "g(1,2,0)", g(1, 2, 0), 4.0/9)
	near(t, "g(2,S,2)", g(2, S, 2), 2.0/3)
	met, err := Evaluate(m, log.Head(1))
	if err != nil {
		t.Fatal(err)
	}
	p0, p1, p2 := 1-(22.0/27)*(361.0/576), 7.0/12, 0.5
	nearMetrics(t, met, p0, p1, p2)
	// The flag travels with the parameter file.
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(&buf, "PSCM_params.json")
	if err != nil {
		t.Fatal(err)
	}
	met2, err := Evaluate(back, log.Head(1))
	if err != nil {
		t.Fatal(err)
	}
	if !back.PSCMAuthors || met2.Perplexity != met.Perplexity {
		t.Errorf("loaded model: authors %v, perplexity %v, fitted %v", back.PSCMAuthors, met2.Perplexity, met.Perplexity)
	}
}

// TestDataOrders: identical SERPs (one record) clicked in different orders
// keep each order with its weight, rank order with the rest, in order of
// first appearance; the record's weight is all its SERPs.
func TestDataOrders(t *testing.T) {
	log := &sessions.Log{}
	add := func(times ...int64) { // times[r] < 0: rank r not clicked
		s := sessions.SERP{SessionID: "s", Query: "q", Results: []string{"A", "B", "C"}}
		for r, tm := range times {
			if tm >= 0 {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: tm})
			}
		}
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	add(2, -1, 1) // A, C clicked: C first (order 2 0)
	add(1, -1, 2) // rank order
	add(2, 1, 0)  // A, B, C: order 2 1 0
	add(5, -1, 3) // order 2 0 again
	add(1, -1, 1) // equal times: rank order
	add(3, 1, 2)  // order 1 2 0
	add(9, 8, 7)  // order 2 1 0 again
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Records() != 2 {
		t.Fatalf("%d records, want 2", d.Records())
	}
	type ow struct {
		order string
		w     float64
	}
	want := [][]ow{{{"[]", 2}, {"[2 0]", 2}}, {{"[2 1 0]", 2}, {"[1 2 0]", 1}}}
	for i := range 2 {
		var got []ow
		d.eachOrder(i, func(order []uint8, w float64) {
			s := "[]"
			if order != nil {
				s = fmt.Sprint(order)
			}
			got = append(got, ow{s, w})
		})
		if !slices.Equal(got, want[i]) {
			t.Errorf("record %d: orders %v, want %v", i, got, want[i])
		}
	}
}

// nearMetrics checks the perplexity per rank and the log-likelihood of a
// one-SERP test log of three ranks whose click probabilities (of the
// observed outcome, rank by rank) are p0, p1 and p2.
func nearMetrics(t *testing.T, met Metrics, p0, p1, p2 float64) {
	t.Helper()
	near(t, "perplexity at rank 0", met.PerplexityAtRank[0], 1/p0)
	near(t, "perplexity at rank 1", met.PerplexityAtRank[1], 1/p1)
	near(t, "perplexity at rank 2", met.PerplexityAtRank[2], 1/p2)
	near(t, "log-likelihood", met.LogLikelihood, (math.Log(p0)+math.Log(p1)+math.Log(p2))/3)
}
