package clickmodels

import (
	"context"
	"math"
)

// accelHist is one fitter's pair values at the three EM iterates of an
// accelerated cycle (fitLoopAccel): x0, x1 = M(x0), x2 = M(x1), each as
// attractiveness then satisfaction.
type accelHist struct {
	attr, sat [3][]float64
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
// in each's order (three copies of the pair values, in memory, spilled
// shards' too); the norms are exact sums (ExactSum), so a is the same
// bits whatever the fitters (in-core, query shards, spilled or not), and
// the extrapolation is per value, which keeps every engine's results
// identical.
func fitLoopAccel(ctx context.Context, each func(fn func(*fitter)) error, R int, kind Kind, opt Options, global []float64, iters, serps int) (int, error) {
	var (
		hist []*accelHist
		gh   [3][]float64
	)
	// visit calls fn with every fitter and its history, in each's order.
	visit := func(fn func(h *accelHist, f *fitter)) error {
		k := 0
		return each(func(f *fitter) {
			if k == len(hist) {
				hist = append(hist, &accelHist{})
			}
			fn(hist[k], f)
			k++
		})
	}
	save := func(j int) func(h *accelHist, f *fitter) {
		return func(h *accelHist, f *fitter) {
			h.attr[j] = append(h.attr[j][:0], f.attr...)
			h.sat[j] = append(h.sat[j][:0], f.sat...)
		}
	}
	// restore makes x_j the values again.
	restore := func(j int) error {
		copy(global, gh[j])
		return visit(func(h *accelHist, f *fitter) {
			copy(f.attr, h.attr[j])
			copy(f.sat, h.sat[j])
		})
	}
	done := 0
	// pass saves the values as x_j, runs the E-step and pair M-step from
	// them and returns their log-likelihood and the globals' M-step.
	pass := func(j int) (float64, []float64, error) {
		gh[j] = append(gh[j][:0], global...)
		st := NewStats(kind, R)
		if err := visit(func(h *accelHist, f *fitter) {
			save(j)(h, f)
			f.estepLL(ctx, st)
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
		a := squaremStep(hist, gh)
		if a >= -1 {
			continue // x' = x2: plain EM
		}
		extrapolate(global, gh, a)
		if err := visit(func(h *accelHist, f *fitter) {
			extrapolate(f.attr, h.attr, a)
			extrapolate(f.sat, h.sat, a)
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

// squaremStep is SqS3's step length (SquaremStep) for the pair values
// hist and global values g of x0, x1, x2.
func squaremStep(hist []*accelHist, g [3][]float64) float64 {
	var rr, vv ExactSum
	SquaremSums(&rr, &vv, g[0], g[1], g[2])
	for _, h := range hist {
		SquaremSums(&rr, &vv, h.attr[0], h.attr[1], h.attr[2])
		SquaremSums(&rr, &vv, h.sat[0], h.sat[1], h.sat[2])
	}
	return SquaremStep(&rr, &vv)
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

// extrapolate is Extrapolate on the iterates h = x0, x1, x2.
func extrapolate(x []float64, h [3][]float64, a float64) { Extrapolate(x, h[0], h[1], h[2], a) }

// Extrapolate sets x to SQUAREM's x0 - 2 a r + a^2 v (Varadhan and
// Roland 2008, equation 7), r = x1 - x0, v = x2 - 2 x1 + x0, value by
// value, kept in [1 - probMax, probMax].
func Extrapolate(x, x0, x1, x2 []float64, a float64) {
	for i := range x {
		r, v := x1[i]-x0[i], x2[i]-2*x1[i]+x0[i]
		x[i] = min(max(x0[i]-2*a*r+a*a*v, 1-probMax), probMax)
	}
}
