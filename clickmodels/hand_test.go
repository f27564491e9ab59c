package clickmodels

import (
	"context"
	"math"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// threeSessions is the log of the hand computations: one query q, documents
// A and B, three SERPs of two results:
//
//	S1: A B, click on A (rank 0)
//	S2: A B, no click
//	S3: B A, click on A (rank 1)
func threeSessions(t *testing.T) *sessions.Log {
	t.Helper()
	log, err := threeSERPs()
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// testLogBuilder gives fuzz targets the three-SERP log.
type testLogBuilder struct{}

func (testLogBuilder) three() *sessions.Log {
	log, err := threeSERPs()
	if err != nil {
		panic(err)
	}
	return log
}

func threeSERPs() (*sessions.Log, error) {
	log := &sessions.Log{}
	for _, s := range []sessions.SERP{
		{SessionID: "S1", Query: "q", Results: []string{"A", "B"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "S2", Query: "q", Results: []string{"A", "B"}},
		{SessionID: "S3", Query: "q", Results: []string{"B", "A"}, Clicks: []sessions.Click{{Rank: 1}}},
	} {
		if err := log.Add(&s); err != nil {
			return nil, err
		}
	}
	return log, nil
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.15f, hand computation %.15f", what, got, want)
	}
}

// TestUBMHandEM checks two EM iterations of UBM against a hand computation.
// R = 10, so "no previous click" is column 9: g09 = exam[0][none],
// g19 = exam[1][none], g10 = exam[1][prev click at 0]. Every parameter
// starts at 1/2 with prior counts 1/2. For an unclicked rank the expected
// counts are (1-e)a/(1-ea) (attractiveness) and (1-a)e/(1-ea)
// (examination); a clicked rank adds 1 to both.
//
// Iteration 1 (a = e = 1/2, unclicked ranks add 0.25/0.75 = 1/3 to both):
//
//	S1: r0 A clicked (g09): aA += 1, g09 += 1; r1 B not (g10): aB += 1/3, g10 += 1/3
//	S2: r0 A not (g09): aA += 1/3, g09 += 1/3; r1 B not (g19): aB += 1/3, g19 += 1/3
//	S3: r0 B not (g09): aB += 1/3, g09 += 1/3; r1 A clicked (g19): aA += 1, g19 += 1
//	aA = (1 + 1 + 1/3 + 1) / (2 + 3) = 2/3       aB = (1 + 1) / 5 = 2/5
//	g09 = (1 + 1 + 2/3) / 5 = 8/15   g10 = (1 + 1/3) / 3 = 4/9   g19 = (1 + 4/3) / 4 = 7/12
//
// Iteration 2:
//
//	S1 r1 B, a = 2/5, e = 4/9: 1-ea = 37/45; aB += (5/9)(2/5)/(37/45) = 10/37,
//	      g10 += (3/5)(4/9)/(37/45) = 12/37
//	S2 r0 A, a = 2/3, e = 8/15: 1-ea = 29/45; aA += (7/15)(2/3)/(29/45) = 14/29,
//	      g09 += (1/3)(8/15)/(29/45) = 8/29
//	S2 r1 B, a = 2/5, e = 7/12: 1-ea = 23/30; aB += (5/12)(2/5)/(23/30) = 5/23,
//	      g19 += (3/5)(7/12)/(23/30) = 21/46
//	S3 r0 B, a = 2/5, e = 8/15: 1-ea = 59/75; aB += (7/15)(2/5)/(59/75) = 14/59,
//	      g09 += (3/5)(8/15)/(59/75) = 24/59
//	aA = (1 + 1 + 14/29 + 1) / 5 = 101/145
//	aB = (1 + 10/37 + 5/23 + 14/59) / 5
//	g09 = (1 + 1 + 8/29 + 24/59) / 5  (prior, S1's click, S2, S3)
//	g10 = (1 + 12/37) / 3 = 49/111     g19 = (1 + 21/46 + 1) / 4 = 113/184
func TestUBMHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, factorize := range []bool{true, false} {
		for _, it := range []int{1, 2} {
			m, err := fit(context.Background(), d, UBM, Options{Iterations: it}, factorize)
			if err != nil {
				t.Fatal(err)
			}
			A, B := m.Pair("q", "A"), m.Pair("q", "B")
			g := func(r, p int) float64 { return m.Global[r*10+p] }
			if it == 1 {
				near(t, "aA", m.Attr[A], 2.0/3)
				near(t, "aB", m.Attr[B], 2.0/5)
				near(t, "g09", g(0, 9), 8.0/15)
				near(t, "g10", g(1, 0), 4.0/9)
				near(t, "g19", g(1, 9), 7.0/12)
			} else {
				near(t, "aA", m.Attr[A], 101.0/145)
				near(t, "aB", m.Attr[B], (1+10.0/37+5.0/23+14.0/59)/5)
				near(t, "g09", g(0, 9), (2+8.0/29+24.0/59)/5)
				near(t, "g10", g(1, 0), 49.0/111)
				near(t, "g19", g(1, 9), 113.0/184)
			}
			near(t, "unused g00", g(0, 0), 0.5)
			near(t, "unused g55", g(5, 5), 0.5)
		}
	}
}

// TestDBNHandEM checks one EM iteration of DBN with PyClick's E-step
// against a hand computation. All parameters start at 1/2 (a = s = gamma).
// Unconditional examination: E0 = 1, E1 = gamma((1-s)a + (1-a)) = 3/8;
// click-after-rank: car2 = 0, car1 = a = 1/2, car0 = 1/2 + 1/8 = 5/8.
//
//	S1 (A B, click at 0, last click l = 0):
//	  A: attracted (1); satisfied s/(1 - (1-s) gamma car1) = 0.5/0.875 = 4/7
//	  B: after l: (1-E1)a/(1-E1 car1) = (5/16)/(13/16) = 5/13
//	  gamma, r0: x0 = 1, tail below with rank 0's parameters T = 1 - a = 1/2;
//	     f101 = a(1-s)gamma T x = 1/16, f100 = a(1-s)(1-gamma) x = 1/8,
//	     f110 = a s x = 1/4: adds 1/7 to the numerator, 3/7 to the denominator
//	  gamma, r1: x1 = gamma(1-s) = 1/4, T = 1: f101 = (1-a)gamma x1 = 1/16,
//	     f100 = (1-a)(1-gamma) x1 = 1/16, f000 = (1-a)(1-x1) = 3/8: adds 1/8, 1/4
//	S2 (A B, no click; PyClick's last click rank is n = 2):
//	  A, B: not attracted (0); gamma adds 1, 1 at both ranks
//	S3 (B A, click at 1, l = 1):
//	  B: above l, not clicked: 0; gamma adds 1, 1
//	  A: attracted (1); satisfied 0.5/(1 - 0) = 1/2
//	  gamma, r1: x1 = x0 gamma(1-a)/(1-a x0) = 1/2, T = 1: f101 = 1/16,
//	     f100 = 1/16, f110 = a s x1 = 1/8: adds 1/4, 1/2
//	aA = (1 + 1 + 0 + 1) / (2 + 3) = 3/5          aB = (1 + 5/13) / 5 = 18/65
//	sA = (1 + 4/7 + 1/2) / (2 + 2) = 29/56        sB = 1/2 (never clicked)
//	gamma = (1 + 1/7 + 1/8 + 2 + 1 + 1/4) / (2 + 3/7 + 1/4 + 2 + 1 + 1/2) = (253/56) / (346/56)
func TestDBNHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, DBN, Options{Iterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	A, B := m.Pair("q", "A"), m.Pair("q", "B")
	near(t, "aA", m.Attr[A], 3.0/5)
	near(t, "aB", m.Attr[B], 18.0/65)
	near(t, "sA", m.Sat[A], 29.0/56)
	near(t, "sB", m.Sat[B], 0.5)
	near(t, "gamma", m.Global[0], 253.0/346)
	near(t, "relevance A", m.Relevance("q", "A"), 3.0/5*29.0/56)
	near(t, "relevance of an unseen pair", m.Relevance("q", "C"), Unseen)
}

// TestDBNExactHandEM checks one iteration of the exact DBN E-step on the
// same log. With all parameters 1/2: car1 = 1/2, car0 = 5/8.
//
//	S1 (l = 0): A attracted; S: Z = 1 - (1-s) gamma car1 = 7/8, P(S=1) = 4/7;
//	  continuation at r0: P(S=0, E1=1) = (1-s) gamma (1-car1) / Z = (1/8)/(7/8) = 1/7
//	  out of P(S=0) = (1-s)(1 - gamma car1) / Z = (3/8)/(7/8) = 3/7;
//	  B: e = gamma(1-s) = 1/4, q1 = e (1 - car1) / (1 - e car1) = (1/8)/(7/8) = 1/7,
//	  P(A_B = 1) = a (1 - q1) = 3/7 (last rank: no transition counted)
//	S2 (no click, e = 1, 1 - e car0 = 3/8): q0 = 1 (1 - 5/8)/(3/8) = 1,
//	  A: a (1 - 1) = 0; eps1 = (1-a) gamma = 1/4, q1 = (1/4)(1/2)/(3/8) = 1/3,
//	  B: a (1 - 1/3) = 1/3; continuation r0: 1/3 out of 1
//	S3 (l = 1): B above the click: 0, continuation 1 / 1; A attracted,
//	  satisfied s / (1 - 0) = 1/2; no rank below, no transition
//	aA = (1 + 1 + 0 + 1) / 5 = 3/5        aB = (1 + 3/7 + 1/3 + 0) / 5 = 37/105
//	sA = (1 + 4/7 + 1/2) / 4 = 29/56
//	gamma = (1 + 1/7 + 1/3 + 1) / (2 + 3/7 + 1 + 1) = (52/21) / (93/21) = 52/93
func TestDBNExactHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, DBN, Options{Iterations: 1, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	A, B := m.Pair("q", "A"), m.Pair("q", "B")
	near(t, "aA", m.Attr[A], 3.0/5)
	near(t, "aB", m.Attr[B], 37.0/105)
	near(t, "sA", m.Sat[A], 29.0/56)
	near(t, "gamma", m.Global[0], 52.0/93)
}

// TestSDBNExactHandEM checks one iteration of the exact SDBN E-step (DBN's
// with the continuation held at 1) on the same log. With all parameters
// 1/2 and gamma = 1: car1 = a = 1/2, car0 = a + (1-a) car1 = 3/4.
//
//	S1 (l = 0): A attracted; Z = 1 - (1-s) car1 = 3/4, P(S=1) = (1/2)/(3/4) = 2/3;
//	  B: e = 1-s = 1/2, q1 = e (1 - car1) / (1 - e car1) = (1/4)/(3/4) = 1/3,
//	  P(A_B = 1) = a (1 - q1) = 1/3 (directly: B unexamined, the user
//	  satisfied at A, with P 1/2 of the 3/4 that no click at B has, times a)
//	S2 (no click, e = 1, 1 - car0 = 1/4): q0 = (1/4)/(1/4) = 1,
//	  eps1 = 1 - a = 1/2, q1 = (1/2)(1/2)/(1/4) = 1: with continuation 1
//	  and no click nobody stops, so both ranks were examined and not
//	  attracted: 0 and 0
//	S3 (l = 1): B above the click: 0; A attracted, satisfied s / 1 = 1/2
//	aA = (1 + 1 + 0 + 1) / 5 = 3/5        aB = (1 + 1/3 + 0 + 0) / 5 = 4/15
//	sA = (1 + 2/3 + 1/2) / 4 = 13/24      sB = 1/2 (never clicked)
//
// PyClick's counting pass gives aB = (1 + 0 + 0) / (2 + 2) = 1/4 (B below
// S1's last click is not counted) and sA = (1 + 1 + 1) / 4 = 3/4 (every
// last click satisfies).
func TestSDBNExactHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, SDBN, Options{Iterations: 1, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	A, B := m.Pair("q", "A"), m.Pair("q", "B")
	near(t, "aA", m.Attr[A], 3.0/5)
	near(t, "aB", m.Attr[B], 4.0/15)
	near(t, "sA", m.Sat[A], 13.0/24)
	near(t, "sB", m.Sat[B], 0.5)
	if !m.Exact || m.Iterations != 1 {
		t.Errorf("exact %v, %d iterations: want an exact fit of 1 iteration", m.Exact, m.Iterations)
	}
	// PyClick's estimator keeps its counting pass.
	pc, err := Fit(context.Background(), d, SDBN, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "pyclick aB", pc.Attr[B], 1.0/4)
	near(t, "pyclick sA", pc.Sat[A], 3.0/4)
}

// TestDCMExactHandEM checks one iteration of the exact DCM E-step: SDBN's
// with the satisfaction of rank r replaced by 1 - lambda_r. With every
// parameter 1/2 the posteriors are TestSDBNExactHandEM's: aA = 3/5,
// aB = 4/15. lambda_r counts, per click at r, P(the user went on | C):
//
//	S1: the click at 0 is the last: 1 - P(S=1) = 1 - 2/3 = 1/3 out of 1
//	S3: the click at 1 is the last, nothing below: 1 - 1/2 = 1/2 out of 1
//	lambda0 = (1 + 1/3) / 3 = 4/9     lambda1 = (1 + 1/2) / 3 = 1/2
//	lambda2..9 = 1/2 (no click there)
//
// PyClick's counting pass gives lambda0 = lambda1 = (1 + 0) / 3 = 1/3 (a
// last click never goes on) and aB = 1/4 (TestSDBNExactHandEM).
func TestDCMExactHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, DCM, Options{Iterations: 1, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	A, B := m.Pair("q", "A"), m.Pair("q", "B")
	near(t, "aA", m.Attr[A], 3.0/5)
	near(t, "aB", m.Attr[B], 4.0/15)
	near(t, "lambda0", m.Global[0], 4.0/9)
	near(t, "lambda1", m.Global[1], 1.0/2)
	near(t, "lambda2", m.Global[2], 1.0/2)
	pc, err := Fit(context.Background(), d, DCM, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "pyclick aB", pc.Attr[B], 1.0/4)
	near(t, "pyclick lambda0", pc.Global[0], 1.0/3)
	near(t, "pyclick lambda1", pc.Global[1], 1.0/3)
}

// TestCCMExactHandEM checks two iterations of the exact CCM E-step on the
// same log. CCM's relevance a both attracts and, at a click, satisfies
// (S ~ Bernoulli(a)); the user goes on with tau1 after no click, tau2
// after an unsatisfying click, tau3 after a satisfying one. At a click the
// attractiveness counts 1 + P(S=1 | C) out of 2. With T = car_l+1 (gamma
// = tau1), j1 = a (1 - tau3 T), j0 = (1-a) (1 - tau2 T), Z = j0 + j1 at
// the last click l, and below it q as in the cascade (e = (1-a) tau2 +
// a tau3 after a click, 1 without one).
//
// Iteration 1, every parameter 1/2: car1 = 1/2, car0 = 1/2 + (1/2)(1/2)(1/2) = 5/8.
//
//	S1 (A B, click at 0): T = 1/2, j1 = j0 = (1/2)(3/4) = 3/8, Z = 3/4:
//	  A: 1 + 1/2 of 2; tau2: (1/2)(1/2)(1/2)/Z = 1/6 of j0/Z = 1/2; tau3 the same;
//	  e = 1/2, q1 = (1/2)(1/2) / (1 - 1/4) = 1/3: B: (1/2)(2/3) = 1/3 of 1
//	S2 (A B, no click): q0 = (3/8)/(3/8) = 1: A 0 of 1; eps1 = (1/2)(1/2) = 1/4,
//	  q1 = (1/4)(1/2)/(3/8) = 1/3: B 1/3 of 1; tau1 1/3 of 1
//	S3 (B A, click at the last rank 1): B 0 of 1, tau1 1 of 1; A: T = 0,
//	  P(S=1) = a = 1/2: 1 + 1/2 of 2; no transition after the last rank
//	aA = (1 + 3/2 + 0 + 3/2) / (2 + 2 + 1 + 2) = 4/7   aB = (1 + 1/3 + 1/3 + 0) / 5 = 1/3
//	tau1 = (1 + 1/3 + 1) / 4 = 7/12   tau2 = tau3 = (1 + 1/6) / (2 + 1/2) = 7/15
//
// Iteration 2 (aA = 4/7, aB = 1/3, tau1 = 7/12, tau2 = tau3 = 7/15):
//
//	S1: T = 1/3, j1 = (4/7)(1 - 7/45) = 152/315, j0 = (3/7)(38/45) = 114/315,
//	  Z = 266/315: P(S=1) = 4/7, A: 1 + 4/7 = 11/7 of 2;
//	  tau2: (3/7)(7/15)(2/3)/Z = 3/19 of j0/Z = 3/7; tau3: (4/7)(7/15)(2/3)/Z = 4/19 of 4/7;
//	  e = 7/15, q1 = (7/15)(2/3) / (1 - 7/45) = 7/19: B: (1/3)(12/19) = 4/19
//	S2: car0 = 4/7 + (3/7)(7/12)(1/3) = 55/84; q0 = 1: A 0; eps1 = (3/7)(7/12) = 1/4,
//	  q1 = (1/4)(2/3) / (29/84) = 14/29: B (1/3)(15/29) = 5/29; tau1 14/29 of 1
//	S3: B 0, tau1 1 of 1; A: P(S=1) = 4/7: 11/7 of 2
//	aA = (1 + 11/7 + 0 + 11/7) / 7 = 29/49     aB = (1 + 4/19 + 5/29 + 0) / 5 = 762/2755
//	tau1 = (1 + 14/29 + 1) / 4 = 18/29
//	tau2 = (1 + 3/19) / (2 + 3/7) = 154/323   tau3 = (1 + 4/19) / (2 + 4/7) = 161/342
func TestCCMExactHandEM(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		iters              int
		aA, aB, t1, t2, t3 float64
	}{
		{1, 4.0 / 7, 1.0 / 3, 7.0 / 12, 7.0 / 15, 7.0 / 15},
		{2, 29.0 / 49, 762.0 / 2755, 18.0 / 29, 154.0 / 323, 161.0 / 342},
	} {
		m, err := Fit(context.Background(), d, CCM, Options{Iterations: c.iters, Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		A, B := m.Pair("q", "A"), m.Pair("q", "B")
		near(t, "aA", m.Attr[A], c.aA)
		near(t, "aB", m.Attr[B], c.aB)
		near(t, "tau1", m.Global[0], c.t1)
		near(t, "tau2", m.Global[1], c.t2)
		near(t, "tau3", m.Global[2], c.t3)
	}
}
