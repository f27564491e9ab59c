package clickmodels_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// scaleFree returns what a log identifies of m: for UBM, whose
// attractiveness and examination fit equally well as (a c, e / c), the
// examination values over e[0][none] and the attractiveness times
// e[0][none]; for the other models every value.
func scaleFree(m *clickmodels.Model) []float64 {
	if m.Kind != clickmodels.UBM {
		return append(append(append([]float64(nil), m.Global...), m.Attr...), m.Sat...)
	}
	e0 := m.Global[m.Ranks-1]
	var out []float64
	for _, e := range m.Global {
		out = append(out, e/e0)
	}
	for _, a := range m.Attr {
		out = append(out, a*e0)
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestAccelerate checks Options.Accelerate on logs drawn from UBM and DBN
// (10,000 SERPs, 100 queries, 30% of lists shuffled): under the default
// estimator's tolerance the accelerated fit stops in at most a third of
// plain EM's iterations (measured: UBM 31 against 165, DBN 27 against
// 104), and what it stops at is as close to the limit of plain EM (plain
// EM run to a tolerance of 1e-13) as plain EM's own answer under the same
// tolerance: within twice plain EM's distance and 0.005 (measured: UBM
// 0.0021 against 0.0023, DBN 0.0029 against 0.0067; the largest differences are the examination
// values of rare (rank, previous click) cells). For UBM the comparison is
// on the scale-free quantities, the scale being one the log cannot
// identify. One worker gives the same bits as two.
func TestAccelerate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, kind := range []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN} {
		src, err := sim.NewSyntheticSource(synthCfg(100, 0.3, 7))
		if err != nil {
			t.Fatal(err)
		}
		log, _, err := sim.SimulateLog(ctx, sim.Config{Kind: kind, SERPs: 10_000, Seed: 11, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		d, err := clickmodels.Prepare(log, 0)
		if err != nil {
			t.Fatal(err)
		}
		fitWith := func(opt clickmodels.Options) *clickmodels.Model {
			opt.NoIntervals = true
			if opt.Workers == 0 {
				opt.Workers = 2
			}
			m, err := clickmodels.Fit(ctx, d, kind, opt)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		// Plain EM is the default estimator with Accelerate off (fit
		// --accelerate=false); the default accelerates.
		plainOpt := clickmodels.EstimatorExact.Options()
		plainOpt.Accelerate = false
		limitOpt := plainOpt
		limitOpt.Tolerance, limitOpt.Iterations = 1e-13, 5000
		limit := fitWith(limitOpt)
		plain := fitWith(plainOpt)
		accOpt := clickmodels.EstimatorExact.Options()
		if !accOpt.Accelerate {
			t.Fatal("the default estimator does not accelerate EM")
		}
		acc := fitWith(accOpt)
		accOpt.Workers = 1
		if one := fitWith(accOpt); !slices.Equal(one.Global, acc.Global) || !slices.Equal(one.Attr, acc.Attr) || !slices.Equal(one.Sat, acc.Sat) {
			t.Errorf("%v: the accelerated fit differs between 1 and 2 workers", kind)
		}
		if limit.Iterations >= limitOpt.Iterations {
			t.Fatalf("%v: plain EM did not reach a tolerance of 1e-13 in %d iterations", kind, limit.Iterations)
		}
		if 3*acc.Iterations > plain.Iterations {
			t.Errorf("%v: accelerated EM took %d iterations, plain EM %d: want at most a third", kind, acc.Iterations, plain.Iterations)
		}
		want := scaleFree(limit)
		dPlain, dAcc := maxAbsDiff(scaleFree(plain), want), maxAbsDiff(scaleFree(acc), want)
		if dAcc > max(2*dPlain, 1e-9) || dAcc > 0.005 {
			t.Errorf("%v: accelerated fit %.3g from the limit of EM, plain EM under the same tolerance %.3g", kind, dAcc, dPlain)
		}
		t.Logf("%v: iterations plain %d, accelerated %d, to the limit (%d): %.3g and %.3g", kind, plain.Iterations, acc.Iterations, limit.Iterations, dPlain, dAcc)
	}
}
