// Package labels turns click-model relevance (a satisfaction probability per
// query and result) into the graded relevance labels of the LOVBench ground
// truth, and measures how well those predictions agree with expert judgments.
//
// It implements section 5.2 of the LOVBench paper (Table 4: the mapping of
// satisfaction probability to the labels -2 and 0..4) with the thresholds of
// docs/method.md section 4, the full-SERP rule of docs/method.md section 4 (only queries
// whose whole first SERP got a label are kept), and the relevance prediction
// evaluation of section 4.2.3 (Pearson and Kendall correlation with the
// CBRBench expert judgments, per query and pooled). Beyond the paper, each
// label gets a confidence (Thresholds.Confidence: the probability that the
// relevance falls in the label's band under the Beta distribution the fit
// writes next to it; docs/method.md section 4), pairs of labelled terms of
// a query with different labels get the probability that their order is
// right and each query the expected agreement of its labels' order with
// the true order (OrderAgreement: P(X > Y) under independent Beta
// posteriors by Gauss-Legendre integration), and Selection is the one rule
// of which labels a minimum confidence or query agreement keeps. Measuring
// intervals and confidences against the truth of simulated logs is
// pipeline/calibration's (labels never reaches the simulator).
package labels

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
)

// Junk is the label of a result whose satisfaction probability is below the
// first threshold (LOVBench paper, Table 4: "Junk (-2)").
const Junk = -2

// Thresholds are the five cut points t0 < t1 < t2 < t3 < t4 that map a
// satisfaction probability p to a label (docs/method.md section 4):
//
//	p < t0 -> -2 (junk); [t0, t1) -> 0; [t1, t2) -> 1; [t2, t3) -> 2;
//	[t3, t4) -> 3; p >= t4 -> 4.
type Thresholds [5]float64

// DefaultThresholds returns LOVBench's thresholds 0.2, 0.45, 0.5, 0.6, 0.7
// (docs/method.md section 4).
func DefaultThresholds() Thresholds {
	return Thresholds{0.2, 0.45, 0.5, 0.6, 0.7}
}

// ParseThresholds parses five comma-separated, strictly increasing
// probabilities in [0, 1], such as "0.2,0.45,0.5,0.6,0.7".
func ParseThresholds(s string) (Thresholds, error) {
	var t Thresholds
	parts := strings.Split(s, ",")
	if len(parts) != len(t) {
		return t, fmt.Errorf("thresholds %q: want %d comma-separated values, got %d", s, len(t), len(parts))
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
			return t, fmt.Errorf("thresholds %q: value %d (%q) is not a probability in [0,1]", s, i+1, p)
		}
		if i > 0 && v <= t[i-1] {
			return t, fmt.Errorf("thresholds %q: value %d (%v) is not above value %d (%v)", s, i+1, v, i, t[i-1])
		}
		t[i] = v
	}
	return t, nil
}

// String formats the thresholds as ParseThresholds reads them.
func (t Thresholds) String() string {
	parts := make([]string, len(t))
	for i, v := range t {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Label maps a satisfaction probability to its label (docs/method.md section 4).
// Each interval is closed below and open above, so a probability equal to a
// threshold gets the higher label. p must not be NaN.
func (t Thresholds) Label(p float64) int {
	switch {
	case p < t[0]:
		return Junk
	case p < t[1]:
		return 0
	case p < t[2]:
		return 1
	case p < t[3]:
		return 2
	case p < t[4]:
		return 3
	default:
		return 4
	}
}

// Band returns the interval [lo, hi) of relevance that gets label l (the
// top label's band is [t4, 1], the junk label's [0, t0)).
func (t Thresholds) Band(l int) (lo, hi float64) {
	switch {
	case l == Junk:
		return 0, t[0]
	case l >= 4:
		return t[4], 1
	}
	return t[l], t[l+1]
}

// Confidence is the confidence of label l for a pair whose relevance has
// the distribution post (docs/clickmodels.md, "Uncertainty"): the
// probability that the relevance falls in the label's band,
// I_hi(alpha, beta) - I_lo(alpha, beta) with I the regularized incomplete
// beta function. Junk labels are treated like the others: their
// confidence is the probability that the relevance is below t0.
// NoConfidence without a posterior (a relevance file without intervals).
func (t Thresholds) Confidence(l int, post Posterior) float64 {
	if post == (Posterior{}) {
		return NoConfidence
	}
	lo, hi := t.Band(l)
	return clickmodels.BetaProbability(post.Alpha, post.Beta, lo, hi)
}

// AllLabels lists the labels in the order of LOVBench's Table 4.
func AllLabels() []int { return []int{4, 3, 2, 1, 0, Junk} }

// LOVBenchShare returns the share of label l in the published LOVBench
// ground truth (paper Table 4 and docs/method.md section 5, as a fraction), for
// comparison in distribution tables.
func LOVBenchShare(l int) float64 {
	switch l {
	case 4:
		return 0.0034
	case 3:
		return 0.0163
	case 2:
		return 0.0726
	case 1:
		return 0.2410
	case 0:
		return 0.6659
	case Junk:
		return 0.0006
	}
	return 0
}

// DistRow is one line of a label distribution table.
type DistRow struct {
	Label    int     `json:"label"`
	Count    int     `json:"count"`
	Share    float64 `json:"share"`
	LOVBench float64 `json:"lovbench_share"`
}

// Distribution counts labels and returns one row per label in Table 4 order,
// with LOVBench's published share beside each.
func Distribution(labels []int) []DistRow {
	counts := map[int]int{}
	for _, l := range labels {
		counts[l]++
	}
	return distributionOf(counts, len(labels), LOVBenchShare)
}

// distributionOf is Distribution of n labels counted per label in counts,
// with LOVBench's share of each from ref (LOVBenchShare for a whole ground
// truth, LOVBenchFirstPageShare for first-page labels alone).
func distributionOf(counts map[int]int, n int, ref func(int) float64) []DistRow {
	rows := make([]DistRow, 0, 6)
	for _, l := range AllLabels() {
		r := DistRow{Label: l, Count: counts[l], LOVBench: ref(l)}
		if n > 0 {
			r.Share = float64(r.Count) / float64(n)
		}
		rows = append(rows, r)
	}
	return rows
}

// FormatDistribution renders a distribution as a text table.
func FormatDistribution(rows []DistRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %10s %8s %9s\n", "label", "count", "share", "LOVBench")
	total := 0
	for _, r := range rows {
		total += r.Count
		fmt.Fprintf(&b, "%-6d %10d %7.2f%% %8.2f%%\n", r.Label, r.Count, 100*r.Share, 100*r.LOVBench)
	}
	fmt.Fprintf(&b, "%-6s %10d\n", "total", total)
	return b.String()
}
