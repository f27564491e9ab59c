package calibration

import (
	"context"
	"fmt"
	"math"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/labels"
)

// CalibrationBins is the number of equal-width confidence bins of the
// expected calibration error.
const CalibrationBins = 10

// Calibration compares a fitted model's intervals and label confidences
// with the known truth of a simulated log (docs/clickmodels.md,
// "Calibration"): every pair of the fitted model gets the label of its
// relevance and the confidence of that label; the label is correct when
// the true relevance, through the same thresholds, gives the same label.
type Calibration struct {
	Pairs    int     `json:"pairs"`
	Level    float64 `json:"level"`
	Coverage float64 `json:"coverage"` // share of intervals holding the true relevance
	// IdentifiedSet is true when the intervals cover an identified set
	// (a model with a scale ridge, clickmodels.Kind.ScaleRidge): then a
	// coverage above the level is the honest result, and the ECE says
	// whether the intervals are wider than they must be.
	IdentifiedSet bool    `json:"identified_set,omitempty"`
	Accuracy      float64 `json:"accuracy"` // share of correct labels
	// MeanConfidence is the mean confidence of the labels.
	MeanConfidence float64 `json:"mean_confidence"`
	// ECE is the expected calibration error: over CalibrationBins bins
	// of confidence, the mean |accuracy - mean confidence| weighted by
	// the bin's share of labels.
	ECE float64 `json:"ece"`
	// Brier is the mean (confidence - correct)^2; BrierSkill is
	// 1 - Brier / (the Brier score of the best constant confidence, the
	// accuracy itself): above 0 only when the confidence tells correct
	// labels from wrong ones better than any constant.
	Brier      float64          `json:"brier"`
	BrierSkill float64          `json:"brier_skill"`
	Bins       []CalibrationBin `json:"bins"`
}

// CalibrationBin is one confidence bin.
type CalibrationBin struct {
	Labels         int     `json:"labels"`
	MeanConfidence float64 `json:"mean_confidence"`
	Accuracy       float64 `json:"accuracy"`
}

// Calibrate measures fitted's intervals and confidences against truth,
// the model that simulated its log (same kind of relevance). fitted must
// carry Evidence.
func Calibrate(fitted, truth *clickmodels.Model, th labels.Thresholds) (*Calibration, error) {
	dists, _, err := fitted.RelevanceDists()
	if err != nil {
		return nil, err
	}
	return calibrate(fitted, truth, th, dists)
}

// calibrate is Calibrate with the relevance distributions dists of
// fitted's pairs.
func calibrate(fitted, truth *clickmodels.Model, th labels.Thresholds, dists []clickmodels.RelevanceDist) (*Calibration, error) {
	if dists == nil {
		return nil, fmt.Errorf("calibration: the %v model has no intervals", fitted.Kind)
	}
	conf := make([]float64, len(dists))
	correct := make([]bool, len(dists))
	covered := 0
	for p, d := range dists {
		q, doc := fitted.QueryNames[fitted.PairQuery[p]], fitted.DocNames[fitted.PairDoc[p]]
		tr := truth.Relevance(q, doc)
		if d.Lower <= tr && tr <= d.Upper {
			covered++
		}
		g := th.Label(fitted.PairRelevance(p))
		conf[p] = th.Confidence(g, labels.Posterior{Alpha: d.Alpha, Beta: d.Beta})
		correct[p] = th.Label(tr) == g
	}
	c := CalibrationOf(conf, correct)
	c.Level = fitted.Evidence.Level
	c.IdentifiedSet = fitted.Kind.ScaleRidge()
	if len(dists) > 0 {
		c.Coverage = float64(covered) / float64(len(dists))
	}
	return c, nil
}

// CalibrationOf computes the calibration measures of confidences conf
// against the labels' correctness (Coverage and Level left 0).
func CalibrationOf(conf []float64, correct []bool) *Calibration {
	c := &Calibration{Pairs: len(conf), Bins: make([]CalibrationBin, CalibrationBins)}
	if len(conf) == 0 {
		return c
	}
	n := float64(len(conf))
	var acc, sumConf, brier float64
	hits := make([]float64, CalibrationBins)
	for i, x := range conf {
		y := 0.0
		if correct[i] {
			y = 1
		}
		acc += y
		sumConf += x
		brier += (x - y) * (x - y)
		b := min(int(x*CalibrationBins), CalibrationBins-1)
		c.Bins[b].Labels++
		c.Bins[b].MeanConfidence += x
		hits[b] += y
	}
	c.Accuracy, c.MeanConfidence, c.Brier = acc/n, sumConf/n, brier/n
	for b := range c.Bins {
		if k := float64(c.Bins[b].Labels); k > 0 {
			c.Bins[b].MeanConfidence /= k
			c.Bins[b].Accuracy = hits[b] / k
			c.ECE += k / n * math.Abs(c.Bins[b].Accuracy-c.Bins[b].MeanConfidence)
		}
	}
	if base := c.Accuracy * (1 - c.Accuracy); base > 0 {
		c.BrierSkill = 1 - c.Brier/base
	}
	return c
}

// SimulationOptions configure CalibrateSimulation. Besides the level,
// each option replaces one ingredient of the intervals by the
// simulation's truth, so that what limits the calibration of a kind of
// log can be measured one ingredient at a time (docs/clickmodels.md,
// "Calibration against known truth"); none is available on a real log.
type SimulationOptions struct {
	// Level is the interval level (clickmodels.Options.Level).
	Level float64
	// TrueGlobals fixes the click model's global parameters (UBM's
	// examination, DBN's continuation, ...) at the simulation's values
	// instead of fitting them: EM runs its iterations on the pair
	// parameters only (clickmodels.ShardFit with SetGlobal before every
	// E-step and no global M-step).
	TrueGlobals bool
	// OraclePrior replaces the priors fitted to the log by the oracle
	// prior of clickmodels.Model.OracleRelevanceDists: per prior cell,
	// the Beta moment-matched to the true values of its pairs.
	OraclePrior bool
}

// CalibrateSimulation simulates the log of cfg, fits cfg.Kind to all of it
// with intervals at opt.Level (clickmodels.Options.Level) and calibrates
// the fit against the simulation's truth with LOVBench's thresholds.
func CalibrateSimulation(ctx context.Context, cfg sim.Config, opt SimulationOptions) (*Calibration, error) {
	log, truth, err := sim.SimulateLog(ctx, cfg)
	if err != nil {
		return nil, err
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		return nil, err
	}
	fo := clickmodels.Options{Level: opt.Level}
	var m *clickmodels.Model
	if opt.TrueGlobals {
		m, err = fitTrueGlobals(ctx, d, cfg.Kind, fo, truth.Global)
	} else {
		m, err = clickmodels.Fit(ctx, d, cfg.Kind, fo)
	}
	if err != nil {
		return nil, err
	}
	if !opt.OraclePrior {
		return Calibrate(m, truth, labels.DefaultThresholds())
	}
	ta := make([]float64, m.NumPairs())
	var ts []float64
	if truth.Sat != nil {
		ts = make([]float64, m.NumPairs())
	}
	for p := range ta {
		tp := truth.Pair(m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]])
		if tp < 0 {
			return nil, fmt.Errorf("calibration: pair %q, %q of the log is not in the simulation's truth", m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]])
		}
		ta[p] = truth.Attr[tp]
		if ts != nil {
			ts[p] = truth.Sat[tp]
		}
	}
	dists, err := m.OracleRelevanceDists(ta, ts)
	if err != nil {
		return nil, err
	}
	return calibrate(m, truth, labels.DefaultThresholds(), dists)
}

// fitTrueGlobals fits kind's pair parameters to d with the global
// parameters held at global (SimulationOptions.TrueGlobals): the
// iterations of clickmodels.Fit, each an E-step and pair M-step at the
// given globals, whose global counts are dropped.
func fitTrueGlobals(ctx context.Context, d *clickmodels.Data, kind clickmodels.Kind, opt clickmodels.Options, global []float64) (*clickmodels.Model, error) {
	if want := kind.GlobalParams(d.Ranks()); len(global) != want {
		return nil, fmt.Errorf("calibration: %d true global parameters, %v with %d ranks has %d", len(global), kind, d.Ranks(), want)
	}
	iters := kind.Iterations(opt.Iterations, opt.Exact)
	s := clickmodels.NewShardFit(ctx, d, nil, kind, opt)
	for range iters {
		s.SetGlobal(global)
		s.EStep(ctx, clickmodels.NewStats(kind, d.Ranks()))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return s.FinalModel(ctx, iters, clickmodels.Options{Level: opt.Level})
}
