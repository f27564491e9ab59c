package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/labels"
)

const noConf = labels.NoConfidence

// Five labelled pairs with a truth (and one without), computed by hand:
//
//	pair  p    truth  confidence  query
//	A     0.1  0.2    0.9         q1
//	B     0.2  0.1    0.3         q1
//	C     0.3  0.5    0.8         q2
//	D     0.4  0.3    none        q2
//	E     0.5  0.6    0.95        q3
//
// All five: Pearson = 0.1 / sqrt(0.1 x 0.172) = 0.762493 (deviations of p
// -0.2..0.2, of the truth -0.14, -0.24, 0.16, -0.04, 0.26); Kendall: 8
// concordant and 2 discordant pairs (A-B, C-D), tau-b = 0.6. Confidence >= 0.8
// (and >= 0.5), as export keeps them (labels.Selection, the one rule): A, C
// and E, and D, which has no confidence, with its query q2 (C reaches the
// minimum): deviations of p -0.225, -0.025, 0.075, 0.175, of the truth
// -0.2, 0.1, -0.1, 0.2: Pearson = 0.07 / sqrt(0.0875 x 0.1) = 0.748331;
// Kendall 5 concordant, 1 discordant (C-D): 2/3. (Before the one rule the
// sweep left D out: A, C, E, r = 0.960769, which export's dataset did not
// hold.) >= 0.9: A and E (C is below, so q2 and D go): two points, 1.
// >= 0.96: nothing.
func sweepFixture() ([]labels.Label, map[[2]string]float64) {
	ls := []labels.Label{
		{Query: "q1", Term: "A", P: 0.1, Confidence: 0.9},
		{Query: "q1", Term: "B", P: 0.2, Confidence: 0.3},
		{Query: "q2", Term: "C", P: 0.3, Confidence: 0.8},
		{Query: "q2", Term: "D", P: 0.4, Confidence: noConf},
		{Query: "q3", Term: "E", P: 0.5, Confidence: 0.95},
		{Query: "q4", Term: "F", P: 0.9, Confidence: 1}, // no truth: skipped
	}
	truth := map[[2]string]float64{{"q1", "A"}: 0.2, {"q1", "B"}: 0.1, {"q2", "C"}: 0.5, {"q2", "D"}: 0.3, {"q3", "E"}: 0.6}
	return ls, truth
}

func TestConfidenceSweep(t *testing.T) {
	ls, truth := sweepFixture()
	got := ConfidenceSweep(ls, truth, []float64{0, 0.5, 0.8, 0.9, 0.96}, true)
	want := []ConfidenceLevel{
		{Min: 0, Pairs: 5, Queries: 3, Pearson: 0.1 / math.Sqrt(0.1*0.172), Kendall: 0.6},
		{Min: 0.5, Pairs: 4, Queries: 3, Pearson: 0.07 / math.Sqrt(0.0875*0.1), Kendall: 2.0 / 3},
		{Min: 0.8, Pairs: 4, Queries: 3, Pearson: 0.07 / math.Sqrt(0.0875*0.1), Kendall: 2.0 / 3},
		{Min: 0.9, Pairs: 2, Queries: 2, Pearson: 1, Kendall: 1},
		{Min: 0.96, Pairs: 0, Queries: 0, Pearson: math.NaN(), Kendall: math.NaN()},
	}
	near := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for i, w := range want {
		g := got[i]
		if g.Min != w.Min || g.Pairs != w.Pairs || g.Queries != w.Queries || !near(g.Pearson, w.Pearson) || !near(g.Kendall, w.Kendall) {
			t.Errorf("level %v: %+v, want %+v", w.Min, g, w)
		}
	}
	if g := ConfidenceSweep(ls, truth, []float64{0.5}, false)[0]; !math.IsNaN(g.Kendall) || !near(g.Pearson, want[1].Pearson) {
		t.Errorf("without Kendall: %+v", g)
	}
	for _, c := range []struct {
		target float64
		level  float64
		ok     bool
		min    int
	}{{0.8, 0.9, true, 0}, {0.7, 0, true, 0}, {0.97, 0.9, true, 0}, {1.1, 0, false, 0}, {0.74, 0, true, 3}, {0.8, 0, false, 3}, {0.97, 0, false, 3}} {
		lv, ok := LowestLevelReaching(got, c.target, c.min)
		if ok != c.ok || lv.Min != c.level {
			t.Errorf("target %v, %d pairs: level %v %v, want %v %v", c.target, c.min, lv.Min, ok, c.level, c.ok)
		}
	}
	lv := SweepLevels(0.01)
	if len(lv) != 101 || lv[0] != 0 || lv[7] != 0.07 || lv[29] != 0.29 || lv[100] != 1 {
		t.Errorf("grid %v", lv)
	}
}

// labelConfidence reads labels.csv and truth.tsv: the distribution per
// label, the recovery of all labels equal to the Label recovery section's
// (one computation), and the sweep's levels as export keeps the labels:
// 0.01 keeps every pair, D (no confidence) with its query, so its recovery
// is that of all five (TestConfidenceSweep), below 0.8.
func TestLabelConfidence(t *testing.T) {
	dir := t.TempDir()
	ls, truth := sweepFixture()
	for i := range ls {
		ls[i].Grade = []int{4, 0, 2, 1, 3, 4}[i]
	}
	var b bytes.Buffer
	if err := labels.WriteLabels(&b, ls); err != nil {
		t.Fatal(err)
	}
	lp, tp := filepath.Join(dir, labels.FileLabels), filepath.Join(dir, "truth.tsv")
	b0 := bytes.Clone(b.Bytes())
	os.WriteFile(lp, b0, 0o644)
	var tb strings.Builder
	tb.WriteString("query\tterm\trelevance\n")
	for _, l := range ls {
		if v, ok := truth[[2]string{l.Query, l.Term}]; ok {
			tb.WriteString(l.Query + "\t" + l.Term + "\t" + strconv.FormatFloat(v, 'g', -1, 64) + "\n")
		}
	}
	os.WriteFile(tp, []byte(tb.String()), 0o644)
	c, err := labelConfidence(lp, tp, labels.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pairs != 6 || c.Known != 5 || len(c.ByLabel) != 6 {
		t.Fatalf("%+v", c)
	}
	// Label 4: A (0.9) and F (1), both >= 0.9; label 1: D, no confidence.
	for _, r := range c.ByLabel {
		switch r.Label {
		case 4:
			if r.Pairs != 2 || r.Unknown != 0 || r.Mean != 0.95 || r.Bins[3] != 2 {
				t.Errorf("label 4: %+v", r)
			}
		case 1:
			if r.Pairs != 1 || r.Unknown != 1 {
				t.Errorf("label 1: %+v", r)
			}
		}
	}
	rec, err := recovery(tp, lp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Recovery[0]; a.Pearson != rec.Pearson || a.Kendall != rec.Kendall || a.Pairs != rec.Pairs {
		t.Errorf("all labels %+v, label recovery %v %v %d", a, rec.Pearson, rec.Kendall, rec.Pairs)
	}
	// No level reaches Pearson 0.8 over RecoveryMinPairs pairs: not reached.
	if len(c.Recovery) != 1+len(ReportConfidenceLevels) || c.Reached != nil || c.MinPairs != 30 {
		t.Errorf("recovery %+v reached %+v", c.Recovery, c.Reached)
	}
	if lv := ConfidenceSweep(ls, truth, []float64{0.01}, true)[0]; lv.Pairs != 5 || lv.Queries != 3 ||
		math.Abs(lv.Pearson-0.1/math.Sqrt(0.1*0.172)) > 1e-12 || math.Abs(lv.Kendall-0.6) > 1e-12 {
		t.Errorf("level 0.01: %+v", lv)
	}
	// 40 pairs over 4 queries, truth = p, but every fourth pair (confidence
	// 0.2) has truth 1 - p: all 40 correlate at r = 0.442 (by hand: 30
	// points on the diagonal, 10 on the anti-diagonal); from 0.21 on the
	// 30 others alone, r = 1 and tau-b = 1, over 30 pairs: reached at 0.21.
	var big []labels.Label
	var tb2 strings.Builder
	tb2.WriteString("query\tterm\trelevance\n")
	for i := range 40 {
		l := labels.Label{Query: "q" + strconv.Itoa(i%4), Term: "t" + strconv.Itoa(i), P: float64(i+1) / 50, Confidence: 0.9}
		tr := l.P
		if i%4 == 0 {
			l.Confidence, tr = 0.2, 1-l.P
		}
		big = append(big, l)
		tb2.WriteString(l.Query + "\t" + l.Term + "\t" + strconv.FormatFloat(tr, 'g', -1, 64) + "\n")
	}
	b.Reset()
	labels.WriteLabels(&b, big)
	os.WriteFile(lp, b.Bytes(), 0o644)
	os.WriteFile(tp, []byte(tb2.String()), 0o644)
	c, err = labelConfidence(lp, tp, labels.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Reached; r == nil || r.Min != 0.21 || r.Pairs != 30 || r.Queries != 3 || math.Abs(r.Pearson-1) > 1e-12 || r.Kendall != 1 || math.Abs(c.Recovery[0].Pearson-0.44201034068350226) > 1e-12 {
		t.Errorf("reached %+v, all %+v", r, c.Recovery[0])
	}
	os.WriteFile(lp, b0, 0o644)
	os.WriteFile(tp, []byte(tb.String()), 0o644)

	// With a uniform prior every band's prior probability is its width; no
	// label's confidence (0.9, 0.3, 0.8, 0.95, 1) is that low.
	if c, err := labelConfidence(lp, tp, labels.DefaultThresholds(), func(int) labels.Posterior { return labels.Posterior{Alpha: 1, Beta: 1} }); err != nil || c.Prior == nil || c.Prior.Labels != 0 || c.Prior.Of != 5 {
		t.Errorf("prior share %+v %v", c.Prior, err)
	}
	// Without a truth (a real log): the distribution only.
	c, err = labelConfidence(lp, "", labels.DefaultThresholds(), nil)
	if err != nil || c.Recovery != nil || c.Reached != nil || c.Known != 5 {
		t.Errorf("real log: %+v %v", c, err)
	}
	if c, err := labelConfidence(filepath.Join(dir, "none.csv"), tp, labels.DefaultThresholds(), nil); c != nil || err != nil {
		t.Errorf("no labels file: %+v %v", c, err)
	}
}

// PriorLike under a uniform prior, Beta(1, 1), whose band probabilities are
// the bands' widths: label 1 [0.45, 0.5) 0.05, label 4 [0.7, 1] 0.3, label 0
// [0.2, 0.45) 0.25. Counted: label 1 at 0.04, label 4 at 0.29, label 0 at
// 0.1, and a pair without evidence (its confidence is the prior's band
// probability itself); not counted: label 1 at 0.06, label 4 at 0.9; a label
// without a confidence is not among the labels.
func TestPriorLike(t *testing.T) {
	th := labels.DefaultThresholds()
	prior := labels.Posterior{Alpha: 1, Beta: 1}
	ls := []labels.Label{
		{Grade: 1, Confidence: 0.04}, {Grade: 1, Confidence: 0.06}, {Grade: 4, Confidence: 0.29}, {Grade: 4, Confidence: 0.9},
		{Grade: 0, Confidence: 0.1}, {Grade: 2, Confidence: noConf}, {Grade: 3, Confidence: th.Confidence(3, prior)},
	}
	if n, of := PriorLike(ls, th, func(int) labels.Posterior { return prior }); n != 4 || of != 6 {
		t.Errorf("%d of %d, want 4 of 6", n, of)
	}
}

// selectedPrior reads the selected model's priors from the fit stage's
// metrics.json: UBM's relevance prior is its attractiveness prior.
func TestSelectedPrior(t *testing.T) {
	dir := t.TempDir()
	sum := fit.Summary{Selected: "UBM", Models: []fit.SummaryModel{{Model: "DCTR"},
		{Model: "UBM", Uncertainty: &clickmodels.UncertaintyReport{Method: clickmodels.UncertaintyMethod, Level: 0.9,
			AttrPriors: []clickmodels.BetaPrior{{Alpha: 3, Beta: 5, Pairs: 10}, {Alpha: 1, Beta: 4, Pairs: 10}}}}}}
	if err := writeJSON(filepath.Join(dir, fit.FileSummary), sum); err != nil {
		t.Fatal(err)
	}
	// Rank 1 (mean rank 0) is the first bucket, rank 2 and beyond the second
	// (the last).
	p, err := selectedPrior(dir)
	if err != nil || p == nil || p(1) != (labels.Posterior{Alpha: 3, Beta: 5}) || p(2) != (labels.Posterior{Alpha: 1, Beta: 4}) || p(9) != (labels.Posterior{Alpha: 1, Beta: 4}) {
		t.Errorf("prior %v", err)
	}
	sum.Selected = "DCTR"
	writeJSON(filepath.Join(dir, fit.FileSummary), sum)
	if p, err := selectedPrior(dir); p != nil || err != nil {
		t.Errorf("model without intervals: %v", err)
	}
	if p, err := selectedPrior(filepath.Join(dir, "none")); p != nil || err != nil {
		t.Errorf("no fit stage: %v", err)
	}
}

// writeJSON writes v to path as JSON, as the fit stage writes its summary.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Outcome by hand, with the default thresholds (junk < 0.2, 0 < 0.45, 1 <
// 0.5, 2 < 0.6, 3 < 0.7, 4 above): four labels 0 at confidences 0.9, 0.8,
// 0.3, 0.2 whose truths 0.3, 0.1, 0.3, 0.3 make the first, third and
// fourth right, and two labels 1 at 0.3 and 0.1 whose truths 0.47 and 0.9
// make the first right. All: 4 of 6 right; label 0 right 3/4, label 1
// 1/2. At a minimum of 0.5 the two labels 0 of 0.9 and 0.8 stay: 1 of 2
// right, all label 0, so a random draw with those shares gets 3/4 right.
// Keeping 0.5 of each label: 0.9, 0.8 of label 0 and 0.3 of label 1, 2 of
// 3 right, shares 2/3 and 1/3 as before, at random 2/3 x 3/4 + 1/3 x 1/2
// = 2/3.
func TestOutcomeByHand(t *testing.T) {
	ls := []labels.Label{
		{Query: "a", Term: "x", Grade: 0, P: 0.3, Confidence: 0.9},
		{Query: "a", Term: "y", Grade: 0, P: 0.3, Confidence: 0.8},
		{Query: "b", Term: "x", Grade: 0, P: 0.3, Confidence: 0.3},
		{Query: "b", Term: "y", Grade: 0, P: 0.3, Confidence: 0.2},
		{Query: "a", Term: "z", Grade: 1, P: 0.47, Confidence: 0.3},
		{Query: "b", Term: "z", Grade: 1, P: 0.47, Confidence: 0.1},
	}
	truth := map[[2]string]float64{{"a", "x"}: 0.3, {"a", "y"}: 0.1, {"b", "x"}: 0.3, {"b", "y"}: 0.3, {"a", "z"}: 0.47, {"b", "z"}: 0.9}
	th := labels.DefaultThresholds()
	all := Outcome(ls, truth, labels.Selection{}, th)
	at := map[int]int{}
	for i, l := range labels.AllLabels() {
		at[l] = i
	}
	if all.Right != 4.0/6 || all.Count[at[0]] != 4 || all.RightCount[at[0]] != 3 || all.RightCount[at[1]] != 1 || all.Level.Pairs != 6 {
		t.Errorf("all: %+v", all)
	}
	plain := Outcome(ls, truth, labels.Selection{MinConfidence: 0.5}, th)
	if plain.Right != 0.5 || plain.Share[at[0]] != 1 || plain.RightAtRandom(all) != 0.75 || plain.Level.Queries != 1 {
		t.Errorf("min 0.5: %+v, at random %v", plain, plain.RightAtRandom(all))
	}
	strat := Outcome(ls, truth, labels.Selection{KeepConfident: 0.5}, th)
	if strat.Right != 2.0/3 || strat.Share[at[0]] != 2.0/3 || strat.Share[at[1]] != 1.0/3 || math.Abs(strat.RightAtRandom(all)-2.0/3) > 1e-15 || strat.Level.KeepConfident != 0.5 {
		t.Errorf("keep 0.5: %+v, at random %v", strat, strat.RightAtRandom(all))
	}
}

// The recovery table's row of the export's agreeing filter
// (shareKeepingRecovery): Recover with the filter's selection over
// labels.csv, the agreements read from the order file beside it. Queries
// as (p, truth) pairs with their labels, agreements a 0.9, c 0.8, b 0.7,
// d 0.6:
//
//	a  label 1 (0.8, 0.9), label 1 (0.6, 0.5)
//	c  label 1 (0.7, 0.1), label 0 (0.3, 0.8)
//	b  label 0 (0.2, 0.1), label 0 (0.3, 0.4)
//	d  label 1 (0.6, 0.2), label 0 (0.4, 0.7)
//
// Input: 4 of 8 labels 1, a share of 1/2. F = 0.5: target 2.
//   - tolerance 0.01 (bounds 0.01): a (label 1 at 100%, ratio 50); c
//     (3 of 4, ratio 25, lower); swaps from a, c: a for b gives c, b (1 of
//     4: 25, not lower), a for d gives c, d (2 of 4: 0, agreement lost
//     0.3), c for b gives a, b (2 of 4: 0, lost 0.1), c for d a, d (3 of
//     4: no): c for b. a and b: p 0.8, 0.6, 0.2, 0.3 against truth 0.9,
//     0.5, 0.1, 0.4: deviations 0.325, 0.125, -0.275, -0.175 and 0.425,
//     0.025, -0.375, -0.075: Pearson 0.2575 / sqrt(0.2275 x 0.3275); both
//     orders agree: Kendall 1.
//   - tolerance 0.3 (bounds min(0.3, 1/4) = 1/4): a (ratio 2), c (3 of 4,
//     1/4 off: ratio 1, within): a and c. p 0.8, 0.6, 0.7, 0.3 against
//     0.9, 0.5, 0.1, 0.8: deviations 0.2, 0, 0.1, -0.3 and 0.325, -0.075,
//     -0.475, 0.225: Pearson -0.05 / sqrt(0.14 x 0.3875); Kendall 0
//     (below).
func TestShareKeepingRecoveryAgreeing(t *testing.T) {
	dir := t.TempDir()
	type pair struct {
		q     string
		grade int
		p, tr float64
	}
	pairs := []pair{{"a", 1, 0.8, 0.9}, {"a", 1, 0.6, 0.5}, {"c", 1, 0.7, 0.1}, {"c", 0, 0.3, 0.8},
		{"b", 0, 0.2, 0.1}, {"b", 0, 0.3, 0.4}, {"d", 1, 0.6, 0.2}, {"d", 0, 0.4, 0.7}}
	var ls []labels.Label
	var tb strings.Builder
	tb.WriteString("query\tterm\trelevance\n")
	for i, p := range pairs {
		ls = append(ls, labels.Label{Query: p.q, Term: "t" + strconv.Itoa(i), P: p.p, Grade: p.grade, Confidence: 0.5})
		tb.WriteString(p.q + "\tt" + strconv.Itoa(i) + "\t" + strconv.FormatFloat(p.tr, 'g', -1, 64) + "\n")
	}
	var b bytes.Buffer
	if err := labels.WriteLabels(&b, ls); err != nil {
		t.Fatal(err)
	}
	lp, tp := filepath.Join(dir, labels.FileLabels), filepath.Join(dir, "truth.tsv")
	order := labels.QueryOrderHeader + "\na,1,1,0.9\nc,1,1,0.8\nb,1,1,0.7\nd,1,1,0.6\n"
	for path, text := range map[string]string{lp: b.String(), tp: tb.String(), labels.QueryOrderPath(lp): order} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Kendall's tau-b of a and c by hand: (p, truth) a1 (0.8, 0.9), a2
	// (0.6, 0.5), c1 (0.7, 0.1), c2 (0.3, 0.8). Pairs: a1-a2 +, a1-c1 +,
	// a1-c2 +, a2-c1 - (p lower, truth higher), a2-c2 - (p higher, truth
	// lower), c1-c2 - : 3 concordant, 3 discordant, tau-b 0.
	for _, c := range []struct {
		tol, pearson, kendall float64
	}{{0.01, 0.2575 / math.Sqrt(0.2275*0.3275), 1}, {0.3, -0.05 / math.Sqrt(0.14*0.3875), 0}} {
		conf := &Confidence{Recovery: []ConfidenceLevel{{}}, Filter: &LabelFilter{Agreeing: &AgreeingFilter{Fraction: 0.5, ShareTolerance: c.tol}}}
		if err := shareKeepingRecovery(conf, lp, tp); err != nil {
			t.Fatal(err)
		}
		if len(conf.Recovery) != 2 {
			t.Fatalf("tolerance %v: recovery %+v", c.tol, conf.Recovery)
		}
		lv := conf.Recovery[1]
		if lv.KeepAgreeing != 0.5 || lv.ShareTolerance != c.tol || lv.Pairs != 4 || lv.Queries != 2 || math.Abs(lv.Pearson-c.pearson) > 1e-12 || math.Abs(lv.Kendall-c.kendall) > 1e-12 {
			t.Errorf("tolerance %v: %+v, want 4 pairs, 2 queries, Pearson %v, Kendall %v", c.tol, lv, c.pearson, c.kendall)
		}
		html, _ := confidenceSection(&Confidence{Known: 8, Pairs: 8, Recovery: conf.Recovery, Filter: conf.Filter}, 7)
		if want := "most agreeing 50.0% of the queries, label shares within their bounds, tolerance " + strconv.FormatFloat(c.tol, 'g', -1, 64) + " (the export&#39;s)"; !strings.Contains(string(html), want) {
			t.Errorf("tolerance %v: the section lacks %q:\n%s", c.tol, want, html)
		}
	}
	// A filter that does not keep the shares adds no row.
	conf := &Confidence{Recovery: []ConfidenceLevel{{}}, Filter: &LabelFilter{MinQueryAgreement: 0.7}}
	if err := shareKeepingRecovery(conf, lp, tp); err != nil || len(conf.Recovery) != 1 {
		t.Errorf("--min-query-agreement: %v %+v", err, conf.Recovery)
	}
}
