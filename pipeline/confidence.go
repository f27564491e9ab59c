package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"

	"gonum.org/v1/gonum/stat"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline/report"
)

// RecoveryTarget is the Pearson correlation with the hidden relevance that
// the report's "How sure are the labels" section looks for: the lowest
// minimum confidence whose labels reach it (docs/pipeline.md).
const RecoveryTarget = 0.8

// ReportConfidenceLevels are the minimum confidences of the report's
// recovery table (besides all labels).
var ReportConfidenceLevels = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95}

// SweepStep is the step of the grid of minimum confidences ConfidenceSweep
// is run on to find the RecoveryTarget level: 0, 0.01, ..., 1.
const SweepStep = 0.01

// correlations are the Pearson r and Kendall tau-b of x and y, the two
// measures of label recovery (with the true relevance) the report shows.
// Kendall's tau-b is O(n^2) (labels.KendallTauB); withKendall false
// leaves it NaN.
func correlations(x, y []float64, withKendall bool) (pearson, kendall float64) {
	kendall = math.NaN()
	if withKendall {
		kendall = labels.KendallTauB(x, y)
	}
	return stat.Correlation(x, y, nil), kendall
}

// truthPair is one labelled pair of a simulated log with its true relevance.
type truthPair struct {
	query      string
	p, truth   float64
	confidence float64
}

// joinTruth pairs each label with its true relevance (labels without one are
// skipped, as in recovery).
func joinTruth(ls []labels.Label, truth map[[2]string]float64) []truthPair {
	var out []truthPair
	for _, l := range ls {
		if tr, ok := truth[[2]string{l.Query, l.Term}]; ok {
			out = append(out, truthPair{query: l.Query, p: l.P, truth: tr, confidence: l.Confidence})
		}
	}
	return out
}

// ConfidenceSweep measures, for each minimum confidence in levels, how well
// the labels whose confidence is at least that level recover the hidden true
// relevance of a simulated log: the pairs and queries they keep and the
// Pearson r (and, with withKendall, Kendall tau-b) between their inferred
// probability and the truth, as recovery computes them for all labels. A
// level of 0 keeps every label with a truth, with or without a confidence;
// any other level only labels with a confidence (labels.NoConfidence never
// passes). A level that keeps fewer than two pairs has NaN correlations.
func ConfidenceSweep(ls []labels.Label, truth map[[2]string]float64, levels []float64, withKendall bool) []report.ConfidenceLevel {
	pairs := joinTruth(ls, truth)
	out := make([]report.ConfidenceLevel, 0, len(levels))
	for _, c := range levels {
		var xs, ys []float64
		qs := map[string]bool{}
		for _, p := range pairs {
			if c > 0 && (p.confidence == labels.NoConfidence || p.confidence < c) {
				continue
			}
			xs, ys = append(xs, p.p), append(ys, p.truth)
			qs[p.query] = true
		}
		lv := report.ConfidenceLevel{Min: c, Pairs: len(xs), Queries: len(qs), Pearson: math.NaN(), Kendall: math.NaN()}
		if len(xs) >= 2 {
			lv.Pearson, lv.Kendall = correlations(xs, ys, withKendall)
		}
		out = append(out, lv)
	}
	return out
}

// SweepLevels is the grid 0, step, 2 step, ..., 1 (each level rounded to
// the step's decimals, so 0.07 is 0.07 and not 0.07000000000000001).
func SweepLevels(step float64) []float64 {
	n := int(math.Round(1 / step))
	out := make([]float64, n+1)
	for i := range out {
		out[i] = math.Round(float64(i)*step*1e9) / 1e9
	}
	return out
}

// LowestLevelReaching returns the first level of sweep (in the order given,
// ascending for SweepLevels) whose Pearson r is at least target, and false
// when none is.
func LowestLevelReaching(sweep []report.ConfidenceLevel, target float64) (report.ConfidenceLevel, bool) {
	for _, lv := range sweep {
		if lv.Pearson >= target {
			return lv, true
		}
	}
	return report.ConfidenceLevel{}, false
}

// labelConfidence builds the report's "How sure are the labels" data from
// labels.csv and, for a simulated log (truthPath not ""), truth.tsv: the
// confidence distribution per label, and the recovery of all labels beside
// that of the confident ones.
func labelConfidence(labelsPath, truthPath string) (*report.Confidence, error) {
	f, err := os.Open(labelsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no labels: no section
	}
	if err != nil {
		return nil, err
	}
	ls, err := labels.ReadLabels(f, labelsPath)
	f.Close()
	if err != nil {
		return nil, err
	}
	g, c := make([]int, len(ls)), make([]float64, len(ls))
	for i, l := range ls {
		g[i], c[i] = l.Grade, l.Confidence
	}
	rc := &report.Confidence{Bins: export.CoarseConfidenceBins, Pairs: len(ls), Target: RecoveryTarget}
	for _, d := range export.ConfidenceDistribution(g, c) {
		rc.ByLabel = append(rc.ByLabel, report.ConfidenceRow{Label: d.Label, Pairs: d.Rows, Unknown: d.Unknown, Mean: d.Mean, Bins: d.Coarse()})
		rc.Known += d.Rows - d.Unknown
	}
	if truthPath == "" || rc.Known == 0 {
		return rc, nil
	}
	truth, err := readTruth(truthPath)
	if err != nil {
		return nil, err
	}
	rc.Recovery = ConfidenceSweep(ls, truth, append([]float64{0}, ReportConfidenceLevels...), true)
	if rc.Recovery[0].Pairs == 0 {
		return nil, fmt.Errorf("%s: no labelled pair has a true relevance in %s", labelsPath, truthPath)
	}
	if lv, ok := LowestLevelReaching(ConfidenceSweep(ls, truth, SweepLevels(SweepStep), false), RecoveryTarget); ok {
		// Kendall's tau-b of that level too (one O(n^2) pass).
		lv = ConfidenceSweep(ls, truth, []float64{lv.Min}, true)[0]
		rc.Reached = &lv
	}
	return rc, nil
}
