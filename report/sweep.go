package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"

	"gonum.org/v1/gonum/stat"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
)

// RecoveryTarget is the Pearson correlation with the hidden relevance that
// the report's "How sure are the labels" section looks for: the lowest
// minimum confidence whose labels reach it (docs/pipeline.md).
const RecoveryTarget = 0.8

// RecoveryMinPairs is the fewest confident labels whose recovery counts as
// reaching RecoveryTarget: a Pearson r over fewer pairs says little (at 30
// pairs the 95% interval of an r of 0.8 is still about 0.62 to 0.90, by
// Fisher's z with standard error 1/sqrt(n-3)).
const RecoveryMinPairs = 30

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

// ConfidenceSweep measures, for each minimum confidence in levels, how well
// the labels that `export --min-confidence` at that level keeps (the one
// rule, labels.Selection: a label below the minimum is left out, a query
// without a label reaching it is left out whole, a label without a
// confidence stays with its query) recover the hidden true relevance of a
// simulated log (Recover). A level of 0 keeps every label with a truth.
func ConfidenceSweep(ls []labels.Label, truth map[[2]string]float64, levels []float64, withKendall bool) []ConfidenceLevel {
	out := make([]ConfidenceLevel, 0, len(levels))
	for _, c := range levels {
		out = append(out, Recover(ls, truth, labels.Selection{MinConfidence: c}, withKendall))
	}
	return out
}

// Recover measures how well the labels that sel keeps (labels.Selection,
// the rule export applies) recover the hidden true relevance of a
// simulated log: the pairs with a truth and the queries they keep, and the
// Pearson r (and, with withKendall, Kendall tau-b) between their inferred
// probability and the truth, as recovery computes them for all labels. A
// selection that keeps fewer than two pairs has NaN correlations.
func Recover(ls []labels.Label, truth map[[2]string]float64, sel labels.Selection, withKendall bool) ConfidenceLevel {
	kept, ys := keptWithTruth(ls, truth, sel)
	xs := make([]float64, len(kept))
	qs := map[string]bool{}
	for i, l := range kept {
		xs[i] = l.P
		qs[l.Query] = true
	}
	lv := ConfidenceLevel{Min: sel.MinConfidence, KeepConfident: sel.KeepConfident, KeepAgreeing: sel.KeepAgreeing, Pairs: len(xs), Queries: len(qs), Pearson: math.NaN(), Kendall: math.NaN()}
	if sel.KeepAgreeing > 0 {
		lv.ShareTolerance = sel.Tolerance()
	}
	if len(xs) >= 2 {
		lv.Pearson, lv.Kendall = correlations(xs, ys, withKendall)
	}
	return lv
}

// keptWithTruth returns the labels of ls that sel keeps and have a true
// relevance in truth, in order, and their true relevances.
func keptWithTruth(ls []labels.Label, truth map[[2]string]float64, sel labels.Selection) ([]labels.Label, []float64) {
	verdict := sel.SelectLabels(ls)
	var kept []labels.Label
	var ys []float64
	for i, l := range ls {
		tr, ok := truth[[2]string{l.Query, l.Term}]
		if !ok || verdict[i] != labels.Kept {
			continue
		}
		kept, ys = append(kept, l), append(ys, tr)
	}
	return kept, ys
}

// SelectionOutcome is what a selection keeps of a simulated log's labels
// (Outcome): its recovery, the share of its labels that are right (their
// true relevance lies in their label's band, as the report's label
// recovery counts agreement) and each label's share of the kept labels.
type SelectionOutcome struct {
	Level ConfidenceLevel
	// Right is the share of the kept labels whose true relevance has
	// their label (NaN when none is kept).
	Right float64
	// Count, RightCount and Share give, per label in labels.AllLabels
	// order, the kept labels, those of them that are right, and their
	// share of the kept labels.
	Count      []int
	RightCount []int
	Share      []float64
}

// RightAtRandom is the share of right labels a selection with o's label
// shares would have if it drew each label's labels at random from those
// of all (the right share of each label in all, weighted by o's shares):
// what o's label distribution alone explains of its Right.
func (o SelectionOutcome) RightAtRandom(all SelectionOutcome) float64 {
	r := 0.0
	for i, s := range o.Share {
		if all.Count[i] > 0 {
			r += s * float64(all.RightCount[i]) / float64(all.Count[i])
		}
	}
	return r
}

// Outcome measures what sel keeps of ls against truth, under thresholds
// th: Recover's correlations (Pearson only), the share of right labels
// and the label shares, so that a filter is judged by both what it keeps
// and how it changes the label distribution (issue 36, part 5).
func Outcome(ls []labels.Label, truth map[[2]string]float64, sel labels.Selection, th labels.Thresholds) SelectionOutcome {
	o := SelectionOutcome{Level: Recover(ls, truth, sel, false), Right: math.NaN()}
	kept, ys := keptWithTruth(ls, truth, sel)
	all := labels.AllLabels()
	at := map[int]int{}
	for i, l := range all {
		at[l] = i
	}
	o.Count, o.RightCount, o.Share = make([]int, len(all)), make([]int, len(all)), make([]float64, len(all))
	right := 0
	for i, l := range kept {
		o.Count[at[l.Grade]]++
		if th.Label(ys[i]) == l.Grade {
			right++
			o.RightCount[at[l.Grade]]++
		}
	}
	if len(kept) > 0 {
		o.Right = float64(right) / float64(len(kept))
		for i, n := range o.Count {
			o.Share[i] = float64(n) / float64(len(kept))
		}
	}
	return o
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
// ascending for SweepLevels) whose Pearson r is at least target over at
// least minPairs pairs, and false when none is.
func LowestLevelReaching(sweep []ConfidenceLevel, target float64, minPairs int) (ConfidenceLevel, bool) {
	for _, lv := range sweep {
		if lv.Pearson >= target && lv.Pairs >= minPairs {
			return lv, true
		}
	}
	return ConfidenceLevel{}, false
}

// thresholdsOf is the report's thresholds (Config.Thresholds), the
// default ones unless there are five.
func thresholdsOf(th []float64) labels.Thresholds {
	if len(th) != 5 {
		return labels.DefaultThresholds()
	}
	var t labels.Thresholds
	copy(t[:], th)
	return t
}

// PriorOf gives the relevance Beta of a pair without evidence shown at
// first-SERP position rank (1-based).
type PriorOf func(rank int) labels.Posterior

// selectedPrior is the relevance Beta of a pair without evidence
// (clickmodels.PriorRelevance) of the model the fit stage in fitDir
// selected, by rank; nil when there is no fit stage or the model has no
// intervals.
func selectedPrior(fitDir string) (PriorOf, error) {
	if fitDir == "" {
		return nil, nil
	}
	var sum fit.Summary
	if err := textio.ReadJSON(filepath.Join(fitDir, fit.FileSummary), &sum); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	for _, m := range sum.Models {
		if m.Model != sum.Selected || m.Uncertainty == nil {
			continue
		}
		kind, err := clickmodels.ParseKind(m.Model)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(fitDir, fit.FileSummary), err)
		}
		u := *m.Uncertainty
		return func(rank int) labels.Posterior {
			a, b := clickmodels.PriorRelevance(kind, u, float64(rank-1))
			return labels.Posterior{Alpha: a, Beta: b}
		}, nil
	}
	return nil, nil
}

// PriorLike counts the labels the log cannot tell from the prior: those
// with a confidence that is no higher than the probability prior(rank)
// (the relevance Beta of a pair without evidence shown at the label's
// first-SERP position, clickmodels.PriorRelevance) gives their label's band
// under thresholds th. A pair the log holds no evidence about has about
// that confidence when its mean rank is its first-SERP position (always on
// logs whose result pages do not change, as the simulated ones): the fit
// gives it the prior of its rank bucket and exposure class, prior(rank)
// is its rank bucket's over all exposures. The clicks of any other pair
// counted did not make its label more likely than the prior of its rank
// made it. It returns the count and the labels with a confidence.
func PriorLike(ls []labels.Label, th labels.Thresholds, prior PriorOf) (n, of int) {
	for _, l := range ls {
		if l.Confidence == labels.NoConfidence {
			continue
		}
		of++
		if l.Confidence <= th.Confidence(l.Grade, prior(l.Rank)) {
			n++
		}
	}
	return n, of
}

// PriorLikeDefinition is the report's wording of PriorLike.
const PriorLikeDefinition = "their confidence is no higher than the probability that the prior alone gives their label's band at their rank, the confidence of a pair the log holds no evidence about (docs/pipeline.md, \"The report\")."

// labelConfidence builds the report's "How sure are the labels" data from
// labels.csv and, for a simulated log (truthPath not ""), truth.tsv: the
// confidence distribution per label, the labels the log cannot tell from
// prior (PriorLike; when prior is not nil), and the recovery of all labels
// beside that of the confident ones.
func labelConfidence(labelsPath, truthPath string, th labels.Thresholds, prior PriorOf) (*Confidence, error) {
	ls, err := labels.ReadLabelsFile(labelsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no labels: no section
	}
	if err != nil {
		return nil, err
	}
	g, c := make([]int, len(ls)), make([]float64, len(ls))
	for i, l := range ls {
		g[i], c[i] = l.Grade, l.Confidence
	}
	rc := &Confidence{Bins: export.CoarseConfidenceBins, Pairs: len(ls), Target: RecoveryTarget}
	for _, d := range export.ConfidenceDistribution(g, c) {
		rc.ByLabel = append(rc.ByLabel, ConfidenceRow{Label: d.Label, Pairs: d.Rows, Unknown: d.Unknown, Mean: d.Mean, Bins: d.Coarse()})
		rc.Known += d.Rows - d.Unknown
	}
	if prior != nil && rc.Known > 0 {
		n, of := PriorLike(ls, th, prior)
		rc.Prior = &PriorShare{Labels: n, Of: of, Definition: PriorLikeDefinition}
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
	rc.MinPairs = RecoveryMinPairs
	if lv, ok := LowestLevelReaching(ConfidenceSweep(ls, truth, SweepLevels(SweepStep), false), RecoveryTarget, RecoveryMinPairs); ok {
		// Kendall's tau-b of that level too (one O(n^2) pass).
		lv = ConfidenceSweep(ls, truth, []float64{lv.Min}, true)[0]
		rc.Reached = &lv
	}
	return rc, nil
}

// ReadSimulatedLabels reads the labels (labels.csv at labelsPath) and the
// hidden true relevance (truth.tsv at truthPath: query, term, relevance)
// of a simulated log, for ConfidenceSweep.
func ReadSimulatedLabels(labelsPath, truthPath string) ([]labels.Label, map[[2]string]float64, error) {
	ls, err := labels.ReadLabelsFile(labelsPath)
	if err != nil {
		return nil, nil, err
	}
	truth, err := readTruth(truthPath)
	if err != nil {
		return nil, nil, err
	}
	return ls, truth, nil
}
