package labels

import (
	"context"
	"fmt"
	"math"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
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
	Accuracy float64 `json:"accuracy"` // share of correct labels
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
func Calibrate(fitted, truth *clickmodels.Model, th Thresholds) (*Calibration, error) {
	dists, rep, err := fitted.RelevanceDists()
	if err != nil {
		return nil, err
	}
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
		conf[p] = th.Confidence(g, Posterior{d.Alpha, d.Beta})
		correct[p] = th.Label(tr) == g
	}
	c := CalibrationOf(conf, correct)
	c.Level = rep.Level
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

// CalibrateSimulation simulates the log of cfg, fits cfg.Kind to all of it
// with intervals at level (clickmodels.Options.Level) and calibrates the
// fit against the simulation's truth with LOVBench's thresholds.
func CalibrateSimulation(ctx context.Context, cfg sim.Config, level float64) (*Calibration, error) {
	log, truth, err := sim.SimulateLog(ctx, cfg)
	if err != nil {
		return nil, err
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		return nil, err
	}
	m, err := clickmodels.Fit(ctx, d, cfg.Kind, clickmodels.Options{Level: level})
	if err != nil {
		return nil, err
	}
	return Calibrate(m, truth, DefaultThresholds())
}
