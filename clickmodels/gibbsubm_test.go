package clickmodels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// ubmEnumerate returns, for a 3-rank SERP of UBM with attractiveness a
// and examination probability exam(r, prev) (prev the rank of the
// previous click, -1 without one), by brute force over every
// configuration of the latent variables (examination E and attraction A
// at each rank, 2^6 of them), the probability of the clicks, the joint
// probability of the clicks and each rank's examination, and of the
// clicks and the examination of ranks 1 and 2 together. The model is
// Dupret and Piwowarski's (2008) definition, written here apart from the
// sampler: rank r is examined with probability exam(r, previous click),
// C = E A, every variable independent given the clicks above.
func ubmEnumerate(a []float64, exam func(r, prev int) float64, clicks uint64) (pC float64, pCExam [3]float64, pCExam12 float64) {
	const n = 3
	bern := func(x int, p float64) float64 {
		if x == 1 {
			return p
		}
		return 1 - p
	}
	for cfg := range 1 << (2 * n) {
		p := 1.0
		prev := -1
		match := true
		var e [n]int
		for r := range n {
			e[r] = (cfg >> uint(2*r)) & 1
			at := (cfg >> uint(2*r+1)) & 1
			p *= bern(e[r], exam(r, prev)) * bern(at, a[r])
			c := e[r]*at == 1
			if c != (clicks&(1<<uint(r)) != 0) {
				match = false
			}
			if c {
				prev = r
			}
		}
		if !match {
			continue
		}
		pC += p
		for r := range n {
			if e[r] == 1 {
				pCExam[r] += p
			}
		}
		if e[1] == 1 && e[2] == 1 {
			pCExam12 += p
		}
	}
	return pC, pCExam, pCExam12
}

// TestUBMExaminedByEnumeration checks the sampler's conditional of a
// SERP's examinations given its clicks (ubmExamined) against a
// brute-force enumeration of every latent configuration, for every click
// pattern of a 3-rank SERP: each rank's P(E = 1 | C), and that ranks 1
// and 2 are independent given the clicks (the sampler draws them apart).
// The examination parameters differ per (rank, previous click), so a
// formula that read the wrong one, or gamma (1 - a) / (1 - a), fails.
func TestUBMExaminedByEnumeration(t *testing.T) {
	const R = 3
	a := []float64{0.6, 0.3, 0.45}
	exam := func(r, prev int) float64 { return 0.9 - 0.2*float64(r) + 0.07*float64(prev+1) }
	// PyClick's layout of UBM's parameters: r R + prev, R - 1 without a
	// previous click.
	global := make([]float64, R*R)
	for r := range R {
		for prev := -1; prev < r; prev++ {
			i := prev
			if prev < 0 {
				i = R - 1
			}
			global[r*R+i] = exam(r, prev)
		}
	}
	for clicks := uint64(0); clicks < 8; clicks++ {
		pC, pCExam, pCExam12 := ubmEnumerate(a, exam, clicks)
		q := make([]float64, 3)
		ubmExamined(a, global, R, clicks, q)
		for r := range 3 {
			if want := pCExam[r] / pC; math.Abs(q[r]-want) > 1e-12 {
				t.Errorf("clicks %03b: P(E_%d = 1 | C) %v, enumeration %v", clicks, r, q[r], want)
			}
		}
		if want := pCExam12 / pC; math.Abs(q[1]*q[2]-want) > 1e-12 {
			t.Errorf("clicks %03b: P(E_1 = E_2 = 1 | C) %v by the sampler's independent draws, enumeration %v", clicks, q[1]*q[2], want)
		}
	}
}

// ubmTestLog returns n SERPs of 10 ranks over queries queries, each a
// random sample of docs documents in random order, drawn from UBM: rank r
// examined with probability 0.95 / (r + 1)^0.4 times 0.9 right after a
// click, document j of a query attractive with probability 0.1 + 0.8 j /
// docs, prepared.
func ubmTestLog(tb testing.TB, n, queries, docs int) *Data {
	tb.Helper()
	rng := rand.New(rand.NewPCG(5, 9))
	return preparedLog(tb, n, func(i int) sessions.SERP {
		s := sessions.SERP{SessionID: fmt.Sprintf("s%d", i), Query: fmt.Sprintf("q%d", rng.IntN(queries))}
		afterClick := false
		for r, j := range rng.Perm(docs)[:10] {
			s.Results = append(s.Results, fmt.Sprintf("d%d", j))
			e := 0.95 / math.Pow(float64(r+1), 0.4)
			if afterClick {
				e *= 0.9
			}
			afterClick = rng.Float64() < e && rng.Float64() < 0.1+0.8*float64(j)/float64(docs)
			if afterClick {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r})
			}
		}
		return s
	})
}

// TestGibbsUBMDeterministic checks that UBM's sampler (gibbsubm.go) gives
// the same bits for 1 and 4 workers and on a rerun, in both its settings
// (the examination held at the fit, and drawn: DrawExam), that it writes
// a Beta for every pair, that its mean lies within 2.5 of its standard
// deviations of the EM fit's attractiveness for the pairs seen at least
// 200 times (at the fitted scale, where both are; the log is drawn from
// UBM, so the likelihood's maximum and the posterior's mean differ by
// the prior's pull only), and that metrics.json names its method.
func TestGibbsUBMDeterministic(t *testing.T) {
	d := ubmTestLog(t, 8000, 20, 15)
	for _, drawExam := range []bool{false, true} {
		fitWith := func(workers int) *Model {
			opt := EstimatorExact.Options()
			opt.Workers, opt.Gibbs = workers, GibbsSetting{BurnIn: 5, Sweeps: 20, DrawExam: drawExam}
			m, err := Fit(context.Background(), d, UBM, opt)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m1, m4, again := fitWith(1), fitWith(4), fitWith(4)
		one, four, rerun := m1.Evidence, m4.Evidence, again.Evidence
		if one.RelAlpha == nil {
			t.Fatalf("DrawExam %v: no sampler Betas", drawExam)
		}
		checked := 0
		for p := range one.RelAlpha {
			if one.RelAlpha[p] != four.RelAlpha[p] || one.RelBeta[p] != four.RelBeta[p] || four.RelAlpha[p] != rerun.RelAlpha[p] || four.RelBeta[p] != rerun.RelBeta[p] {
				t.Fatalf("DrawExam %v pair %d: Beta(%v, %v) with 1 worker, (%v, %v) with 4, (%v, %v) again", drawExam, p, one.RelAlpha[p], one.RelBeta[p], four.RelAlpha[p], four.RelBeta[p], rerun.RelAlpha[p], rerun.RelBeta[p])
			}
			al, be := one.RelAlpha[p], one.RelBeta[p]
			if !(al > 0 && be > 0) {
				t.Fatalf("DrawExam %v pair %d: Beta(%v, %v)", drawExam, p, al, be)
			}
			if one.Shown[p] >= 200 {
				checked++
				mean, fit := al/(al+be), m1.Attr[p]
				sd := math.Sqrt(mean * (1 - mean) / (al + be + 1))
				if math.Abs(mean-fit) > 2.5*sd {
					t.Errorf("DrawExam %v pair %d (shown %v): sampler mean %.4f, EM %.4f", drawExam, p, one.Shown[p], mean, fit)
				}
			}
		}
		if checked == 0 {
			t.Fatal("no pair shown 200 times: the log does not test the means")
		}
		_, rep, err := m1.RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		if rep.Method != GibbsUBMUncertaintyMethod || rep.Gibbs == nil || rep.Gibbs.DrawExam != drawExam {
			t.Errorf("DrawExam %v: metrics method %q, setting %+v", drawExam, rep.Method, rep.Gibbs)
		}
	}
	// The users' opt-in leaves UBM's intervals to the counts.
	opt := EstimatorExact.Options()
	opt.Intervals = IntervalsGibbs
	m, err := Fit(context.Background(), d, UBM, opt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Evidence.RelAlpha != nil {
		t.Error("Intervals gibbs ran UBM's sampler; it is a measurement (Options.Gibbs) only")
	}
}
