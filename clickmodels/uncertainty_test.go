package clickmodels

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func nearTol(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g", what, got, want)
	}
}

// TestAddEvidence: the effective counts of one latent variable, by hand.
func TestAddEvidence(t *testing.T) {
	for _, c := range []struct {
		q, th, w, k, n float64
	}{
		{1, 0.4, 1, 1, 1},       // a click: a whole success
		{0, 0.4, 1, 0, 1},       // examined, not attracted: a whole failure
		{0.2, 0.4, 1, 0, 0.5},   // evidence against: 1 - 0.2/0.4 failures
		{0.7, 0.4, 1, 0.5, 0.5}, // evidence for: 1 - 0.3/0.6 successes
		{0.7, 0.4, 3, 1.5, 1.5}, // a merged record of weight 3
		{0.4, 0.4, 1, 0, 0},     // no evidence
	} {
		var k, n float64
		addEvidence(&k, &n, c.q, c.th, c.w)
		nearTol(t, "k", k, c.k, 1e-15)
		nearTol(t, "n", n, c.n, 1e-15)
	}
	// PBM's skip at examination e: q = (1-e)a/(1-ea), so 1 - q/a =
	// e(1-a)/(1-ea); e = 0.5, a = 0.3: 0.35/0.85.
	var k, n float64
	addEvidence(&k, &n, 0.5*0.3/0.85, 0.3, 1)
	nearTol(t, "PBM skip", n, 0.35/0.85, 1e-15)
}

// TestEvidenceThreeSERPs: DCTR's evidence on the three-SERP log is its
// binomial counts (A: shown 3 times, clicked twice, at ranks 0, 0, 1; B:
// shown 3 times, never clicked, at ranks 1, 1, 0), and the mean ranks.
func TestEvidenceThreeSERPs(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), d, DCTR, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := m.Evidence
	if ev == nil || ev.Level != DefaultLevel {
		t.Fatalf("evidence %+v", ev)
	}
	a, b := m.Pair("q", "A"), m.Pair("q", "B")
	nearTol(t, "K(A)", ev.AttrK[a], 2, 0)
	nearTol(t, "N(A)", ev.AttrN[a], 3, 0)
	nearTol(t, "K(B)", ev.AttrK[b], 0, 0)
	nearTol(t, "N(B)", ev.AttrN[b], 3, 0)
	nearTol(t, "rank(A)", ev.Rank[a], 1.0/3, 1e-15)
	nearTol(t, "rank(B)", ev.Rank[b], 2.0/3, 1e-15)
	// No evidence and no intervals on request, and for GCTR.
	if m, _ := Fit(context.Background(), d, DCTR, Options{Level: -1}); m.Evidence != nil {
		t.Error("Level -1: evidence computed")
	}
	if m, _ := Fit(context.Background(), d, GCTR, Options{}); m.Evidence != nil {
		t.Error("GCTR: evidence computed")
	}
}

// TestRelevanceBetaProduct: DBN's relevance a·s with a ~ Beta(2, 3) and
// s ~ Beta(4, 1) is described by the Beta with the product's first two
// moments, by hand: E = 0.4 x 0.8 = 0.32; E[a^2] = 2·3/(5·6) = 0.2,
// E[s^2] = 4·5/(5·6) = 2/3, E[X^2] = 2/15; var = 2/15 - 0.1024;
// alpha + beta = 0.32·0.68/var - 1. A seeded Monte-Carlo draw of the
// product agrees on mean and variance.
func TestRelevanceBetaProduct(t *testing.T) {
	v := pairVal{ak: 1, an: 3, sk: 3, sn: 3} // with Beta(1, 1) priors: a ~ Beta(2, 3), s ~ Beta(4, 1)
	one := BetaPrior{Alpha: 1, Beta: 1}
	al, be := relevanceBeta(DBN, one, one, &v)
	vr := 2.0/15 - 0.1024
	c := 0.32*0.68/vr - 1
	nearTol(t, "alpha", al, 0.32*c, 1e-12)
	nearTol(t, "beta", be, 0.68*c, 1e-12)
	rng := rand.New(rand.NewPCG(1, 2))
	gamma := func(k float64) float64 { // k integer: a sum of exponentials
		s := 0.0
		for range int(k) {
			s += rng.ExpFloat64()
		}
		return s
	}
	beta := func(a, b float64) float64 { x, y := gamma(a), gamma(b); return x / (x + y) }
	const n = 200000
	var s1, s2 float64
	for range n {
		x := beta(2, 3) * beta(4, 1)
		s1 += x
		s2 += x * x
	}
	m := s1 / n
	nearTol(t, "Monte-Carlo mean", m, al/(al+be), 0.002)
	nearTol(t, "Monte-Carlo variance", s2/n-m*m, al*be/((al+be)*(al+be)*(al+be+1)), 0.001)
	// UBM: the attractiveness' own Beta.
	if a, b := relevanceBeta(UBM, BetaPrior{Alpha: 2, Beta: 5}, BetaPrior{}, &v); a != 3 || b != 7 {
		t.Errorf("UBM: Beta(%v, %v), want Beta(3, 7)", a, b)
	}
}

// TestBetaInterval: Beta(1, 1) is uniform, so its 90% interval is
// [0.05, 0.95]; Beta(2, 1) has CDF x^2, so [sqrt(0.05), sqrt(0.95)].
func TestBetaInterval(t *testing.T) {
	lo, hi := BetaInterval(1, 1, 0.9)
	nearTol(t, "uniform lower", lo, 0.05, 1e-12)
	nearTol(t, "uniform upper", hi, 0.95, 1e-12)
	lo, hi = BetaInterval(2, 1, 0.9)
	nearTol(t, "Beta(2,1) lower", lo, math.Sqrt(0.05), 1e-12)
	nearTol(t, "Beta(2,1) upper", hi, math.Sqrt(0.95), 1e-12)
	nearTol(t, "P(0.45 <= X < 0.5), Beta(2,1)", BetaProbability(2, 1, 0.45, 0.5), 0.25-0.2025, 1e-12)
}

// TestPriorRecovers: the marginal-likelihood prior recovers the Beta the
// pairs' parameters were drawn from: 5,000 pairs, theta ~ Beta(4, 6)
// (mean 0.4, concentration 10), 20 Bernoulli trials each.
func TestPriorRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gamma := func(k int) float64 {
		s := 0.0
		for range k {
			s += rng.ExpFloat64()
		}
		return s
	}
	var h priorHist
	for range 5000 {
		x, y := gamma(4), gamma(6)
		th := x / (x + y)
		k := 0.0
		for range 20 {
			if rng.Float64() < th {
				k++
			}
		}
		h.add(k, 20)
	}
	p := h.prior()
	c := p.Alpha + p.Beta
	nearTol(t, "prior mean", p.Alpha/c, 0.4, 0.02)
	if c < 7 || c > 14 {
		t.Errorf("prior concentration %.2f, want about 10", c)
	}
	if p.Pairs != 5000 {
		t.Errorf("pairs %d", p.Pairs)
	}
}
