// Package report is the report stage: Run (Config, DefaultConfig) reads
// the outputs of the stages before it (Build: the analytics of data.go and
// sweep.go, the confidence sweeps among them) and renders the benchmark
// report of a lovbench run as one self-contained HTML file (FileHTML),
// writing its data beside it (FileJSON): no external assets, no scripts, every chart an
// inline SVG generated here. It covers the analyses of the LOVBench paper:
// log cleaning (section 4.1), log analysis (section 4.1, Figure 3), click
// models (section 4.2, Table 2), the label distribution (Table 4, beside
// LOVBench's shares of docs/method.md section 5), learning-to-rank results (section
// 6, NDCG@k, with every ranker's significance against the baseline:
// docs/ltr.md, "Significance against the baseline"), for simulated logs
// how well the inferred labels recover the hidden true relevance, and how
// sure the labels are (their confidence per label, and the recovery of the
// confident ones; confidence.go). Every figure a sentence states is
// computed from the full data, never from a chart's sample.
package report

import (
	"slices"
	"strings"

	"fmt"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/ltr/measures"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
)

// Count is a named count.
type Count struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	// Kind says what a cleaning count counts, for the chart of where the
	// input events went; "" for other counts.
	Kind CountKind `json:"kind,omitempty"`
}

// CountKind is the kind of a cleaning count.
type CountKind string

// The kinds of cleaning counts the report charts.
const (
	KeptQueries CountKind = "kept_queries" // kept query events (SERPs)
	KeptClicks  CountKind = "kept_clicks"
	Dropped     CountKind = "dropped"     // events a cleaning rule dropped
	Quarantined CountKind = "quarantined" // malformed events
	// Sessions counts sessions, not events (shown in a table of its own).
	Sessions CountKind = "sessions"
)

// LogStats is the log analysis of LOVBench section 4.1.
type LogStats struct {
	SERPs           int64 `json:"serps"`
	Sessions        int64 `json:"sessions"`
	DistinctQueries int64 `json:"distinct_queries"`
	Clicks          int64 `json:"clicks"`
	// ClicksPerRank[r] counts clicks on rank r+1.
	ClicksPerRank []int64 `json:"clicks_per_rank"`
	// QueryLengths[n] counts SERPs whose query has n words (index 0 unused).
	QueryLengths []int64 `json:"query_lengths"`
	// Clicks on classes and on properties (local-name capitalisation).
	ClassClicks    int64 `json:"class_clicks"`
	PropertyClicks int64 `json:"property_clicks"`
}

// ClickModel is one row of the click-model table.
type ClickModel struct {
	Name          string    `json:"name"`
	TrainSessions int       `json:"train_sessions"`
	TestSessions  int       `json:"test_sessions"`
	LogLikelihood float64   `json:"test_loglikelihood"`
	Perplexity    float64   `json:"test_perplexity"`
	PerplexityAt  []float64 `json:"test_perplexity_at_rank,omitempty"`
	// Gain is the perplexity gain over the baseline model (GainBase).
	Gain     float64 `json:"gain"`
	GainBase string  `json:"gain_base"`
	// Expert correlations (nil when no expert judgments were given).
	ExpertPearson *float64 `json:"expert_pearson,omitempty"`
	ExpertKendall *float64 `json:"expert_kendall,omitempty"`
	Selected      bool     `json:"selected"`
}

// LabelShare is one label's count in the ground truth.
type LabelShare struct {
	Label int   `json:"label"`
	Count int64 `json:"count"`
}

// LTRResult is the mean test performance of one ranker on one feature
// configuration.
type LTRResult struct {
	Ranker string `json:"ranker"`
	Config string `json:"config"`
	// Measures by name (e.g. "NDCG@3", "MAP", "ERR@10").
	Measures map[string]float64 `json:"measures"`
	// Ties says how much the ranker's test rankings depend on how ties
	// between equal scores are broken (nil: not measured).
	Ties *LTRTies `json:"ties,omitempty"`
	// Significance compares a learned ranker with the baseline, per
	// measure (nil for the baseline, or when not computed).
	Significance map[string]measures.Significance `json:"significance,omitempty"`
}

// LTRTies are the tie statistics of one ranker's test rankings.
type LTRTies struct {
	// Rate is the share of the top-10 ranks holding a document whose
	// score equals another document's of the same query.
	Rate float64 `json:"tie_rate"`
	// Optimistic and Pessimistic are NDCG@10 with ties ordered by label
	// descending and ascending.
	Optimistic  float64 `json:"ndcg10_optimistic"`
	Pessimistic float64 `json:"ndcg10_pessimistic"`
}

// TieFlagThreshold is the NDCG@10 gap between optimistic and pessimistic
// tie-breaking above which the report flags a ranker.
const TieFlagThreshold = 0.01

// Flagged reports whether NDCG@10 moves by more than TieFlagThreshold
// between pessimistic and optimistic tie-breaking.
func (t *LTRTies) Flagged() bool {
	return t != nil && t.Optimistic-t.Pessimistic > TieFlagThreshold
}

// Recovery compares inferred labels with the hidden true relevance of a
// simulated log.
type Recovery struct {
	Pairs int `json:"pairs"`
	// Pearson and Kendall (tau-b) correlation between the inferred
	// satisfaction probability and the true relevance.
	Pearson float64 `json:"pearson"`
	Kendall float64 `json:"kendall"`
	// Confusion[i][j] counts pairs with true label Labels[i] and inferred
	// label Labels[j]; Agreement is the share on the diagonal.
	Labels    []int     `json:"labels"`
	Confusion [][]int64 `json:"confusion"`
	Agreement float64   `json:"agreement"`
	// Points (inferred probability, true relevance) for the scatter plot.
	Points []Point `json:"-"`
	// PointStep says which pairs Points holds: every PointStep-th (1:
	// all), as there may be too many to draw.
	PointStep int `json:"-"`
	// NearPrior counts the pairs (all of them, not the scatter's sample)
	// whose inferred probability lies in [NearPriorLow, NearPriorHigh).
	NearPrior int `json:"near_prior"`
}

// The range of inferred probabilities just below the click models' prior
// of 0.5 where the pairs of a sparse log sit.
const (
	NearPriorLow  = 0.45
	NearPriorHigh = 0.5
)

// nearPriorNote is the share of NearPrior pairs above which the report
// says that the log is too sparse for good recovery.
const nearPriorNote = 0.4

// Stage is one stage's line in the run summary. Only the fingerprint is
// shown (not timings or whether it was skipped), so the report of the same
// inputs is byte-identical however the run went.
type Stage struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
}

// Data is everything the report shows; sections whose data is missing are
// rendered with a note saying so.
type Data struct {
	Title string   `json:"title"`
	Notes []string `json:"notes,omitempty"`
	// Warnings are shown in a banner under the title (a dataset below the
	// minimums of a benchmark, published with --allow-degenerate).
	Warnings []string `json:"warnings,omitempty"`
	// FeatureSemantics is the feature semantics that built the dataset
	// ("reference" or "paper"; manifest.json parameters.feature_semantics).
	FeatureSemantics string       `json:"feature_semantics,omitempty"`
	Stages           []Stage      `json:"stages,omitempty"`
	Cleaning         []Count      `json:"cleaning,omitempty"`
	Log              *LogStats    `json:"log,omitempty"`
	Models           []ClickModel `json:"click_models,omitempty"`
	Labels           []LabelShare `json:"labels,omitempty"`
	// Dataset counts (queries, pairs) of the ground truth.
	Dataset []Count     `json:"dataset,omitempty"`
	LTR     []LTRResult `json:"ltr,omitempty"`
	// LTRSignificance says how the learned rankers were compared with the
	// baseline (nil: results without significance).
	LTRSignificance *ltr.SignificanceMethod `json:"ltr_significance,omitempty"`
	// LTRVerdict says whether a learned ranker is significantly better
	// than the baseline (nil: results without significance).
	LTRVerdict *ltr.Verdict `json:"ltr_verdict,omitempty"`
	// LTRTieRule is the tie rule of the LTR values ("docid": trec_eval's
	// docid descending; see ltr --ties).
	LTRTieRule string    `json:"ltr_tie_rule,omitempty"`
	Recovery   *Recovery `json:"recovery,omitempty"`
	// Confidence is the section "How sure are the labels" (confidence.go).
	Confidence *Confidence `json:"confidence,omitempty"`
}

// view is what the template renders.
type view struct {
	*Data
	// NearPrior is the share of the recovery pairs whose inferred
	// probability lies in [0.45, 0.5), when above 40% (else "").
	NearPrior                    string
	Summary                      []string
	CleaningChart                template.HTML
	RankChart, LenChart, CPChart template.HTML
	PerplexityChart              template.HTML
	LabelChart                   template.HTML
	LabelRows                    []labelRow
	NDCGChart                    template.HTML
	LTRMeasures                  []string
	LTRRows                      []ltrRow
	// TieRows are the rankers whose NDCG@10 moves by more than TieFlag
	// between pessimistic and optimistic tie-breaking.
	TieRows      []tieRow
	ScatterChart template.HTML
	Charts       int
	// NoExpert is set when no model has an expert correlation.
	NoExpert bool
	// TieFlag is TieFlagThreshold, for the template.
	TieFlag float64

	// ScatterNote says which pairs the scatter plot shows.
	ScatterNote string
	// CleaningEvents and CleaningSessions are the cleaning counts of
	// events and of sessions, in tables of their own.
	CleaningEvents, CleaningSessions []Count
	// SigIntro explains the significance tables; SigRows compare every
	// learned ranker with the baseline on ltr.VerdictMeasure, SigRowsAll
	// on every measure; SigColumn heads the corrected p-values; Verdict
	// says whether a learned ranker beats the baseline.
	SigIntro            string
	SigRows, SigRowsAll []sigRow
	SigColumn           string
	Verdict             string
	// ConfidenceSection is the rendered "How sure are the labels"
	// (confidenceSection); StagesNumber the number of the last section.
	ConfidenceSection template.HTML
	StagesNumber      int
}

type labelRow struct {
	Label       string
	Count       int64
	Share, LOVB string
}

type ltrRow struct {
	Ranker, Config string
	Values         []string
	// TieRate and Bounds ("0.41 – 0.52") are "–" when not measured;
	// Flagged marks an NDCG@10 gap above TieFlagThreshold.
	TieRate, Bounds string
	Flagged         bool
}

// tieRow is one flagged ranker of the tie table: what the main table does
// not show, the spread of NDCG@10 between the tie orders.
type tieRow struct {
	Ranker, Config, Spread string
}

// sigRow is one comparison with the baseline.
type sigRow struct {
	Ranker, Config, Measure                             string
	Diff, CI, P, PAdjusted, Effect, WTL, Verdict, Class string
}

// Render writes the report for d to w. The output depends only on d.
func Render(w io.Writer, d *Data) error {
	v := &view{Data: d, TieFlag: TieFlagThreshold}
	for _, c := range d.Cleaning {
		if c.Kind == Sessions {
			v.CleaningSessions = append(v.CleaningSessions, c)
		} else {
			v.CleaningEvents = append(v.CleaningEvents, c)
		}
	}
	if len(d.Cleaning) > 0 {
		// Where the input events went: kept queries, kept clicks, dropped
		// by a rule, quarantined.
		var kq, kc, dropped, quar float64
		for _, c := range d.Cleaning {
			switch c.Kind {
			case KeptQueries:
				kq = float64(c.Value)
			case KeptClicks:
				kc = float64(c.Value)
			case Dropped:
				dropped += float64(c.Value)
			case Quarantined:
				quar += float64(c.Value)
			}
		}
		v.CleaningChart = BarChart("Where the input events went", "", "events",
			[]string{"kept queries", "kept clicks", "dropped by a rule", "quarantined"},
			[]Series{{Name: "events", Values: []float64{kq, kc, dropped, quar}}})
		v.Charts++
	}
	if l := d.Log; l != nil {
		cats := make([]string, len(l.ClicksPerRank))
		vals := make([]float64, len(l.ClicksPerRank))
		for i, c := range l.ClicksPerRank {
			cats[i] = strconv.Itoa(i + 1)
			vals[i] = float64(c)
		}
		v.RankChart = BarChart("Clicks per rank", "rank", "clicks", cats, []Series{{Name: "clicks", Values: vals}})
		var lc []string
		var lv []float64
		for n := 1; n < len(l.QueryLengths); n++ {
			lc = append(lc, strconv.Itoa(n))
			lv = append(lv, float64(l.QueryLengths[n]))
		}
		v.LenChart = BarChart("Query length", "words in the query", "SERPs", lc, []Series{{Name: "SERPs", Values: lv}})
		v.CPChart = BarChart("Clicked terms: classes vs properties", "term type", "clicks", []string{"classes", "properties"},
			[]Series{{Name: "clicks", Values: []float64{float64(l.ClassClicks), float64(l.PropertyClicks)}}})
		v.Charts += 3
	}
	if len(d.Models) > 0 {
		maxR := 0
		ymax := 1.0
		var series []Series
		for _, m := range d.Models {
			maxR = max(maxR, len(m.PerplexityAt))
			for _, p := range m.PerplexityAt {
				ymax = math.Max(ymax, p)
			}
			series = append(series, Series{Name: m.Name, Values: m.PerplexityAt})
		}
		if maxR > 0 {
			xs := make([]string, maxR)
			for i := range xs {
				xs[i] = strconv.Itoa(i + 1)
			}
			v.PerplexityChart = LineChart("Test perplexity per rank", "rank", "perplexity", xs, series, 1, niceMax(ymax-1)+1)
			v.Charts++
		}
	}
	if len(d.Labels) > 0 {
		var total int64
		for _, l := range d.Labels {
			total += l.Count
		}
		// LOVBench's labels from junk up, then any other label found.
		order := []int{labels.Junk, 0, 1, 2, 3, 4}
		for _, l := range d.Labels {
			if !slices.Contains(order, l.Label) {
				order = append(order, l.Label)
			}
		}
		var cats []string
		var ours, lovb []float64
		for _, lab := range order {
			var c int64
			for _, l := range d.Labels {
				if l.Label == lab {
					c = l.Count
				}
			}
			share := 0.0
			if total > 0 {
				share = 100 * float64(c) / float64(total)
			}
			name := strconv.Itoa(lab)
			if lab == -2 {
				name = "junk (-2)"
			}
			cats = append(cats, name)
			ours = append(ours, share)
			// LOVBench's share (paper Table 4), in percent.
			ref, ok := 100*labels.LOVBenchShare(lab), slices.Contains(labels.AllLabels(), lab)
			if !ok {
				ref = math.NaN()
			}
			lovb = append(lovb, ref)
			row := labelRow{Label: name, Count: c, Share: fmt.Sprintf("%.2f%%", share), LOVB: "–"}
			if ok {
				row.LOVB = fmt.Sprintf("%.2f%%", ref)
			}
			v.LabelRows = append(v.LabelRows, row)
		}
		v.LabelChart = BarChart("Label distribution (% of pairs)", "label", "% of pairs", cats,
			[]Series{{Name: "this run", Values: ours}, {Name: "LOVBench", Values: lovb}})
		v.Charts++
	}
	if len(d.LTR) > 0 {
		set := map[string]bool{}
		for _, r := range d.LTR {
			for k := range r.Measures {
				set[k] = true
			}
		}
		v.LTRMeasures = sortMeasures(set)
		var ks []int
		for m := range set {
			var k int
			if _, err := fmt.Sscanf(m, "NDCG@%d", &k); err == nil {
				ks = append(ks, k)
			}
		}
		sort.Ints(ks)
		var series []Series
		for _, r := range d.LTR {
			row := ltrRow{Ranker: r.Ranker, Config: r.Config, TieRate: "–", Bounds: "–"}
			if r.Ties != nil {
				row.TieRate = strconv.FormatFloat(100*r.Ties.Rate, 'f', 1, 64) + "%"
				row.Bounds = strconv.FormatFloat(r.Ties.Pessimistic, 'f', 4, 64) + " – " + strconv.FormatFloat(r.Ties.Optimistic, 'f', 4, 64)
				row.Flagged = r.Ties.Flagged()
				if row.Flagged {
					v.TieRows = append(v.TieRows, tieRow{Ranker: r.Ranker, Config: r.Config, Spread: fmtFloat(r.Ties.Optimistic - r.Ties.Pessimistic)})
				}
			}
			for _, m := range v.LTRMeasures {
				if x, ok := r.Measures[m]; ok {
					row.Values = append(row.Values, strconv.FormatFloat(x, 'f', 4, 64))
				} else {
					row.Values = append(row.Values, "–")
				}
			}
			v.LTRRows = append(v.LTRRows, row)
			if len(ks) > 0 {
				s := Series{Name: r.Ranker + " / " + r.Config}
				for _, k := range ks {
					x, ok := r.Measures["NDCG@"+strconv.Itoa(k)]
					if !ok {
						x = math.NaN()
					}
					s.Values = append(s.Values, x)
				}
				series = append(series, s)
			}
		}
		if len(ks) > 0 {
			xs := make([]string, len(ks))
			for i, k := range ks {
				xs[i] = "NDCG@" + strconv.Itoa(k)
			}
			// The y range from the series drawn, not from every row.
			series = bestPerRanker(d.LTR, series)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, s := range series {
				for _, x := range s.Values {
					if !math.IsNaN(x) {
						lo, hi = math.Min(lo, x), math.Max(hi, x)
					}
				}
			}
			ymin, ymax := DotRange(lo, hi)
			v.NDCGChart = DotChart("Mean test NDCG@k, best configuration per ranker (all in the table)", "cutoff k", "mean test NDCG@k over the folds", xs, series, ymin, ymax)
			v.Charts++
		}
		v.significance(d)
	}
	if r := d.Recovery; r != nil && r.Pairs > 0 {
		// Figures from every pair, never from the scatter's sample.
		if share := float64(r.NearPrior) / float64(r.Pairs); share > nearPriorNote {
			v.NearPrior = fmtPct(share)
		}
	}
	if r := d.Recovery; r != nil && len(r.Points) > 0 {
		title := "Inferred probability vs hidden true relevance"
		v.ScatterNote = fmt.Sprintf("The scatter plot shows all %s pairs.", groupInt(int64(r.Pairs)))
		if len(r.Points) < r.Pairs {
			title += fmt.Sprintf(" (sample: %s of %s pairs)", groupInt(int64(len(r.Points))), groupInt(int64(r.Pairs)))
			v.ScatterNote = fmt.Sprintf("The scatter plot shows a sample of %s of the %s pairs: every %s pair in labels.csv order; the figures above count all %s.",
				groupInt(int64(len(r.Points))), groupInt(int64(r.Pairs)), ordinal(max(r.PointStep, 2)), groupInt(int64(r.Pairs)))
		}
		v.ScatterChart = ScatterChart(title, "inferred probability", "true relevance", r.Points, 0, 1, 0, 1)
		v.Charts++
	}
	v.StagesNumber = 6
	if d.Recovery != nil {
		v.StagesNumber++
	}
	var nc int
	v.ConfidenceSection, nc = confidenceSection(d.Confidence, v.StagesNumber)
	if d.Confidence != nil {
		v.StagesNumber++
	}
	v.Charts += nc
	v.Summary = summary(d)
	v.NoExpert = true
	for _, m := range d.Models {
		if m.ExpertPearson != nil || m.ExpertKendall != nil {
			v.NoExpert = false
		}
	}
	return page.Execute(w, v)
}

// bestPerRanker keeps, of the NDCG@k series (series[i] is results[i]), one
// per ranker: its configuration with the highest NDCG@10, or, without
// NDCG@10, the highest mean over k; the first wins ties. Rankers keep their
// order of first appearance. Every configuration stays in the LTR table.
func bestPerRanker(results []LTRResult, series []Series) []Series {
	score := func(i int) float64 {
		if x, ok := results[i].Measures["NDCG@10"]; ok && !math.IsNaN(x) {
			return x
		}
		sum, n := 0.0, 0
		for _, x := range series[i].Values {
			if !math.IsNaN(x) {
				sum += x
				n++
			}
		}
		if n == 0 {
			return math.Inf(-1)
		}
		return sum / float64(n)
	}
	best := map[string]int{}
	var order []string
	for i := range series {
		r := results[i].Ranker
		j, seen := best[r]
		if !seen {
			order = append(order, r)
			best[r] = i
		} else if score(i) > score(j) {
			best[r] = i
		}
	}
	out := make([]Series, 0, len(order))
	for _, r := range order {
		out = append(out, series[best[r]])
	}
	return out
}

// summary lists the key figures shown at the top of the report.
func summary(d *Data) []string {
	var out []string
	if l := d.Log; l != nil {
		out = append(out, fmt.Sprintf("Cleaned log: %d SERPs in %d sessions, %d distinct queries, %d clicks.", l.SERPs, l.Sessions, l.DistinctQueries, l.Clicks))
	}
	for _, m := range d.Models {
		if m.Selected {
			out = append(out, fmt.Sprintf("Labels from %s, the selected click model (test log-likelihood %.4f, perplexity %.4f).", m.Name, m.LogLikelihood, m.Perplexity))
		}
	}
	if len(d.Dataset) == 2 {
		out = append(out, fmt.Sprintf("Ground truth: %d %s, %d %s.", d.Dataset[0].Value, d.Dataset[0].Name, d.Dataset[1].Value, d.Dataset[1].Name))
	}
	if d.LTRVerdict != nil {
		if s := d.LTRVerdict.Sentence(); s != "" {
			out = append(out, s)
		}
	}
	flagged := 0
	for _, r := range d.LTR {
		if r.Ties.Flagged() {
			flagged++
		}
	}
	if flagged > 0 {
		out = append(out, fmt.Sprintf("Ties: NDCG@10 moves by more than %.2f between pessimistic and optimistic tie-breaking for %d of %d rankers (table in section 5).", TieFlagThreshold, flagged, len(d.LTR)))
	}
	if r := d.Recovery; r != nil {
		out = append(out, fmt.Sprintf("Label recovery: Pearson r %.3f and Kendall τb %.3f between inferred probability and hidden true relevance over %d pairs.", r.Pearson, r.Kendall, r.Pairs))
	}
	return out
}

// sortMeasures orders measure names: MAP first, then NDCG@k, ERR@k, others,
// each by cutoff.
func sortMeasures(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	rank := func(m string) (int, int, string) {
		var k int
		switch {
		case m == "MAP":
			return 0, 0, m
		case scan(m, "NDCG@%d", &k):
			return 1, k, m
		case scan(m, "ERR@%d", &k):
			return 2, k, m
		}
		return 3, 0, m
	}
	sort.Slice(out, func(i, j int) bool {
		a1, a2, a3 := rank(out[i])
		b1, b2, b3 := rank(out[j])
		if a1 != b1 {
			return a1 < b1
		}
		if a2 != b2 {
			return a2 < b2
		}
		return a3 < b3
	})
	return out
}

func scan(s, format string, k *int) bool {
	_, err := fmt.Sscanf(s, format, k)
	return err == nil
}

// significance fills the significance tables of the view from the
// LTR results' comparisons with the baseline.
func (v *view) significance(d *Data) {
	m := d.LTRSignificance
	if m == nil {
		return
	}
	c := measures.Correction(m.Correction)
	v.SigColumn = c.Column()
	nq := 0
	for _, r := range d.LTR {
		for _, mm := range v.LTRMeasures {
			g, ok := r.Significance[mm]
			if !ok {
				continue
			}
			nq = g.N
			row := sigRow{Ranker: r.Ranker, Config: r.Config, Measure: mm, Diff: fmt.Sprintf("%+.4f", g.Diff),
				CI: fmt.Sprintf("[%+.4f, %+.4f]", g.CILow, g.CIHigh), P: measures.FormatP(g.P), PAdjusted: measures.FormatP(g.PAdjusted),
				Effect: measures.FormatEffect(g.EffectSize), WTL: fmt.Sprintf("%d / %d / %d", g.Wins, g.Ties, g.Losses), Verdict: g.Verdict(m.Alpha)}
			switch {
			case g.Better(m.Alpha):
				row.Class, row.Verdict = "better", "better ✓"
			case g.Worse(m.Alpha):
				row.Class = "worse"
			}
			v.SigRowsAll = append(v.SigRowsAll, row)
			if mm == ltr.VerdictMeasure {
				v.SigRows = append(v.SigRows, row)
			}
		}
	}
	if len(v.SigRowsAll) == 0 {
		return
	}
	// All measures grouped by measure, in the order of the main table.
	slices.SortStableFunc(v.SigRowsAll, func(a, b sigRow) int {
		return slices.Index(v.LTRMeasures, a.Measure) - slices.Index(v.LTRMeasures, b.Measure)
	})
	v.SigIntro = fmt.Sprintf("Each learned ranker and configuration against the unlearned baseline, over the %s test queries of all folds pooled: "+
		"the mean per-query difference (ranker − baseline) with its %g%% confidence interval (paired t interval); p, the %s; %s, that p-value %s %s; "+
		"d_z, Cohen's d_z (mean difference over the standard deviation of the per-query differences); and the queries won, tied and lost. "+
		"The verdict is at α = %g on the corrected p-value.",
		groupInt(int64(nq)), 100*m.ConfidenceLevel, m.Test, v.SigColumn, c.Phrase(), measures.FamilyPhrase(len(v.SigRows)), m.Alpha)
	if d.LTRVerdict != nil {
		v.Verdict = d.LTRVerdict.Sentence()
	}
}

// ordinal writes 2nd, 3rd, 4th, ... (for n >= 2).
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return strconv.Itoa(n) + "th"
	case n%10 == 2:
		return strconv.Itoa(n) + "nd"
	case n%10 == 3:
		return strconv.Itoa(n) + "rd"
	}
	return strconv.Itoa(n) + "th"
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
func fmtPct(x float64) string   { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
func fmtOpt(x *float64) string {
	if x == nil {
		return "–"
	}
	return fmtFloat(*x)
}

// breakAt escapes a measure name for a table header and lets it break
// after "@" (NDCG@<wbr>10): a header as wide as "NDCG@10" made each number
// column wider than its values, and the LTR table wider than the page at
// 800 px.
func breakAt(s string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), "@", "@<wbr>"))
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"f": fmtFloat, "pct": fmtPct, "opt": fmtOpt, "breakAt": breakAt,
	"short": func(s string) string {
		if len(s) > 16 {
			return s[:16]
		}
		return s
	},
}).Parse(pageTemplate))

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc;padding-bottom:.2em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}
tr.sel td{font-weight:bold;background:#eef6ff}
svg.chart{display:block;margin:1em 0;width:100%;height:auto}
.note{color:#555;font-style:italic}
.figure{font-size:1.3em;font-weight:bold}
.warning{background:#fff3cd;border:2px solid #b00;color:#600;padding:.6em 1em;font-weight:bold}
.scroll{overflow-x:auto;max-width:100%}
.scroll table{font-size:.8em}
.scroll th,.scroll td{padding:.2em .3em}
.scroll td{white-space:nowrap}
.scroll th,.scroll td.wrap{white-space:normal}
tr.worse td{color:#8a1c1c}
tr.better td{font-weight:bold;background:#eefbea}
details{margin:1em 0}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Warnings}}<p class="warning" role="alert">{{.}}</p>
{{end}}{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{if .Summary}}<ul class="summary">{{range .Summary}}<li>{{.}}</li>{{end}}</ul>{{end}}
<nav><ol>
<li><a href="#cleaning">Log cleaning</a></li>
<li><a href="#log">Log analysis</a></li>
<li><a href="#models">Click models</a></li>
<li><a href="#labels">Labels</a></li>
<li><a href="#ltr">Learning to rank</a></li>
{{if .Recovery}}<li><a href="#recovery">Label recovery (simulated log)</a></li>{{end}}
{{if .Confidence}}<li><a href="#confidence">How sure are the labels</a></li>{{end}}
<li><a href="#stages">Stages</a></li>
</ol></nav>

<h2 id="cleaning">1. Log cleaning</h2>
{{if .Cleaning}}
<p>What the cleaning rules of the LOVBench paper (section 4.1; docs/method.md section 2, rules numbered as there) kept and dropped, from the ingest report; reasons that did not occur are left out.</p>
<table class="cleaning"><tr><th>count</th><th>events</th></tr>
{{range .CleaningEvents}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table>
{{if .CleaningSessions}}<table class="cleaning-sessions"><tr><th>count</th><th>sessions</th></tr>
{{range .CleaningSessions}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table>{{end}}
{{.CleaningChart}}
{{else}}<p class="note">No ingest report in this run.</p>{{end}}

<h2 id="log">2. Log analysis</h2>
{{with .Log}}
<table>
<tr><th>SERPs (queries)</th><td>{{.SERPs}}</td></tr>
<tr><th>sessions</th><td>{{.Sessions}}</td></tr>
<tr><th>distinct queries</th><td>{{.DistinctQueries}}</td></tr>
<tr><th>clicks</th><td>{{.Clicks}}</td></tr>
<tr><th>clicks on classes</th><td>{{.ClassClicks}}</td></tr>
<tr><th>clicks on properties</th><td>{{.PropertyClicks}}</td></tr>
</table>
{{end}}
{{if .Log}}{{.RankChart}}{{.LenChart}}{{.CPChart}}
<p class="note">Classes and properties are told apart by the local-name convention (capitalised = class), as in the LOVBench paper.</p>
{{else}}<p class="note">No sessions in this run.</p>{{end}}

<h2 id="models">3. Click models</h2>
{{if .Models}}
<p>Fitted on the first 75% of SERPs, evaluated on the rest (queries seen in training), with PyClick's conventions (docs/method.md section 3). The selected model (bold) has the best test log-likelihood; its relevance gives the labels. Perplexity gain is over {{(index .Models 0).GainBase}}.</p>
<table><tr><th>model</th><th>train</th><th>test</th><th>log-likelihood</th><th>perplexity</th><th>gain</th><th>expert Pearson</th><th>expert Kendall</th></tr>
{{range .Models}}<tr{{if .Selected}} class="sel"{{end}}><td>{{.Name}}</td><td>{{.TrainSessions}}</td><td>{{.TestSessions}}</td><td>{{f .LogLikelihood}}</td><td>{{f .Perplexity}}</td><td>{{f .Gain}}</td><td>{{opt .ExpertPearson}}</td><td>{{opt .ExpertKendall}}</td></tr>
{{end}}</table>
{{if .NoExpert}}<p class="note">No expert correlation: no expert judgments were configured (labels.expert, CBRBench format).</p>{{end}}
<p class="note">LOVBench (2019 LOV log): DCTR −0.274 / 1.299, DBN −0.271 / 1.227, UBM −0.173 / 1.187; Pearson with CBRBench experts DCTR 0.448, DBN 0.282, UBM 0.613.</p>
{{.PerplexityChart}}
{{else}}<p class="note">No click models in this run.</p>{{end}}

<h2 id="labels">4. Labels</h2>
{{if .Labels}}
{{if .Dataset}}<table>{{range .Dataset}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table>{{end}}
<p class="note">Both share columns count the whole ground truth: the labelled terms of each query's first result page plus the matching terms sampled as non-relevant (label 0), as LOVBench's Table 4 counts its 73,950 labelled and 110,274 sampled pairs; the label 0 share therefore depends on the sampling as much as on the clicks.</p>
<table><tr><th>label</th><th>pairs</th><th>share (labelled + sampled)</th><th>LOVBench share (Table 4, labelled + sampled)</th></tr>
{{range .LabelRows}}<tr><td>{{.Label}}</td><td>{{.Count}}</td><td>{{.Share}}</td><td>{{.LOVB}}</td></tr>
{{end}}</table>
{{.LabelChart}}
{{else}}<p class="note">No ground truth in this run.</p>{{end}}

<h2 id="ltr">5. Learning to rank</h2>
{{if .LTR}}
<p>Mean test performance over the folds (relevant = label ≥ 1 for MAP). Documents with equal scores are ordered {{if eq .LTRTieRule "optimistic"}}by label, highest first (an upper bound){{else if eq .LTRTieRule "pessimistic"}}by label, lowest first (a lower bound){{else if eq .LTRTieRule "average"}}at random: the values are the exact expected values over the orders of each tie{{else}}by docid descending, as trec_eval does, never by their position in the fold file{{end}}. <em>Tie rate</em> is the share of the top-10 ranks held by a document that shares its score with another document of the query; the last column is NDCG@10 with ties ordered worst-first and best-first. ⚠ marks a ranker whose NDCG@10 moves by more than {{printf "%.2f" .TieFlag}} between the two.</p>
<div class="scroll"><table><tr><th>ranker</th><th style="text-align:left">configuration</th>{{range .LTRMeasures}}<th>{{breakAt .}}</th>{{end}}<th>tie rate</th><th>NDCG@10 pessimistic – optimistic</th></tr>
{{range .LTRRows}}<tr><td class="wrap">{{.Ranker}}</td><td class="wrap" style="text-align:left">{{.Config}}</td>{{range .Values}}<td>{{.}}</td>{{end}}<td>{{.TieRate}}</td><td class="wrap">{{.Bounds}}{{if .Flagged}} ⚠{{end}}</td></tr>
{{end}}</table></div>
{{if .TieRows}}<p>Rankers whose NDCG@10 moves by more than {{printf "%.2f" .TieFlag}} with the order of tied documents (many equal scores: few distinct feature values among a query's documents):</p>
<div class="scroll"><table class="ties"><tr><th>ranker</th><th style="text-align:left">configuration</th><th>NDCG@10 spread (optimistic − pessimistic)</th></tr>
{{range .TieRows}}<tr><td>{{.Ranker}}</td><td style="text-align:left">{{.Config}}</td><td>{{.Spread}}</td></tr>
{{end}}</table></div>{{end}}
{{if .SigRows}}<h3 id="significance">Against the baseline</h3>
<p>{{.SigIntro}}</p>
{{if .Verdict}}<p><strong>{{.Verdict}}</strong></p>{{end}}
<div class="scroll"><table class="sig"><tr><th>ranker</th><th style="text-align:left">configuration</th><th>{{(index .SigRows 0).Measure}} difference</th><th>95% CI</th><th>p</th><th>{{.SigColumn}}</th><th>d_z</th><th>won / tied / lost</th><th>verdict</th></tr>
{{range .SigRows}}<tr class="{{.Class}}"><td>{{.Ranker}}</td><td class="wrap" style="text-align:left">{{.Config}}</td><td>{{.Diff}}</td><td>{{.CI}}</td><td>{{.P}}</td><td>{{.PAdjusted}}</td><td>{{.Effect}}</td><td>{{.WTL}}</td><td class="wrap">{{.Verdict}}</td></tr>
{{end}}</table></div>
<details><summary>Every measure against the baseline ({{len .SigRowsAll}} comparisons)</summary>
<div class="scroll"><table class="sig"><tr><th>ranker</th><th style="text-align:left">configuration</th><th>measure</th><th>difference</th><th>95% CI</th><th>p</th><th>{{.SigColumn}}</th><th>d_z</th><th>won / tied / lost</th><th>verdict</th></tr>
{{range .SigRowsAll}}<tr class="{{.Class}}"><td>{{.Ranker}}</td><td class="wrap" style="text-align:left">{{.Config}}</td><td>{{.Measure}}</td><td>{{.Diff}}</td><td>{{.CI}}</td><td>{{.P}}</td><td>{{.PAdjusted}}</td><td>{{.Effect}}</td><td>{{.WTL}}</td><td class="wrap">{{.Verdict}}</td></tr>
{{end}}</table></div></details>{{end}}
{{.NDCGChart}}
{{else}}<p class="note">No learning-to-rank results in this run.</p>{{end}}

{{with .Recovery}}
<h2 id="recovery">6. Label recovery (simulated log)</h2>
<p>The log was simulated from a hidden true relevance per (query, term). Over the {{.Pairs}} labelled pairs, the inferred satisfaction probability correlates with the true relevance with</p>
<p class="figure">Pearson r = {{f .Pearson}}, Kendall τ<sub>b</sub> = {{f .Kendall}}</p>
{{if $.NearPrior}}<p class="note">{{$.NearPrior}} of these pairs have an inferred probability in [0.45, 0.5), just below the click model's prior of 0.5: they were shown too few times, at too low an examination probability, for clicks to move the estimate. A log this sparse limits how well any click model recovers relevance (60% of LOVBench's labelled pairs carry label 1 for the same reason); docs/pipeline.md, "The demo's two logs", compares it with a dense log.</p>{{end}}
<p>Labels agree exactly on {{pct .Agreement}} of the pairs (rows: label of the true relevance under the same thresholds; columns: inferred label).</p>
<table><tr><th>true \ inferred</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{$labels := .Labels}}{{range $i, $row := .Confusion}}<tr><th>{{index $labels $i}}</th>{{range $row}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{if .Recovery}}{{.ScatterChart}}{{if .ScatterNote}}<p class="note">{{.ScatterNote}}</p>{{end}}{{end}}
{{.ConfidenceSection}}
<h2 id="stages">{{.StagesNumber}}. Stages</h2>
{{if .Stages}}
<p>Each stage's fingerprint (SHA-256 of its parameters, inputs and upstream fingerprints; the first 16 hex digits name its output directory).</p>
<table><tr><th>stage</th><th>fingerprint</th></tr>
{{range .Stages}}<tr><td>{{.Name}}</td><td><code>{{short .Fingerprint}}</code></td></tr>
{{end}}</table>
{{else}}<p class="note">No stage information.</p>{{end}}
<p class="note">This report has {{.Charts}} charts.</p>
</body>
</html>
`
