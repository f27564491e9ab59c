package clickmodels

import (
	"context"
	"math"
	"slices"
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
	var errFit error // the store's first error in a visit
	// visit calls fn with every fitter and its index, in each's order.
	visit := func(fn func(k int, f *fitter) error) error {
		k := 0
		err := each(func(f *fitter) {
			if errFit == nil {
				errFit = fn(k, f)
			}
			k++
		})
		if err == nil {
			err = errFit
		}
		errFit = nil
		return err
	}
	// restore makes iterate j the pair values again.
	restore := func(j int) error {
		return visit(func(k int, f *fitter) error {
			attr, sat, err := store.Load(k, j)
			copy(f.attr, attr)
			copy(f.sat, sat)
			return err
		})
	}
	load3 := func(k int) (x [3][2][]float64, err error) {
		for j := range x {
			if x[j][0], x[j][1], err = store.Load(k, j); err != nil {
				return x, err
			}
		}
		return x, nil
	}
	g0 := slices.Clone(global)
	var (
		prev *SquaremState
		res  *SquaremPass
	)
	for {
		act := SquaremNext(prev, res, g0, iters, opt.Tolerance)
		st := act.State
		if opt.OnIteration != nil && prev != nil {
			switch {
			case st.Stop && act.From != FromCur:
				opt.OnIteration(st.Done, res.LL) // converged: the values res.LL is of
			case st.Done > prev.Done && prev.Done > 0:
				opt.OnIteration(prev.Done, res.LL) // the values after prev.Done iterations
			}
		}
		var err error
		switch act.From {
		case FromX1, FromX2:
			err = restore(act.From - FromX0)
		case FromX0:
			if prev != nil {
				err = restore(0)
			}
		case FromExtrapolation:
			err = visit(func(k int, f *fitter) error {
				x, err := load3(k)
				Extrapolate(f.attr, x[0][0], x[1][0], x[2][0], act.Step)
				Extrapolate(f.sat, x[0][1], x[1][1], x[2][1], act.Step)
				return err
			})
		}
		if err != nil {
			return st.Done, err
		}
		copy(global, st.Global)
		if st.Stop {
			if act.From == FromCur && opt.OnIteration != nil {
				// The cap: the log-likelihood of the last values.
				stats := newStatsLen(len(global))
				if err := each(func(f *fitter) { f.trainLL(ctx, stats) }); err != nil {
					return st.Done, err
				}
				opt.OnIteration(st.Done, stats.LL.Float64()/float64(serps))
			}
			return st.Done, nil
		}
		// The pass: its values are iterate st.Phase; after a cycle's
		// second pass the values are x2, and the pairs' shares of the
		// norms are summed.
		stats := newStatsLen(len(global))
		res = &SquaremPass{}
		if err := visit(func(k int, f *fitter) error {
			if err := store.Save(k, st.Phase, f.attr, f.sat); err != nil {
				return err
			}
			f.estepLL(ctx, stats)
			if st.Phase == 0 {
				return nil
			}
			if err := store.Save(k, 2, f.attr, f.sat); err != nil {
				return err
			}
			x, err := load3(k)
			SquaremSums(&res.RR, &res.VV, x[0][0], x[1][0], x[2][0])
			SquaremSums(&res.RR, &res.VV, x[0][1], x[1][1], x[2][1])
			return err
		}); err != nil {
			return st.Done, err
		}
		if err := ctx.Err(); err != nil {
			return st.Done, err
		}
		res.LL, res.Global = stats.LL.Float64()/float64(serps), MStepGlobals(kind, stats)
		prev = &st
	}
}

// SquaremState is accelerated EM's state after a pass, which every
// engine computes alike (SquaremNext): fitLoopAccel in memory and out of
// core, and the Beam pipeline's steps, which pass it from one to the
// next.
type SquaremState struct {
	Done int // EM iterations kept
	// Phase is the pass made: 0 from x0, 1 from x1 (0 when Stop).
	Phase int
	// Stop: EM has stopped (the tolerance or the iterations); Global are
	// the final globals.
	Stop bool
	// PrevLL: the log-likelihood x0 is a plain EM step from (NaN: it is
	// not); RefLL: x0 is an extrapolation, kept if its log-likelihood is
	// above this (NaN: it is not); LL0: x0's log-likelihood (phase 1).
	PrevLL, RefLL, LL0 float64
	// Global: the globals the pass read (Stop: the final ones); G: those
	// of x0, x1 and x2.
	Global []float64
	G      [3][]float64
}

// Where a SquaremAction's pass starts, or, when its state stops, the
// values EM returns (the order is the Beam pipeline's, which names the
// values by these indices).
const (
	FromCur           = iota // the values the last pass left
	FromX0                   // x0
	FromX1                   // x1
	FromX2                   // x2
	FromExtrapolation        // SQUAREM's extrapolation from x0, x1, x2 with the step length
)

// SquaremAction is what accelerated EM does next: the state of its next
// pass (Stop: none), where the pass starts, and the step length of an
// extrapolation.
type SquaremAction struct {
	State SquaremState
	From  int
	Step  float64
}

// SquaremPass is a pass summed over every fitter or shard: the
// log-likelihood per training SERP of the values it read, the globals'
// M-step, and, after a cycle's second pass, the pairs' shares of the
// norms (SquaremSums over x0, x1 and x2 = the values it left).
type SquaremPass struct {
	LL     float64
	Global []float64
	RR, VV ExactSum
}

// SquaremNext is accelerated EM's decision after a pass (fitLoopAccel's
// doc comment gives the scheme): prev is the state the pass was made in
// (nil: none yet, the first pass from the initial values, globals g0), res
// the pass, iters the iterations allowed and tol the tolerance. After a
// pass from x0: the tolerance's stop (back to x0), the safeguard (x0 was
// an extrapolation no better than x1: a pass from x2), or one iteration
// more and the pass from x1 = the values left; after a pass from x1: the
// stop (back to x1), or one iteration more, then the step length over
// every value (the globals' share added here) and a pass from x2 (a >=
// -1) or from the extrapolation. Every engine calls it, so their
// iterates are the same bits.
func SquaremNext(prev *SquaremState, res *SquaremPass, g0 []float64, iters int, tol float64) SquaremAction {
	if prev == nil {
		st := SquaremState{PrevLL: math.NaN(), RefLL: math.NaN(), LL0: math.NaN(), Global: g0}
		st.G[0] = g0
		return SquaremAction{State: st, From: FromX0}
	}
	st := *prev
	if st.Stop {
		return SquaremAction{State: st, From: FromCur}
	}
	stop := func(from int, g []float64) SquaremAction {
		st.Stop, st.Phase, st.Global = true, 0, g
		return SquaremAction{State: st, From: from}
	}
	if st.Phase == 0 {
		ll0 := res.LL
		switch {
		case !math.IsNaN(st.PrevLL) && Converged(st.PrevLL, ll0, tol):
			return stop(FromX0, st.G[0])
		case !math.IsNaN(st.RefLL) && !(ll0 > st.RefLL):
			// The safeguard: back to x2, a plain EM step from x1, whose
			// log-likelihood RefLL is.
			st.PrevLL, st.RefLL = st.RefLL, math.NaN()
			st.G[0], st.Global = st.G[2], st.G[2]
			return SquaremAction{State: st, From: FromX2}
		}
		st.Done++
		if st.Done == iters {
			return stop(FromCur, res.Global)
		}
		st.Phase, st.LL0 = 1, ll0
		st.G[1], st.Global = res.Global, res.Global
		return SquaremAction{State: st, From: FromCur}
	}
	ll1 := res.LL
	if Converged(st.LL0, ll1, tol) {
		return stop(FromX1, st.G[1])
	}
	st.Done++
	st.PrevLL, st.RefLL = ll1, math.NaN()
	if st.Done == iters {
		return stop(FromCur, res.Global)
	}
	st.Phase, st.G[2] = 0, res.Global
	rr, vv := res.RR, res.VV
	SquaremSums(&rr, &vv, st.G[0], st.G[1], st.G[2])
	a := SquaremStep(&rr, &vv)
	if a >= -1 {
		st.G[0], st.Global = st.G[2], st.G[2] // x' = x2: plain EM
		return SquaremAction{State: st, From: FromX2}
	}
	x := make([]float64, len(st.G[0]))
	Extrapolate(x, st.G[0], st.G[1], st.G[2], a)
	st.G[0], st.Global = x, x
	st.PrevLL, st.RefLL = math.NaN(), ll1
	return SquaremAction{State: st, From: FromExtrapolation, Step: a}
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
	x1, x2 = x1[:len(x0)], x2[:len(x0)]
	for i := range x0 {
		r, v := (x1[i]-x0[i])*0x1p26, (x2[i]-2*x1[i]+x0[i])*0x1p26
		// ExactSum.Add, inlined.
		if r2 := r * r; !rr.AddSmall(r2) {
			rr.addLarge(r2)
		}
		if v2 := v * v; !vv.AddSmall(v2) {
			vv.addLarge(v2)
		}
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
