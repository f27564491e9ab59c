package calibration_test

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

// TestMeasureByHand checks the measures on ten pairs by hand. Pair i
// (1..10) has evidence alpha + beta = 11 - i, so the fifths, least
// evidence first, are pairs {10, 9}, {8, 7}, {6, 5}, {4, 3}, {2, 1}. Every
// interval is [0.4, 0.6], fitted relevance 0.5; the truth is 0.5 (inside)
// except pairs 1, 2 and 7 (0.9, outside): coverage 1, 0.5, 1, 1, 0 by
// fifth, 0.7 overall; mean true relevance of the last fifth 0.9. Labels
// (thresholds 0.2, 0.45, 0.5, 0.6, 0.7: 0.5 is label 2, 0.9 label 4) on
// pairs 1, 2, 3 and 10 with confidence 0.8: right on 3 and 10, wrong on 1
// and 2; overall ECE |0.5 - 0.8| = 0.3. Split by evidence among the four
// labels (one per group but the first, which has none: 4 labels over 5
// groups: groups get 0, 1, 1, 1, 1), the fifths are {10}, {3}, {2}, {1}
// with ECE 0.2, 0.2, 0.8, 0.8.
func TestMeasureByHand(t *testing.T) {
	var rows []calibration.Interval
	truth := map[string]float64{}
	for i := 1; i <= 10; i++ {
		d := strconv.Itoa(i)
		ev := float64(11 - i)
		rows = append(rows, calibration.Interval{Query: "q", Doc: d, Relevance: 0.5, Lower: 0.4, Upper: 0.6, Alpha: ev / 2, Beta: ev / 2})
		truth[d] = 0.5
	}
	truth["1"], truth["2"], truth["7"] = 0.9, 0.9, 0.9
	tr := func(q, d string) (float64, bool) { v, ok := truth[d]; return v, ok && q == "q" }
	var ls []labels.Label
	for _, d := range []string{"1", "2", "3", "10"} {
		ls = append(ls, labels.Label{Query: "q", Term: d, Grade: 2, P: 0.5, Confidence: 0.8})
	}
	r, err := calibration.Measure(rows, ls, tr, labels.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("coverage", r.Coverage, 0.7)
	for g, want := range []float64{1, 0.5, 1, 1, 0} {
		near("coverage of fifth "+strconv.Itoa(g+1), r.ByEvidence[g].Coverage, want)
		if r.ByEvidence[g].Pairs != 2 {
			t.Errorf("fifth %d: %d pairs, want 2", g+1, r.ByEvidence[g].Pairs)
		}
	}
	near("evidence bounds of fifth 1", r.ByEvidence[0].MinEvidence+r.ByEvidence[0].MaxEvidence, 1+2)
	near("mean truth of fifth 5", r.ByEvidence[4].MeanTrue, 0.9)
	near("mean fitted of fifth 5", r.ByEvidence[4].MeanFitted, 0.5)
	near("ECE", r.Labels.ECE, 0.3)
	for g, want := range []float64{0, 0.2, 0.2, 0.8, 0.8} {
		near("ECE of fifth "+strconv.Itoa(g+1), r.ByEvidence[g].ECE, want)
	}
	if _, err := calibration.Measure(rows, ls, func(string, string) (float64, bool) { return 0, false }, labels.DefaultThresholds()); err == nil {
		t.Error("a pair outside the truth: no error")
	}
}

// TestRunRefLog runs the user's path on a small log of the second
// simulator: every SERP of the log is read by ingest (the log is in the
// format it reads), at most the click-less ones are dropped, and every
// pair and label of the fit is measured.
func TestRunRefLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, truth, st, err := calibration.RefLog(ctx, refsim.Default(refsim.UBM, 3000, 30, 1), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := calibration.Run(ctx, path, clickmodels.UBM, truth, dir, calibration.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	if r.LogSERPs != st.SERPs || r.KeptSERPs < st.SERPs-st.ClicklessSERP || r.KeptSERPs > st.SERPs {
		t.Errorf("ingest read %d SERPs and kept %d of %d (%d without a click)", r.LogSERPs, r.KeptSERPs, st.SERPs, st.ClicklessSERP)
	}
	n := 0
	for _, f := range r.ByEvidence {
		n += f.Pairs
	}
	if r.Pairs == 0 || n != r.Pairs || r.Labels.Pairs == 0 || r.Labels.Pairs > r.Pairs {
		t.Errorf("%d pairs, %d in the fifths, %d labels", r.Pairs, n, r.Labels.Pairs)
	}
}

// TestAgreeByHand: query q has documents a, b, c graded 2, 1, 1 and
// fitted 0.8, 0.3, 0.9: the document pairs with different grades are
// (a, b), which agrees, and (a, c), which does not (b and c share a
// grade): agreement 1/2. Query r has d, e graded 0, 3 and fitted 0.5,
// 0.5: a tie, one half. Document f has no grade. Confidences (thresholds
// 0.2, 0.45, 0.5, 0.6, 0.7): a's label 4 (0.8 >= 0.7) under Beta(80, 20)
// has confidence P(X >= 0.7) = 0.99; b (label 0, [0.2, 0.45)) under
// Beta(3, 7) 0.589; c under Beta(1, 1) 0.3 (the uniform's mass above 0.7);
// d, e (label 2, [0.5, 0.6)) under Beta(1, 1) 0.1. So (a, b) falls in
// the bin [0.5, 0.7), (a, c) in [0.3, 0.5) and (d, e) in [0, 0.3).
func TestAgreeByHand(t *testing.T) {
	rows := []calibration.Interval{
		{Query: "q", Doc: "a", Relevance: 0.8, Alpha: 80, Beta: 20},
		{Query: "q", Doc: "b", Relevance: 0.3, Alpha: 3, Beta: 7},
		{Query: "q", Doc: "c", Relevance: 0.9, Alpha: 1, Beta: 1},
		{Query: "r", Doc: "d", Relevance: 0.5, Alpha: 1, Beta: 1},
		{Query: "r", Doc: "e", Relevance: 0.5, Alpha: 1, Beta: 1},
		{Query: "r", Doc: "f", Relevance: 0.1, Alpha: 1, Beta: 1},
	}
	g := calibration.Grades{{"q", "a"}: 2, {"q", "b"}: 1, {"q", "c"}: 1, {"r", "d"}: 0, {"r", "e"}: 3}
	a := calibration.Agree(rows, g, labels.DefaultThresholds(), nil)
	if a.JudgedPairs != 5 || a.DocPairs != 3 || math.Abs(a.Agree-1.5/3) > 1e-12 {
		t.Errorf("judged %d, document pairs %d, agreement %v; want 5, 3, 0.5", a.JudgedPairs, a.DocPairs, a.Agree)
	}
	want := []struct {
		n     int
		agree float64
	}{{1, 0.5}, {1, 0}, {1, 1}, {0, 0}}
	for i, w := range want {
		if b := a.Bins[i]; b.DocPairs != w.n || b.Agree != w.agree {
			t.Errorf("bin from %v: %d pairs agreeing %v, want %d, %v", b.From, b.DocPairs, b.Agree, w.n, w.agree)
		}
	}
	only := calibration.Agree(rows, g, labels.DefaultThresholds(), func(q, d string) bool { return q == "r" })
	if only.JudgedPairs != 2 || only.DocPairs != 1 || only.Agree != 0.5 {
		t.Errorf("restricted to r: %+v", only)
	}
}
