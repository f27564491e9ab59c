package clickmodels

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestFusedLogLikelihood: under the tolerance, a fit held in memory
// computes the training log-likelihood in the E-step's pass and undoes
// the last pair M-step when the test stops EM (fitLoopFused). It must stop
// at the same iteration with the same bits as the separate pass that
// query shards and Beam take (fitLoop without held fitters), for the
// per-SERP E-step (exact DBN, PSCM's authors' steps) and the factorised
// one (UBM, PSCM), both when the tolerance stops EM and at the cap.
func TestFusedLogLikelihood(t *testing.T) {
	log, _, _ := loadReference(t)
	train, _ := Split(log, 0.75)
	d, err := Prepare(train, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type run struct {
		m   *Model
		lls []float64
	}
	fitWith := func(kind Kind, opt Options, fused bool) run {
		var lls []float64
		opt.OnIteration = func(_ int, ll float64) { lls = append(lls, ll) }
		global := filled(kind.GlobalParams(d.ranks), Unseen)
		f := newFitter(ctx, d, kind, opt, global, true)
		var heldFs []*fitter
		if fused {
			heldFs = []*fitter{f}
		}
		done, err := fitLoop(ctx, held([]*fitter{f}), d.ranks, kind, opt, global, kind.Iterations(opt.Iterations, opt.Exact), d.serps, heldFs, nil)
		if err != nil {
			t.Fatal(err)
		}
		return run{f.model(done), lls}
	}
	bitsEqual := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	for _, c := range []struct {
		kind Kind
		opt  Options
	}{
		{DBN, Options{Exact: true, Iterations: 200, Tolerance: 1e-7, Workers: 2}},
		{DBN, Options{Exact: true, Iterations: 5, Tolerance: 1e-300, Workers: 2}}, // the cap
		{UBM, Options{Iterations: 200, Tolerance: 1e-5, Workers: 2}},
		{PSCM, Options{Iterations: 200, Tolerance: 1e-6, Workers: 2}},
		{PSCM, Options{Iterations: 200, Tolerance: 1e-6, Workers: 2, PSCMAuthors: true}},
	} {
		sep, fu := fitWith(c.kind, c.opt, false), fitWith(c.kind, c.opt, true)
		if c.opt.Tolerance > 1e-100 && sep.m.Iterations >= c.opt.Iterations {
			t.Fatalf("%v: the tolerance never stopped EM (%d iterations): the test does not reach the undo", c.kind, sep.m.Iterations)
		}
		if sep.m.Iterations != fu.m.Iterations || !bitsEqual(sep.lls, fu.lls) || len(fu.lls) != fu.m.Iterations {
			t.Errorf("%v %+v: separate pass %d iterations, log-likelihoods %v; fused %d, %v", c.kind, c.opt, sep.m.Iterations, sep.lls, fu.m.Iterations, fu.lls)
			continue
		}
		if !bitsEqual(sep.m.Attr, fu.m.Attr) || !bitsEqual(sep.m.Sat, fu.m.Sat) || !bitsEqual(sep.m.Global, fu.m.Global) {
			t.Errorf("%v: the fused fit's values differ from the separate pass's", c.kind)
		}
	}
}
