package clickmodels

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// Uncertainty of the relevance estimates (docs/clickmodels.md,
// "Uncertainty of the relevance"). For every (query, document) pair the fit writes, beside
// its point estimate (PyClick's, unchanged), the parameters of a Beta
// distribution that describes what the log says about the pair's
// relevance, and the equal-tailed interval of that Beta at a stated level.
//
// The method is an empirical-Bayes Beta posterior built from the EM's own
// expected counts, in one pass over the training records after the last
// iteration:
//
//  1. Evidence. Every rank at which a pair's parameter theta (attractiveness)
//     enters the E-step is a Bernoulli
//     latent variable with prior probability theta-hat (the fitted value)
//     and posterior probability q (the E-step's expected count). Its
//     likelihood is linear in theta, L(theta) ∝ rho·theta + (1-theta) with
//     rho = q(1-theta-hat) / ((1-q)·theta-hat). A factor
//     (1-t·theta) (q < theta-hat, evidence against) is replaced by the Beta
//     kernel (1-theta)^c whose score matches at theta-hat,
//     c = 1 - q/theta-hat "failures"; a factor 1-t(1-theta) (q > theta-hat)
//     likewise by theta^c with c = 1 - (1-q)/(1-theta-hat) "successes"
//     (addEvidence). An observed click or an observed "not attracted"
//     (q = 1 or 0) is a whole success or failure, so counting models keep
//     their exact binomial counts. Beside the counts, each pair sums its
//     observed information, the square of every observation's score
//     (addInfo): a kernel matched in slope claims more curvature than the
//     likelihood has (for a result skipped at a rank of examination
//     probability e, (1 - e·a)/(e(1 - a)) times as much), so the pair's
//     posterior takes its counts scaled down to that information, their
//     mean kept (boundEvidence; docs/clickmodels.md, "On the user's path,
//     by evidence fifth"). For DBN the posteriors are those of the exact
//     E-step (estepDBNExact) at the fitted values, since PyClick's
//     own counts every rank of a SERP without clicks as examined and not
//     attracted; under PyClick's estimator they are taken at its
//     continuation and pair values refined by dbnRefineIterations exact
//     iterations (on copies). DBN's and SDBN's relevance a·s gets its own
//     counts (addRelevanceEvidence), bounded by the information the delta
//     method gives from those of a and s (relevanceInfo).
//     Each pair gets effective successes K and
//     trials N (Evidence), summed per pair in record order, which is the
//     same for any number of workers and query shards.
//  2. Prior. Per rank bucket (the pair's mean rank, rounded: what a pair
//     shown at rank 9 is worth differs from one shown at rank 1) and
//     exposure class (the pair's impressions, in powers of two: a pair
//     shown once at rank 1 differs from one shown a hundred times there),
//     one Beta(alpha0, beta0) per parameter is fitted to the log by maximum
//     marginal likelihood with a weak hyperprior (priorHist.prior, priors),
//     its concentration alpha0 + beta0 at most what the pairs' spread
//     identifies by the method of moments corrected for binomial noise
//     (Efron), Beta(1, 1)'s 2 where it does not (priorHist.spreadBound;
//     for PBM and UBM exactly 2 there, withOwnSpread).
//     Its histogram is counted exactly, so the prior does not depend on the
//     order of the pairs either.
//  3. Posterior. theta ~ Beta(alpha0 + K', beta0 + N' - K'), (K', N') the
//     counts bounded by the pair's information (boundEvidence; the prior
//     is fitted to the counts as they are). DBN's and SDBN's relevance a·s
//     (Chapelle and Zhang 2009: the probability of satisfaction given
//     examination) is the Beta of its own bounded counts under its own
//     prior. CCM's a^2 takes the first two moments of the square; a Beta
//     with these moments describes the relevance.
//
// Chapelle and Zhang (2009) weighed the relevances their DBN predicted by a
// confidence; the posterior here is an empirical-Bayes one.

// DefaultLevel is the level of the relevance intervals fit writes.
const DefaultLevel = 0.9

// UncertaintyMethod names the method in metrics.json.
const UncertaintyMethod = "empirical-bayes-beta"

// Evidence holds, per pair of a Model, the effective successes (K) and
// trials (N) of its attractiveness and, for DBN and SDBN, of its
// relevance a·s, and the level of the intervals to write.
type Evidence struct {
	Level        float64
	Rank         []float64 // mean rank (0-based) at which the pair was shown, weighted by SERP
	Shown        []float64 // impressions: the sum of the weights of the training records that show the pair
	AttrK, AttrN []float64
	// AttrInfo is the observed information on the attractiveness at its
	// fitted value (addInfo), which bounds what AttrK and AttrN may claim
	// in the pair's posterior (boundEvidence); nil: no bound.
	AttrInfo   []float64
	SatK, SatN []float64 // DBN, SDBN: the relevance a·s (addRelevanceEvidence); else nil
	// SatInfo (DBN, SDBN) is the information the log gives on the
	// relevance a·s (relevanceInfo), which bounds what SatK and SatN may
	// claim in the pair's posterior (boundEvidence).
	SatInfo []float64 // nil: no bound
	// RelAlpha and RelBeta (DBN, SDBN with the Gibbs sampler; else nil)
	// are the relevance's Beta from the Gibbs sampler of the hierarchical
	// model (gibbs.go), which then replaces relevanceBeta's.
	RelAlpha, RelBeta []float64
	// RelMean (with GibbsSetting.Mean; else nil) is the sampler's
	// posterior mean of the relevance, which the relevance column then
	// holds instead of the fit's.
	RelMean []float64
	// Gibbs is the sampler's setting when it computed RelAlpha and
	// RelBeta; else nil.
	Gibbs *GibbsSetting
	// Ranks (PBM and UBM: Kind.ScaleRidge, with at most 64 ranks) is the
	// bit set of the ranks (0-based) at which the pair was shown: the
	// edges of the identifiability graph (identify.go); else nil.
	Ranks []uint64
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
	// Method is UncertaintyMethod, or GibbsUncertaintyMethod where the
	// Gibbs sampler computed the relevance's Betas (DBN, SDBN with
	// Options.Intervals IntervalsGibbs or the measurement switches), with
	// its setting in Gibbs; the priors below are then the evidence pass's,
	// which the sampler starts from.
	Method string        `json:"method"`
	Gibbs  *GibbsSetting `json:"gibbs,omitempty"`
	Level  float64       `json:"level"`
	// AttrPriors[b] is the attractiveness prior fitted to all pairs whose
	// mean rank rounds to b (the last bucket holds every rank from it on),
	// whatever their exposure; the pairs take AttrCellPriors. SatPriors
	// likewise for DBN's and SDBN's relevance a·s (whose counts SatK and
	// SatN hold; the name is kept for the readers of metrics.json).
	AttrPriors []BetaPrior `json:"attr_priors_by_rank"`
	SatPriors  []BetaPrior `json:"sat_priors_by_rank,omitempty"`
	// ExposureBounds are the upper bounds of the exposure classes but the
	// last (impressions in the training records): class e holds the pairs
	// shown fewer than ExposureBounds[e] times and at least
	// ExposureBounds[e-1]. AttrCellPriors[b][e] is the attractiveness
	// prior the pairs of rank bucket b and exposure class e take;
	// SatCellPriors likewise for the relevance a·s.
	ExposureBounds []float64     `json:"exposure_bounds"`
	AttrCellPriors [][]BetaPrior `json:"attr_priors_by_rank_exposure"`
	SatCellPriors  [][]BetaPrior `json:"sat_priors_by_rank_exposure,omitempty"`
	// Identification (PBM, UBM: Kind.ScaleRidge) says what the log
	// identifies: the identifiability graph's components and the scales
	// each leaves open, which the intervals cover (identify.go).
	Identification *Identification `json:"identification,omitempty"`
	// GibbsTransfer (with GibbsSetting.Subset) is, per rank bucket and
	// exposure class, the map of the counts' Betas of the pairs outside
	// the sampler's subset to the sampler's (gibbstransfer.go).
	GibbsTransfer [][]TransferMap `json:"gibbs_transfer,omitempty"`
}

// hasUncertainty reports whether kind's relevance depends on the pair
// (GCTR and RCTR cannot tell documents apart: no interval).
func (k Kind) hasUncertainty() bool { return k.PairParams() >= 1 }

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

// addInfo adds to info the observed information on theta of the latent of
// addEvidence: its likelihood is linear in theta, so the curvature of its
// logarithm at th is minus the square of its score
// S = (q - th) / (th (1 - th)). An observed success gives 1/th^2, an
// observed failure 1/(1-th)^2 (a binomial's information, the counts'
// own); a latent whose posterior moved little from th gives little.
func addInfo(info *float64, q, th, w float64) {
	if !(th > 0 && th < 1) {
		return
	}
	s := (q - th) / (th * (1 - th))
	*info += w * s * s
}

// infoOf is pair p's information in x (Evidence.AttrInfo or SatInfo),
// +Inf (no bound) when the Evidence carries none.
func infoOf(x []float64, p int) float64 {
	if x == nil {
		return math.Inf(1)
	}
	return x[p]
}

// boundEvidence returns the effective counts (k, n) of a parameter fitted
// at th scaled down, keeping k/n, so that the information their Beta
// kernel claims at th, k/th^2 + (n-k)/(1-th)^2, is at most info (addInfo).
// addEvidence's kernel of a latent matches the slope of its
// log-likelihood at th, not its curvature: that of a result skipped at a
// rank of examination probability e is the likelihood's times
// (1 - e·a)/(e (1-a)), so a skip at a rank rarely examined counted as much
// as a whole failure, and the intervals of the best-observed pairs were
// too narrow (docs/clickmodels.md, "On the user's path, by evidence
// fifth"). The counts as they are still fit the priors, whose spread
// only the counts' means tell.
func boundEvidence(k, n, th, info float64) (float64, float64) {
	if !(th > 0 && th < 1) || !(n > 0) {
		return k, n
	}
	claimed := k/(th*th) + (n-k)/((1-th)*(1-th))
	if f := info / claimed; f < 1 {
		return k * f, n * f
	}
	return k, n
}

// addRelevanceEvidence adds to (k, n) the evidence that rank r of a SERP
// whose E-step counts are c gives on DBN's or SDBN's relevance a·s, the
// probability that an examined result is clicked and satisfies: trials
// the posterior probability that r was examined (1 up to the last click;
// after it, 1 - P(A=1 | C) / a-hat, since an attracted result there was
// not examined), successes the posterior probability of a satisfied click
// (the satisfaction count of a clicked rank). Ranks the model does not
// count (SDBN's after the last click) give none. relevanceInfo bounds
// what these counts may claim.
func addRelevanceEvidence(k, n *float64, c *counts, r int, clicked bool, attr, w float64) {
	if c.aDen[r] != 1 {
		return
	}
	if clicked {
		*n += w
		if c.sDen[r] == 1 {
			*k += w * c.sNum[r]
		}
		return
	}
	if attr > 0 {
		*n += w * max(1-c.aNum[r]/attr, 0)
	}
}

// relevanceInfo is the information the log gives on DBN's or SDBN's
// relevance r = a·s, from the observed information on the pair's
// attractiveness ia (at the fitted a) and satisfaction is (at the fitted
// s; addInfo). Each of a and s has its information on top of a uniform's
// precision 12, so its variance is 1/(I + 12); the product of two
// independent variables has
//
//	Var(a s) = Var(a) Var(s) + Var(a) s^2 + Var(s) a^2
//
// and the log's information on r is 1/Var(r) less the same with no
// evidence (both variances 1/12). A pair never examined gets none; one
// shown often at the top and never clicked much, its a being small
// whatever its s; one clicked often about the delta method's
// 1/(s^2/I_a + a^2/I_s). The two are taken as independent.
func relevanceInfo(a, ia, s, is float64) float64 {
	if !(a*s > 0 && a*s < 1) {
		return math.Inf(1) // no bound
	}
	const uniform = 1.0 / 12 // the variance of a uniform
	variance := func(info float64) float64 { return 1 / (max(info, 0) + 1/uniform) }
	product := func(va, vs float64) float64 { return va*vs + va*s*s + vs*a*a }
	return max(1/product(variance(ia), variance(is))-1/product(uniform, uniform), 0)
}

// dbnRefineIterations is the number of exact-E-step iterations that move
// PyClick's DBN values towards the maximum of the likelihood the evidence
// describes before the evidence pass.
const dbnRefineIterations = 10

// evidence runs one E-step pass over f's records with the fitted values
// (changing none of them) and returns every pair's effective counts for
// intervals at level; nil for GCTR and RCTR or level 0.
func (f *fitter) evidence(ctx context.Context, level float64) *Evidence {
	if level <= 0 || !f.kind.hasUncertainty() {
		return nil
	}
	if f.kind == DBN && !f.exact {
		// The evidence is taken at values refined by the exact E-step
		// (pair parameters only, continuation kept: no shard needs
		// another's), on copies: the model keeps PyClick's values.
		keepA, keepS := f.attr, f.sat
		f.attr, f.sat, f.exact = slices.Clone(keepA), slices.Clone(keepS), true
		for range dbnRefineIterations {
			f.iterate(ctx, f.workers, NewStats(f.kind, f.R))
		}
		defer func() { f.attr, f.sat, f.exact = keepA, keepS, false }()
	}
	d := f.d
	np := d.Pairs()
	ev := &Evidence{Level: level, Rank: make([]float64, np), Shown: make([]float64, np), AttrK: make([]float64, np), AttrN: make([]float64, np)}
	shown := ev.Shown
	hasSat := len(f.sat) > 0
	ev.AttrInfo = make([]float64, np)
	var satInfo []float64 // the satisfaction's observed information (relevanceInfo)
	if hasSat {
		ev.SatK, ev.SatN, ev.SatInfo = make([]float64, np), make([]float64, np), make([]float64, np)
		satInfo = make([]float64, np)
	}
	if f.kind.ScaleRidge() && f.R <= maxGraphRanks {
		ev.Ranks = make([]uint64, np)
	}
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		c := &sc.c
		c.gNum, c.gDen = sc.xNum, sc.xDen // global counts: dropped below
		var v view
		for i := ch.recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			if f.kind == PSCM {
				pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
				d.eachOrder(i, func(order []uint8, w float64) {
					v.order = order
					pscmEvidence(&v, w, pairs, ev)
				})
				continue
			}
			// DBN's posteriors are the exact ones (Chuklin et al. 2015,
			// section 4.2) at the fitted values: PyClick's E-step counts
			// every rank of a SERP without clicks as examined and not
			// attracted, which would overstate the evidence. SDBN's and
			// DCM's are the exact ones when they were fitted with them.
			v.exact = f.kind == DBN || f.exact
			w := d.recWeight[i]
			estep(f.kind, &v, w, c)
			for r, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				ev.Rank[p] += w * float64(r)
				shown[p] += w
				if ev.Ranks != nil {
					ev.Ranks[p] |= 1 << uint(r)
				}
				switch den := c.aDen[r]; {
				case den == 1:
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], c.aNum[r], f.attr[p], w)
					addInfo(&ev.AttrInfo[p], c.aNum[r], f.attr[p], w)
				case den == 2: // CCM's click: attracted, then satisfied or not
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], 1, f.attr[p], w)
					addEvidence(&ev.AttrK[p], &ev.AttrN[p], c.aNum[r]-1, f.attr[p], w)
					addInfo(&ev.AttrInfo[p], 1, f.attr[p], w)
					addInfo(&ev.AttrInfo[p], c.aNum[r]-1, f.attr[p], w)
				}
				if hasSat {
					addRelevanceEvidence(&ev.SatK[p], &ev.SatN[p], c, r, d.recClicks[i]&(1<<uint(r)) != 0, f.attr[p], w)
					if c.sDen[r] == 1 {
						addInfo(&satInfo[p], c.sNum[r], f.sat[p], w)
					}
				}
			}
		}
	})
	f.collect(NewStats(f.kind, f.R)) // the pass's global counts are not used
	if hasSat {
		for p := range satInfo {
			ev.SatInfo[p] = relevanceInfo(f.attr[p], ev.AttrInfo[p], f.sat[p], satInfo[p])
		}
	}
	for p, n := range shown {
		if n > 0 {
			ev.Rank[p] /= n
		}
	}
	return ev
}

// The prior of a rank bucket is fitted by maximum marginal likelihood
// (type-II maximum likelihood, the empirical-Bayes estimate): the Beta
// (alpha0, beta0) that maximises sum over pairs of
// ln B(alpha0 + K, beta0 + N - K) - ln B(alpha0, beta0), the log
// probability of the pairs' counts under the prior (beta-binomial). The
// pairs enter through a histogram of (N, K/N) with fixed cells, counted
// exactly (integers), so the fit does not depend on the order of the
// pairs; N is binned on a log scale from histMinN up, K/N in histM cells.
const (
	histMinN   = 0.05 // pairs with less evidence carry no information on the prior
	histNRatio = 1.35 // ratio between consecutive N cells
	histN      = 48   // N cells: up to histMinN * 1.35^48, about 90,000; above, the last
	histM      = 25   // K/N cells
)

// priorHist is the histogram of one cell's pairs. Each histogram cell
// also sums its pairs' K and N in fixed point (histScale units), so the fit
// takes every cell's mean K and mean N, not its centre: a pair with K = 0
// and N = 100 would otherwise enter as K = 2 (the centre of K/N in [0,
// 0.04)). Integer sums do not depend on the order of the pairs. They
// cannot overflow: a pair's K is at most its N, and its N at most two per
// rank of every training record showing it (CCM's click counts twice), so
// a cell's sum of N is at most 2 x ranks x the training SERPs, times
// histScale: at 35 M SERPs of 10 ranks 7.3e14, 12,000 times below the
// largest int64 (9.2e18); even with 64 ranks it takes 69 billion SERPs.
type priorHist struct {
	cells      [histN][histM]int64
	sumK, sumN [histN][histM]int64 // fixed point, histScale per unit
	pairs      int64
}

// histScale is the fixed-point unit of a cell's sums of K and N: 2^-20,
// far below any effective count that matters.
const histScale = 1 << 20

func (h *priorHist) add(k, n float64) {
	if !(n >= histMinN) {
		return
	}
	i := min(int(math.Log(n/histMinN)/math.Log(histNRatio)), histN-1)
	j := min(max(int(k/n*histM), 0), histM-1)
	h.cells[i][j]++
	h.sumK[i][j] += int64(math.Round(k * histScale))
	h.sumN[i][j] += int64(math.Round(n * histScale))
	h.pairs++
}

// informative reports whether h holds enough pairs to fit a prior to:
// at least minPriorPairs, with at least one success and one failure in all
// (sum of K and of N - K at least 1). Without a success, the marginal
// likelihood grows without bound as the prior's mean goes to 0 (without a
// failure, to 1): the fit would say only that, and give every pair of
// the cell an interval of width 0 at the edge. (On the sparse DBN logs
// every pair shown once is one that nobody clicked, because a user who
// clicks comes back to the page and shows the pair again.)
func (h *priorHist) informative() bool {
	if h.pairs < minPriorPairs {
		return false
	}
	var k, n int64
	for i := range h.sumK {
		for j := range h.sumK[i] {
			k += h.sumK[i][j]
			n += h.sumN[i][j]
		}
	}
	return k >= histScale && n-k >= histScale
}

func (h *priorHist) merge(o *priorHist) {
	for i := range h.cells {
		for j := range h.cells[i] {
			h.cells[i][j] += o.cells[i][j]
			h.sumK[i][j] += o.sumK[i][j]
			h.sumN[i][j] += o.sumN[i][j]
		}
	}
	h.pairs += o.pairs
}

// Concentration bounds of the fitted prior (alpha0 + beta0).
const (
	minConcentration = 0.5
	maxConcentration = 1000
)

// prior fits the bucket's Beta prior (see above); Beta(1, 1), PyClick's
// prior, without pairs.
func (h *priorHist) prior() BetaPrior { return h.fit(maxConcentration) }

// fit is prior with the concentration at most maxConc.
func (h *priorHist) fit(maxConc float64) BetaPrior { return h.fitFrom(maxConc, nil) }

// priorStart is where a fit of one histogram's prior ended, its mean and
// log concentration (ok: there was one), for a warm start of the next fit
// of the same cell: the Gibbs sampler refits every cell each sweep to
// counts that move little from the sweep before (gibbs.go, priorWarm).
type priorStart struct {
	mu, t float64
	ok    bool
}

// Warm starts: the pattern search starts at the last fit's point with
// steps warmStep times smaller than a cold search's first, for
// warmIterations iterations instead of the grid and 24 (so it reaches
// warmIterations x 0.05 / warmStep = 0.175 in the mean from the start,
// and ends with steps of at most 0.05 / warmStep / 2^(warmIterations -
// moves)).
const (
	warmStep       = 4
	warmIterations = 14
)

// fitFrom is fit, started at start and leaving there where it ended when
// start is not nil (with start.ok false, or nil, a cold search: the grid,
// then 24 iterations).
func (h *priorHist) fitFrom(maxConc float64, start *priorStart) BetaPrior {
	if h.pairs == 0 {
		return BetaPrior{Alpha: 1, Beta: 1}
	}
	// ki: the cell's K among the distinct K > 0 of the cells (ks; -1: K =
	// 0), whose ln Gamma(a + K) one evaluation of ll computes once: with
	// whole counts (the Gibbs sampler's) the cells of small N share a few
	// K. The same operation on the same values, so the same bits.
	type cell struct {
		c, k, n float64
		ki      int32
	}
	var cs []cell
	kIndex := map[float64]int32{}
	var ks []float64
	for i := range h.cells {
		for j, c := range h.cells[i] {
			if c > 0 {
				fc := float64(c)
				x := cell{fc, float64(h.sumK[i][j]) / histScale / fc, float64(h.sumN[i][j]) / histScale / fc, -1}
				if x.k != 0 {
					ki, ok := kIndex[x.k]
					if !ok {
						ki = int32(len(ks))
						kIndex[x.k] = ki
						ks = append(ks, x.k)
					}
					x.ki = ki
				}
				cs = append(cs, x)
			}
		}
	}
	lgK := make([]float64, len(ks))
	// ll of mean mu and log concentration t: the marginal log likelihood
	// plus the log of the weak hyperprior p(alpha, beta) ∝ (alpha +
	// beta)^(-5/2) (Gelman et al., Bayesian Data Analysis, 3rd ed., section
	// 5.3), in (mu, t) coordinates (Jacobian c^2): -t/2. Where the pairs
	// say little about the spread (ranks seldom examined), it keeps the
	// prior wide instead of letting the flat likelihood drift to the
	// largest concentration.
	//
	// ll is a pure function of (mu, t), and the pattern search below comes
	// back to points it has evaluated (the point it just left, a step
	// clamped at a bound: a quarter of its evaluations), so they are kept
	// (seen). A cell whose pairs were never clicked (K = 0: a quarter of the
	// cells on the logs of the tests) has a + K = a exactly, so its
	// ln Gamma(a + K) is base's ln Gamma(a): logBeta written out, the same
	// operations on the same values, so the same bits as without both.
	seen := make(map[[2]float64]float64, 160)
	ll := func(mu, t float64) float64 {
		if v, ok := seen[[2]float64{mu, t}]; ok {
			return v
		}
		c := math.Exp(t)
		a, b := mu*c, (1-mu)*c
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		base := la + lb - lab // logBeta(a, b)
		s := -t / 2
		for u, k := range ks {
			lgK[u], _ = math.Lgamma(a + k)
		}
		for _, x := range cs {
			ak, bk := a+x.k, b+x.n-x.k
			lak := la
			if x.ki >= 0 {
				lak = lgK[x.ki]
			}
			lbk, _ := math.Lgamma(bk)
			labk, _ := math.Lgamma(ak + bk)
			s += x.c * (lak + lbk - labk - base) // logBeta(ak, bk) - base
		}
		seen[[2]float64{mu, t}] = s
		return s
	}
	// Pattern search from a grid: deterministic, about 150 evaluations;
	// warm, from start, about 40.
	tLo, tHi := math.Log(minConcentration), math.Log(max(maxConc, minConcentration))
	bestMu, bestT, best := 0.5, 0.0, math.Inf(-1)
	iterations := 24
	if start != nil && start.ok {
		bestMu, bestT = min(max(start.mu, 1e-4), 1-1e-4), min(max(start.t, tLo), tHi)
		best = ll(bestMu, bestT)
		iterations = warmIterations
	} else {
		for i := 1; i < 10; i++ {
			for j := 0; j <= 5; j++ {
				mu, t := float64(i)/10, tLo+(tHi-tLo)*float64(j)/5
				if v := ll(mu, t); v > best {
					bestMu, bestT, best = mu, t, v
				}
			}
		}
	}
	dMu, dT := 0.05, (tHi-tLo)/10
	if iterations == warmIterations {
		dMu, dT = dMu/warmStep, dT/warmStep
	}
	for range iterations {
		moved := false
		for _, st := range [4][2]float64{{dMu, 0}, {-dMu, 0}, {0, dT}, {0, -dT}} {
			mu := min(max(bestMu+st[0], 1e-4), 1-1e-4)
			t := min(max(bestT+st[1], tLo), tHi)
			if v := ll(mu, t); v > best {
				bestMu, bestT, best, moved = mu, t, v, true
			}
		}
		if !moved {
			dMu, dT = dMu/2, dT/2
		}
	}
	if start != nil {
		*start = priorStart{bestMu, bestT, true}
	}
	c := math.Exp(bestT)
	return BetaPrior{Alpha: bestMu * c, Beta: (1 - bestMu) * c, Pairs: h.pairs}
}

// unidentifiedConcentration is the concentration of Beta(1, 1), PyClick's
// prior of every parameter: the most a prior may claim where the log
// does not identify the spread of the relevances (spreadBound).
const unidentifiedConcentration = 2

// spreadBound is the largest concentration alpha0 + beta0 that h's
// pairs identify: the method-of-moments estimate of the spread corrected
// for binomial noise (Efron, Large-Scale Inference, 2010, and Efron and
// Morris 1975: the variance of the observed rates is the prior's
// variance plus the binomial noise). For pairs with K successes of N
// trials, theta from a prior of mean mu and variance s2,
// Var(K/N) = s2 + (mu(1 - mu) - s2) E[1/N], so
// s2 = (V - m(1 - m) I) / (1 - I), with m and V the mean and variance of
// K/N and I the mean of 1/N, and the concentration is m(1 - m)/s2 - 1
// (at least minConcentration). Only pairs with at least one trial enter
// (by histogram cell: the cell's mean N): below one trial the effective
// counts are fractions of a Bernoulli (a skip at low examination), not a
// binomial, and I would exceed 1. Where fewer than minPriorPairs pairs
// have a trial, or every one has exactly one (I = 1: a single trial says
// nothing of the spread), or their rates are no more spread than binomial
// noise (s2 <= 0: under-dispersed, which no beta-binomial is), the spread
// is not identified and the bound is unidentifiedConcentration. The
// maximum marginal likelihood reads under-dispersed counts as a spread of
// 0 and runs to the largest concentration; on the sparse logs the counts
// are under-dispersed in the top rank buckets (users coming back to the
// results page after a click bring an unclicked impression of the pair
// just clicked; docs/clickmodels.md, "How the intervals are computed").
// Within a histogram cell K/N and N are taken at the cell's means.
func (h *priorHist) spreadBound() float64 {
	c, _ := h.spread()
	return c
}

// spread is spreadBound and whether h's pairs identify the spread at all
// (false: the bound is unidentifiedConcentration by convention).
func (h *priorHist) spread() (float64, bool) {
	var w, sx, sx2, sinv float64
	for i := range h.cells {
		for j, c := range h.cells[i] {
			if c == 0 {
				continue
			}
			fc := float64(c)
			k, n := float64(h.sumK[i][j])/histScale/fc, float64(h.sumN[i][j])/histScale/fc
			if n < 1 {
				continue
			}
			x := k / n
			w += fc
			sx += fc * x
			sx2 += fc * x * x
			sinv += fc / n
		}
	}
	if w < minPriorPairs {
		return unidentifiedConcentration, false
	}
	m, inv := sx/w, sinv/w
	v := sx2/w - m*m
	if inv >= 1 {
		return unidentifiedConcentration, false
	}
	s2 := (v - m*(1-m)*inv) / (1 - inv)
	if s2 <= 0 {
		return unidentifiedConcentration, false
	}
	return max(m*(1-m)/s2-1, minConcentration), true
}

// withOwnSpread is p with the concentration h's pairs identify: at most
// their spreadBound where they identify a spread; where they do not,
// exactly unidentifiedConcentration, or most (the concentration of the
// level above, which a cell never exceeds) if that is lower, its mean
// kept. Where the pairs do not identify the spread, the concentration p
// carries is not the log's: for pairs of one trial each the marginal likelihood of a
// Beta prior is that of a Bernoulli of its mean, flat in the
// concentration, so the fit's hyperprior alone takes it to
// minConcentration (a U-shaped prior); fractional counts (skips at low
// examination) move it either way without information on the spread
// (docs/clickmodels.md, "Pairs seen once").
func (p BetaPrior) withOwnSpread(h *priorHist, most float64) BetaPrior {
	c, ok := h.spread()
	if ok {
		return p.withConcentrationAtMost(c)
	}
	c = min(c, most)
	if s := p.Alpha + p.Beta; s > 0 {
		p.Alpha, p.Beta = p.Alpha/s*c, p.Beta/s*c
	}
	return p
}

// withConcentrationAtMost is p with its concentration lowered to c if it
// is above, its mean kept.
func (p BetaPrior) withConcentrationAtMost(c float64) BetaPrior {
	if s := p.Alpha + p.Beta; s > c {
		p.Alpha, p.Beta = p.Alpha/s*c, p.Beta/s*c
	}
	return p
}

// rankBuckets is the number of rank buckets of the priors: a pair's
// bucket is its mean rank rounded, the last bucket holding all from it on.
const rankBuckets = 16

// minPriorPairs is the fewest pairs (with N >= histMinN) a rank bucket's
// or a cell's prior is fitted to; with fewer, a rank bucket takes the prior
// fitted to all pairs and a cell its rank bucket's (see priors).
const minPriorPairs = 50

func rankBucket(meanRank float64) int {
	return min(max(int(meanRank+0.5), 0), rankBuckets-1)
}

// Exposure classes: a pair's exposure is its impressions in the training
// records (Evidence.Shown); class e holds the pairs shown fewer than
// 2^(e+1) times and at least 2^e (the first from 0, the last from 64 on).
// Within a rank bucket, pairs shown once (often from rare or shuffled
// SERPs: attractiveness as it comes) and pairs shown a hundred times (the
// engine's top results: attractive) differ in their relevance, so each
// (rank bucket, exposure class) cell gets its own prior
// (docs/clickmodels.md, "How the intervals are computed").
const exposureClasses = 7

// exposureBounds lists the classes' upper bounds but the last's.
func exposureBounds() []float64 {
	b := make([]float64, exposureClasses-1)
	for e := range b {
		b[e] = math.Ldexp(1, e+1)
	}
	return b
}

// exposureClass is the class of a pair shown shown times: floor(log2
// shown), within [0, exposureClasses-1] (exact: by the binary exponent).
func exposureClass(shown float64) int {
	_, exp := math.Frexp(shown) // shown = f 2^exp, f in [0.5, 1)
	return min(max(exp-1, 0), exposureClasses-1)
}

// priorTable is one parameter's priors: per rank bucket, and per rank
// bucket and exposure class (the priors the pairs take).
type priorTable struct {
	byRank []BetaPrior
	byCell [][]BetaPrior // [rank bucket][exposure class]
}

// priorCell is the cell of pair v among the priors: its rank bucket and
// exposure class.
func priorCell(v *pairVal) (bucket, class int) { return priorCellOf(v.rank, v.shown) }

// priorCellOf is the cell of a pair of mean rank rank shown shown times.
func priorCellOf(rank, shown float64) (bucket, class int) {
	return rankBucket(rank), exposureClass(shown)
}

// of is the prior of pair v.
func (t *priorTable) of(v *pairVal) BetaPrior {
	b, e := priorCell(v)
	return t.byCell[b][e]
}

// priors fits, for each of gets, the priors of the pairs' parameter whose
// counts it returns (attractiveness or satisfaction), over every pair pw
// yields: one pass for all of them, then one table each (priorTableOf).
// A rank bucket's prior is fitted to its pairs (if they are not
// informative, the prior of all pairs); a cell's prior to the cell's
// pairs, its concentration at most that of its rank bucket's prior (if
// they are not informative, the rank bucket's prior); each concentration
// is then lowered to what its own pairs' spread identifies (spreadBound).
// The cap keeps
// a cell from claiming more than its rank bucket knows: in a cell of pairs
// shown a few times each, the spread of the relevances is barely
// identified, and where the model misreads the users (users coming back to
// the results page) their counts look less spread than any binomial and
// the fit runs to the largest concentration (measured: see the docs).
// For the models with a scale ridge (PBM, UBM) a prior taken over from
// the level above (a rank bucket's from all pairs, a cell's from its rank
// bucket) is lowered too, to what the spread of its own pairs identifies
// (priorTableOf).
func (pw *pairWriter) priors(visit func(v *pairVal), gets ...func(v *pairVal) (k, n float64)) ([]*priorTable, error) {
	hists := make([][][exposureClasses]priorHist, len(gets))
	for i := range hists {
		hists[i] = make([][exposureClasses]priorHist, rankBuckets)
	}
	pw.pairs(func(_, _ string, v *pairVal) bool {
		if visit != nil {
			visit(v)
		}
		b, e := priorCell(v)
		for i, get := range gets {
			k, n := get(v)
			hists[i][b][e].add(k, n)
		}
		return true
	})
	if err := pw.readErr(); err != nil {
		return nil, err
	}
	tabs := make([]*priorTable, len(gets))
	for i, by := range hists {
		tabs[i] = priorTableOf(by, pw.kind.ScaleRidge())
	}
	return tabs, nil
}

// priorTableOf fits the table of priors of one parameter from its cells'
// histograms by (see priors). With ownSpread, a rank bucket or cell whose
// pairs are not informative takes the prior of the level above with its
// concentration at most what its own pairs' spread identifies, and every
// prior whose own pairs identify no spread takes Beta(1, 1)'s 2 (a cell
// at most its rank bucket's), not what the fit left (withOwnSpread).
//
// Why (PBM and UBM; issue 36 part 4): a cell of pairs none of which was
// ever clicked (shown once or twice at ranks 8-9 of a dense log, from the
// shuffled lists) is not informative (without a success the marginal
// likelihood runs to a mean of 0) and took its rank bucket's prior, fitted
// to the pairs of the engine's own lists shown there a hundred times:
// relevances alike, concentration 13.3. Its pairs, drawn from the whole
// pool, took that narrow prior as their posterior; their intervals missed
// below (the project's simulator, 20,000 SERPs over 200 queries:
// coverage 0.849 in the third fifth by evidence, 108 of 763 pairs
// below their interval). Their own pairs say nothing of their spread, so
// they get none: 0.953 there, label ECE 0.041 -> 0.036
// (docs/clickmodels.md, "On the user's path, by evidence fifth").
// For DBN it was measured and not adopted: the sparse DBN logs' best
// fifth gains, but the dense ones' coverage and ECE get worse
// (docs/clickmodels.md, "The same cap for every model").
func priorTableOf(by [][exposureClasses]priorHist, ownSpread bool) *priorTable {
	return priorTableUsed(by, ownSpread, nil, nil)
}

// priorWarm keeps where the last fits of one table's priors ended, per
// histogram (the prior of all pairs, per rank bucket, per cell): the warm
// starts of the Gibbs sampler's refits (priorStart).
type priorWarm struct {
	all    priorStart
	byRank [rankBuckets]priorStart
	byCell [rankBuckets][exposureClasses]priorStart
}

// starts lists w's starts: the one of all pairs, then by rank bucket,
// then by cell (GibbsShards.MarshalRound's order).
func (w *priorWarm) starts() []*priorStart {
	out := []*priorStart{&w.all}
	for r := range w.byRank {
		out = append(out, &w.byRank[r])
	}
	for r := range w.byCell {
		for e := range w.byCell[r] {
			out = append(out, &w.byCell[r][e])
		}
	}
	return out
}

// priorTableUsed is priorTableOf fitting only the cells that used marks
// (nil: all) and what they need: the other cells' priors, and the rank
// buckets' without a marked cell, are left zero, and the prior of all
// pairs is fitted only where a marked cell's rank bucket falls back to it.
// Every fit is a function of its histogram alone, so a marked cell's prior
// is the same bits as priorTableOf's. (The Gibbs sampler refits its
// cells every sweep, and most of its cells hold no pair: gibbs.go.)
// With warm (not nil) every fit starts where warm says the last fit of
// its histogram ended, and leaves there where it ends (priorStart).
func priorTableUsed(by [][exposureClasses]priorHist, ownSpread bool, used [][exposureClasses]bool, warm *priorWarm) *priorTable {
	var wAll, wRank, wCell *priorStart
	if warm != nil {
		wAll = &warm.all
	}
	byRank, all := sumCells(by)
	var pooled BetaPrior
	pooledFitted := false
	t := &priorTable{byRank: make([]BetaPrior, rankBuckets), byCell: make([][]BetaPrior, rankBuckets)}
	own := func(p BetaPrior, h *priorHist, most float64) BetaPrior {
		if ownSpread {
			return p.withOwnSpread(h, most)
		}
		return p.withConcentrationAtMost(h.spreadBound())
	}
	for r := range by {
		t.byCell[r] = make([]BetaPrior, exposureClasses)
		if used != nil && used[r] == [exposureClasses]bool{} {
			continue
		}
		var rp BetaPrior
		if warm != nil {
			wRank = &warm.byRank[r]
		}
		if byRank[r].informative() {
			rp = own(byRank[r].fitFrom(maxConcentration, wRank), &byRank[r], maxConcentration)
		} else {
			if !pooledFitted {
				pooled, pooledFitted = all.fitFrom(maxConcentration, wAll), true
			}
			rp = pooled
			if ownSpread {
				rp = rp.withOwnSpread(&byRank[r], maxConcentration)
			}
		}
		rp.Pairs = byRank[r].pairs
		t.byRank[r] = rp
		for e := range by[r] {
			if used != nil && !used[r][e] {
				continue
			}
			h := &by[r][e]
			p := rp
			if warm != nil {
				wCell = &warm.byCell[r][e]
			}
			if h.informative() {
				p = own(h.fitFrom(rp.Alpha+rp.Beta, wCell), h, rp.Alpha+rp.Beta)
			} else if ownSpread {
				p = p.withOwnSpread(h, rp.Alpha+rp.Beta)
			}
			p.Pairs = h.pairs
			t.byCell[r][e] = p
		}
	}
	return t
}

// sumCells sums the accumulators of the prior cells by into their rank
// buckets' and into that of all pairs.
func sumCells[T any, P interface {
	*T
	merge(*T)
}](by [][exposureClasses]T) (byRank []T, all T) {
	byRank = make([]T, len(by))
	for r := range by {
		for e := range by[r] {
			P(&byRank[r]).merge(&by[r][e])
		}
		P(&all).merge(&byRank[r])
	}
	return byRank, all
}

// relevanceBeta is the Beta(alpha, beta) that describes the relevance of
// pair v under pw's priors (see above).
func (pw *pairWriter) relevanceBeta(v *pairVal) (alpha, beta float64) {
	var ps BetaPrior
	if pw.satPriors != nil {
		ps = pw.satPriors.of(v)
	}
	alpha, beta = relevanceBeta(pw.kind, pw.attrPriors.of(v), ps, v)
	if pw.transferred(v) {
		// Outside the sampler's subset (GibbsSetting.Subset).
		if pw.gibbs.TransferLog {
			return pw.transfer.of(v, alpha, beta).betaLog(alpha, beta)
		}
		return pw.transfer.of(v, alpha, beta).beta(alpha, beta)
	}
	return alpha, beta
}

// relevanceDist is the Beta and the interval the relevance file writes for
// pair v: relevanceBeta and its interval at pw's level, scaled over the
// identified set of the pair's scale where the model has a scale ridge
// (identify.go): the interval [c_min * lower, min(1, c_max * upper)], the
// Beta that of c X for c uniform on [c_min, c_point] (ScaledRelevance).
func (pw *pairWriter) relevanceDist(v *pairVal, cache *intervalCache) (alpha, beta, lo, hi float64) {
	alpha, beta = pw.relevanceBeta(v)
	lo, hi = cache.interval(alpha, beta, pw.level)
	cMin, cPoint, cMax := pw.ridge.scaleOf(v.ranks)
	alpha, beta, lo2, _ := ScaledRelevance(alpha, beta, lo, hi, cMin, cPoint)
	return alpha, beta, lo2, min(1, cMax*hi)
}

// relevanceBeta is the Beta(alpha, beta) that describes the relevance of a
// pair of kind with effective counts v under the priors (see above).
func relevanceBeta(kind Kind, pa, ps BetaPrior, v *pairVal) (alpha, beta float64) {
	if v.relA > 0 {
		// The Gibbs sampler's (Options.Intervals or Options.Gibbs; gibbs.go).
		return v.relA, v.relB
	}
	// The priors are fitted to the counts as they are (setPriors); the
	// pair's posterior takes them bounded by the log's information.
	ak, an := boundEvidence(v.ak, v.an, v.a, v.ainfo)
	aa, ab := pa.Alpha+ak, pa.Beta+an-ak
	switch kind {
	case DBN, SDBN:
		k, n := boundEvidence(v.sk, v.sn, v.a*v.s, v.sinfo)
		return ps.Alpha + k, ps.Beta + n - k
	case CCM:
		// E[a^2] and E[a^4] of Beta(aa, ab).
		n := aa + ab
		m2 := aa * (aa + 1) / (n * (n + 1))
		m4 := m2 * (aa + 2) * (aa + 3) / ((n + 2) * (n + 3))
		return betaFromMoments(m2, m4)
	}
	return aa, ab
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
	return betaInterval(alpha, beta, levelTails(level))
}

// levelTails are the tails of the intervals at level: (1-level)/2 and
// (1+level)/2.
func levelTails(level float64) [2]betaTail {
	return [2]betaTail{newBetaTail((1 - level) / 2), newBetaTail((1 + level) / 2)}
}

// betaInterval is BetaInterval at the level of the tails t (levelTails).
func betaInterval(alpha, beta float64, t [2]betaTail) (lo, hi float64) {
	if !betaQuantileNewton(alpha, beta, t[0].y) || !betaQuantileNewton(alpha, beta, t[1].y) {
		return BetaQuantile(alpha, beta, t[0].y), BetaQuantile(alpha, beta, t[1].y)
	}
	// ln B(alpha, beta) once for both ends (three log-gammas).
	lb := logBeta(alpha, beta)
	return betaQuantileLB(alpha, beta, t[0], lb), betaQuantileLB(alpha, beta, t[1], lb)
}

// intervalCache remembers the intervals it computed by their Beta
// (alpha, beta), in a table of intervalSlots slots indexed by a hash of
// the two (a Beta takes the slot of an earlier one of the same hash).
// Pairs share their Beta far more often than their counts suggest: pairs
// shown once in a prior cell with the same clicks, whole or fractional
// (on the 1 M-SERP UBM log of docs/clickmodels.md, "Accelerated EM", DBN's
// 711,000 pairs have 191,000 distinct Betas, UBM's 101,000), and this table
// finds all but a few percent of the repeats, for a lookup that costs a
// small part of one quantile. It is a pure function's memo, so it changes
// no output, and its memory is fixed (2 MiB, while it is used).
type intervalCache struct {
	slots []intervalSlot
	// level and tails: the level of the intervals computed so far and
	// its tails (levelTails), computed once.
	level float64
	tails [2]betaTail
}

// intervalSlot is one Beta's interval; an empty slot has alpha 0, which
// no Beta it keeps has.
type intervalSlot struct{ alpha, beta, lo, hi float64 }

// intervalSlots is the size of intervalCache's table.
const (
	intervalSlotBits = 16
	intervalSlots    = 1 << intervalSlotBits
)

// intervalSlotOf is the slot of Beta(alpha, beta): Fibonacci hashing of
// their bits, the top bits of the product.
func intervalSlotOf(alpha, beta float64) uint64 {
	return (math.Float64bits(alpha) ^ bits.RotateLeft64(math.Float64bits(beta), 32)) * 0x9e3779b97f4a7c15 >> (64 - intervalSlotBits)
}

// interval is BetaInterval(alpha, beta, level).
func (c *intervalCache) interval(alpha, beta, level float64) (lo, hi float64) {
	if c.slots == nil || level != c.level {
		c.level, c.tails = level, levelTails(level)
		c.slots = make([]intervalSlot, intervalSlots)
	}
	if !(alpha > 0 && beta > 0) {
		return betaInterval(alpha, beta, c.tails)
	}
	s := &c.slots[intervalSlotOf(alpha, beta)]
	if s.alpha == alpha && s.beta == beta {
		return s.lo, s.hi
	}
	lo, hi = betaInterval(alpha, beta, c.tails)
	*s = intervalSlot{alpha, beta, lo, hi}
	return lo, hi
}

// setPriors fits the priors of pw's pairs when they carry Evidence (one
// pass over them) and returns how the intervals are obtained; nil
// without Evidence.
func (pw *pairWriter) setPriors() (*UncertaintyReport, error) {
	if !pw.hasEv {
		return nil, nil
	}
	gets := []func(v *pairVal) (float64, float64){func(v *pairVal) (float64, float64) { return v.ak, v.an }}
	if pw.hasSat {
		gets = append(gets, func(v *pairVal) (float64, float64) { return v.sk, v.sn })
	}
	// The identifiability graph (PBM, UBM) is gathered in the same pass.
	var acc *ridgeAcc
	var visit func(v *pairVal)
	if pw.kind.ScaleRidge() && pw.ranks <= maxGraphRanks {
		acc = &ridgeAcc{}
		visit = func(v *pairVal) { acc.add(v.ranks, v.a) }
	}
	tabs, err := pw.priors(visit, gets...)
	if err != nil {
		return nil, err
	}
	var s *priorTable
	if pw.hasSat {
		s = tabs[1]
	}
	rep := pw.usePriors(tabs[0], s)
	if pw.hasSat && pw.gibbs != nil && pw.gibbs.Subset > 0 {
		// The sampler ran on a subset: the maps of its posterior to the
		// other pairs (gibbstransfer.go).
		pw.transfer = nil
		t, err := pw.fitTransfer()
		if err != nil {
			return nil, err
		}
		pw.transfer, rep.GibbsTransfer = t, t.byCell
	}
	if acc != nil {
		if err := pw.boundAttractiveness(acc); err != nil {
			return nil, err
		}
		pw.ridge, rep.Identification = identify(pw.kind, pw.global, pw.ranks, acc)
	}
	return rep, nil
}

// boundAttractiveness records in acc, per pair, the lower confidence bound
// of its attractiveness at the fitted scale that bounds its component's
// scale from above (identify.go): the quantile of the pair's posterior
// under pw's priors at the tail (1 - level) / (2 n), n the pairs of its
// component. One pass over the pairs; a pair whose quantile cannot exceed
// the largest so far of its component is skipped: the quantile at a tail t
// is at most m + sd sqrt(t / (1 - t)) (Cantelli's inequality, m and sd the
// posterior's mean and standard deviation).
func (pw *pairWriter) boundAttractiveness(acc *ridgeAcc) error {
	var comp [maxGraphRanks]int
	comps := acc.components()
	tail := make([]float64, len(comps))
	for k, c := range comps {
		n := int64(0)
		for _, r := range c {
			comp[r] = k
			n += acc.pairs[r]
		}
		tail[k] = (1 - pw.level) / 2 / float64(max(n, 1))
	}
	best := make([]float64, len(comps))
	pw.pairs(func(_, _ string, v *pairVal) bool {
		if v.ranks == 0 {
			return true
		}
		k := comp[bits.TrailingZeros64(v.ranks)]
		a, b := pw.relevanceBeta(v)
		n := a + b
		m := a / n
		t := tail[k]
		if m+math.Sqrt(m*(1-m)/(n+1)*t/(1-t)) <= best[k] {
			return true
		}
		L := BetaQuantile(a, b, t)
		best[k] = max(best[k], L)
		acc.addLower(v.ranks, L)
		return true
	})
	return pw.readErr()
}

// usePriors makes a and s (nil but for DBN and SDBN) the priors of pw's
// pairs and returns the report that names them.
func (pw *pairWriter) usePriors(a, s *priorTable) *UncertaintyReport {
	pw.attrPriors, pw.satPriors = a, s
	rep := &UncertaintyReport{Method: UncertaintyMethod, Level: pw.level, AttrPriors: a.byRank, ExposureBounds: exposureBounds(), AttrCellPriors: a.byCell}
	if pw.gibbs != nil {
		rep.Method, rep.Gibbs = gibbsMethod(pw.kind), pw.gibbs
	}
	if s != nil {
		rep.SatPriors, rep.SatCellPriors = s.byRank, s.byCell
	}
	return rep
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

// RelevanceDist is the distribution of one pair's relevance: Beta(Alpha,
// Beta), and its interval [Lower, Upper] at the model's level.
type RelevanceDist struct {
	Alpha, Beta, Lower, Upper float64
}

// RelevanceDists returns, per pair of m (in pair order), what the
// relevance file writes next to its relevance, with the report of how it
// was obtained; nil, nil for a model without Evidence.
func (m *Model) RelevanceDists() ([]RelevanceDist, *UncertaintyReport, error) {
	pw := m.pairWriter()
	rep, err := pw.setPriors()
	if err != nil || rep == nil {
		return nil, rep, err
	}
	return pw.relevanceDists(m.NumPairs()), rep, nil
}

// relevanceDists returns the distribution of each of pw's np pairs under
// pw's priors, in pair order.
func (pw *pairWriter) relevanceDists(np int) []RelevanceDist {
	out := make([]RelevanceDist, 0, np)
	var cache intervalCache
	pw.pairs(func(_, _ string, v *pairVal) bool {
		a, b, lo, hi := pw.relevanceDist(v, &cache)
		out = append(out, RelevanceDist{Alpha: a, Beta: b, Lower: lo, Upper: hi})
		return true
	})
	return out
}

// PairPosterior is one pair's posterior before the scale (PBM, UBM) is
// spread over its identified set: Beta(AttrAlpha, AttrBeta) of its
// attractiveness and Beta(Alpha, Beta) of its relevance (the same as the
// attractiveness's but for DBN, SDBN and CCM), under the fitted priors.
type PairPosterior struct {
	AttrAlpha, AttrBeta, Alpha, Beta float64
}

// PairPosteriors returns, per pair of m (in pair order), its posterior at
// the fitted scale; nil for a model without Evidence. The parametric
// bootstrap of the intervals (pipeline/calibration's Recalibrate) draws
// the pairs' values from it.
func (m *Model) PairPosteriors() ([]PairPosterior, error) {
	pw := m.pairWriter()
	rep, err := pw.setPriors()
	if err != nil || rep == nil {
		return nil, err
	}
	out := make([]PairPosterior, 0, m.NumPairs())
	pw.pairs(func(_, _ string, v *pairVal) bool {
		pa := pw.attrPriors.of(v)
		ak, an := boundEvidence(v.ak, v.an, v.a, v.ainfo)
		a, b := pw.relevanceBeta(v)
		out = append(out, PairPosterior{AttrAlpha: pa.Alpha + ak, AttrBeta: pa.Beta + an - ak, Alpha: a, Beta: b})
		return true
	})
	return out, pw.readErr()
}
