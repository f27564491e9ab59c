package clickmodels_test

import (
	"context"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// consistency is the error of a fit against the truth it was drawn from:
// global is the mean absolute error of the global parameters (0 for a
// model without one; the mean, not the largest, since the deep ranks'
// parameters of RCTR, PBM, UBM and DCM rest on few clicks), mae the mean absolute error of the relevance of the
// best-observed tenth of the pairs (most impressions), bias their mean
// signed error and se the standard error of that mean (the errors' standard
// deviation over the square root of their number).
type consistency struct{ global, mae, bias, se float64 }

// consistencyErrors fits kind with est on n SERPs drawn from kind (200
// queries, 30% of lists shuffled; click-less SERPs kept, as the simulator
// writes them) and returns its errors. PBM's and UBM's attractiveness and
// examination are identified only up to a scale (a c, e / c), so for them
// both are scale-free: the examination ratios e[r] / e[0] (UBM: without a
// previous click; mean absolute error) and the products a x e[0] (the
// probability that the pair is clicked at rank 1). GCTR and RCTR have no
// pair parameter: their pairs' errors are 0.
func consistencyErrors(t *testing.T, kind clickmodels.Kind, n int, est clickmodels.Estimator, eb bool) consistency {
	t.Helper()
	src, err := sim.NewSyntheticSource(synthCfg(200, 0.3, 7))
	if err != nil {
		t.Fatal(err)
	}
	log, truth, err := sim.SimulateLog(context.Background(), sim.Config{Kind: kind, SERPs: n, Seed: 11, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := est.Options()
	opt.NoIntervals = true
	opt.EmpiricalPrior = opt.EmpiricalPrior || eb
	m, err := clickmodels.Fit(context.Background(), d, kind, opt)
	if err != nil {
		t.Fatal(err)
	}
	R := m.Ranks
	var c consistency
	scale := func(mm *clickmodels.Model) float64 { return 1 }
	switch kind {
	case clickmodels.PBM, clickmodels.UBM:
		exam := func(mm *clickmodels.Model, r int) float64 { return mm.Global[r] }
		if kind == clickmodels.UBM {
			exam = func(mm *clickmodels.Model, r int) float64 { return mm.Global[r*R+R-1] }
		}
		for r := 1; r < R; r++ {
			c.global += math.Abs(exam(m, r)/exam(m, 0)-exam(truth, r)/exam(truth, 0)) / float64(R-1)
		}
		scale = func(mm *clickmodels.Model) float64 { return exam(mm, 0) }
	default:
		// GCTR, RCTR, DCM, DBN, CCM; none for DCTR, CM and SDBN (whose
		// continuation is 1 by definition). DCM's lambda at the last rank
		// is not identified by lists of that length (whether the user
		// would go on after a click there is never seen): it keeps the
		// prior and is left out.
		ng := len(m.Global)
		if kind == clickmodels.DCM {
			ng = R - 1
		}
		for j, g := range m.Global[:ng] {
			c.global += math.Abs(g-truth.Global[j]) / float64(ng)
		}
	}
	if kind == clickmodels.GCTR || kind == clickmodels.RCTR {
		return c
	}
	type pe struct {
		n   int
		err float64
	}
	var ps []pe
	for k, cnt := range impressions(log) {
		p, tp := m.Pair(k[0], k[1]), truth.Pair(k[0], k[1])
		if p < 0 || tp < 0 {
			continue
		}
		ps = append(ps, pe{cnt, m.PairRelevance(p)*scale(m) - truth.PairRelevance(tp)*scale(truth)})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].n > ps[j].n || (ps[i].n == ps[j].n && ps[i].err < ps[j].err) })
	top := ps[:len(ps)/10]
	var sq float64
	for _, x := range top {
		c.mae += math.Abs(x.err)
		c.bias += x.err
		sq += x.err * x.err
	}
	k := float64(len(top))
	c.mae /= k
	c.bias /= k
	c.se = math.Sqrt(max(sq/k-c.bias*c.bias, 0) / k)
	return c
}

// consistencyKinds are the models TestConsistency draws logs from: every
// model the simulator (clickmodels/sim) can draw clicks from, so all but
// PSCM (whose clicks come in time order, which the simulator does not
// draw).
var consistencyKinds = []clickmodels.Kind{
	clickmodels.GCTR, clickmodels.RCTR, clickmodels.DCTR, clickmodels.PBM, clickmodels.CM, clickmodels.UBM,
	clickmodels.SDBN, clickmodels.DBN, clickmodels.DCM, clickmodels.CCM,
}

// consistencyBounds are the largest errors (global, best-observed pairs)
// TestConsistency accepts at its largest size: half of PyClick's biases
// measured on the same 100,000 SERPs, which a consistent estimator, whose
// error there is sampling error only, must halve. PyClick's DBN misses the
// continuation by 0.039 and the best-observed relevance by 0.089 on
// average: 0.019 and 0.044, the bounds of every model whose PyClick
// estimate is unbiased (there is no bias of its own to halve) or less
// biased (SDBN: pairs 0.036; DCM: continuations 0.057, pairs 0.032).
// PyClick's CCM misses its continuations by 0.094 on average and the
// relevance by 0.187: 0.047 and 0.093 (CCM's relevance, a squared, is the
// hardest to estimate: exact CCM's error at 100,000 SERPs is 0.048).
func consistencyBounds(kind clickmodels.Kind) (global, pairs float64) {
	if kind == clickmodels.CCM {
		return 0.047, 0.093
	}
	return 0.019, 0.044
}

// TestConsistency checks that the default estimator is consistent for
// every model the simulator draws: on logs drawn from the model, the
// errors go to 0 as the log grows, from 10,000 to 100,000 SERPs (and
// 1,000,000 with LOVBENCH_CONSISTENCY_1M=1). At every size after the
// first:
//
//   - the global parameters' error falls;
//   - the best-observed pairs' MAE falls by at least half: sampling error
//     falls as one over the square root of the log's size, by 3.16 from
//     one size to the next, while a bias, which more data does not
//     shrink, stops the fall;
//   - the best-observed pairs' mean signed error is within 5 standard
//     errors of 0 (the errors' spread on the same fit over the square
//     root of their number, about 400): a bias shows there first. The
//     smoothing prior (1 click in 2 pseudo-trials) shifts a pair by
//     (1 - 2p) / (n + 2), which for CM's pairs, counted only down to the
//     first click, is about 3.6 standard errors at 100,000 SERPs; PyClick's
//     SDBN is at 6.2, its DBN at 23, its DCM at 10, its CCM at 33. Not for
//     PBM: its fitted examination at rank 1 goes to the bound 1 (0.9997 for
//     a true 0.95) and the products a e_1 of the best-observed pairs come
//     out 0.013 low (7.6 standard errors, after 1000 iterations too): the
//     scale ridge, issue 36 part 3, not the estimator;
//
// and at the largest size the errors are under consistencyBounds. The
// bounds are statistics (the sampling error's rate, the errors' spread)
// and PyClick's measured biases, not values of the code under test.
// LOVBENCH_CONSISTENCY_ESTIMATOR=pyclick runs the test on PyClick's
// estimator: it fails for SDBN, DBN, DCM and CCM, whose PyClick estimates
// are biased (docs/method.md section 3, "Estimation").
// LOVBENCH_CONSISTENCY_EMPIRICAL_PRIOR=1 runs it with the empirical-Bayes
// prior (Options.EmpiricalPrior), which must stay consistent: its weight
// is PyClick's 2.
func TestConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("fits up to 100,000 SERPs to convergence")
	}
	est, err := clickmodels.ParseEstimator(os.Getenv("LOVBENCH_CONSISTENCY_ESTIMATOR"))
	if err != nil {
		t.Fatal(err)
	}
	eb := os.Getenv("LOVBENCH_CONSISTENCY_EMPIRICAL_PRIOR") != ""
	sizes := []int{10_000, 100_000}
	if os.Getenv("LOVBENCH_CONSISTENCY_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, kind := range consistencyKinds {
		t.Run(kind.String(), func(t *testing.T) {
			var prev consistency
			for i, n := range sizes {
				c := consistencyErrors(t, kind, n, est, eb)
				t.Logf("%s, %d SERPs, %s estimator (empirical prior %v): global error %.4f, best-observed pairs MAE %.4f, mean error %+.4f (se %.4f)", kind, n, est, eb, c.global, c.mae, c.bias, c.se)
				if i > 0 {
					if c.global > 0 && !(c.global < prev.global) {
						t.Errorf("%d SERPs: global error %.4f does not fall from %.4f", n, c.global, prev.global)
					}
					if c.mae > 0 && !(c.mae <= prev.mae/2) {
						t.Errorf("%d SERPs: best-observed pairs' MAE %.4f does not fall by half from %.4f (sampling error falls by 3.16)", n, c.mae, prev.mae)
					}
					if kind != clickmodels.PBM && !(math.Abs(c.bias) <= 5*c.se) {
						t.Errorf("%d SERPs: best-observed pairs' mean error %+.4f beyond 5 standard errors (%.4f): a bias", n, c.bias, 5*c.se)
					}
				}
				prev = c
			}
			gb, pb := consistencyBounds(kind)
			if prev.global > gb || prev.mae > pb {
				t.Errorf("errors at %d SERPs %.4f (global), %.4f (pairs): above %.3f, %.3f", sizes[len(sizes)-1], prev.global, prev.mae, gb, pb)
			}
		})
	}
}
