package measures

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds what a comparison of a system with a baseline reports
// beside its p-value (docs/measures.md, "Significance"): the mean paired
// difference with its confidence interval, an effect size, wins, ties and
// losses over the queries, and the correction of p-values for the number of
// comparisons.

// DefaultAlpha is the significance level after correction.
const DefaultAlpha = 0.05

// ConfidenceLevel is the level of the confidence interval of a mean
// difference.
const ConfidenceLevel = 0.95

// CIMethod and EffectSizeName say, in words, how Paired computes its
// interval and effect size (printed beside them, and in results files).
const (
	CIMethod       = "95% paired t interval: mean(d) ± t(0.975, n-1) · sd(d)/√n, d = run - baseline per query"
	EffectSizeName = "Cohen's d_z = mean(d) / sd(d) (paired; sd with n-1)"
)

// Correction is a correction of p-values for the number of comparisons.
type Correction string

// The corrections ParseCorrection accepts.
const (
	// CorrectionHolm is Holm's (1979) step-down method: with the m
	// p-values sorted ascending, p_(i) becomes max over j <= i of
	// min(1, (m - j + 1) p_(j)). It controls the family-wise error rate as
	// Bonferroni does and rejects at least as much.
	CorrectionHolm Correction = "holm"
	// CorrectionBonferroni multiplies every p-value by m (at most 1).
	CorrectionBonferroni Correction = "bonferroni"
	// CorrectionNone leaves the p-values as they are.
	CorrectionNone Correction = "none"
)

// ParseCorrection parses "holm", "bonferroni" or "none" ("" is holm).
func ParseCorrection(s string) (Correction, error) {
	switch c := Correction(strings.ToLower(strings.TrimSpace(s))); c {
	case "":
		return CorrectionHolm, nil
	case CorrectionHolm, CorrectionBonferroni, CorrectionNone:
		return c, nil
	}
	return "", fmt.Errorf("unknown correction %q (want holm, bonferroni or none)", s)
}

// Label names the correction for a reader ("Holm", "Bonferroni", "no
// correction").
func (c Correction) Label() string {
	switch c {
	case CorrectionBonferroni:
		return "Bonferroni"
	case CorrectionNone:
		return "no correction"
	}
	return "Holm"
}

// Phrase says how p-values were corrected, for a sentence: "after Holm
// correction", "after Bonferroni correction", "without correction".
func (c Correction) Phrase() string {
	if c == CorrectionNone {
		return "without correction"
	}
	return "after " + c.Label() + " correction"
}

// Column is the column header of corrected p-values: p(holm),
// p(bonferroni), p(uncorrected).
func (c Correction) Column() string {
	if c == CorrectionNone {
		return "p(uncorrected)"
	}
	return "p(" + strings.ToLower(c.Label()) + ")"
}

// Adjust returns the corrected p-values of one family of comparisons, in
// the order given.
func (c Correction) Adjust(p []float64) []float64 {
	m := len(p)
	out := make([]float64, m)
	switch c {
	case CorrectionNone:
		copy(out, p)
	case CorrectionBonferroni:
		for i, x := range p {
			out[i] = math.Min(1, float64(m)*x)
		}
	default: // Holm
		idx := make([]int, m)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
		run := 0.0
		for j, i := range idx {
			run = math.Max(run, math.Min(1, float64(m-j)*p[i]))
			out[i] = run
		}
	}
	return out
}

// PairedStats describes the per-query differences d_i = b_i - a_i of a run
// b against a baseline a.
type PairedStats struct {
	N int `json:"queries"`
	// Diff is mean(d): the run's mean minus the baseline's.
	Diff float64 `json:"diff"`
	// CILow and CIHigh bound Diff's ConfidenceLevel interval (CIMethod);
	// both are Diff when fewer than two queries or sd(d) = 0.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// EffectSize is Cohen's d_z (EffectSizeName); nil (JSON null) when
	// sd(d) = 0 or there are fewer than two queries.
	EffectSize *float64 `json:"effect_size"`
	// Wins, Ties and Losses count the queries with d > 0, d = 0, d < 0.
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
}

// Paired returns the PairedStats of b against a (paired by index).
func Paired(a, b []float64) PairedStats {
	n := len(a)
	s := PairedStats{N: n}
	if n == 0 {
		return s
	}
	for i := range a {
		d := b[i] - a[i]
		s.Diff += d
		switch {
		case d > 0:
			s.Wins++
		case d < 0:
			s.Losses++
		default:
			s.Ties++
		}
	}
	s.Diff /= float64(n)
	s.CILow, s.CIHigh = s.Diff, s.Diff
	if n < 2 {
		return s
	}
	ss := 0.0
	for i := range a {
		e := b[i] - a[i] - s.Diff
		ss += e * e
	}
	sd := math.Sqrt(ss / float64(n-1))
	// A spread at rounding level (equal differences computed through
	// different sums) is no spread.
	if sd <= 1e-12*math.Max(1, math.Abs(s.Diff)) {
		return s
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + ConfidenceLevel) / 2)
	half := q * sd / math.Sqrt(float64(n))
	s.CILow, s.CIHigh = s.Diff-half, s.Diff+half
	dz := s.Diff / sd
	s.EffectSize = &dz
	return s
}

// Significance is the comparison of a run with a baseline on one measure:
// the PairedStats, the paired randomisation p-value (RandomisationTest) and
// that p-value corrected for the number of comparisons of its family.
type Significance struct {
	PairedStats
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
}

// Better reports whether the run is significantly better than the
// baseline: a positive difference with a corrected p-value below alpha.
func (s Significance) Better(alpha float64) bool { return s.Diff > 0 && s.PAdjusted < alpha }

// Worse reports whether the run is significantly worse than the baseline.
func (s Significance) Worse(alpha float64) bool { return s.Diff < 0 && s.PAdjusted < alpha }

// Verdict is "better", "worse" or "n.s." (not significant) at alpha.
func (s Significance) Verdict(alpha float64) string {
	switch {
	case s.Better(alpha):
		return "better"
	case s.Worse(alpha):
		return "worse"
	}
	return "n.s."
}

// AdjustFamily sets the PAdjusted of every comparison of sig (one family)
// from their P with the correction c.
func AdjustFamily(sig []*Significance, c Correction) {
	p := make([]float64, len(sig))
	for i, s := range sig {
		p[i] = s.P
	}
	for i, q := range c.Adjust(p) {
		sig[i].PAdjusted = q
	}
}

// Legend explains the columns of a significance table, one line each:
// pName is the column of the raw p-value and pDesc says how it was
// computed; comparisons is the size of each measure's family.
func Legend(pName, pDesc string, c Correction, comparisons int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-14s mean of run - baseline per query, paired t interval\n", fmt.Sprintf("diff, %g%% CI", 100*ConfidenceLevel))
	fmt.Fprintf(&b, "  %-14s %s\n", pName, pDesc)
	fmt.Fprintf(&b, "  %-14s %s %s %s; verdict at α = %g\n", c.Column(), pName, c.Phrase(), FamilyPhrase(comparisons), DefaultAlpha)
	fmt.Fprintf(&b, "  %-14s Cohen's d_z: mean / standard deviation of the differences\n", "d_z")
	fmt.Fprintf(&b, "  %-14s queries won / tied / lost\n", "W/T/L")
	return b.String()
}

// FamilyPhrase says how many comparisons each family holds: "for the 12
// comparisons of each measure", "for the one comparison of each measure".
func FamilyPhrase(comparisons int) string {
	if comparisons == 1 {
		return "for the one comparison of each measure"
	}
	return fmt.Sprintf("for the %d comparisons of each measure", comparisons)
}

// FormatEffect prints an effect size with 2 decimals, "–" when undefined.
func FormatEffect(e *float64) string {
	if e == nil {
		return "–"
	}
	return fmt.Sprintf("%+.2f", *e)
}

// FormatP prints a p-value with 4 decimals, or "<0.0001".
func FormatP(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}
