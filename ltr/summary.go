package ltr

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lovbench/lovbench/ltr/measures"
)

// VerdictMeasure is the measure on which the summary, results.json and the
// report name the best learned ranker.
const VerdictMeasure = "NDCG@10"

// Verdict names the best learned ranker on a measure only when it is
// significantly better than the baseline after correction.
type Verdict struct {
	Measure    string  `json:"measure"`
	Correction string  `json:"correction"`
	Alpha      float64 `json:"alpha"`
	Baseline   float64 `json:"baseline"`
	// Best is the learned (ranker, configuration) with the highest mean
	// among those significantly better than the baseline; nil (JSON null)
	// when none is.
	Best *VerdictRow `json:"best"`
	// Top is the learned one with the highest mean, significant or not.
	Top *VerdictRow `json:"top"`
	// Learned counts the learned (ranker, configuration) pairs compared;
	// Better and Worse those significantly better and worse.
	Learned int `json:"learned"`
	Better  int `json:"better"`
	Worse   int `json:"worse"`
}

// VerdictRow is a learned (ranker, configuration) in a Verdict.
type VerdictRow struct {
	Ranker        string                `json:"ranker"`
	Configuration string                `json:"configuration"`
	Value         float64               `json:"value"`
	Significance  measures.Significance `json:"significance"`
}

// NewVerdict decides from the MEAN rows of results (with their
// Significance) which learned ranker, if any, is significantly better than
// the baseline on measure at alpha. correction is the one the rows'
// corrected p-values used (for the sentence).
func NewVerdict(rows []ResultRow, measure string, correction measures.Correction, alpha float64) Verdict {
	v := Verdict{Measure: measure, Correction: string(correction), Alpha: alpha}
	for _, r := range rows {
		if r.Fold != FoldMean {
			continue
		}
		if strings.EqualFold(r.Configuration, ConfigBaseline) {
			v.Baseline = r.Values[measure]
			continue
		}
		sig, ok := r.Significance[measure]
		if !ok {
			continue
		}
		vr := &VerdictRow{Ranker: r.Ranker, Configuration: r.Configuration, Value: r.Values[measure], Significance: sig}
		v.Learned++
		if v.Top == nil || vr.Value > v.Top.Value {
			v.Top = vr
		}
		switch {
		case sig.Better(alpha):
			v.Better++
			if v.Best == nil || vr.Value > v.Best.Value {
				v.Best = vr
			}
		case sig.Worse(alpha):
			v.Worse++
		}
	}
	return v
}

func ciText(s measures.Significance) string {
	return fmt.Sprintf("%g%% CI [%+.4f, %+.4f]", 100*measures.ConfidenceLevel, s.CILow, s.CIHigh)
}

// Sentence states the verdict for a reader ("" when nothing was compared).
func (v Verdict) Sentence() string {
	if v.Top == nil {
		return ""
	}
	c := measures.Correction(v.Correction)
	var s string
	if b := v.Best; b != nil {
		g := b.Significance
		s = fmt.Sprintf("Best learned ranker by %s: %s on %s, %.4f (baseline %.4f), significantly better %s (α = %g): difference %+.4f, %s, p = %s, corrected p = %s, d_z = %s, wins/ties/losses %d/%d/%d over %d queries.",
			v.Measure, b.Ranker, b.Configuration, b.Value, v.Baseline, c.Phrase(), v.Alpha, g.Diff, ciText(g), measures.FormatP(g.P), measures.FormatP(g.PAdjusted),
			measures.FormatEffect(g.EffectSize), g.Wins, g.Ties, g.Losses, g.N)
	} else {
		t := v.Top
		g := t.Significance
		s = fmt.Sprintf("No learned ranker beats the baseline (%s %.4f) significantly %s (α = %g); the highest, %s on %s (%.4f), differs by %+.4f (%s, corrected p = %s).",
			v.Measure, v.Baseline, c.Phrase(), v.Alpha, t.Ranker, t.Configuration, t.Value, g.Diff, ciText(g), measures.FormatP(g.PAdjusted))
	}
	if v.Worse > 0 {
		s += fmt.Sprintf(" %d of the %d learned rankers are significantly worse than the baseline.", v.Worse, v.Learned)
	}
	return s
}

// SummaryRow is one line of the summary `lovbench ltr` prints: a ranker and
// configuration (or the baseline), its test NDCG@10 and MAP averaged over the
// folds (the MEAN row of <Ranker>_Results.csv) and its training time summed
// over the folds.
type SummaryRow struct {
	Ranker, Configuration string
	NDCG10, MAP           float64
	TrainSeconds          float64
	// Significance against the baseline by measure name (nil for the
	// baseline).
	Significance map[string]measures.Significance
}

// Summary returns the baseline, then per algorithm (in the order run) each
// configuration, with the values of the MEAN rows of Rows.
func (r *ExperimentResult) Summary() []SummaryRow {
	ndcg10, mapName := Metric{Kind: MetricNDCG, K: 10}.String(), Metric{Kind: MetricMAP}.String()
	secs := map[[2]string]float64{}
	for _, run := range r.Runs {
		secs[[2]string{run.Algorithm.DisplayName(), run.Configuration}] += run.TrainSeconds
	}
	var out []SummaryRow
	for i, alg := range r.Options.Algorithms {
		for _, row := range r.Rows(alg) {
			if row.Fold != FoldMean || (row.Configuration == ConfigBaseline && i > 0) {
				continue
			}
			sr := SummaryRow{Ranker: row.Ranker, Configuration: row.Configuration, NDCG10: row.Values[ndcg10], MAP: row.Values[mapName],
				TrainSeconds: secs[[2]string{row.Ranker, row.Configuration}], Significance: row.Significance}
			if row.Configuration == ConfigBaseline {
				sr.Ranker = "-"
			}
			out = append(out, sr)
		}
	}
	return out
}

// summaryMeasures are the measures of the printed summary.
var summaryMeasures = []string{"NDCG@10", "MAP"}

// WriteSummary prints Summary as an aligned table, then the comparisons of
// every learned configuration with the baseline on the summary's measures
// (all measures are in results.json) and the Verdict on VerdictMeasure.
func (r *ExperimentResult) WriteSummary(w io.Writer) error {
	rows := r.Summary()
	if err := writeSummaryTable(w, rows); err != nil {
		return err
	}
	var all []ResultRow
	for _, a := range r.Options.Algorithms {
		all = append(all, r.Rows(a)...)
	}
	m := r.significanceMethod()
	nq := 0
	for _, b := range r.Baseline {
		nq += len(b.QueryIDs)
	}
	c := measures.Correction(m.Correction)
	fmt.Fprintf(w, "\nagainst the baseline, over the %d test queries of all folds pooled (all measures in results.json):\n", nq)
	fmt.Fprint(w, measures.Legend("p", fmt.Sprintf("two-sided paired randomisation test, %d random sign assignments", r.Options.Permutations), c, r.comparisons()))
	if err := writeSignificanceTable(w, rows, summaryMeasures, measures.Correction(m.Correction)); err != nil {
		return err
	}
	if s := r.verdict(all).Sentence(); s != "" {
		_, err := fmt.Fprintln(w, s)
		return err
	}
	return nil
}

// writeSummaryTable prints the ranker/configuration table, every column
// as wide as its widest cell.
func writeSummaryTable(w io.Writer, rows []SummaryRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ranker\tconfig\tNDCG@10\tMAP\ttrain_s")
	for _, s := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.4f\t%.2f\n", s.Ranker, s.Configuration, s.NDCG10, s.MAP, s.TrainSeconds)
	}
	return tw.Flush()
}

// writeSignificanceTable prints one line per learned configuration and
// measure: difference, confidence interval, p, corrected p, effect size,
// wins/ties/losses and the verdict at measures.DefaultAlpha.
func writeSignificanceTable(w io.Writer, rows []SummaryRow, ms []string, c measures.Correction) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ranker\tconfig\tmeasure\tdiff\t%g%% CI\tp\t%s\td_z\tW/T/L\tverdict\n", 100*measures.ConfidenceLevel, c.Column())
	for _, m := range ms {
		for _, s := range rows {
			g, ok := s.Significance[m]
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.4f\t[%+.4f, %+.4f]\t%s\t%s\t%s\t%d/%d/%d\t%s\n", s.Ranker, s.Configuration, m, g.Diff, g.CILow, g.CIHigh,
				measures.FormatP(g.P), measures.FormatP(g.PAdjusted), measures.FormatEffect(g.EffectSize), g.Wins, g.Ties, g.Losses, g.Verdict(measures.DefaultAlpha))
		}
	}
	return tw.Flush()
}

// comparisons is the number of comparisons with the baseline per measure:
// the learned (algorithm, configuration) pairs.
func (r *ExperimentResult) comparisons() int { return len(r.Runs) / max(1, len(r.Folds)) }
