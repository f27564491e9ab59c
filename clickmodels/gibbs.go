package clickmodels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"

	"github.com/lovbench/lovbench/internal/hashes"
)

// A Gibbs sampler (data augmentation; Tanner and Wong 1987) of the
// hierarchical cascade model, for DBN's and SDBN's relevance intervals:
// a measurement behind Options.Gibbs, off by default and not part
// of the fit's files unless asked for (docs/clickmodels.md, "A Gibbs
// sampler of the hierarchical DBN, measured").
//
// The model is DBN's (Chapelle and Zhang 2009, section 3; Chuklin, Markov
// and de Rijke 2015, section 3.8): rank 1 is examined; an examined result
// is clicked iff attracted (A ~ Bernoulli(a)); a click satisfies with
// probability s; a satisfied user stops, any other examines the next rank
// with probability gamma (1 for SDBN). Above it, every pair's a and s are
// drawn from the Beta priors of its prior cell (rank bucket x exposure
// class, priorCellOf), whose hyperparameters are fitted to the log.
//
// State: every pair's a and s (started at the EM fit), the continuation
// gamma held at its fit (it has the whole log's data), and per cell a
// Beta for a and one for s (started at the attractiveness priors the
// intervals use, priorTableOf over Evidence.AttrK/AttrN, and at the same
// fit over the satisfaction's exact E-step counts). One sweep:
//
//  1. Per training SERP, the latent variables are drawn exactly given the
//     pairs' current a and s (cascadeLatents): every rank up to the last
//     click l is examined, the clicked ones attracted, those above l not
//     satisfied; the click at l satisfies with probability
//     s / (1 - (1 - s) gamma car_l+1), car the probability of a click at a
//     rank or below given its examination (cascadeCar); a user not
//     satisfied there (or at rank 1 of a SERP without a click) goes on to
//     the next rank with probability gamma (1 - car_r+1) / (1 - gamma
//     car_r+1), every examined rank below l being unattracted. A record of
//     weight w (identical SERPs) draws w such walks, as one multinomial
//     from weight groupedWalks on (cascadeWalks). The complete-data
//     counts per pair: attractiveness trials (examined ranks) and
//     successes (clicks), satisfaction trials (clicks) and successes.
//  2. Each cell's Beta for a and for s is refitted to the sweep's
//     complete-data counts, the pairs' values integrated out: the
//     beta-binomial marginal likelihood the intervals' priors maximise
//     (priorTableOf, with its fallbacks: a cell of fewer than
//     minPriorPairs pairs takes its rank bucket's, a rank bucket its all
//     pairs'), its concentration at most what the counts' spread
//     identifies, and exactly Beta(1, 1)'s 2 where they identify none
//     (withOwnSpread; the counts are whole trials here, so the
//     beta-binomial and the binomial-noise correction apply as they are).
//     This is stochastic EM for the hyperparameters (Celeux and Diebolt
//     1985). Each fit's search starts where the cell's last one ended
//     (priorWarm), and with GibbsSetting.RefitEvery K the cells are
//     refitted every K sweeps only, held between (the opt-in refits every
//     5: measured as calibrated as every sweep, docs/clickmodels.md).
//     With GibbsSetting.FromDraws it comes after step 3 instead,
//     a Beta by the method of moments fitted to the pairs' drawn values
//     (drawPriors): at stationarity a random pair's draw is distributed
//     as its cell's prior, but where the counts do not identify the
//     spread the draws reproduce whatever spread the prior has, and the
//     concentration wanders (measured: to 550 in a cell of 54 pairs).
//     With GibbsSetting.PoolSat the satisfaction's cells are the
//     exposure classes alone, pooled over the rank buckets; with
//     GibbsSetting.RankOnly the cells (the attractiveness's, and the
//     satisfaction's unless pooled) are the rank buckets alone, pooled
//     over the exposure classes.
//  3. Each pair's a and s are drawn from Beta(cell prior + counts) (two
//     gammas, drawer.beta); the attraction of a rank that was not
//     examined is integrated out.
//  4. After the burn-in, every pair's relevance r = a s is summed by
//     E[r] and E[ln r] given the sweep's counts and priors (Rao-Blackwell:
//     a and s are independent Betas given them, so E[r] = E[a] E[s] and
//     E[ln r] = psi(alpha_a) - psi(alpha_a + beta_a) + the same of s); the
//     Beta with the mean of each over the kept sweeps
//     (betaFromMeanLogMoment) is the relevance's Beta the file writes
//     (Evidence.RelAlpha, RelBeta), and with GibbsSetting.Mean its mean
//     the relevance column (Evidence.RelMean).
//
// Restricted (GibbsSetting.HoldShown H > 0; the opt-in's 512): a pair shown
// in at least H training SERPs is held at its EM fit, drawn never and
// summed never, its relevance Beta the counts' (relevanceBetas leaves it
// 0, which relevanceBeta reads as none); a record showing held pairs
// alone is not swept (GibbsChain.hold); at each refit the held pairs
// enter with the first pass's counts, kept as the encoded histograms
// GibbsChain.heldHist. Where a pair has that much evidence the counts'
// interval is calibrated (docs/clickmodels.md, "The restricted
// sampler"). On a subset of the queries (GibbsSetting.Subset,
// IntervalsGibbsSubset) the pairs of the other queries are held too, and
// enter no refit (their counts are not the subset's; gibbstransfer.go
// carries the sampler's posterior to them). A chain holding pairs visits
// only the records and pairs it sweeps and draws (gibbsActive).
//
// Determinism: a record's walks in sweep t come from a PCG seeded by
// (Mix(t), the record's key), a pair's draws from one seeded by (Mix(t) ^
// gibbsPairSeed, the pair's key); the keys are hashes of names, not
// indexes (gibbsKeys: a pair's of its query's and document's names, a
// record's of its content, which identical SERPs' merging makes unique),
// and the cells' complete-data counts enter their fits through
// histograms of whole and fixed-point sums (priorHist), which do not
// depend on the pairs' order. So the draws are the same bits for any
// number of workers and any cut of the log into query shards: a query's
// records and pairs are all in one shard, and each sweep's histograms
// are summed over the shards before the cells' priors are refitted
// (GibbsShards, for outofcore.RunShards and, pass by pass, the Beam
// pipeline's stages; the state of each shard a GibbsChain). (GibbsSetting.FromDraws's moments of the draws are float
// sums in pair order: that measurement runs on one shard only.)

// gibbsPairSeed separates the pairs' streams from the records'.
const gibbsPairSeed = 0x67696262735f7061

// cascadeLatents sets, for a SERP of the cascade model with attractiveness
// a, satisfaction sat and continuation gamma (1: SDBN) whose clicked ranks
// are clicks, car (n+1 entries, cascadeCar) and goOn[r] for r from
// max(l, 0) to n-2: the probability that the user examines rank r+1 given
// that rank r was examined and did not end the session (not attracted,
// or clicked and not satisfied at the last click) and the clicks, which
// is gamma (1 - car_r+1) / (1 - gamma car_r+1). It returns the last
// click l (-1: none) and the probability that the click at l satisfied,
// s / (1 - (1 - s) gamma car_l+1) (Chapelle and Zhang 2009, section 4's
// posteriors, as estepCascadeExact's; 0 without a click).
func cascadeLatents(a, sat []float64, gamma float64, clicks uint64, car, goOn []float64) (l int, pSat float64) {
	n := len(a)
	l = -1
	if clicks != 0 {
		l = lastClick(clicks, n)
	}
	cascadeCar(a, gamma, l, car)
	if l >= 0 {
		s := sat[l]
		pSat = s / (1 - (1-s)*gamma*car[l+1])
	}
	for r := max(l, 0); r < n-1; r++ {
		if d := 1 - gamma*car[r+1]; d > 0 {
			goOn[r] = gamma * (1 - car[r+1]) / d
		} else {
			goOn[r] = 1
		}
	}
	return l, pSat
}

// cascadeWalk draws one user's latent path below the last click l of a
// SERP (cascadeLatents' l, pSat and goOn, len(goOn) its ranks) from src:
// whether the click at l satisfied, and the last rank examined (l when
// the user stopped there; from rank 0, always examined, without a click).
func cascadeWalk(l int, pSat float64, goOn []float64, src *rand.PCG) (satisfied bool, last int) {
	if l >= 0 && uniform(src) < pSat {
		return true, l
	}
	r := max(l, 0)
	for r < len(goOn)-1 && uniform(src) < goOn[r] {
		r++
	}
	return false, r
}

// groupedWalks is the weight from which a record's walks are drawn as one
// multinomial (cascadeWalks) instead of one by one.
const groupedWalks = 16

// cascadeWalks draws the latent paths of w users of one SERP below its
// last click l (cascadeLatents' l, pSat and goOn, len(goOn) its ranks)
// with g: it returns how many were satisfied at l, and adds to
// examined[r], for every rank r below l (r > l; from rank 0 without a
// click), how many examined it. A walk's outcome is one categorical variable
// (satisfied at l, or the last rank examined), so the w walks are one
// multinomial draw, drawn for w from groupedWalks on as a chain of exact
// binomials: the satisfied ones Binomial(w, pSat), and of the m users
// who examined rank r and did not stop there, Binomial(m, goOn[r])
// examine rank r + 1 (the walk's transitions, each user independent).
// Below groupedWalks, one walk after the other (cascadeWalk).
func cascadeWalks(l int, pSat float64, goOn []float64, w int, g *drawer, examined []int) (sat int) {
	if w < groupedWalks {
		for range w {
			satisfied, last := cascadeWalk(l, pSat, goOn, g.src)
			if satisfied {
				sat++
			}
			for r := l + 1; r <= last; r++ {
				examined[r]++
			}
		}
		return sat
	}
	m := w
	if l >= 0 {
		sat = g.binomial(w, pSat)
		m -= sat
	} else {
		examined[0] += w
	}
	for r := max(l, 0); r < len(goOn)-1 && m > 0; r++ {
		m = g.binomial(m, goOn[r])
		examined[r+1] += m
	}
	return sat
}

// The values of a pair the sampler's walks read (gibbsReads).
const (
	readAttr = 1 << iota // its attractiveness
	readSat              // its satisfaction
	readHeld             // neither: the pair is held at its fit (GibbsSetting.HoldShown)
	readOut              // with readHeld: the pair is outside the sampler's subset (GibbsSetting.Subset)
)

// gibbsReads marks, per pair, which of its values the walks of f's
// records read (cascadeLatents): the attractiveness of a pair shown below
// a record's last click l (below rank 0 without a click; cascadeCar
// reads a from l + 1 down, goOn car from max(l, 0) + 1), the
// satisfaction of a pair that is some record's last click. Every other
// draw would go unused: the Rao-Blackwell sums read the counts and the
// priors, not the draws. (A pair only ever above the last clicks, an
// engine's top result on a dense log, has its attractiveness from the
// clicks alone; a pair clicked but never last, its satisfaction never
// tested.)
func (f *fitter) gibbsReads() []uint8 {
	d := f.d
	read := make([]uint8, d.Pairs())
	for i := range d.recClicks {
		pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
		l := -1
		if c := d.recClicks[i]; c != 0 {
			l = lastClick(c, len(pairs))
			read[pairs[l]] |= readSat
		}
		for _, p := range pairs[max(l, 0)+1:] {
			read[p] |= readAttr
		}
	}
	return read
}

// gibbsCounts are the complete-data counts of one sweep, per pair.
type gibbsCounts struct{ aK, aN, sK, sN []float64 }

// drawMoments sums drawn values of one prior cell: their number and their
// first two powers.
type drawMoments struct{ n, s1, s2 float64 }

func (m *drawMoments) add(x float64) { m.n, m.s1, m.s2 = m.n+1, m.s1+x, m.s2+x*x }

func (m *drawMoments) merge(o *drawMoments) { m.n, m.s1, m.s2 = m.n+o.n, m.s1+o.s1, m.s2+o.s2 }

// prior is the Beta with the draws' mean and variance, its concentration
// within [minConcentration, maxConcentration].
func (m *drawMoments) prior() BetaPrior {
	mean := min(max(m.s1/m.n, 1e-6), 1-1e-6)
	v := m.s2/m.n - mean*mean
	c := float64(maxConcentration)
	if v > 0 {
		c = min(max(mean*(1-mean)/v-1, minConcentration), maxConcentration)
	}
	return BetaPrior{Alpha: mean * c, Beta: (1 - mean) * c, Pairs: int64(m.n)}
}

// drawPriors fits every cell's Beta to its draws (step 3 above).
func drawPriors(by [][exposureClasses]drawMoments) [][exposureClasses]BetaPrior {
	byRank, all := sumCells(by)
	pooled := all.prior()
	out := make([][exposureClasses]BetaPrior, len(by))
	for r := range by {
		rp := pooled
		if byRank[r].n >= minPriorPairs {
			rp = byRank[r].prior()
		}
		for e := range by[r] {
			out[r][e] = rp
			if by[r][e].n >= minPriorPairs {
				out[r][e] = by[r][e].prior()
			}
		}
	}
	return out
}

// cellPriors is the table of priors priorTableOf fits to the histograms
// by of the pairs' counts, as the intervals' priors are fitted; of the
// cells used does not mark (those that hold no pair) it fits none
// (priorTableUsed; their priors are zero).
func cellPriors(by [][exposureClasses]priorHist, used [][exposureClasses]bool, warm *priorWarm) [][exposureClasses]BetaPrior {
	t := priorTableUsed(by, true, used, warm)
	out := make([][exposureClasses]BetaPrior, rankBuckets)
	for r := range out {
		copy(out[r][:], t.byCell[r])
	}
	return out
}

// satCounts returns every pair's satisfaction counts from one pass of the
// exact E-step at f's values: successes the posterior probability of a
// satisfied click, trials the clicks. With skip (nil: none), the records
// it reports are not visited: their pairs' counts stay 0.
func (f *fitter) satCounts(ctx context.Context, skip func(i int) bool) (k, n []float64) {
	d := f.d
	np := d.Pairs()
	k, n = make([]float64, np), make([]float64, np)
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		c := &sc.c
		c.gNum, c.gDen = sc.xNum, sc.xDen // dropped below
		var v view
		for i := ch.recLo; i < ch.recHi; i++ {
			if skip != nil && skip(i) {
				continue
			}
			f.load(&v, sc, i)
			v.exact = true
			w := d.recWeight[i]
			estep(f.kind, &v, w, c)
			for r, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				if c.sDen[r] == 1 {
					k[p] += w * c.sNum[r]
					n[p] += w
				}
			}
		}
	})
	f.collect(NewStats(f.kind, f.R))
	return k, n
}

// digammaMemo keeps values of the digamma function, for the Rao-Blackwell
// sums: there a pair's Beta parameters are its cell's prior plus whole
// counts, so the pairs of a cell with the same counts (most of them: few
// clicks each) share their arguments, and digamma (mathext.Digamma: up to
// seven steps of its recurrence, then a logarithm) is computed once for
// them. A direct-mapped table by the argument's bits: an argument found
// there has its own value, any other is computed (and replaces what was
// in its slot), so the sums' bits do not depend on what was kept.
type digammaMemo struct {
	x, v []float64
}

// digammaMemoBits is the log2 of the memo's slots (16,384: 256 KiB).
const digammaMemoBits = 14

// of is Digamma(x).
func (m *digammaMemo) of(x float64) float64 {
	if m.x == nil {
		m.x, m.v = make([]float64, 1<<digammaMemoBits), make([]float64, 1<<digammaMemoBits)
		for i := range m.x {
			m.x[i] = math.NaN() // equal to no argument
		}
	}
	i := (math.Float64bits(x) * 0x9e3779b97f4a7c15) >> (64 - digammaMemoBits)
	if m.x[i] == x {
		return m.v[i]
	}
	v := mathext.Digamma(x)
	m.x[i], m.v[i] = x, v
	return v
}

// uniform is a uniform draw in [0, 1) from src.
func uniform(src *rand.PCG) float64 { return float64(src.Uint64()>>11) * 0x1p-53 }

// drawBeta draws from Beta(alpha, beta) with g, kept inside (0, 1).
func drawBeta(alpha, beta float64, g *drawer) float64 {
	return min(max(g.beta(alpha, beta), 1e-9), 1-1e-9)
}

// gibbs runs burnIn + sweeps sweeps of the sampler (see above) on f's
// records, from f's fitted values (which it does not change) and the
// cells of ev, and sets ev.RelAlpha and ev.RelBeta (DBN, SDBN): the
// sampler of one shard, the whole log (gibbsRun; GibbsShards runs it over
// query shards).
//
// On a subset of the queries (GibbsSetting.Subset) it runs on the subset
// gathered out of f (gibbsGathered), as the engines over query shards
// do, with the same bits as holding the other queries in place
// (gibbsInPlace), which the measurement setting GibbsSetting.FromDraws
// still takes (its moments count every pair's draw, held ones too).
func (f *fitter) gibbs(ctx context.Context, ev *Evidence, g GibbsSetting) {
	if g.Subset > 0 && !g.FromDraws {
		f.gibbsGathered(ctx, ev, g)
		return
	}
	f.gibbsInPlace(ctx, ev, g)
}

// gibbsInPlace is gibbs on every pair of f, those outside a subset held
// (GibbsChain.hold).
func (f *fitter) gibbsInPlace(ctx context.Context, ev *Evidence, g GibbsSetting) {
	ev.Gibbs = &g
	s := &gibbsSampler{g: g}
	store := make(memChains, 1)
	each := func(fn func(k int, f *fitter) error) error { return fn(0, f) }
	if err := s.run(ctx, each, func(int, *fitter) *Evidence { return ev }, store); err != nil {
		return // only ctx's error: the caller reports it
	}
	store[0].result(ev)
}

// GibbsChain is the sampler's state on one shard's pairs (a fitter's):
// per pair its cells, the values its walks read, its key, its current a
// and s, the sweep's complete-data counts and the Rao-Blackwell sums; per
// record its key. A pair belongs to one query and a query to one shard,
// so no other shard reads or writes any of it.
type GibbsChain struct {
	cellA, cellS []uint8 // per pair: rank bucket << 3 | exposure class
	read         []uint8 // gibbsReads, and readHeld
	// With GibbsSetting.HoldShown: per record, 1 if it shows a pair not
	// held (the records the walks visit), and the held pairs' histograms
	// of the first pass's counts (GibbsHists.MarshalBinary), which every
	// refit adds to the other pairs' sweep counts; else nil.
	recOn    []uint8
	heldHist []byte
	act      *gibbsActive // activeOf's lists, derived from recOn and read
	pairKey  []uint64
	recKey   []uint64
	a, s     []float64
	cnt      gibbsCounts
	cntLive  bool // cnt holds a sweep's counts that its draws have not read yet
	m1, l1   []float64
	// After the last sweep (finish): the relevance's Betas and, with
	// GibbsSetting.Mean, its mean; every other slice nil.
	relA, relB, relMean []float64
}

// cellOf packs a prior cell into a byte; cellIdx unpacks it.
func cellOf(b, e int) uint8 { return uint8(b<<3 | e) }

func cellIdx(c uint8) (b, e int) { return int(c >> 3), int(c & 7) }

// pairKeyOf is the key of the pair of query q and document doc (names):
// the pair's streams are seeded by it, so a pair draws the same values
// in whatever Data (the whole log, or any query shard of it) it is.
func pairKeyOf(q, doc string) uint64 {
	return hashes.Mix(hashes.Mix(hashes.FNV1a(q)^gibbsPairSeed) ^ hashes.FNV1a(doc))
}

// gibbsKeys returns every pair's key (pairKeyOf) and every record's: a
// hash of its click mask and its pairs' keys in rank order, which is its
// content (query, documents in order, clicks), unique among d's records
// (identical SERPs are one record; Prepare).
func gibbsKeys(d *Data) (pairKey, recKey []uint64) {
	pairKey = make([]uint64, d.Pairs())
	qs, ds := d.log.Queries.Names, d.log.Docs.Names
	for p := range pairKey {
		pairKey[p] = pairKeyOf(qs[d.pairQuery[p]], ds[d.pairDoc[p]])
	}
	recKey = make([]uint64, len(d.recClicks))
	for i := range recKey {
		h := hashes.Mix(d.recClicks[i] ^ 0x9e3779b97f4a7c15)
		for _, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
			h = hashes.Mix(h ^ pairKey[p])
		}
		recKey[i] = h
	}
	return pairKey, recKey
}

// newGibbsChain starts the chain of f's pairs: cells from ev (Rank,
// Shown), values at f's fit.
func newGibbsChain(f *fitter, ev *Evidence, g GibbsSetting) *GibbsChain {
	np := f.d.Pairs()
	c := &GibbsChain{cellA: make([]uint8, np), cellS: make([]uint8, np), read: f.gibbsReads(),
		a: make([]float64, np), s: make([]float64, np),
		cnt: gibbsCounts{aK: make([]float64, np), aN: make([]float64, np), sK: make([]float64, np), sN: make([]float64, np)},
		m1:  make([]float64, np), l1: make([]float64, np)}
	c.pairKey, c.recKey = gibbsKeys(f.d)
	for p, be := range gibbsCells(ev, g.RankOnly) {
		b, e := be[0], be[1]
		c.cellA[p], c.cellS[p] = cellOf(b, e), cellOf(b, e)
		if g.PoolSat {
			// The satisfaction's cells by exposure only: every pair in
			// rank bucket 0's.
			c.cellS[p] = cellOf(0, e)
		}
		c.a[p] = min(max(f.attr[p], 1e-9), 1-1e-9)
		c.s[p] = min(max(f.sat[p], 1e-9), 1-1e-9)
	}
	if g.HoldShown > 0 || g.Subset > 0 {
		c.hold(f.d, ev.Shown, g.HoldShown, f.outsideSubset(g))
	}
	return c
}

// hold marks the pairs shown in at least from SERPs (shown, per pair:
// Evidence.Shown) held, and the records that show a pair not held on
// (recOn). A held pair keeps its fitted a and s through the chain: no
// walk counts for it, no draw, no Rao-Blackwell sum; a record showing
// held pairs alone is not visited (its walks would count for no pair
// drawn). Both depend on the pair's and the record's own content, so a
// query shard marks what the whole log marks. from 0 holds none by its
// impressions; out (nil: none) marks the pairs outside the sampler's
// subset (GibbsSetting.Subset), which are held too and, unlike the
// others held, enter none of the cells' fits.
func (c *GibbsChain) hold(d *Data, shown []float64, from float64, out []bool) {
	for p := range c.read {
		switch {
		case out != nil && out[p]:
			c.read[p] = readHeld | readOut
		case from > 0 && shown[p] >= from:
			c.read[p] = readHeld
		}
	}
	c.recOn = make([]uint8, len(d.recClicks))
	for i := range c.recOn {
		for _, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
			if c.read[p]&readHeld == 0 {
				c.recOn[i] = 1
				break
			}
		}
	}
}

// gibbsActive lists, per chunk of the records, the records the walks
// visit and the pairs drawn (GibbsChain.hold's), so that a sweep of a
// chain holding most pairs (a subset of the queries: GibbsSetting.Subset)
// costs what its records and pairs visited cost: the same records and
// pairs in the same order as the loops over every one that skip the
// others. Derived from the chain's recOn and read (activeOf), not kept in
// its file.
type gibbsActive struct {
	recs, pairs [][]int32
}

// activeOf is c's gibbsActive on d (built at the first call), nil
// without held pairs (every record visited, every pair drawn).
func (c *GibbsChain) activeOf(d *Data) *gibbsActive {
	if c.recOn == nil {
		return nil
	}
	if c.act == nil {
		a := &gibbsActive{recs: make([][]int32, len(d.chunks)), pairs: make([][]int32, len(d.chunks))}
		for ci, ch := range d.chunks {
			for i := ch.recLo; i < ch.recHi; i++ {
				if c.recOn[i] != 0 {
					a.recs[ci] = append(a.recs[ci], int32(i))
				}
			}
			for p := ch.pairLo; p < ch.pairHi; p++ {
				if !c.held(p) {
					a.pairs[ci] = append(a.pairs[ci], int32(p))
				}
			}
		}
		c.act = a
	}
	return c.act
}

// recLists are a's lists of the records visited, per chunk; nil with a
// nil a (every one).
func (a *gibbsActive) recLists() [][]int32 {
	if a == nil {
		return nil
	}
	return a.recs
}

// pairLists are a's lists of the pairs drawn, per chunk; nil with a nil
// a (every one).
func (a *gibbsActive) pairLists() [][]int32 {
	if a == nil {
		return nil
	}
	return a.pairs
}

// nthIn is the k-th record or pair of chunk ci in lists (gibbsActive.lists),
// lo + k (the chunk's k-th) with nil lists.
func nthIn(lists [][]int32, ci, lo, k int) int {
	if lists != nil {
		return int(lists[ci][k])
	}
	return lo + k
}

// lenIn is the number of records or pairs of chunk ci in lists, hi - lo
// (the chunk's) with nil lists.
func lenIn(lists [][]int32, ci, lo, hi int) int {
	if lists != nil {
		return len(lists[ci])
	}
	return hi - lo
}

// held reports whether pair p is held at its fit (GibbsChain.hold).
func (c *GibbsChain) held(p int) bool { return c.read[p]&readHeld != 0 }

// inSubset reports whether pair p is in the sampler's subset (every pair
// without GibbsSetting.Subset).
func (c *GibbsChain) inSubset(p int) bool { return c.read[p]&readOut == 0 }

// heldInSubset reports whether pair p is held by its impressions and in
// the subset: the pairs whose first counts every refit adds.
func (c *GibbsChain) heldInSubset(p int) bool { return c.held(p) && c.inSubset(p) }

// gibbsHists are the histograms of the cells' complete-data counts of
// every shard (priorHist: whole or fixed-point sums, so they do not
// depend on how the pairs are split), and which cells hold pairs.
type gibbsHists struct {
	a, s         [][exposureClasses]priorHist
	usedA, usedS [][exposureClasses]bool
}

func newGibbsHists() *gibbsHists {
	return &gibbsHists{a: make([][exposureClasses]priorHist, rankBuckets), s: make([][exposureClasses]priorHist, rankBuckets),
		usedA: make([][exposureClasses]bool, rankBuckets), usedS: make([][exposureClasses]bool, rankBuckets)}
}

// add adds the chain's pairs with counts (aK, aN) of the attractiveness
// and (sK, sN) of the satisfaction, those for which pick is true (nil:
// every pair; the held ones' go to the chain's heldHist, the others' to
// every refit).
func (h *gibbsHists) add(c *GibbsChain, aK, aN, sK, sN []float64, pick func(p int) bool) {
	for p := range c.cellA {
		if pick != nil && !pick(p) {
			continue
		}
		h.addPair(c, p, aK, aN, sK, sN)
	}
}

// addPair adds pair p of the chain c to h (add).
func (h *gibbsHists) addPair(c *GibbsChain, p int, aK, aN, sK, sN []float64) {
	b, e := cellIdx(c.cellA[p])
	h.a[b][e].add(aK[p], aN[p])
	h.usedA[b][e] = true
	b, e = cellIdx(c.cellS[p])
	h.s[b][e].add(sK[p], sN[p])
	h.usedS[b][e] = true
}

// addDrawn adds the chain's pairs not held with the sweep's counts
// (every pair when none is held; else from the lists of those drawn: the
// histograms are integers, which do not depend on the order).
func (h *gibbsHists) addDrawn(c *GibbsChain, d *Data) {
	cnt := &c.cnt
	act := c.activeOf(d)
	if act == nil {
		h.add(c, cnt.aK, cnt.aN, cnt.sK, cnt.sN, nil)
		return
	}
	for _, ps := range act.pairs {
		for _, p := range ps {
			h.addPair(c, int(p), cnt.aK, cnt.aN, cnt.sK, cnt.sN)
		}
	}
}

// priors fits the cells' priors to h (cellPriors), from warm's starts
// (nil: cold).
func (h *gibbsHists) priors(warmA, warmS *priorWarm) (pa, ps [][exposureClasses]BetaPrior) {
	return cellPriors(h.a, h.usedA, warmA), cellPriors(h.s, h.usedS, warmS)
}

// walks is step 1 of sweep t on f's records: the complete-data counts.
func (c *GibbsChain) walks(ctx context.Context, f *fitter, t int, gamma float64) {
	d, cnt := f.d, &c.cnt
	if np := len(c.a); len(cnt.aK) != np {
		// Dropped by MarshalBinary after the last draws.
		*cnt = gibbsCounts{aK: make([]float64, np), aN: make([]float64, np), sK: make([]float64, np), sN: make([]float64, np)}
	}
	c.cntLive = true
	seed := hashes.Mix(uint64(t))
	act := c.activeOf(d)
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		recs := act.recLists()
		nr := lenIn(recs, ci, ch.recLo, ch.recHi)
		if act == nil {
			for p := ch.pairLo; p < ch.pairHi; p++ {
				cnt.aK[p], cnt.aN[p], cnt.sK[p], cnt.sN[p] = 0, 0, 0, 0
			}
		} else {
			// Only the pairs of the records visited count (the others'
			// counts stay 0 from the start).
			for _, i := range act.recs[ci] {
				for _, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
					cnt.aK[p], cnt.aN[p], cnt.sK[p], cnt.sN[p] = 0, 0, 0, 0
				}
			}
		}
		dr := newDrawer()
		car, goOn := sc.c.tmp[0][:], sc.c.tmp[1][:]
		var examined [MaxSERP]int
		for k := range nr {
			i := nthIn(recs, ci, ch.recLo, k)
			pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
			n := len(pairs)
			ra, rs := sc.a[:n], sc.s[:n]
			for r, p := range pairs {
				ra[r], rs[r] = c.a[p], c.s[p]
			}
			clicks := d.recClicks[i]
			l, pSat := cascadeLatents(ra, rs, gamma, clicks, car[:n+1], goOn[:n])
			w := d.recWeight[i]
			// Above the last click (and at it) the latents are the
			// clicks themselves.
			for r := 0; r <= l; r++ {
				p := pairs[r]
				cnt.aN[p] += w
				if clicks&(1<<uint(r)) != 0 {
					cnt.aK[p] += w
					cnt.sN[p] += w
				}
			}
			dr.seed(seed, c.recKey[i])
			clear(examined[:n])
			if sat := cascadeWalks(l, pSat, goOn[:n], int(w), dr, examined[:n]); sat > 0 {
				cnt.sK[pairs[l]] += float64(sat)
			}
			for r := l + 1; r < n; r++ {
				cnt.aN[pairs[r]] += float64(examined[r]) // examined, not clicked
			}
		}
	})
}

// draws is steps 3 and 4 of sweep t on f's pairs, under the cells'
// priors pa (attractiveness) and ps (satisfaction); keep: after the
// burn-in. With byA and byS (GibbsSetting.FromDraws) it adds the drawn
// values to their cells' moments.
func (c *GibbsChain) draws(ctx context.Context, f *fitter, t int, keep bool, pa, ps [][exposureClasses]BetaPrior, byA, byS [][exposureClasses]drawMoments) {
	d, cnt := f.d, &c.cnt
	fromDraws := byA != nil
	seed := hashes.Mix(uint64(t)) ^ gibbsPairSeed
	act := c.activeOf(d)
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		dr := newDrawer()
		// The pairs drawn: a held pair stays at its fit, its interval
		// the counts' (activeOf lists the others; without lists none is
		// held).
		pairs := act.pairLists()
		for k := range lenIn(pairs, ci, ch.pairLo, ch.pairHi) {
			p := nthIn(pairs, ci, ch.pairLo, k)
			dr.seed(seed, c.pairKey[p])
			ba, ea := cellIdx(c.cellA[p])
			bs, es := cellIdx(c.cellS[p])
			qa, qs := pa[ba][ea], ps[bs][es]
			aa, ab := qa.Alpha+cnt.aK[p], qa.Beta+cnt.aN[p]-cnt.aK[p]
			sa, sb := qs.Alpha+cnt.sK[p], qs.Beta+cnt.sN[p]-cnt.sK[p]
			if keep {
				// Rao-Blackwell: E[a s] and E[ln(a s)] given the
				// sweep's counts and priors.
				c.m1[p] += aa / (aa + ab) * sa / (sa + sb)
				dg := &sc.digamma
				c.l1[p] += dg.of(aa) - dg.of(aa+ab) + dg.of(sa) - dg.of(sa+sb)
			}
			// A value the walks never read (gibbsReads) is not drawn,
			// unless the cells are fitted to the draws. The pair's
			// stream is its own: no other pair's draw changes.
			if c.read[p]&readAttr != 0 || fromDraws {
				c.a[p] = drawBeta(aa, ab, dr)
			}
			if c.read[p]&readSat != 0 || fromDraws {
				c.s[p] = drawBeta(sa, sb, dr)
			}
		}
	})
	c.cntLive = false
	if fromDraws {
		for p := range c.a {
			b, e := cellIdx(c.cellA[p])
			byA[b][e].add(c.a[p])
			b, e = cellIdx(c.cellS[p])
			byS[b][e].add(c.s[p])
		}
	}
}

// finish turns the Rao-Blackwell sums of sweeps kept sweeps into the
// relevance's Betas (and mean), dropping the rest of the state.
func (c *GibbsChain) finish(sweeps int, mean bool) {
	var held func(p int) bool
	if c.recOn != nil {
		held = c.held
	}
	relA, relB, relMean := relevanceBetas(c.m1, c.l1, sweeps, mean, held)
	*c = GibbsChain{relA: relA, relB: relB, relMean: relMean}
}

// relevanceBetas turns the Rao-Blackwell sums m1 (of E[r]) and l1 (of
// E[ln r]) of sweeps kept sweeps into every pair's relevance Beta, the
// one with their means (betaFromMeanLogMoment; the mean kept below 1 and
// the log-mean below its logarithm), and with mean the means themselves
// (the relevance column of GibbsSetting.Mean). A pair that held reports
// (nil: none) gets 0s, which stand for no sampler's Beta: its interval
// and relevance column are the counts' (relevanceBeta) and the fit's.
func relevanceBetas(m1, l1 []float64, sweeps int, mean bool, held func(p int) bool) (alpha, beta, means []float64) {
	k := float64(sweeps)
	alpha, beta = make([]float64, len(m1)), make([]float64, len(m1))
	if mean {
		means = make([]float64, len(m1))
		for p := range m1 {
			if held == nil || !held(p) {
				means[p] = m1[p] / k
			}
		}
	}
	for p := range m1 {
		if held != nil && held(p) {
			continue
		}
		m := min(m1[p]/k, 1-1e-9)
		alpha[p], beta[p] = betaFromMeanLogMoment(m, min(l1[p]/k, math.Log(m)-1e-12))
	}
	return alpha, beta, means
}

// result sets ev's relevance Betas (and mean) to the finished chain's.
func (c *GibbsChain) result(ev *Evidence) {
	ev.RelAlpha, ev.RelBeta, ev.RelMean = c.relA, c.relB, c.relMean
}

// gibbsSampler is one run of the sampler over the chains of one or more
// query shards, which share the cells' priors.
type gibbsSampler struct {
	g GibbsSetting
	gibbsRound
}

// gibbsRound is what the shards share between two passes of the sampler
// (gibbsSampler.reduce sets it from the pass's histograms): the cells'
// priors, where their last fits ended, whether the last sweep's draws
// wait for its priors, and (GibbsSetting.FromDraws) the sweep's moments
// of the draws.
type gibbsRound struct {
	pa, ps       [][exposureClasses]BetaPrior
	warmA, warmS priorWarm
	pending      bool
	byA, byS     [][exposureClasses]drawMoments
}

// GibbsStore holds the sampler's chains between its passes over the
// shards (GibbsShards.Run), in memory or, under a memory limit, in
// files (GibbsChain.MarshalBinary).
type GibbsStore interface {
	// Keep takes shard k's chain after a pass; Get gives it back before
	// the next (the same values: a chain read back from a file is
	// UnmarshalGibbsChain's).
	Keep(k int, c *GibbsChain) error
	Get(k int) (*GibbsChain, error)
}

// memChains is the GibbsStore of chains held in memory, by shard.
type memChains []*GibbsChain

func (m memChains) Keep(k int, c *GibbsChain) error { m[k] = c; return nil }

func (m memChains) Get(k int) (*GibbsChain, error) { return m[k], nil }

// passes is the number of passes over the shards a run makes: the
// start (pass 0: the chains and the cells' first priors), one per sweep
// (pass t + 1: sweep t), and the finish (the last sweep's draws if they
// waited, then the Rao-Blackwell sums turned into Betas).
func (s *gibbsSampler) passes() int { return s.g.BurnIn + s.g.Sweeps + 2 }

// refits reports whether sweep t refits the cells' priors to its
// complete-data counts (every GibbsSetting.RefitEvery sweeps; never with
// FromDraws).
func (s *gibbsSampler) refits(t int) bool {
	return !s.g.FromDraws && t%max(s.g.RefitEvery, 1) == 0
}

// collects reports whether pass p sums the shards' histograms (pass 0,
// and a sweep that refits the priors).
func (s *gibbsSampler) collects(p int) bool {
	return p == 0 || (p <= s.g.BurnIn+s.g.Sweeps && s.refits(p-1))
}

// pass runs pass p (passes) on one shard's fitter f and chain c (none in
// pass 0, which starts it from ev: its cells' Rank and Shown and its
// attractiveness counts) under the round's priors, adding the shard's
// histograms to h where the pass collects them (collects), and returns
// the chain. A shard's draws of a sweep that keeps the priors come in
// the same pass as its walks, and those of a sweep that refits them in
// the next pass, before its walks: the same values in the same order
// per shard, one pass over the shards a sweep.
func (s *gibbsSampler) pass(ctx context.Context, p int, f *fitter, c *GibbsChain, ev *Evidence, h *gibbsHists) *GibbsChain {
	g := s.g
	T := g.BurnIn + g.Sweeps
	switch {
	case p == 0:
		// The cells' first priors: the intervals' own fit to the
		// attractiveness counts of the evidence pass and to the
		// satisfaction's exact E-step counts.
		c = newGibbsChain(f, ev, g)
		var skip func(i int) bool
		if g.Subset > 0 {
			// A query is in the subset or out whole: the records of the
			// queries outside count for no pair that enters a fit.
			skip = func(i int) bool { return !c.inSubset(int(f.d.recPair[f.d.recOff[i]])) }
		}
		sk, sn := f.satCounts(ctx, skip)
		h.add(c, ev.AttrK, ev.AttrN, sk, sn, c.inSubset)
		if c.recOn != nil {
			// The held pairs' counts stay these (GibbsSetting.HoldShown);
			// the pairs outside the subset enter no fit.
			hh := &GibbsHists{newGibbsHists()}
			hh.h.add(c, ev.AttrK, ev.AttrN, sk, sn, c.heldInSubset)
			c.heldHist, _ = hh.MarshalBinary()
		}
	case p <= T:
		t := p - 1
		if s.pending {
			c.draws(ctx, f, t-1, t-1 >= g.BurnIn, s.pa, s.ps, nil, nil)
		}
		// (1) The latent variables given the pairs' values.
		gamma := 1.0
		if f.kind == DBN {
			gamma = f.global[0]
		}
		c.walks(ctx, f, t, gamma)
		if s.refits(t) {
			h.addDrawn(c, f.d)
			if c.heldHist != nil {
				if err := (&GibbsHists{h}).MergeBinary(c.heldHist); err != nil {
					panic(err) // the chain's own encoding
				}
			}
		} else {
			// (2) The pairs' values given the latent variables and the
			// priors.
			c.draws(ctx, f, t, t >= g.BurnIn, s.pa, s.ps, s.byA, s.byS)
		}
	default:
		if s.pending {
			c.draws(ctx, f, T-1, T-1 >= g.BurnIn, s.pa, s.ps, nil, nil)
		}
		c.finish(g.Sweeps, g.Mean)
	}
	return c
}

// startPass readies the round for pass p: FromDraws's moments of a
// sweep's draws, summed over the shards.
func (s *gibbsSampler) startPass(p int) {
	s.byA, s.byS = nil, nil
	if s.g.FromDraws && p >= 1 && p <= s.g.BurnIn+s.g.Sweeps {
		s.byA, s.byS = make([][exposureClasses]drawMoments, rankBuckets), make([][exposureClasses]drawMoments, rankBuckets)
	}
}

// reduce ends pass p with h, the histograms of every shard summed (nil
// where the pass collects none): the cells' priors the next pass uses.
func (s *gibbsSampler) reduce(p int, h *gibbsHists) {
	switch {
	case p == 0:
		s.pa, s.ps = h.priors(nil, nil)
	case p <= s.g.BurnIn+s.g.Sweeps:
		refit := s.refits(p - 1)
		if refit {
			// (3) The cells' priors given the complete data, the pairs'
			// values integrated out: the intervals' own fit
			// (priorTableOf) of the beta-binomial counts, whole trials
			// here.
			s.pa, s.ps = h.priors(&s.warmA, &s.warmS)
		}
		if s.g.FromDraws {
			// (3) The cells' priors fitted to the drawn values.
			s.pa, s.ps = drawPriors(s.byA), drawPriors(s.byS)
		}
		s.pending = refit
	}
}

// run runs the sampler over the shards' fitters that each yields (in
// shard order, with their index k), evidence giving a shard's Evidence
// (its cells' Rank and Shown and its attractiveness counts) in the first
// pass, store holding the chains between
// passes; it leaves every chain finished. Per pass (passes): every
// shard's share (pass; on a sweep that refits the priors, the
// histograms of its complete-data counts, summed over the shards
// exactly), then the cells' priors (reduce).
func (s *gibbsSampler) run(ctx context.Context, each func(fn func(k int, f *fitter) error) error, evidence func(k int, f *fitter) *Evidence, store GibbsStore) error {
	for p := range s.passes() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var h *gibbsHists
		if s.collects(p) {
			h = newGibbsHists()
		}
		s.startPass(p)
		err := each(func(k int, f *fitter) error {
			var (
				c   *GibbsChain
				ev  *Evidence
				err error
			)
			if p == 0 {
				if ev = evidence(k, f); ev == nil {
					return noEvidence(ctx, f.kind)
				}
			} else if c, err = store.Get(k); err != nil {
				return err
			}
			return store.Keep(k, s.pass(ctx, p, f, c, ev, h))
		})
		if err != nil {
			return err
		}
		s.reduce(p, h)
	}
	return ctx.Err()
}

// noEvidence is the error of a shard without the intervals' evidence:
// ctx's if it is done (the evidence pass stopped), else that the fit
// has none.
func noEvidence(ctx context.Context, k Kind) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("click models: the Gibbs sampler needs the intervals' evidence (%v has none)", k)
}

// betaFromMeanLogMoment is the Beta(alpha, beta) with mean m and E[ln x]
// l1 (< ln m, Jensen's inequality): psi(m c) - psi(c) = l1 for the
// concentration c = alpha + beta, which increases with c towards ln m, by
// bisection on ln c within [1e-3, 1e8] until the bracket is narrower
// than 1e-10 (c to a relative 5e-11, below anything an interval's
// quantiles show; some 38 steps instead of the 57 to adjacent floats).
// For the relevance r = a s its
// E[ln r] is exact given the sweep's Betas, psi(alpha_a) - psi(alpha_a +
// beta_a) plus the same of s, and unlike the Beta with the first two
// moments it keeps the mass of a product of Betas near 0 (its lower
// tail), where the truth of the pairs a log says little about lies.
func betaFromMeanLogMoment(m, l1 float64) (alpha, beta float64) {
	lo, hi := math.Log(1e-3), math.Log(1e8)
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		c := math.Exp(mid)
		if mathext.Digamma(m*c)-mathext.Digamma(c) < l1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	c := math.Exp((lo + hi) / 2)
	return m * c, (1 - m) * c
}
