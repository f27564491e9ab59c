package clickmodels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultIterations is PyClick's number of EM iterations.
const DefaultIterations = 50

// Options control fitting.
type Options struct {
	// Iterations of EM (default DefaultIterations). Counting models make
	// one pass whatever the value.
	Iterations int
	// Tolerance > 0 stops EM early once the training log-likelihood (as
	// Evaluate defines it, weighted by SERP) changes by less than
	// Tolerance between two iterations. 0 (default) runs exactly
	// Iterations iterations, like PyClick.
	Tolerance float64
	// Accelerate, with a Tolerance, accelerates EM by SQUAREM's squared
	// extrapolation with a monotone safeguard (fitLoopAccel); the stopping
	// rule and what EM converges to are plain EM's, reached in fewer
	// iterations. Without a Tolerance, or for counting models, it is
	// ignored. It is EstimatorExact's default (Estimator.Options); the
	// zero Options keep plain EM.
	Accelerate bool
	// Workers is the number of goroutines (default GOMAXPROCS). Results do
	// not depend on it.
	Workers int
	// Exact makes DBN, SDBN, DCM and CCM (Kind.ExactEStep) use exact
	// E-steps (Chuklin et al. 2015, section 4.2), conditioning every
	// posterior on all clicks of the SERP, instead of PyClick's (DBN, CCM:
	// unconditional examination probabilities for attractiveness, no
	// attractiveness mass for SERPs without clicks, a misaligned tail in the
	// continuation update; CCM: no relevance at a click above the last;
	// SDBN, DCM: a counting pass that takes the last click as the end of
	// the session), and fits SDBN and DCM by EM (Kind.EM). It is part of
	// EstimatorExact, the default of every command (Estimator.Options);
	// the zero Options keep PyClick's, so that results equal PyClick's.
	// Other models ignore it.
	Exact bool
	// PSCMAuthors makes PSCM follow the authors' code (THUIR/PSCMModel)
	// instead of the model's definition (pscm.go): on a return up the page
	// the step observes ranks n+1 to m, and gamma after the last click is
	// never re-estimated. It is how their published perplexities are
	// reproduced. Other models ignore it.
	PSCMAuthors bool
	// OnIteration, if set, is called after every EM iteration with the
	// number of iterations done and the training log-likelihood (NaN when
	// Tolerance is 0, as it is then not computed).
	OnIteration func(iteration int, trainLL float64)
	// Level is the level of the intervals of the relevance file, in
	// (0, 1); left 0, DefaultLevel. Unless NoIntervals, after the last
	// iteration one more pass computes every pair's Evidence
	// (docs/clickmodels.md, "Uncertainty").
	Level float64
	// NoIntervals skips that pass: the model has no Evidence, its
	// relevance file no intervals (and labels made from it no
	// confidence). Whether to compute the intervals is this switch, never
	// a value of Level.
	NoIntervals bool
	// EmpiricalPrior centres the exact estimator's pair pseudo-counts
	// (weight 2) on per-rank means estimated from the log, re-estimated
	// every EM iteration, instead of PyClick's 0.5 (empirical Bayes;
	// ebprior.go). It applies with Exact to DBN, SDBN, DCM and CCM only;
	// PyClick's estimator keeps PyClick's pseudo-counts.
	EmpiricalPrior bool
	// Intervals is how DBN's and SDBN's relevance Betas are computed
	// (IntervalMethod): "" or IntervalsCounts, the library's zero;
	// IntervalsGibbs the Gibbs sampler in its setting GibbsIntervals;
	// IntervalsGibbsSubset the sampler on a subset of the queries, its
	// posterior carried to the others (GibbsSubsetIntervals);
	// IntervalsAuto, the commands' default (fit.DefaultConfig), one of
	// the three by the log's size and the options, which the engines
	// decide before a fit (ResolveIntervals). The other models ignore it.
	Intervals IntervalMethod
	// SubsetSERPs is the training SERPs of IntervalsGibbsSubset's subset
	// of queries (0: GibbsSubsetSERPs; else positive, CheckSubsetSERPs),
	// given with IntervalsGibbsSubset or IntervalsAuto, where it applies
	// if auto picks the subset (CheckIntervals refuses it with any other
	// method).
	SubsetSERPs float64
	// subsetRate is IntervalsGibbsSubset's share of the queries, set by
	// ResolveIntervals from the whole log's training SERPs (0: a Fit of
	// the whole log takes its own).
	subsetRate float64
	// Gibbs with Sweeps > 0 replaces DBN's and SDBN's relevance Beta (and
	// so the interval and the labels' confidence; not the relevance
	// column) by a Gibbs sampler's of the hierarchical model after the
	// evidence pass, in that setting (GibbsSetting, gibbs.go), and UBM's
	// by its own sampler's (gibbsubm.go; measured and not adopted, so
	// this switch alone reaches it). It is for
	// measuring the sampler's variants (bench/calibration); users take
	// Intervals: IntervalsGibbs.
	Gibbs GibbsSetting
}

// IntervalLevel is the interval level of o (DefaultLevel if Level is
// left 0): the one reading of Level's zero value.
func (o Options) IntervalLevel() float64 {
	if o.Level == 0 {
		return DefaultLevel
	}
	return o.Level
}

// CheckLevel checks an interval level: it must lie in (0, 1). 0 is no
// level (fit --no-intervals, Options.NoIntervals, turns the intervals off).
func CheckLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("interval level %v: want a level in (0, 1), such as %v", level, DefaultLevel)
	}
	return nil
}

// check checks o's interval level (0: DefaultLevel) and method, and
// that a subset's size, if any, is positive (o is resolved: the size may
// be carried beside any method, checkSubsetSERPs).
func (o Options) check() error {
	if err := o.checkMethod(); err != nil {
		return err
	}
	if o.SubsetSERPs != 0 {
		if err := CheckSubsetSERPs(o.SubsetSERPs); err != nil {
			return fmt.Errorf("click models: Options.SubsetSERPs: %w", err)
		}
	}
	if o.Intervals == IntervalsAuto {
		// The choice needs the whole log's training SERPs, which a fit of
		// one shard does not know.
		return fmt.Errorf("click models: Options.Intervals %s is decided for the whole log (Options.ResolveIntervals), before a fit", o.Intervals)
	}
	if o.Level == 0 {
		return nil
	}
	if err := CheckLevel(o.Level); err != nil {
		return fmt.Errorf("click models: Options.Level: %w (Options.NoIntervals turns the intervals off)", err)
	}
	return nil
}

// evidence computes the pairs' Evidence of f for o's intervals (nil with
// NoIntervals).
func (o Options) evidence(ctx context.Context, f *fitter) *Evidence {
	if o.NoIntervals {
		return nil
	}
	ev := f.evidence(ctx, o.IntervalLevel())
	if g := o.gibbsSetting(); g.Sweeps > 0 && ev != nil && (f.kind == DBN || f.kind == SDBN) {
		f.gibbs(ctx, ev, g)
	}
	if o.Gibbs.Sweeps > 0 && ev != nil && f.kind == UBM {
		// UBM's sampler (gibbsubm.go): the measurement setting only.
		f.gibbsUBM(ctx, ev, o.Gibbs)
	}
	return ev
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Fit fits a model of the given kind to the prepared training data.
func Fit(ctx context.Context, d *Data, kind Kind, opt Options) (*Model, error) {
	return fit(ctx, d, kind, opt, true)
}

// fit is Fit; factorize selects the per-rank E-step of PBM, UBM and PSCM
// (false: the per-SERP one, used by tests to cross-check them; PSCM with
// Options.PSCMAuthors always takes the per-SERP one).
func fit(ctx context.Context, d *Data, kind Kind, opt Options, factorize bool) (*Model, error) {
	if kind < 0 || kind >= numKinds {
		return nil, fmt.Errorf("click models: unknown model %v", kind)
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	iters := kind.Iterations(opt.Iterations, opt.Exact)
	global := InitialGlobals(kind, d.ranks, opt)
	f := newFitter(ctx, d, kind, opt, global, factorize)
	done, err := fitLoop(ctx, held([]*fitter{f}), d.ranks, kind, opt, global, iters, d.serps, []*fitter{f}, nil)
	if err != nil {
		return nil, err
	}
	m := f.model(done)
	m.Evidence = opt.evidence(ctx, f)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// newFitter returns the state of one fit of d that reads and writes the
// shared global parameter values global.
func newFitter(ctx context.Context, d *Data, kind Kind, opt Options, global []float64, factorize bool) *fitter {
	R := d.ranks
	np := d.Pairs()
	f := &fitter{d: d, kind: kind, R: R, em: kind.EM(false), exact: opt.Exact && kind.ExactEStep(), pscmAuthors: opt.PSCMAuthors && kind == PSCM, ng: GlobalSlots(kind, R, opt), ngModel: kind.GlobalParams(R), workers: opt.workers()}
	nPair := kind.PairParams()
	f.attr = filled(np*b2i(nPair >= 1), Unseen)
	f.sat = filled(np*b2i(nPair >= 2), Unseen)
	if kind.priorSlots(R, opt) > 0 {
		f.eb = true
		f.pA, f.nImp = make([]float64, len(f.attr)), make([]float64, len(f.attr))
	}
	f.sNum, f.sDen = make([]float64, len(f.sat)), make([]float64, len(f.sat))
	f.global = global
	if factorize && (kind == PBM || kind == UBM || (kind == PSCM && !f.pscmAuthors)) {
		// The factorised E-step keeps its denominators in fz.aDen.
		f.fz = newFactorized(ctx, d, kind, f.workers)
	} else {
		f.aNum, f.aDen = make([]float64, len(f.attr)), make([]float64, len(f.attr))
	}
	return f
}

// fitLoop runs the EM iterations (one pass for counting models) of the
// fitters that each yields, which share the global values global: per
// iteration every fitter's E-step and pair M-step, then the global M-step
// from the exact sums of all fitters' counts. R is the fitters' number of
// ranks and serps the number of training SERPs of all fitters (for the
// training log-likelihood). each calls fn with every fitter in a fixed
// order; it may build a fitter for the call and drop it afterwards (the
// spilled shards of outofcore.RunShards), keeping only its pair values. It returns
// the number of iterations run.
//
// heldFs, when each yields fitters kept in memory (these), lets the
// tolerance's log-likelihood be computed in the E-step's pass over the
// records (fitter.estepLL) instead of a pass of its own: the E-step of
// iteration t+1 reads the values of iteration t, whose log-likelihood the
// test needs, so when the test stops EM there the pair M-step that pass
// made is undone (the values before it were kept). The iterations, the
// values and every log-likelihood are the same bits as with the separate
// pass (the sums are order-free), which spilled shards and the Beam
// pipeline still take. store keeps accelerated EM's iterates (nil: in
// memory; fitLoopAccel).
func fitLoop(ctx context.Context, each func(fn func(*fitter)) error, R int, kind Kind, opt Options, global []float64, iters int, serps int, heldFs []*fitter, store IterateStore) (int, error) {
	trainLL := func() (float64, error) {
		st := newStatsLen(len(global))
		if err := each(func(f *fitter) { f.trainLL(ctx, st) }); err != nil {
			return 0, err
		}
		return st.LL.Float64() / float64(serps), nil
	}
	em := kind.EM(opt.Exact)
	if opt.Accelerate && opt.Tolerance > 0 && em {
		return fitLoopAccel(ctx, each, R, kind, opt, global, iters, serps, store)
	}
	if opt.Tolerance > 0 && em && heldFs != nil {
		return fitLoopFused(ctx, heldFs, R, kind, opt, global, iters, serps, trainLL)
	}
	done := 0
	prevLL := math.NaN()
	if opt.Tolerance > 0 && em {
		var err error
		if prevLL, err = trainLL(); err != nil {
			return done, err
		}
	}
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		st := newStatsLen(len(global))
		if err := each(func(f *fitter) { f.estep(ctx, st) }); err != nil {
			return done, err
		}
		if err := ctx.Err(); err != nil {
			return done, err
		}
		copy(global, MStepGlobals(kind, st))
		done++
		ll := math.NaN()
		if opt.Tolerance > 0 && em {
			var err error
			if ll, err = trainLL(); err != nil {
				return done, err
			}
		}
		if opt.OnIteration != nil {
			opt.OnIteration(done, ll)
		}
		if opt.Tolerance > 0 && em && Converged(prevLL, ll, opt.Tolerance) {
			break
		}
		prevLL = ll
	}
	return done, nil
}

// fitLoopFused is fitLoop under the tolerance for fitters held in memory
// (see fitLoop): the pass of iteration it computes the log-likelihood of
// the values after it iterations, then the E-step and pair M-step.
func fitLoopFused(ctx context.Context, fs []*fitter, R int, kind Kind, opt Options, global []float64, iters, serps int, trainLL func() (float64, error)) (int, error) {
	for _, f := range fs {
		f.keepPrev = true
		f.prevAttr, f.prevSat = make([]float64, len(f.attr)), make([]float64, len(f.sat))
	}
	defer func() {
		for _, f := range fs {
			f.keepPrev, f.prevAttr, f.prevSat = false, nil, nil
		}
	}()
	done := 0
	prevLL := math.NaN()
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		st := newStatsLen(len(global))
		for _, f := range fs {
			f.estepLL(ctx, st)
		}
		if err := ctx.Err(); err != nil {
			return done, err
		}
		ll := st.LL.Float64() / float64(serps) // of the values after done iterations
		if done > 0 {
			if opt.OnIteration != nil {
				opt.OnIteration(done, ll)
			}
			if Converged(prevLL, ll, opt.Tolerance) {
				// Stop at the values the log-likelihood is of: undo this
				// pass's pair M-step (the globals' is not done yet).
				for _, f := range fs {
					f.attr, f.prevAttr = f.prevAttr, f.attr
					f.sat, f.prevSat = f.prevSat, f.sat
				}
				return done, nil
			}
		}
		prevLL = ll
		copy(global, MStepGlobals(kind, st))
		done++
	}
	// The cap: the log-likelihood of the last values, for OnIteration.
	ll, err := trainLL()
	if err != nil {
		return done, err
	}
	if opt.OnIteration != nil {
		opt.OnIteration(done, ll)
	}
	return done, nil
}

// held yields fitters kept in memory (fitLoop's each).
func held(fs []*fitter) func(func(*fitter)) error {
	return func(fn func(*fitter)) error {
		for _, f := range fs {
			fn(f)
		}
		return nil
	}
}

// estep is one E-step and pair M-step of f, adding the global counts to st.
func (f *fitter) estep(ctx context.Context, st *Stats) {
	if f.fz != nil {
		f.iterateFactorized(ctx, f.workers, st)
	} else {
		f.iterate(ctx, f.workers, st)
	}
}

// estepLL is estep with the training log-likelihood of the values it
// reads added to st.LL (the same sum trainLL adds), the pair values before
// its M-step kept in prevAttr and prevSat. The per-SERP E-step computes
// it in its own pass over the records; PBM's and UBM's factorised one in
// the pass over the log-likelihood's items (estepLLItems); PSCM's, which
// does not visit the records, after a pass of trainLL.
func (f *fitter) estepLL(ctx context.Context, st *Stats) {
	if f.fz != nil && (f.kind == PBM || f.kind == UBM) {
		f.estepLLItems(ctx, st)
		return
	}
	if f.fz != nil {
		f.trainLL(ctx, st)
		f.iterateFactorized(ctx, f.workers, st)
		return
	}
	f.withLL = true
	f.iterate(ctx, f.workers, st)
	f.withLL = false
}

// model returns the fitted model after done iterations.
func (f *fitter) model(done int) *Model {
	d := f.d
	nPair := f.kind.PairParams()
	m := &Model{
		Kind: f.kind, Ranks: f.R, Iterations: done, Exact: f.exact, PSCMAuthors: f.pscmAuthors, EmpiricalPrior: f.eb,
		QueryNames: d.log.Queries.Names, DocNames: d.log.Docs.Names,
		PairQuery: d.pairQuery, PairDoc: d.pairDoc,
		Global: slices.Clone(f.global[:f.ngModel]),
	}
	if nPair >= 1 {
		m.Attr = f.attr
	}
	if nPair >= 2 {
		m.Sat = f.sat
	}
	return m
}

// Stats are the sufficient statistics of a model's global parameters for
// one EM iteration (or the counting pass), summed exactly: Num[j] and
// Den[j] are the expected counts of global parameter j (layout of
// Model.Global) without the prior; LL is the weighted sum of training SERP
// log-likelihoods when asked for. Stats of disjoint parts of the training
// log (chunks, query shards, Beam bundles) merge exactly, in any order.
type Stats struct {
	Num, Den []ExactSum
	LL       ExactSum
}

// NewStats returns empty statistics for a model of kind with R ranks.
func NewStats(kind Kind, R int) *Stats {
	return newStatsLen(kind.GlobalParams(R))
}

// newStatsLen returns empty statistics of n global values.
func newStatsLen(n int) *Stats {
	return &Stats{Num: make([]ExactSum, n), Den: make([]ExactSum, n)}
}

// Merge adds o to s.
func (s *Stats) Merge(o *Stats) {
	for j := range s.Num {
		s.Num[j].Merge(&o.Num[j])
		s.Den[j].Merge(&o.Den[j])
	}
	s.LL.Merge(&o.LL)
}

// MStepGlobals returns the global parameter values from the merged
// statistics: (1 + Num) / (2 + Den), the prior included in the exact sum
// and rounded once; the values of PyClick's EM parameters capped at
// 1 - 1e-6 (its ParamEM), its counting ones (ParamMLE) not, whatever the
// estimator, so that a counting model's exact E-step changes the counts
// only.
func MStepGlobals(kind Kind, st *Stats) []float64 {
	g := make([]float64, len(st.Num))
	for j := range g {
		num, den := st.Num[j], st.Den[j]
		num.Add(1)
		den.Add(2)
		v := num.Float64() / den.Float64()
		if kind.EM(false) && v > probMax {
			v = probMax
		}
		g[j] = v
	}
	return g
}
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// fitter holds the state of one fit.
type fitter struct {
	d     *Data
	kind  Kind
	R     int
	em    bool // values capped as PyClick's EM parameters (MStepGlobals)
	exact bool
	// pscmAuthors: PSCM as the authors' code (Options.PSCMAuthors)
	pscmAuthors bool

	attr, sat              []float64 // current values per pair
	aNum, aDen, sNum, sDen []float64 // expected counts per pair (this iteration)
	global                 []float64 // shared by the fitters of one fit
	ng                     int       // number of global values (GlobalSlots)
	ngModel                int       // of which the model's (Kind.GlobalParams)
	// eb: the empirical prior (Options.EmpiricalPrior, ebprior.go); pA:
	// the pairs' sums of their ranks' prior means of attractiveness this
	// iteration, nImp: their impression weights.
	eb       bool
	pA, nImp []float64
	workers  int
	scr      []*scratch  // per worker, reused
	fz       *factorized // PBM, UBM, PSCM: merged per-rank items
	ill      *itemLL     // PBM, UBM: the log-likelihood's merged items (itemll.go)
	pll      *pscmLL     // factorised PSCM: the log-likelihood's merged items (pscmll.go)
	densDone bool        // aDen and sDen hold their final values
	// keepPrev: the pair M-step first copies the values it replaces to
	// prevAttr and prevSat (fitLoopFused); withLL: iterate adds the
	// training log-likelihood of the values it reads (estepLL).
	keepPrev, withLL  bool
	prevAttr, prevSat []float64
}

// scratch is one worker's buffers.
type scratch struct {
	a, s [MaxSERP]float64
	c    counts
	cnt  [4][MaxSERP]float64
	cond [MaxSERP]float64
	// xNum, xDen, ll: the worker's exact sums since the last collect;
	// gn, gd: the factorised E-step's preparation: a chunk's click and
	// rank counts per global parameter (whole numbers, summed in float64).
	gn, gd     []float64
	xNum, xDen []ExactSum
	ll         ExactSum
	pairBuf    []float64   // factorised E-step: a chunk's pair numerators
	items      []item      // factorised E-step's preparation: a chunk's items
	llItems    []llItem    // newItemLL: a chunk's items,
	llNext     []int32     // their chains by length
	llIndex    []int32     // and their index by (pair, exam, outcome), all -1 between queries
	index      []int32     // and their index by (pair, exam), all -1 between queries
	digamma    digammaMemo // the Gibbs sampler's (gibbs.go)
}

func newScratch(ng int) *scratch {
	sc := &scratch{gn: make([]float64, ng), gd: make([]float64, ng), xNum: make([]ExactSum, ng), xDen: make([]ExactSum, ng)}
	sc.c.aNum, sc.c.aDen, sc.c.sNum, sc.c.sDen = sc.cnt[0][:], sc.cnt[1][:], sc.cnt[2][:], sc.cnt[3][:]
	return sc
}

// parallel runs fn on every chunk with the given number of workers.
func (f *fitter) parallel(ctx context.Context, workers int, fn func(ci int, sc *scratch)) {
	nc := len(f.d.chunks)
	workers = min(workers, nc)
	for len(f.scr) < workers {
		f.scr = append(f.scr, newScratch(f.ng))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := f.scr[w]
			for {
				ci := int(next.Add(1) - 1)
				if ci >= nc || ctx.Err() != nil {
					return
				}
				fn(ci, sc)
			}
		}()
	}
	wg.Wait()
}

// load fills the view of record i with the current parameter values.
func (f *fitter) load(v *view, sc *scratch, i int) {
	d := f.d
	lo, hi := d.recOff[i], d.recOff[i+1]
	n := int(hi - lo)
	pairs := d.recPair[lo:hi]
	v.n, v.clicks, v.R, v.g, v.exact = n, d.recClicks[i], f.R, f.global, f.exact
	v.a, v.s, v.order, v.pscmAuthors = nil, nil, nil, f.pscmAuthors
	switch {
	case len(f.sat) > 0: // DBN, SDBN: one gather for both (attr has sat's length)
		a, s := sc.a[:n], sc.s[:n]
		attr, sat := f.attr, f.sat[:len(f.attr)]
		for r, p := range pairs {
			a[r], s[r] = attr[p], sat[p]
		}
		v.a, v.s = a, s
	case len(f.attr) > 0:
		a, attr := sc.a[:n], f.attr
		for r, p := range pairs {
			a[r] = attr[p]
		}
		v.a = a
	}
}

// iterate runs one E-step and M-step (batch EM: every expected count uses
// the previous iteration's values; PyClick's EMInference). For counting
// models it is the single counting pass.
func (f *fitter) iterate(ctx context.Context, workers int, st *Stats) {
	d := f.d
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		// Prior pseudo-counts: numerator 1, denominator 2. The pair
		// denominators depend on the clicks only (every model's E-step adds
		// a constant per rank: 1, the click, or 1 + the click), so they are
		// accumulated in the first iteration and kept.
		dens := !f.densDone
		for p := ch.pairLo; p < ch.pairHi; p++ {
			if len(f.aNum) > 0 {
				f.aNum[p] = 1
				if f.eb {
					// The empirical prior's numerator is added at the M-step.
					f.aNum[p], f.pA[p] = 0, 0
				}
				if dens {
					f.aDen[p] = 2
				}
			}
			if len(f.sNum) > 0 {
				f.sNum[p] = 1
				if dens {
					f.sDen[p] = 2
				}
			}
		}
		c := &sc.c
		c.gNum, c.gDen = sc.xNum, sc.xDen // estep adds the global counts
		var v view
		withLL := f.withLL
		recLo := ch.recLo
		if f.cascadeScatter(dens) && (!withLL || f.cascadeLL()) {
			// The E-step, the scatter and the log-likelihood (withLL)
			// in one pass over each record.
			for i := ch.recLo; i < ch.recHi; i++ {
				f.estepCascadeScatter(sc, i, withLL)
			}
			recLo, withLL = ch.recHi, false
		}
		if withLL && f.cascadeLL() {
			// The values are the chunk's until its M-step below.
			f.cascadeLLChunk(ch, sc)
			withLL = false
		}
		for i := recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
			if f.kind == PSCM {
				// One E-step per click order of the record.
				d.eachOrder(i, func(order []uint8, w float64) {
					v.order = order
					if withLL {
						f.addLL(&v, sc, w)
					}
					estep(f.kind, &v, w, c)
					f.scatter(c, pairs, w, dens)
				})
				continue
			}
			w := d.recWeight[i]
			if withLL {
				f.addLL(&v, sc, w)
			}
			estep(f.kind, &v, w, c)
			f.scatter(c, pairs, w, dens)
			if f.eb {
				f.priorCounts(c, sc, pairs, w, dens)
			}
		}
		f.keep(ch)
		// M-step for the chunk's own pairs: no other chunk reads them.
		for p := ch.pairLo; p < ch.pairHi; p++ {
			if len(f.attr) > 0 {
				num := f.aNum[p]
				if f.eb {
					num += priorNum(f.pA[p], f.nImp[p])
				}
				f.attr[p] = f.value(num, f.aDen[p])
			}
			if len(f.sat) > 0 {
				f.sat[p] = f.value(f.sNum[p], f.sDen[p])
			}
		}
	})
	f.densDone = true
	f.collect(st)
}

// scatter adds the per-rank counts c of one SERP of weight w, showing
// pairs, to the pairs' counts (the denominators only while dens).
func (f *fitter) scatter(c *counts, pairs []int32, w float64, dens bool) {
	n := len(pairs)
	switch {
	case len(f.sNum) > 0: // DBN, SDBN: one scatter for both (aNum has sNum's length)
		aNum, sNum := f.aNum, f.sNum[:len(f.aNum)]
		ca, cs := c.aNum[:n], c.sNum[:n]
		for r, p := range pairs {
			aNum[p] += w * ca[r]
			sNum[p] += w * cs[r]
		}
		if dens {
			aDen, sDen := f.aDen[:len(aNum)], f.sDen[:len(aNum)]
			ca, cs := c.aDen[:n], c.sDen[:n]
			for r, p := range pairs {
				aDen[p] += w * ca[r]
				sDen[p] += w * cs[r]
			}
		}
	case len(f.aNum) > 0:
		aNum, ca := f.aNum, c.aNum[:n]
		for r, p := range pairs {
			aNum[p] += w * ca[r]
		}
		if dens {
			aDen, ca := f.aDen, c.aDen[:n]
			for r, p := range pairs {
				aDen[p] += w * ca[r]
			}
		}
	}
}

// collect moves the workers' exact sums into st.
func (f *fitter) collect(st *Stats) {
	for _, sc := range f.scr {
		for j := range sc.xNum {
			if j < len(st.Num) { // a pass that drops the empirical prior's sums
				st.Num[j].Merge(&sc.xNum[j])
				st.Den[j].Merge(&sc.xDen[j])
			}
			sc.xNum[j], sc.xDen[j] = ExactSum{}, ExactSum{}
		}
		st.LL.Merge(&sc.ll)
		sc.ll = ExactSum{}
	}
}

// value is a parameter's value from its counts: num/den, capped at 1-1e-6
// for EM parameters (PyClick's ParamEM.value; ParamMLE is not capped).
func (f *fitter) value(num, den float64) float64 {
	v := num / den
	if f.em && v > probMax {
		v = probMax
	}
	return v
}

// trainLL adds to st.LL the log-likelihood of the training SERPs under the
// current values, weighted by SERP, summed exactly.
func (f *fitter) trainLL(ctx context.Context, st *Stats) {
	if f.fz != nil && (f.kind == PBM || f.kind == UBM) {
		f.trainLLItems(ctx, st)
		return
	}
	if f.fz != nil && f.kind == PSCM {
		f.trainLLPSCM(ctx, st)
		return
	}
	d := f.d
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		if f.cascadeLL() {
			f.cascadeLLChunk(ch, sc)
			return
		}
		var v view
		for i := ch.recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			if f.kind == PSCM {
				d.eachOrder(i, func(order []uint8, w float64) {
					v.order = order
					f.addLL(&v, sc, w)
				})
				continue
			}
			f.addLL(&v, sc, d.recWeight[i])
		}
	})
	f.collect(st)
}

// addLL adds w times the log-likelihood of SERP v to the worker's sum.
func (f *fitter) addLL(v *view, sc *scratch, w float64) {
	cond := sc.cond[:v.n]
	clickProbs(f.kind, v, cond, nil)
	if x := w * serpLL(cond); !sc.ll.AddSmall(x) {
		sc.ll.addLarge(x)
	}
}

// keep copies the values of chunk ch's pairs to prevAttr and prevSat
// before the pair M-step replaces them (keepPrev).
func (f *fitter) keep(ch chunk) {
	if !f.keepPrev {
		return
	}
	copy(f.prevAttr[ch.pairLo:ch.pairHi], f.attr[ch.pairLo:ch.pairHi])
	if len(f.sat) > 0 {
		copy(f.prevSat[ch.pairLo:ch.pairHi], f.sat[ch.pairLo:ch.pairHi])
	}
}

// serpLL is the mean over ranks of ln P(c_r | c_<r) (PyClick's
// LogLikelihood, per session), computed as the logarithm of the product of
// the probabilities (by the chain rule, ln P(c) of the SERP) rather than
// as the sum of their logarithms: one logarithm per SERP instead of one
// per rank, which was most of the tolerance's cost (docs/clickmodels.md,
// "Cost of the default estimator"). Factors below 2^-100 (or 0, or NaN)
// are taken one by one, and the product is folded into the sum before it
// could underflow. The two forms differ by rounding only, a few units in
// the last place.
func serpLL(cond []float64) float64 {
	f := serpFold{prod: 1}
	for _, p := range cond {
		f.add(p)
	}
	return f.mean(len(cond))
}

// serpFold is serpLL's running sum of logarithms s and product prod (start
// with prod 1); serpLL and cascadeLLChunk fold their factors with it.
type serpFold struct{ s, prod float64 }

// add takes the factor p in. Small enough to be inlined into the
// log-likelihood's loops; the rare cases go to spill.
func (f *serpFold) add(p float64) {
	if p >= 0x1p-100 {
		if f.prod *= p; !(f.prod < 0x1p-900) { // >= 2^-1000: no underflow
			return
		}
	}
	f.spill(p)
}

// spill is add's rare case: a factor p below 2^-100 (or 0, or NaN) goes
// into the sum by itself; otherwise the product, p already in it, goes
// into the sum before it could underflow.
func (f *serpFold) spill(p float64) {
	if p >= 0x1p-100 {
		f.s += math.Log(f.prod)
		f.prod = 1
		return
	}
	f.s += math.Log(p)
}

// mean is the folded log-likelihood per rank of a SERP of n ranks.
func (f *serpFold) mean(n int) float64 { return (f.s + math.Log(f.prod)) / float64(n) }

// Converged is EM's stopping test under Options.Tolerance: the training
// log-likelihood per SERP changed by less than tol between two iterations.
// Fit and the Beam pipeline's fit both apply it.
func Converged(prevLL, ll, tol float64) bool { return math.Abs(ll-prevLL) < tol }

// MarshalBinary encodes the statistics (count of globals, then each
// ExactSum's encoding: Num, Den, then LL).
func (s *Stats) MarshalBinary() ([]byte, error) {
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(s.Num)))
	add := func(e *ExactSum) {
		b, _ := e.MarshalBinary()
		out = append(out, b...)
	}
	for j := range s.Num {
		add(&s.Num[j])
		add(&s.Den[j])
	}
	add(&s.LL)
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *Stats) UnmarshalBinary(b []byte) error {
	const sz = exactSumBytes
	if len(b) < 4 {
		return fmt.Errorf("click models: stats of %d bytes", len(b))
	}
	ng := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	if len(b) != (2*ng+1)*sz {
		return fmt.Errorf("click models: stats of %d globals need %d bytes, have %d", ng, (2*ng+1)*sz, len(b))
	}
	s.Num, s.Den = make([]ExactSum, ng), make([]ExactSum, ng)
	for j := 0; j < ng; j++ {
		if err := s.Num[j].UnmarshalBinary(b[(2*j)*sz : (2*j+1)*sz]); err != nil {
			return err
		}
		if err := s.Den[j].UnmarshalBinary(b[(2*j+1)*sz : (2*j+2)*sz]); err != nil {
			return err
		}
	}
	return s.LL.UnmarshalBinary(b[2*ng*sz:])
}
