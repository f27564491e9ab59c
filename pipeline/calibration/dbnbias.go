package calibration

import (
	"bytes"
	"context"
	"fmt"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/sessions"
)

// The bias of DBN's exact estimator on a simulated log, taken apart
// (docs/clickmodels.md, "Sparse DBN at scale: where the bias is"): the
// continuation against the truth; the pairs' fitted relevance against
// their true one by impressions, fitted freely and with the continuation
// held at the truth (is the shared parameter to blame?); and the rate of
// the relevance evidence the intervals are built from (clickmodels.
// Evidence, SatK / SatN), the sum of K over the sum of N x the true
// relevance, by effective trials N, taken at the fitted values and, as
// a control, at the true ones (is the E-step to blame, or where it is
// taken?).

// PairTruth returns the true attractiveness and satisfaction of a pair;
// ok false for a pair the simulation did not make.
type PairTruth func(query, doc string) (attr, sat float64, ok bool)

// BiasGroup is one group of pairs of a DBNBias report.
type BiasGroup struct {
	// From is the group's lower bound (impressions or trials; the upper
	// is the next group's From).
	From  float64 `json:"from"`
	Pairs int     `json:"pairs"`
	// Fitted and AtTrueContinuation (by impressions) are the mean fitted
	// relevance a x s over the mean true one, fitted freely and with the
	// continuation held at the truth.
	Fitted             float64 `json:"fitted_over_true,omitempty"`
	AtTrueContinuation float64 `json:"at_true_continuation_over_true,omitempty"`
	// RateAtFit and RateAtTruth (by trials) are sum K / sum (N x true
	// relevance) of the relevance evidence taken at the fitted values
	// and at the true ones; the groups are the pairs' N at the fitted
	// values (RateAtTruth's at the true ones).
	RateAtFit   float64 `json:"rate_at_fit_over_true,omitempty"`
	RateAtTruth float64 `json:"rate_at_truth_over_true,omitempty"`
}

// BiasReport is DBNBias's measurement.
type BiasReport struct {
	Pairs            int         `json:"pairs"`
	Continuation     float64     `json:"continuation"`
	TrueContinuation float64     `json:"true_continuation"`
	Iterations       int         `json:"iterations"`
	ByImpressions    []BiasGroup `json:"by_impressions"`
	ByTrials         []BiasGroup `json:"by_trials"`
}

// Group bounds of BiasReport: impressions (the training records showing
// the pair) and effective trials N of the relevance evidence.
var (
	biasImpressions = []float64{1, 2, 4, 8, 16, 64, 256, 1024}
	biasTrials      = []float64{1, 2, 4, 8, 16, 64, 256}
)

// DBNBias measures, on the prepared log d drawn from DBN with continuation
// trueCont and the pairs' truth, the bias of the default estimator
// (clickmodels.EstimatorExact) taken apart as above.
func DBNBias(ctx context.Context, d *clickmodels.Data, truth PairTruth, trueCont float64) (*BiasReport, error) {
	opt := clickmodels.EstimatorExact.Options()
	m, err := clickmodels.Fit(ctx, d, clickmodels.DBN, opt)
	if err != nil {
		return nil, err
	}
	np := m.NumPairs()
	ta, ts := make([]float64, np), make([]float64, np)
	for p := range np {
		q, doc := m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]]
		a, s, ok := truth(q, doc)
		if !ok {
			return nil, fmt.Errorf("calibration: pair %q, %q of the log is not in the simulation's truth", q, doc)
		}
		ta[p], ts[p] = a, s
	}
	fixed, err := fitTrueGlobals(ctx, d, clickmodels.DBN, opt, []float64{trueCont})
	if err != nil {
		return nil, err
	}
	// The control: the evidence pass at the true values.
	sf := clickmodels.NewShardFit(ctx, d, nil, clickmodels.DBN, opt)
	attr, sat := sf.PairValues()
	copy(attr, ta)
	copy(sat, ts)
	sf.SetGlobal([]float64{trueCont})
	atTruth, err := sf.FinalModel(ctx, 0, clickmodels.Options{})
	if err != nil {
		return nil, err
	}
	r := &BiasReport{Pairs: np, Continuation: m.Global[0], TrueContinuation: trueCont, Iterations: m.Iterations}
	group := func(bounds []float64, x float64) int {
		g := -1
		for g+1 < len(bounds) && x >= bounds[g+1] {
			g++
		}
		return g
	}
	// By impressions.
	type sums struct{ n, fit, fix, tr, k, kn, k2, kn2 float64 }
	imp := make([]sums, len(biasImpressions))
	for p := range np {
		g := group(biasImpressions, m.Evidence.Shown[p])
		if g < 0 {
			continue
		}
		s := &imp[g]
		s.n++
		s.fit += m.PairRelevance(p)
		s.fix += fixed.PairRelevance(p)
		s.tr += ta[p] * ts[p]
	}
	for g, s := range imp {
		if s.n > 0 {
			r.ByImpressions = append(r.ByImpressions, BiasGroup{From: biasImpressions[g], Pairs: int(s.n), Fitted: s.fit / s.tr, AtTrueContinuation: s.fix / s.tr})
		}
	}
	// By trials.
	tri := make([]sums, len(biasTrials))
	for p := range np {
		rel := ta[p] * ts[p]
		if g := group(biasTrials, m.Evidence.SatN[p]); g >= 0 {
			tri[g].n++
			tri[g].k += m.Evidence.SatK[p]
			tri[g].kn += m.Evidence.SatN[p] * rel
		}
		if g := group(biasTrials, atTruth.Evidence.SatN[p]); g >= 0 {
			tri[g].k2 += atTruth.Evidence.SatK[p]
			tri[g].kn2 += atTruth.Evidence.SatN[p] * rel
		}
	}
	for g, s := range tri {
		if s.n > 0 && s.kn2 > 0 {
			r.ByTrials = append(r.ByTrials, BiasGroup{From: biasTrials[g], Pairs: int(s.n), RateAtFit: s.k / s.kn, RateAtTruth: s.k2 / s.kn2})
		}
	}
	return r, ctx.Err()
}

// RefData simulates cfg's log (clickmodels/refsim) in memory and returns
// it prepared for the click models, with the truth of its pairs.
func RefData(ctx context.Context, cfg refsim.Config) (*clickmodels.Data, PairTruth, error) {
	var buf bytes.Buffer
	pairs, _, err := refsim.Simulate(ctx, cfg, &buf)
	if err != nil {
		return nil, nil, err
	}
	log, _, err := sessions.ReadYandex(&buf, "refsim", true)
	if err != nil {
		return nil, nil, err
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[[2]string]refsim.Pair, len(pairs))
	for _, p := range pairs {
		m[[2]string{p.Query, p.Doc}] = p
	}
	return d, func(query, doc string) (float64, float64, bool) {
		p, ok := m[[2]string{query, doc}]
		return p.Attr, p.Sat, ok
	}, nil
}

// SimData simulates cfg's log (clickmodels/sim) and returns it prepared
// for the click models, with the truth of its pairs and the truth model.
func SimData(ctx context.Context, cfg sim.Config) (*clickmodels.Data, PairTruth, *clickmodels.Model, error) {
	log, tm, err := sim.SimulateLog(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	return d, func(query, doc string) (float64, float64, bool) {
		p := tm.Pair(query, doc)
		if p < 0 {
			return 0, 0, false
		}
		var s float64
		if tm.Sat != nil {
			s = tm.Sat[p]
		}
		return tm.Attr[p], s, true
	}, tm, nil
}
