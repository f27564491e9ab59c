package clickmodels

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/lovbench/lovbench/internal/hashes"
)

// The sampler on a subset, its posterior carried to the rest
// (IntervalsGibbsSubset, IntervalsAuto's choice above AutoGibbsTrainSERPs; GibbsSetting.Subset, its
// measurement form; docs/clickmodels.md, "The sampler on a subset of
// queries").
//
// The Gibbs sampler (gibbs.go) calibrates DBN's intervals where the
// counts' do not, at a cost that grows with the log. With Subset S it
// runs on the queries whose hash (subsetKey) falls below the rate
// SubsetRate = S / training SERPs (subsetRate): a sample of whole
// queries, chosen by their names alone, of about S training SERPs. The
// cells' priors are refitted to the subset's pairs alone (the others are
// held and enter no fit: GibbsChain.hold). Each pair of the subset gets
// the sampler's Beta, as without the subset.
//
// Each pair outside it gets its counts' Beta (relevanceBeta) corrected by
// what the subset shows in the pair's prior cell (rank bucket x exposure
// class, the cells of the counts' priors) and stratum (the tenth of
// [0, 1) its counts' posterior mean falls in, transferBin): over the
// subset's drawn pairs i of the stratum, with the sampler's posterior mean g_i and variance u_i
// and the counts' mean c_i and variance v_i,
//
//	rho = sum g_i / sum c_i,
//	phi = sum (u_i + (g_i - rho c_i)^2) / sum v_i,
//
// and the pair of counts' mean c and variance v takes the Beta of mean
// rho c and variance phi v (its concentration at least
// minConcentration). rho is the ratio estimator of the sampler's mean
// from the counts' (Cochran, Sampling Techniques, 3rd ed., 1977, section
// 6.2); phi makes the corrected variance, summed over the cell, that of
// the mixture of the sampler's posteriors around the corrected mean (its
// own variance plus the ratio's residual), the law of total variance: a
// pair outside the subset is known by its counts only, so its posterior
// is wider than the sampler's of a pair it knows draw by draw. The
// subset's queries are a random sample (by hash) of the log's, so a
// cell's pairs inside it stand for the cell's pairs outside. A stratum
// of fewer than minPriorPairs drawn pairs takes its cell's map, such a
// cell its rank bucket's, such a rank bucket all pairs' (as the priors
// fall back, priorTableUsed); without drawn pairs the counts' Beta is
// kept.
//
// The sums are in fixed point (transferScale), so the maps do not
// depend on the pairs' order: the same bits in every engine whose pairs
// carry the same values.

// gibbsSubsetSeed separates the subset's hash of a query from its other
// uses.
const gibbsSubsetSeed = 0x67696262735f7375

// subsetRate is the share of the queries in the sampler's subset for
// about subset of trainSERPs training SERPs, at most 1.
func subsetRate(subset float64, trainSERPs int64) float64 {
	if trainSERPs <= 0 {
		return 1
	}
	return min(1, subset/float64(trainSERPs))
}

// subsetKey is the 53-bit key of query q that decides whether it is in
// the sampler's subset: in at rate r iff subsetKey(q) < r 2^53
// (subsetBound).
func subsetKey(q string) uint64 { return hashes.Keyed(gibbsSubsetSeed, q) >> 11 }

// subsetBound is the bound under which a query's subsetKey is in the
// subset at rate r: floor(r 2^53).
func subsetBound(r float64) uint64 { return uint64(math.Floor(min(max(r, 0), 1) * (1 << 53))) }

// outsideSubset marks the pairs of f outside the sampler's subset of
// setting g (nil without GibbsSetting.Subset). A Fit of the whole log
// without a resolved rate takes its own training SERPs.
func (f *fitter) outsideSubset(g GibbsSetting) []bool {
	if g.Subset <= 0 {
		return nil
	}
	r := g.SubsetRate
	if r == 0 {
		r = subsetRate(g.Subset, int64(f.d.serps))
	}
	return f.d.outsideSubset(r)
}

// outsideSubset marks the pairs of d outside the subset of queries of
// rate r (subsetKey below subsetBound).
func (d *Data) outsideSubset(r float64) []bool {
	bound := subsetBound(r)
	qs := d.log.Queries.Names
	outQ := make(map[int32]bool)
	out := make([]bool, d.Pairs())
	for p := range out {
		q := d.pairQuery[p]
		o, ok := outQ[q]
		if !ok {
			o = subsetKey(qs[q]) >= bound
			outQ[q] = o
		}
		out[p] = o
	}
	return out
}

// transferScale is the fixed-point unit of transferSums: 2^-40 (a sum
// of a cell holds at most 2^23 pairs' values of at most 1 below 2^63).
const transferScale = 1 << 40

// transferSums are the sums of one cell over the subset's drawn pairs
// (see above), in units of 1/transferScale.
type transferSums struct {
	n                   int64
	g, c, gg, gc, cc, u int64
	v                   int64
	// lg, lc: the sums of the sampler's and the counts' E[ln r], in units
	// of 1/transferLogScale.
	lg, lc int64
}

// transferLogScale is the fixed-point unit of the sums of E[ln r]
// (magnitudes up to some tens): 2^-32.
const transferLogScale = 1 << 32

// logMoment is E[ln x] of Beta(a, b): psi(a) - psi(a + b).
func logMoment(a, b float64) float64 { return mathext.Digamma(a) - mathext.Digamma(a+b) }

func fixed(x float64) int64 { return int64(math.Round(x * transferScale)) }

// add adds a drawn pair of sampler's mean g and variance u and counts'
// mean c and variance v.
func (t *transferSums) add(g, u, c, v float64) { t.addLog(g, u, c, v, 0, 0) }

// addLog is add with the sampler's and the counts' E[ln r], lg and lc.
func (t *transferSums) addLog(g, u, c, v, lg, lc float64) {
	t.lg += int64(math.Round(lg * transferLogScale))
	t.lc += int64(math.Round(lc * transferLogScale))
	t.n++
	t.g += fixed(g)
	t.c += fixed(c)
	t.gg += fixed(g * g)
	t.gc += fixed(g * c)
	t.cc += fixed(c * c)
	t.u += fixed(u)
	t.v += fixed(v)
}

func (t *transferSums) merge(o *transferSums) {
	t.n += o.n
	t.g += o.g
	t.c += o.c
	t.gg += o.gg
	t.gc += o.gc
	t.cc += o.cc
	t.u += o.u
	t.v += o.v
	t.lg += o.lg
	t.lc += o.lc
}

// fit is the cell's map (see above); identity without pairs.
func (t *transferSums) fit() TransferMap {
	if t.n == 0 || t.c <= 0 || t.v <= 0 {
		return TransferMap{Rho: 1, Phi: 1, Pairs: t.n}
	}
	s := func(x int64) float64 { return float64(x) / transferScale }
	rho := s(t.g) / s(t.c)
	resid := max(s(t.gg)-2*rho*s(t.gc)+rho*rho*s(t.cc), 0)
	delta := float64(t.lg-t.lc) / transferLogScale / float64(t.n)
	return TransferMap{Rho: rho, Phi: (s(t.u) + resid) / s(t.v), Delta: delta, Pairs: t.n}
}

// betaMoments are the mean and variance of Beta(a, b).
func betaMoments(a, b float64) (mean, variance float64) {
	n := a + b
	return a / n, a * b / (n * n * (n + 1))
}

// TransferMap is the correction of one prior cell's counts' Betas to the
// sampler's (see above): the mean times Rho, the variance times Phi;
// Pairs is the number of the subset's drawn pairs it was fitted to
// (those of its rank bucket or of all pairs where the cell had too
// few).
type TransferMap struct {
	Rho   float64 `json:"rho"`
	Phi   float64 `json:"phi"`
	Delta float64 `json:"delta_log_moment,omitempty"`
	Pairs int64   `json:"pairs"`
}

// beta is the Beta of mean Rho m and variance Phi v for the counts'
// Beta(a, b) of mean m and variance v (see above).
func (t TransferMap) beta(a, b float64) (alpha, beta float64) {
	m, v := betaMoments(a, b)
	m = min(t.Rho*m, 1-1e-9)
	v *= t.Phi
	c := minConcentration
	if v > 0 {
		c = max(m*(1-m)/v-1, minConcentration)
	}
	return m * c, (1 - m) * c
}

// transferBins is the number of strata of a cell by the counts' mean
// (equal widths over [0, 1)).
const transferBins = 10

// transferBin is the stratum of a counts' Beta of mean m.
func transferBin(m float64) int { return min(max(int(m*transferBins), 0), transferBins-1) }

// gibbsTransfer is the table of the maps by rank bucket and exposure
// class (byCell, reported), and by stratum of the counts' mean within the
// cell (byBin, which the pairs take).
type gibbsTransfer struct {
	byCell [][]TransferMap
	byBin  [][exposureClasses][transferBins]TransferMap
}

// of is the map of pair v's cell and stratum, of counts' Beta(a, b).
func (t *gibbsTransfer) of(v *pairVal, a, b float64) TransferMap {
	r, e := priorCell(v)
	return t.byBin[r][e][transferBin(a/(a+b))]
}

// betaLog is the Beta of mean Rho m and E[ln r] l + Delta for the
// counts' Beta(a, b) of mean m and E[ln r] l (GibbsSetting.TransferLog):
// the shift keeps the mean of E[ln r] over the subset's drawn pairs of
// the cell the sampler's, as the mixture of their posteriors has it.
func (t TransferMap) betaLog(a, b float64) (alpha, beta float64) {
	m := min(t.Rho*a/(a+b), 1-1e-9)
	l := min(logMoment(a, b)+t.Delta, math.Log(m)-1e-12)
	return betaFromMeanLogMoment(m, l)
}

// transferred reports whether pair v takes the corrected counts' Beta:
// a pair outside the sampler's subset that is not held by its
// impressions (the sampler gave it no Beta).
func (pw *pairWriter) transferred(v *pairVal) bool {
	return pw.transfer != nil && v.relA == 0 && (pw.gibbs.HoldShown == 0 || v.shown < pw.gibbs.HoldShown)
}

// fitTransfer fits the maps (see above) in one pass over pw's pairs,
// under pw's priors (setPriors).
func (pw *pairWriter) fitTransfer() (*gibbsTransfer, error) {
	by := make([][exposureClasses]transferSums, rankBuckets)
	bins := make([][exposureClasses][transferBins]transferSums, rankBuckets)
	pw.pairs(func(_, _ string, v *pairVal) bool {
		if v.relA == 0 {
			return true
		}
		cv := *v
		cv.relA, cv.relB = 0, 0
		ca, cb := pw.relevanceBeta(&cv)
		c, vc := betaMoments(ca, cb)
		g, u := betaMoments(v.relA, v.relB)
		b, e := priorCell(v)
		lg, lc := logMoment(v.relA, v.relB), logMoment(ca, cb)
		by[b][e].addLog(g, u, c, vc, lg, lc)
		bins[b][e][transferBin(c)].addLog(g, u, c, vc, lg, lc)
		return true
	})
	if err := pw.readErr(); err != nil {
		return nil, err
	}
	byRank, all := sumCells(by)
	pooled := all.fit()
	t := &gibbsTransfer{byCell: make([][]TransferMap, rankBuckets), byBin: make([][exposureClasses][transferBins]TransferMap, rankBuckets)}
	for r := range by {
		rm := pooled
		if byRank[r].n >= minPriorPairs {
			rm = byRank[r].fit()
		}
		t.byCell[r] = make([]TransferMap, exposureClasses)
		for e := range by[r] {
			t.byCell[r][e] = rm
			if by[r][e].n >= minPriorPairs {
				t.byCell[r][e] = by[r][e].fit()
			}
			for k := range bins[r][e] {
				t.byBin[r][e][k] = t.byCell[r][e]
				if bins[r][e][k].n >= minPriorPairs {
					t.byBin[r][e][k] = bins[r][e][k].fit()
				}
			}
		}
	}
	return t, nil
}
