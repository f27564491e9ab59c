package clickmodels

import (
	"context"
	"math"
)

// IterateStore keeps the pair values of accelerated EM's iterates
// (fitLoopAccel): per fitter (the k-th that fitLoop's each yields) the
// values at x0, x1 = M(x0) and x2 = M(x1) of the current cycle (j = 0, 1,
// 2), each as attractiveness then satisfaction. FitShards takes one, so
// that out of core the three copies stay within the memory budget
// (outofcore's spills them to files beyond it); nil keeps them in memory.
type IterateStore interface {
	// Save keeps a copy of attr and sat as iterate j of fitter k.
	Save(k, j int, attr, sat []float64) error
	// Load returns iterate j of fitter k, which the caller only reads.
	Load(k, j int) (attr, sat []float64, err error)
}

// memIterates is the IterateStore in memory.
type memIterates struct{ attr, sat [][3][]float64 }

func (m *memIterates) Save(k, j int, attr, sat []float64) error {
	for k >= len(m.attr) {
		m.attr, m.sat = append(m.attr, [3][]float64{}), append(m.sat, [3][]float64{})
	}
	m.attr[k][j] = append(m.attr[k][j][:0], attr...)
	m.sat[k][j] = append(m.sat[k][j][:0], sat...)
	return nil
}

func (m *memIterates) Load(k, j int) ([]float64, []float64, error) {
	return m.attr[k][j], m.sat[k][j], nil
}

// fitLoopAccel is fitLoop under Options.Accelerate (with a tolerance, for
// an EM model): EM accelerated by SQUAREM's squared extrapolation
// (Varadhan and Roland 2008, scheme SqS3, with a monotone safeguard as in
// their section 6). A cycle from x0 makes two plain EM steps, x1 = M(x0)
// and x2 = M(x1), then, with r = x1 - x0, v = x2 - x1 - r and the step
// length a = -|r|/|v| (their equation 9, SqS3; a >= -1 is plain EM),
// moves to x' = x0 - 2 a r + a^2 v (their equation 7) with every value
// kept in [1 - probMax, probMax], where the next cycle starts. Every pass
// over the records is an E-step that also computes the training
// log-likelihood of the values it reads (fitter.estepLL): the pass from
// x' gives its log-likelihood, and if that is not above x1's the
// extrapolation is undone and the cycle starts from x2 instead (the
// safeguard; the log-likelihood is the quantity the stopping rule
// watches: the log-likelihood plus the log-density of the values' Beta(2,
// 2) prior is not what exact DBN's EM ascends, it falls over plain EM
// steps on a log drawn from DBN while the log-likelihood rises).
//
// The stopping rule is plain EM's, applied to plain steps only: EM stops
// at the first M(x) whose log-likelihood differs from x's by less than
// the tolerance (the pass from M(x) that finds it is undone, as in
// fitLoopFused), so what it returns meets the same test as plain EM's
// answer. Iterations (the return value, Model.Iterations, OnIteration)
// count the E-steps kept.
//
// The vector x is every pair value (attractiveness, satisfaction) of
// every fitter and every global value. The iterates are kept per fitter
// in each's order, in store (three copies of the pair values; nil: in
// memory); the norms are exact sums (ExactSum), so a is the same
// bits whatever the fitters (in-core, query shards, spilled or not), and
// the extrapolation is per value, which keeps every engine's results
// identical.
func fitLoopAccel(ctx context.Context, each func(fn func(*fitter)) error, R int, kind Kind, opt Options, global []float64, iters, serps int, store IterateStore) (int, error) {
	if store == nil {
		store = &memIterates{}
	}
	var (
		gh     [3][]float64
		nf     int   // fitters
		errFit error // the store's first error in a visit
	)
	// visit calls fn with every fitter and its index, in each's order.
	visit := func(fn func(k int, f *fitter) error) error {
		k := 0
		err := each(func(f *fitter) {
			if errFit == nil {
				errFit = fn(k, f)
			}
			k++
		})
		nf = k
		if err == nil {
			err = errFit
		}
		errFit = nil
		return err
	}
	save := func(j int) func(k int, f *fitter) error {
		return func(k int, f *fitter) error { return store.Save(k, j, f.attr, f.sat) }
	}
	// restore makes x_j the values again.
	restore := func(j int) error {
		copy(global, gh[j])
		return visit(func(k int, f *fitter) error {
			attr, sat, err := store.Load(k, j)
			copy(f.attr, attr)
			copy(f.sat, sat)
			return err
		})
	}
	done := 0
	// pass saves the values as x_j, runs the E-step and pair M-step from
	// them and returns their log-likelihood and the globals' M-step.
	pass := func(j int) (float64, []float64, error) {
		gh[j] = append(gh[j][:0], global...)
		st := NewStats(kind, R)
		if err := visit(func(k int, f *fitter) error {
			if err := save(j)(k, f); err != nil {
				return err
			}
			f.estepLL(ctx, st)
			return nil
		}); err != nil {
			return 0, nil, err
		}
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		return st.LL.Float64() / float64(serps), MStepGlobals(kind, st), nil
	}
	// advance keeps a pass: the globals' M-step, one iteration more.
	advance := func(g []float64, ll float64) {
		copy(global, g)
		if done > 0 && opt.OnIteration != nil {
			opt.OnIteration(done, ll) // the values after done iterations
		}
		done++
	}
	prevLL := math.NaN() // x0 is a plain EM step from values of this log-likelihood (NaN: it is not)
	refLL := math.NaN()  // x0 is an extrapolation, kept if its log-likelihood is above this
	for done < iters {
		ll0, g, err := pass(0)
		if err != nil {
			return done, err
		}
		switch {
		case !math.IsNaN(prevLL) && Converged(prevLL, ll0, opt.Tolerance):
			if opt.OnIteration != nil {
				opt.OnIteration(done, ll0)
			}
			return done, restore(0)
		case !math.IsNaN(refLL) && !(ll0 > refLL):
			// The safeguard: back to x2, a plain EM step from x1, whose
			// log-likelihood refLL is.
			if err := restore(2); err != nil {
				return done, err
			}
			prevLL, refLL = refLL, math.NaN()
			continue
		}
		advance(g, ll0)
		if done == iters {
			break
		}
		ll1, g, err := pass(1)
		if err != nil {
			return done, err
		}
		if Converged(ll0, ll1, opt.Tolerance) {
			if opt.OnIteration != nil {
				opt.OnIteration(done, ll1)
			}
			return done, restore(1)
		}
		advance(g, ll1)
		prevLL, refLL = ll1, math.NaN()
		if done == iters {
			break
		}
		gh[2] = append(gh[2][:0], global...)
		if err := visit(save(2)); err != nil {
			return done, err
		}
		a, err := squaremStep(store, nf, gh)
		if err != nil {
			return done, err
		}
		if a >= -1 {
			continue // x' = x2: plain EM
		}
		Extrapolate(global, gh[0], gh[1], gh[2], a)
		if err := visit(func(k int, f *fitter) error {
			var x [3][2][]float64
			for j := range x {
				var err error
				if x[j][0], x[j][1], err = store.Load(k, j); err != nil {
					return err
				}
			}
			Extrapolate(f.attr, x[0][0], x[1][0], x[2][0], a)
			Extrapolate(f.sat, x[0][1], x[1][1], x[2][1], a)
			return nil
		}); err != nil {
			return done, err
		}
		prevLL, refLL = math.NaN(), ll1
	}
	// The cap: the log-likelihood of the last values, for OnIteration.
	if opt.OnIteration != nil {
		st := NewStats(kind, R)
		if err := each(func(f *fitter) { f.trainLL(ctx, st) }); err != nil {
			return done, err
		}
		opt.OnIteration(done, st.LL.Float64()/float64(serps))
	}
	return done, nil
}

// squaremStep is SqS3's step length (SquaremStep) for the pair values of
// the nf fitters in store and the global values g of x0, x1, x2.
func squaremStep(store IterateStore, nf int, g [3][]float64) (float64, error) {
	var rr, vv ExactSum
	SquaremSums(&rr, &vv, g[0], g[1], g[2])
	for k := range nf {
		var x [3][2][]float64
		for j := range x {
			var err error
			if x[j][0], x[j][1], err = store.Load(k, j); err != nil {
				return 0, err
			}
		}
		SquaremSums(&rr, &vv, x[0][0], x[1][0], x[2][0])
		SquaremSums(&rr, &vv, x[0][1], x[1][1], x[2][1])
	}
	return SquaremStep(&rr, &vv), nil
}

// SquaremSums adds, for the values x0, x1 and x2 = M(x1), x1 = M(x0) of
// an accelerated EM cycle, the squares of r = x1 - x0 to rr and those of
// v = x2 - 2 x1 + x0 to vv (Varadhan and Roland 2008, equation 9's
// norms). The squares are scaled by 2^52 (a difference is at most 1, so a
// scaled square at most 2^52, and one of 2^-26 still counts 2^-52 before
// the scaling: every difference above 1.5e-8 keeps its square's leading
// bits) and summed exactly (ExactSum), so sums over any split of the
// values among fitters, shards or workers, merged in any order, are the
// same bits. fit --accelerate's loop and the Beam pipeline's steps share
// it.
func SquaremSums(rr, vv *ExactSum, x0, x1, x2 []float64) {
	for i := range x0 {
		r, v := (x1[i]-x0[i])*0x1p26, (x2[i]-2*x1[i]+x0[i])*0x1p26
		rr.Add(r * r)
		vv.Add(v * v)
	}
}

// SquaremStep is SqS3's step length -|r|/|v| (Varadhan and Roland 2008,
// equation 9) from the sums SquaremSums made over every value, at most
// -1; -1 (plain EM) when v is 0.
func SquaremStep(rr, vv *ExactSum) float64 {
	nv := vv.Float64()
	if nv == 0 {
		return -1
	}
	return min(-math.Sqrt(rr.Float64()/nv), -1)
}

// Extrapolate sets x to SQUAREM's x0 - 2 a r + a^2 v (Varadhan and
// Roland 2008, equation 7), r = x1 - x0, v = x2 - 2 x1 + x0, value by
// value, kept in [1 - probMax, probMax].
func Extrapolate(x, x0, x1, x2 []float64, a float64) {
	for i := range x {
		r, v := x1[i]-x0[i], x2[i]-2*x1[i]+x0[i]
		x[i] = min(max(x0[i]-2*a*r+a*a*v, 1-probMax), probMax)
	}
}
