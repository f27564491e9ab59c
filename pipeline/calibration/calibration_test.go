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
