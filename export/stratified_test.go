package export

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

// stratRows are the rows of the stratified filter's hand computation: four
// queries a..d; label 0 (a wide band: high confidences) a/x 0.9, b/x 0.8,
// c/x 0.7, d/x 0.6; label 1 (a narrow band: low confidences) a/y 0.3,
// b/y 0.2, c/y 0.2, d/y 0.1; label 2 a/z 0.5, c/z 0.5; and eight sampled
// terms (label 0, no confidence): a/s1..s3, b/s1..s2, c/s1, d/s1..s2.
// 18 rows: label 0 12/18, label 1 4/18, label 2 2/18.
func stratRows() []sampling.Row {
	r := func(q, t string, l int, c float64) sampling.Row {
		return sampling.Row{Query: q, Term: t, Label: l, Confidence: c}
	}
	return []sampling.Row{
		r("a", "x", 0, 0.9), r("a", "y", 1, 0.3), r("a", "z", 2, 0.5), r("a", "s1", 0, none), r("a", "s2", 0, none), r("a", "s3", 0, none),
		r("b", "x", 0, 0.8), r("b", "y", 1, 0.2), r("b", "s1", 0, none), r("b", "s2", 0, none),
		r("c", "x", 0, 0.7), r("c", "y", 1, 0.2), r("c", "z", 2, 0.5), r("c", "s1", 0, none),
		r("d", "x", 0, 0.6), r("d", "y", 1, 0.1), r("d", "s1", 0, none), r("d", "s2", 0, none),
	}
}

// The stratified filter at 0.5, by hand on stratRows. Each stratum keeps
// floor(0.5 n + 1/2): label 0 with a confidence 2 of 4 (a/x 0.9, b/x
// 0.8), label 1 2 of 4 (a/y 0.3, then b/y 0.2 before c/y 0.2: the tie goes
// to query b), label 2 1 of 2 (a/z before c/z, both 0.5); queries a and b
// keep a row, c and d none. The sampled terms keep 4 of 8 among a (3) and
// b (2): water filling gives each 2 (2 + 2 = 4; 3 would need 5), so a/s3
// is beyond the share, c/s1, d/s1, d/s2 go with their query. Kept 9 rows:
// label 0 6/9 = 12/18, label 1 2/9 = 4/18, label 2 1/9 = 2/18, exactly
// the shares before; the labels end at 0.8, 0.2 and 0.5. The plain filter
// at 0.6 on the same rows keeps no label 1 or 2: the skew.
func TestFilterStratifiedByHand(t *testing.T) {
	gt := stratRows()
	kept, f, err := FilterLabels(gt, labels.Selection{KeepConfident: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []sampling.Row{gt[0], gt[1], gt[2], gt[3], gt[4], gt[6], gt[7], gt[8], gt[9]}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %+v\nwant %+v", kept, want)
	}
	if f.Rows != 18 || f.Kept != 9 || f.KeptUnknown != 4 || f.Below != 5 || f.WithQuery != 3 || f.BeyondShare != 1 ||
		f.Queries != 4 || f.KeptQueries != 2 || f.DroppedQueries != 2 || !slices.Equal(f.DroppedExamples, []string{"c", "d"}) || f.KeepConfident != 0.5 {
		t.Errorf("counts %+v", f)
	}
	th := func(c float64) *float64 { return &c }
	wantN := map[int]ConfidenceFilterN{
		0: {Label: 0, Rows: 12, Kept: 6, Below: 2, WithQuery: 3, BeyondShare: 1, ShareBefore: 12.0 / 18, ShareAfter: 6.0 / 9, WithConfidence: 4, KeptWithConfidence: 2, KeptMinConfidence: th(0.8)},
		1: {Label: 1, Rows: 4, Kept: 2, Below: 2, ShareBefore: 4.0 / 18, ShareAfter: 2.0 / 9, WithConfidence: 4, KeptWithConfidence: 2, KeptMinConfidence: th(0.2)},
		2: {Label: 2, Rows: 2, Kept: 1, Below: 1, ShareBefore: 2.0 / 18, ShareAfter: 1.0 / 9, WithConfidence: 2, KeptWithConfidence: 1, KeptMinConfidence: th(0.5)},
	}
	for _, n := range f.ByLabel {
		w, ok := wantN[n.Label]
		if !ok {
			if n.Rows != 0 || n.Kept != 0 || n.KeptMinConfidence != nil {
				t.Errorf("label %d: %+v", n.Label, n)
			}
			continue
		}
		if n.KeptMinConfidence == nil || *n.KeptMinConfidence != *w.KeptMinConfidence {
			t.Errorf("label %d: threshold %v, want %v", n.Label, n.KeptMinConfidence, *w.KeptMinConfidence)
		}
		n.KeptMinConfidence, w.KeptMinConfidence = nil, nil
		if n != w {
			t.Errorf("label %d: %+v\nwant %+v", n.Label, n, w)
		}
		// The share after is the share before, here exactly (to the
		// float's last bit of 6/9 against 12/18).
		if n.ShareAfter != n.ShareBefore {
			t.Errorf("label %d: share %v before, %v after", n.Label, n.ShareBefore, n.ShareAfter)
		}
	}
	_, plain, err := FilterConfidence(gt, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plain.ByLabel {
		if (n.Label == 1 || n.Label == 2) && n.Kept != 0 {
			t.Errorf("plain filter at 0.6 keeps label %d: %+v", n.Label, n)
		}
	}
}

// At 0.3 the quotas round: floor(0.3 x 4 + 1/2) = 1 of label 0's and of
// label 1's rows with a confidence, floor(0.3 x 2 + 1/2) = 1 of label 2's,
// floor(0.3 x 8 + 1/2) = 2 of the sampled terms. Only query a keeps a
// row (a/x 0.9, a/y 0.3, a/z 0.5), and its first two sampled terms (s1,
// s2); a/s3 is beyond the share, the five sampled terms of b, c and d go
// with their query, and 7 rows with a confidence are below their label's
// threshold (5 + 7 + 5 + 1 = 18). The shares after, 3/5, 1/5, 1/5 against 12/18, 4/18, 2/18, differ
// by the rounding alone: each label keeps its quota, which the validator
// checks. At 1 every query with a confidence keeps everything.
func TestFilterStratifiedRounding(t *testing.T) {
	gt := stratRows()
	kept, f, err := FilterLabels(gt, labels.Selection{KeepConfident: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, gt[:5]) || f.BeyondShare != 1 || f.WithQuery != 5 || f.Below != 7 {
		t.Errorf("at 0.3: kept %+v, counts %+v", kept, f)
	}
	for _, n := range f.ByLabel {
		want := map[int]float64{0: 3.0 / 5, 1: 1.0 / 5, 2: 1.0 / 5}[n.Label]
		if n.ShareAfter != want {
			t.Errorf("label %d: share after %v, want %v", n.Label, n.ShareAfter, want)
		}
	}
	for _, c := range []struct {
		f    float64
		n, k int
	}{{0.25, 2, 1}, {0.25, 6, 2}, {0.3, 4, 1}, {0.05, 9, 0}, {0.15, 10, 2}, {1, 7, 7}, {0.5, 0, 0}} {
		if got := labels.KeepCount(c.f, c.n); got != c.k {
			t.Errorf("KeepCount(%v, %d) = %d, want %d", c.f, c.n, got, c.k)
		}
	}
	kept, _, err = FilterLabels(gt, labels.Selection{KeepConfident: 1})
	if err != nil || !slices.Equal(kept, gt) {
		t.Errorf("at 1: %v, kept %d of %d", err, len(kept), len(gt))
	}
	for _, bad := range []labels.Selection{{KeepConfident: 1.5}, {KeepConfident: -0.1}, {KeepConfident: 0.5, MinConfidence: 0.5}, {KeepConfident: 0.5, MinQueryAgreement: 0.5, QueryAgreement: map[string]float64{}}} {
		if _, _, err := FilterLabels(gt, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	old := []sampling.Row{{Query: "a", Term: "t", Label: 1, Confidence: none}}
	if _, _, err := FilterLabels(old, labels.Selection{KeepConfident: 0.5}); err == nil || !strings.Contains(err.Error(), "no label has a confidence") {
		t.Errorf("ground truth without confidences: %v", err)
	}
}

// export --keep-confident: the dataset holds the rows FilterLabels keeps,
// the manifest records the fraction and the thresholds, the card prints
// them, validate passes, and a manifest whose counts or thresholds were
// changed fails.
func TestExportKeepConfident(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	want, wf, err := FilterLabels(gt, labels.Selection{KeepConfident: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dataset")
	m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 4, KeepConfident: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != len(want) || m.Parameters.KeepConfident != 0.5 || m.ConfidenceFilter == nil || m.ConfidenceFilter.KeepConfident != 0.5 || m.ConfidenceFilter.Kept != wf.Kept {
		t.Errorf("manifest rows %d, parameters %+v, filter %+v", m.Rows, m.Parameters, m.ConfidenceFilter)
	}
	v, err := Validate(context.Background(), out)
	if err != nil || !v.Valid {
		t.Fatalf("validate: %v %v", err, v.Problems)
	}
	card, _ := os.ReadFile(filepath.Join(out, CardFile))
	if !strings.Contains(string(card), "Built from the most confident 0.5 of each label's rows") || !strings.Contains(string(card), "| lowest kept confidence |") {
		t.Errorf("card lacks the stratified filter:\n%s", card)
	}
	rows := readDatasetGroundTruth(t, out)
	mf := readManifest(t, out)
	var vv Validation
	checkConfidenceManifest(&vv, mf, rows)
	if len(vv.Problems) != 0 {
		t.Fatalf("written manifest: %q", vv.Problems)
	}
	// A threshold one step off, and one label's kept count moved to another.
	for i := range mf.ConfidenceFilter.ByLabel {
		if n := &mf.ConfidenceFilter.ByLabel[i]; n.KeptMinConfidence != nil {
			*n.KeptMinConfidence += 0.125
			break
		}
	}
	vv = Validation{}
	checkConfidenceManifest(&vv, mf, rows)
	if len(vv.Problems) != 1 || !strings.Contains(vv.Problems[0], "kept_min_confidence") {
		t.Errorf("changed threshold: %q", vv.Problems)
	}
	mf.ConfidenceFilter.ByLabel[0].KeptWithConfidence++
	vv = Validation{}
	checkConfidenceManifest(&vv, mf, rows)
	if len(vv.Problems) < 2 || !strings.Contains(strings.Join(vv.Problems, "\n"), "keep_confident 0.5 keeps") {
		t.Errorf("changed count: %q", vv.Problems)
	}
	mf.Parameters.KeepConfident = 0.25
	vv = Validation{}
	checkConfidenceManifest(&vv, mf, rows)
	if !strings.Contains(strings.Join(vv.Problems, "\n"), "keep_confident 0.25") {
		t.Errorf("changed parameter: %q", vv.Problems)
	}
}

// readDatasetGroundTruth reads the ground_truth.csv of the dataset
// directory dir.
func readDatasetGroundTruth(t *testing.T, dir string) []sampling.Row {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, GroundTruthFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := sampling.ReadGroundTruth(f, GroundTruthFile)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
