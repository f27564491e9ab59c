package clickmodels

import (
	"context"
	"fmt"
	"math"
	"runtime"
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
	// Workers is the number of goroutines (default GOMAXPROCS). Results do
	// not depend on it.
	Workers int
	// Exact makes DBN use the exact E-step of Chuklin et al. (2015, section
	// 4.2), conditioning every posterior on all clicks of the SERP, instead
	// of PyClick's (which uses unconditional examination probabilities for
	// attractiveness, gives SERPs without clicks no attractiveness mass, and
	// misaligns the tail in the continuation update). PyClick's E-step is
	// the default so that results equal PyClick's; the exact one recovers
	// simulated parameters better. Other models ignore it.
	Exact bool
	// OnIteration, if set, is called after every EM iteration with the
	// number of iterations done and the training log-likelihood (NaN when
	// Tolerance is 0, as it is then not computed).
	OnIteration func(iteration int, trainLL float64)
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

// fit is Fit; factorize selects the per-rank E-step of PBM and UBM (false:
// the per-SERP one, used by tests to cross-check them).
func fit(ctx context.Context, d *Data, kind Kind, opt Options, factorize bool) (*Model, error) {
	if kind < 0 || kind >= numKinds {
		return nil, fmt.Errorf("click models: unknown model %v", kind)
	}
	iters := opt.Iterations
	if iters <= 0 {
		iters = DefaultIterations
	}
	if !kind.EM() {
		iters = 1
	}
	R := d.ranks
	np := d.Pairs()
	f := &fitter{d: d, kind: kind, R: R, em: kind.EM(), exact: opt.Exact && kind == DBN}
	nPair := kind.pairParams()
	f.attr = filled(np*b2i(nPair >= 1), Unseen)
	f.sat = filled(np*b2i(nPair >= 2), Unseen)
	f.aNum, f.aDen = make([]float64, len(f.attr)), make([]float64, len(f.attr))
	f.sNum, f.sDen = make([]float64, len(f.sat)), make([]float64, len(f.sat))
	ng := kind.globalParams(R)
	f.global = filled(ng, Unseen)
	f.gNum = make([][]float64, len(d.chunks))
	f.gDen = make([][]float64, len(d.chunks))
	for i := range d.chunks {
		f.gNum[i] = make([]float64, ng)
		f.gDen[i] = make([]float64, ng)
	}
	f.ll = make([]float64, len(d.chunks))

	workers := opt.workers()
	if factorize && (kind == PBM || kind == UBM) {
		f.fz = newFactorized(ctx, d, kind, workers)
	}
	done := 0
	prevLL := math.NaN()
	if opt.Tolerance > 0 && f.em {
		prevLL = f.trainLL(ctx, workers)
	}
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.fz != nil {
			f.iterateFactorized(ctx, workers)
		} else {
			f.iterate(ctx, workers)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		done++
		ll := math.NaN()
		if opt.Tolerance > 0 && f.em {
			ll = f.trainLL(ctx, workers)
		}
		if opt.OnIteration != nil {
			opt.OnIteration(done, ll)
		}
		if opt.Tolerance > 0 && f.em && math.Abs(ll-prevLL) < opt.Tolerance {
			break
		}
		prevLL = ll
	}
	m := &Model{
		Kind: kind, Ranks: R, Iterations: done, Exact: f.exact,
		QueryNames: d.log.Queries.Names, DocNames: d.log.Docs.Names,
		PairQuery: d.pairQuery, PairDoc: d.pairDoc,
		Global: f.global,
	}
	if nPair >= 1 {
		m.Attr = f.attr
	}
	if nPair >= 2 {
		m.Sat = f.sat
	}
	return m, nil
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
	em    bool
	exact bool

	attr, sat              []float64 // current values per pair
	aNum, aDen, sNum, sDen []float64 // expected counts per pair (this iteration)
	global                 []float64
	gNum, gDen             [][]float64 // per chunk
	ll                     []float64   // per chunk: weighted sum of SERP log-likelihoods
	fz                     *factorized // PBM and UBM: merged per-rank items
	densDone               bool        // aDen and sDen hold their final values
}

// scratch is one worker's buffers.
type scratch struct {
	a, s [MaxSERP]float64
	c    counts
	cnt  [4][MaxSERP]float64
	cond [MaxSERP]float64
}

func newScratch() *scratch {
	sc := &scratch{}
	sc.c.aNum, sc.c.aDen, sc.c.sNum, sc.c.sDen = sc.cnt[0][:], sc.cnt[1][:], sc.cnt[2][:], sc.cnt[3][:]
	return sc
}

// parallel runs fn on every chunk with the given number of workers.
func (f *fitter) parallel(ctx context.Context, workers int, fn func(ci int, sc *scratch)) {
	nc := len(f.d.chunks)
	workers = min(workers, nc)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newScratch()
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
	v.a, v.s = nil, nil
	if len(f.attr) > 0 {
		v.a = sc.a[:n]
		for r, p := range pairs {
			v.a[r] = f.attr[p]
		}
	}
	if len(f.sat) > 0 {
		v.s = sc.s[:n]
		for r, p := range pairs {
			v.s[r] = f.sat[p]
		}
	}
}

// iterate runs one E-step and M-step (batch EM: every expected count uses
// the previous iteration's values; PyClick's EMInference). For counting
// models it is the single counting pass.
func (f *fitter) iterate(ctx context.Context, workers int) {
	d := f.d
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		gNum, gDen := f.gNum[ci], f.gDen[ci]
		clear(gNum)
		clear(gDen)
		// Prior pseudo-counts: numerator 1, denominator 2. The pair
		// denominators depend on the clicks only (every model's E-step adds
		// a constant per rank: 1, the click, or 1 + the click), so they are
		// accumulated in the first iteration and kept.
		dens := !f.densDone
		for p := ch.pairLo; p < ch.pairHi; p++ {
			if len(f.aNum) > 0 {
				f.aNum[p] = 1
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
		c.gNum, c.gDen = gNum, gDen
		var v view
		for i := ch.recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			w := d.recWeight[i]
			estep(f.kind, &v, w, c)
			pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
			if len(f.aNum) > 0 {
				for r, p := range pairs {
					f.aNum[p] += w * c.aNum[r]
				}
				if dens {
					for r, p := range pairs {
						f.aDen[p] += w * c.aDen[r]
					}
				}
			}
			if len(f.sNum) > 0 {
				for r, p := range pairs {
					f.sNum[p] += w * c.sNum[r]
				}
				if dens {
					for r, p := range pairs {
						f.sDen[p] += w * c.sDen[r]
					}
				}
			}
		}
		// M-step for the chunk's own pairs: no other chunk reads them.
		for p := ch.pairLo; p < ch.pairHi; p++ {
			if len(f.attr) > 0 {
				f.attr[p] = f.value(f.aNum[p], f.aDen[p])
			}
			if len(f.sat) > 0 {
				f.sat[p] = f.value(f.sNum[p], f.sDen[p])
			}
		}
	})
	f.densDone = true
	// Global parameters: prior plus the chunks' counts in chunk order.
	for j := range f.global {
		num, den := 0.0, 0.0
		for ci := range d.chunks {
			num += f.gNum[ci][j]
			den += f.gDen[ci][j]
		}
		f.global[j] = f.value(1+num, 2+den)
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

// trainLL is the log-likelihood of the training SERPs under the current
// values, weighted by SERP, summed per chunk and reduced in chunk order.
func (f *fitter) trainLL(ctx context.Context, workers int) float64 {
	d := f.d
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		var v view
		sum := 0.0
		for i := ch.recLo; i < ch.recHi; i++ {
			f.load(&v, sc, i)
			cond := sc.cond[:v.n]
			clickProbs(f.kind, &v, cond, nil)
			sum += d.recWeight[i] * serpLL(cond)
		}
		f.ll[ci] = sum
	})
	total := 0.0
	for _, s := range f.ll {
		total += s
	}
	return total / float64(d.serps)
}

// serpLL is the mean over ranks of ln P(c_r | c_<r) (PyClick's
// LogLikelihood, per session).
func serpLL(cond []float64) float64 {
	s := 0.0
	for _, p := range cond {
		s += math.Log(p)
	}
	return s / float64(len(cond))
}
