package clickmodels

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Uncertainty of the relevance estimates (docs/clickmodels.md,
// "Uncertainty"). For every (query, document) pair the fit writes, beside
// its point estimate (PyClick's, unchanged), the parameters of a Beta
// distribution that describes what the log says about the pair's
// relevance, and the equal-tailed interval of that Beta at a stated level.
//
// The method is an empirical-Bayes Beta posterior built from the EM's own
// expected counts, in one pass over the training records after the last
// iteration:
//
//  1. Evidence. Every rank at which a pair's parameter theta (attractiveness,
//     or satisfaction for DBN and SDBN) enters the E-step is a Bernoulli
//     latent variable with prior probability theta-hat (the fitted value)
//     and posterior probability q (the E-step's expected count). Its
//     likelihood is linear in theta, L(theta) ∝ rho·theta + (1-theta) with
//     rho = q(1-theta-hat) / ((1-q)·theta-hat). A factor
//     (1-t·theta) (q < theta-hat, evidence against) is replaced by the Beta
//     kernel (1-theta)^c whose score matches at theta-hat,
//     c = t(1-theta-hat)/(1-t·theta-hat) = 1 - q/theta-hat "failures"; a
//     factor 1-t(1-theta) (q > theta-hat) likewise by theta^c with
//     c = 1 - (1-q)/(1-theta-hat) "successes". An observed click or an
//     observed "not attracted" (q = 1 or 0) is a whole success or failure,
//     so counting models keep their exact binomial counts. For PBM and UBM,
//     c = e(1-a)/(1-e·a) is the exact information a skipped rank of
//     examination probability e carries; for DBN the E-step's posteriors are
//     PyClick's, quirks included. Each pair gets effective successes K and
//     trials N (Evidence), summed per pair in record order, which is the
//     same for any number of workers and query shards.
//  2. Prior. One Beta(alpha0, beta0) per parameter is fitted to the log by
//     the method of moments over the pairs with N >= 1 (Kleinman 1973,
//     weighted by N): mean mu = sum K / sum N, and the between-pair variance
//     sigma^2 from the weighted spread of K/N minus its binomial part. The
//     sums are exact (ExactSum), so the prior does not depend on the order
//     of the pairs either.
//  3. Posterior. theta ~ Beta(alpha0 + K, beta0 + N - K). DBN's and SDBN's
//     relevance a·s (Chapelle and Zhang 2009, section 4: the relevance is
//     the probability of satisfaction given examination) takes the first two
//     moments of the product of the two independent Betas,
//     E[as] = E[a]E[s], E[(as)^2] = E[a^2]E[s^2], and CCM's a^2 those of
//     the square; a Beta with these moments describes the relevance.
//
// The confidence-weighting of the DBN paper (Chapelle and Zhang 2009,
// section 5.3, which weighed predicted relevances by their posterior
// variance) is the idea; the posterior here is the empirical-Bayes one.

// DefaultLevel is the level of the relevance intervals fit writes.
const DefaultLevel = 0.9

// UncertaintyMethod names the method in metrics.json.
const UncertaintyMethod = "empirical-bayes-beta"

// Evidence holds, per pair of a Model, the effective successes (K) and
// trials (N) of its attractiveness and, for DBN and SDBN, its
// satisfaction, and the level of the intervals to write.
type Evidence struct {
	Level        float64
	AttrK, AttrN []float64
	SatK, SatN   []float64 // DBN, SDBN; else nil
}

// BetaPrior is a fitted Beta(Alpha, Beta) prior; Pairs is the number of
// pairs it was fitted to.
type BetaPrior struct {
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	Pairs int64   `json:"pairs"`
}

// UncertaintyReport says in metrics.json how the intervals of the
// relevance file were obtained.
type UncertaintyReport struct {
	Method    string     `json:"method"`
	Level     float64    `json:"level"`
	AttrPrior BetaPrior  `json:"attr_prior"`
	SatPrior  *BetaPrior `json:"sat_prior,omitempty"`
}

// hasUncertainty reports whether kind's relevance depends on the pair
// (GCTR and RCTR cannot tell documents apart: no interval).
func (k Kind) hasUncertainty() bool { return k.pairParams() >= 1 }

// IntervalLevel turns the --interval flag of fit (the level, 0 for no
// intervals) into Options.Level, checking it.
func IntervalLevel(flag float64) (float64, error) {
	if !(flag >= 0 && flag < 1) {
		return 0, fmt.Errorf("--interval %v: want a level in (0, 1), such as 0.9, or 0 for no intervals", flag)
	}
	if flag == 0 {
		return -1, nil
	}
	return flag, nil
}

// addEvidence adds to (k, n) the effective successes and trials of one
// Bernoulli latent of weight w with prior probability th and posterior
// probability q (see above).
func addEvidence(k, n *float64, q, th, w float64) {
	switch {
	case q >= 1:
		*k += w
		*n += w
	case q <= 0:
		*n += w
	case q < th:
		*n += w * (1 - q/th)
	case q > th:
		c := w * (1 - (1-q)/(1-th))
		*k += c
		*n += c
	}
}

// evidence runs one E-step pass over f's records with the fitted values
// (changing none of them) and returns every pair's effective counts for
// intervals at level; nil for GCTR and RCTR or level 0.
func (f *fitter) evidence(ctx context.Context, level float64) *Evidence {
	if level <= 0 || !f.kind.hasUncertainty() {
		return nil
	}
	d := f.d
	np := d.Pairs()
	ev := &Evidence{Level: level, AttrK: make([]float64, np), AttrN: make([]float64, np)}
	hasSat := len(f.sat) > 0
	if hasSat {
		ev.SatK, ev.SatN = make([]float64, np), make([]float64, np)
	}
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		c := &sc.c
		c.gNum, c.gDen = sc.xNum, sc.xDen // global counts: dropped below
		var v view
		for i := ch.recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			w := d.recWeight[i]
			estep(f.kind, &v, w, c)
			for r, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				switch den := c.aDen[r]; {
				case den == 1:
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], c.aNum[r], f.attr[p], w)
				case den == 2: // CCM's click: attracted, then satisfied or not
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], 1, f.attr[p], w)
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], c.aNum[r]-1, f.attr[p], w)
				}
				if hasSat && c.sDen[r] == 1 {
					addEvidence(&ev.SatK[p], &ev.SatN[p], c.sNum[r], f.sat[p], w)
				}
			}
		}
	})
	f.collect(NewStats(f.kind, f.R)) // the pass's global counts are not used
	return ev
}

// priorSums accumulates the method-of-moments sums of a prior over pairs.
type priorSums struct {
	n, k, kk ExactSum // sum N, sum K, sum K^2/N over pairs with N >= 1
	pairs    int64
}

func (s *priorSums) add(k, n float64) {
	if !(n >= 1) {
		return
	}
	s.n.Add(n)
	s.k.Add(k)
	s.kk.Add(k * k / n)
	s.pairs++
}

// Concentration bounds of the fitted prior (alpha0 + beta0): below, a
// prior more dispersed than a uniform one's half; above, a prior as strong
// as 10,000 observations.
const (
	minConcentration = 0.5
	maxConcentration = 1e4
)

// prior returns the method-of-moments Beta prior (Kleinman 1973): with
// m_p = K_p/N_p, mu = sum K / sum N and S = sum N_p (m_p - mu)^2 / sum N,
// E[S] = sigma^2 + (P / sum N)(mu(1-mu) - sigma^2) for P pairs, so
// sigma^2 = (S - mu(1-mu) P/sum N) / (1 - P/sum N); the concentration is
// mu(1-mu)/sigma^2 - 1, kept within [minConcentration, maxConcentration].
// Without pairs (or no spread to measure) it is PyClick's Beta(1, 1).
func (s *priorSums) prior() BetaPrior {
	sn, sk, skk := s.n.Float64(), s.k.Float64(), s.kk.Float64()
	if s.pairs == 0 || sn <= 0 {
		return BetaPrior{Alpha: 1, Beta: 1, Pairs: s.pairs}
	}
	mu := sk / sn
	mu = min(max(mu, 1e-6), 1-1e-6)
	spread := (skk - 2*mu*sk + mu*mu*sn) / sn
	h := float64(s.pairs) / sn
	c := maxConcentration
	if h < 1 {
		if v := (spread - mu*(1-mu)*h) / (1 - h); v > 0 {
			c = mu*(1-mu)/v - 1
		}
	} else {
		c = 2
	}
	c = min(max(c, minConcentration), maxConcentration)
	return BetaPrior{Alpha: mu * c, Beta: (1 - mu) * c, Pairs: s.pairs}
}

// priors fits the attractiveness and satisfaction priors over every pair
// pw yields (one pass).
func (pw *pairWriter) priors() (attr, sat BetaPrior, err error) {
	var sa, ss priorSums
	pw.pairs(func(_, _ string, v *pairVal) bool {
		sa.add(v.ak, v.an)
		if pw.hasSat {
			ss.add(v.sk, v.sn)
		}
		return true
	})
	if err := pw.readErr(); err != nil {
		return attr, sat, err
	}
	return sa.prior(), ss.prior(), nil
}

// relevanceBeta is the Beta(alpha, beta) that describes the relevance of a
// pair of kind with effective counts v under the priors (see above).
func relevanceBeta(kind Kind, pa, ps BetaPrior, v *pairVal) (alpha, beta float64) {
	aa, ab := pa.Alpha+v.ak, pa.Beta+v.an-v.ak
	switch kind {
	case DBN, SDBN:
		sa, sb := ps.Alpha+v.sk, ps.Beta+v.sn-v.sk
		m1a, m2a := betaMoments(aa, ab)
		m1s, m2s := betaMoments(sa, sb)
		return betaFromMoments(m1a*m1s, m2a*m2s)
	case CCM:
		// E[a^2] and E[a^4] of Beta(aa, ab).
		n := aa + ab
		m2 := aa * (aa + 1) / (n * (n + 1))
		m4 := m2 * (aa + 2) * (aa + 3) / ((n + 2) * (n + 3))
		return betaFromMoments(m2, m4)
	}
	return aa, ab
}

// betaMoments returns E[X] and E[X^2] of Beta(a, b).
func betaMoments(a, b float64) (m1, m2 float64) {
	n := a + b
	m1 = a / n
	return m1, m1 * (a + 1) / (n + 1)
}

// betaFromMoments returns the Beta with mean m1 and second moment m2:
// alpha + beta = m1(1-m1)/var - 1.
func betaFromMoments(m1, m2 float64) (alpha, beta float64) {
	v := m2 - m1*m1
	if !(v > 0) {
		v = 1e-300
	}
	c := m1*(1-m1)/v - 1
	if !(c > 0) {
		c = 1e-9
	}
	return m1 * c, (1 - m1) * c
}

// BetaInterval returns the equal-tailed interval of Beta(alpha, beta) at
// level: its (1-level)/2 and (1+level)/2 quantiles.
func BetaInterval(alpha, beta, level float64) (lo, hi float64) {
	return betaQuantile(alpha, beta, (1-level)/2), betaQuantile(alpha, beta, (1+level)/2)
}

func betaQuantile(a, b, y float64) float64 {
	x := mathext.InvRegIncBeta(a, b, y)
	if math.IsNaN(x) {
		return a / (a + b)
	}
	return min(max(x, 0), 1)
}

// setPriors fits the priors of pw's pairs when they carry Evidence (one
// pass over them) and returns how the intervals are obtained; nil
// without Evidence.
func (pw *pairWriter) setPriors() (*UncertaintyReport, error) {
	if !pw.hasEv {
		return nil, nil
	}
	a, s, err := pw.priors()
	if err != nil {
		return nil, err
	}
	pw.attrPrior, pw.satPrior = a, s
	rep := &UncertaintyReport{Method: UncertaintyMethod, Level: pw.level, AttrPrior: a}
	if pw.hasSat {
		rep.SatPrior = &s
	}
	return rep, nil
}

// BetaProbability is P(lo <= X < hi) for X ~ Beta(alpha, beta):
// I_hi(alpha, beta) - I_lo(alpha, beta), I the regularized incomplete beta
// function.
func BetaProbability(alpha, beta, lo, hi float64) float64 {
	cdf := func(x float64) float64 {
		if x <= 0 {
			return 0
		}
		if x >= 1 {
			return 1
		}
		return mathext.RegIncBeta(alpha, beta, x)
	}
	return min(max(cdf(hi)-cdf(lo), 0), 1)
}
