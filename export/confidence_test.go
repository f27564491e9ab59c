package export

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

const none = labels.NoConfidence

// The distribution per label, counted by hand: label 4 has 0.95 and 1
// (bin 9, the last bin closed) and one unknown; label 0 has 0.05 (bin 0),
// 0.5 (bin 5) and two unknown; label 2 has 0.1 (bin 1: 0.1 x 10 = 1).
func TestConfidenceDistribution(t *testing.T) {
	g := []int{4, 4, 4, 0, 0, 0, 0, 2}
	c := []float64{0.95, 1, none, 0.05, none, 0.5, none, 0.1}
	d := ConfidenceDistribution(g, c)
	if len(d) != 6 || d[0].Label != 4 || d[5].Label != labels.Junk {
		t.Fatalf("labels %+v", d)
	}
	want := map[int]ConfidenceDist{
		4: {Label: 4, Rows: 3, Unknown: 1, Mean: 0.975, Bins: []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 2}},
		0: {Label: 0, Rows: 4, Unknown: 2, Mean: 0.275, Bins: []int{1, 0, 0, 0, 0, 1, 0, 0, 0, 0}},
		2: {Label: 2, Rows: 1, Unknown: 0, Mean: 0.1, Bins: []int{0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		3: {Label: 3, Bins: make([]int, 10)},
	}
	for _, x := range d {
		w, ok := want[x.Label]
		if !ok {
			continue
		}
		if x.Label != w.Label || x.Rows != w.Rows || x.Unknown != w.Unknown || x.Mean != w.Mean || !slices.Equal(x.Bins, w.Bins) {
			t.Errorf("label %d: %+v, want %+v", x.Label, x, w)
		}
	}
	// The card's table: rows, unknown, mean, then < 0.5, 0.5-0.8, 0.8-0.9, >= 0.9.
	card := string(RenderCard(&Manifest{Confidence: d}))
	for _, line := range []string{"| 4 | 3 | 1 | 0.975 | 0 | 0 | 0 | 2 |", "| 0 | 4 | 2 | 0.275 | 1 | 1 | 0 | 0 |", "| 2 | 1 | 0 | 0.100 | 1 | 0 | 0 | 0 |", "| 3 | 0 | 0 | - | 0 | 0 | 0 | 0 |"} {
		if !strings.Contains(card, line+"\n") {
			t.Errorf("card lacks %q", line)
		}
	}
}

// filterRows are the ground-truth rows of the filter tests.
func filterRows() []sampling.Row {
	return []sampling.Row{
		{Query: "a", Term: "t1", Label: 4, Confidence: 0.9},
		{Query: "a", Term: "t2", Label: 1, Confidence: 0.3},
		{Query: "a", Term: "t3", Label: 2, Confidence: 0.6},
		{Query: "a", Term: "s1", Label: 0, Confidence: none},
		{Query: "b", Term: "t1", Label: 1, Confidence: 0.2},
		{Query: "b", Term: "s1", Label: 0, Confidence: none},
		{Query: "c", Term: "s1", Label: 0, Confidence: none},
	}
}

// FilterConfidence at 0.6, counted by hand: query a keeps its 0.9 and 0.6
// rows and its sampled row, and loses its 0.3 row; query b's only labelled
// row (0.2) is below, so b loses everything (its sampled row with it);
// query c has no confidence at all and is left out whole.
func TestFilterConfidence(t *testing.T) {
	gt := filterRows()
	kept, f, err := FilterConfidence(gt, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, []sampling.Row{gt[0], gt[2], gt[3]}) {
		t.Errorf("kept %+v", kept)
	}
	if f.Rows != 7 || f.Kept != 3 || f.KeptUnknown != 1 || f.Below != 2 || f.WithQuery != 2 ||
		f.Queries != 3 || f.KeptQueries != 1 || f.DroppedQueries != 2 || !slices.Equal(f.DroppedExamples, []string{"b", "c"}) {
		t.Errorf("counts %+v", f)
	}
	// Shares of the 7 input and 3 kept rows: the filter keeps label 4 and
	// 2 at 1/3 each (1/7 before), label 1 not at all (2/7 before).
	want := map[int]ConfidenceFilterN{
		4: {Label: 4, Rows: 1, Kept: 1, ShareBefore: 1.0 / 7, ShareAfter: 1.0 / 3},
		2: {Label: 2, Rows: 1, Kept: 1, ShareBefore: 1.0 / 7, ShareAfter: 1.0 / 3},
		1: {Label: 1, Rows: 2, Below: 2, ShareBefore: 2.0 / 7},
		0: {Label: 0, Rows: 3, Kept: 1, WithQuery: 2, ShareBefore: 3.0 / 7, ShareAfter: 1.0 / 3},
		3: {Label: 3}, -2: {Label: -2},
	}
	for _, n := range f.ByLabel {
		if n != want[n.Label] {
			t.Errorf("label %d: %+v, want %+v", n.Label, n, want[n.Label])
		}
	}
	// The minimum is inclusive: at 0.9 query a keeps t1 (0.9) only.
	kept, _, _ = FilterConfidence(gt, 0.9)
	if len(kept) != 2 || kept[0].Term != "t1" || kept[1].Term != "s1" {
		t.Errorf("at 0.9: %+v", kept)
	}
	for _, bad := range []float64{0, -0.1, 1.5} {
		if _, _, err := FilterConfidence(gt, bad); err == nil || !strings.Contains(err.Error(), "not in (0, 1]") {
			t.Errorf("minimum %v: %v", bad, err)
		}
	}
	old := []sampling.Row{{Query: "a", Term: "t", Label: 1, Confidence: none}}
	if _, _, err := FilterConfidence(old, 0.5); err == nil || !strings.Contains(err.Error(), "no label has a confidence") {
		t.Errorf("ground truth without confidences: %v", err)
	}
}

// FilterLabels with a minimum query agreement, counted by hand on
// TestFilterConfidence's rows: query a's labels agree with the true order
// at 0.8 expected, b's at 0.5, c has none (NaN). At 0.7 only a stays, all
// four rows (no minimum confidence: t2's 0.3 is kept); b's and c's three
// rows go with their queries. With a minimum confidence of 0.6 too, a
// keeps t1, t3 and s1 as before, and t2 is below; b's t1 is below the
// confidence, its s1 goes with the query's agreement.
func TestFilterLabelsQueryAgreement(t *testing.T) {
	gt := filterRows()
	ag := map[string]float64{"a": 0.8, "b": 0.5, "c": math.NaN()}
	kept, f, err := FilterLabels(gt, labels.Selection{MinQueryAgreement: 0.7, QueryAgreement: ag})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, gt[:4]) || f.Kept != 4 || f.QueryBelowAgreement != 3 || f.Below != 0 || f.WithQuery != 0 || f.DroppedQueries != 2 {
		t.Errorf("agreement 0.7: kept %+v, counts %+v", kept, f)
	}
	// Label 0: 3 of 7 before, 1 of 4 after; label 1: 2/7, 1/4.
	for _, n := range f.ByLabel {
		if n.Label == 0 && (n.ShareBefore != 3.0/7 || n.ShareAfter != 0.25 || n.QueryBelowAgreement != 2) ||
			n.Label == 1 && (n.ShareBefore != 2.0/7 || n.ShareAfter != 0.25) {
			t.Errorf("label %d: %+v", n.Label, n)
		}
	}
	kept, f, err = FilterLabels(gt, labels.Selection{MinConfidence: 0.6, MinQueryAgreement: 0.7, QueryAgreement: ag})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, []sampling.Row{gt[0], gt[2], gt[3]}) || f.Below != 2 || f.QueryBelowAgreement != 2 || f.WithQuery != 0 {
		t.Errorf("both: kept %+v, counts %+v", kept, f)
	}
	if _, _, err := FilterLabels(gt, labels.Selection{MinQueryAgreement: 0.7}); err == nil {
		t.Error("a minimum agreement without agreements: no error")
	}
}

// export --min-confidence: the dataset holds exactly the rows the filter
// keeps, the manifest and the card count what it left out, validate
// passes, and a rerun gives the same bytes.
func TestExportMinConfidence(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	want, wf, err := FilterConfidence(gt, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	for i := range outs {
		out := filepath.Join(t.TempDir(), "dataset")
		m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 4, MinConfidence: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Validate(context.Background(), out)
		if err != nil || !v.Valid {
			t.Fatalf("validate: %v %v", err, v.Problems)
		}
		if m.Rows != len(want) || m.Queries != wf.KeptQueries || m.Parameters.MinConfidence != 0.5 || m.ConfidenceFilter == nil || m.ConfidenceFilter.Kept != len(want) {
			t.Errorf("manifest rows %d queries %d filter %+v; want %d rows", m.Rows, m.Queries, m.ConfidenceFilter, len(want))
		}
		// Every pair left out of the dataset is also left out of the
		// feature accounting: no feature row is "unused".
		if m.UnusedFeatures != 0 {
			t.Errorf("unused feature rows %d", m.UnusedFeatures)
		}
		pq, err := ReadParquetColumns(context.Background(), filepath.Join(out, ParquetFile))
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range pq.Confidence {
			if c != none && c < 0.5 {
				t.Errorf("row %d: confidence %v below the minimum", k, c)
			}
		}
		card, _ := os.ReadFile(filepath.Join(out, CardFile))
		if !strings.Contains(string(card), "Built from the labels with a confidence of at least 0.5") || !strings.Contains(string(card), "| label | input rows | kept | below the minimum | left out with their query | query below the agreement | share before | share after |") {
			t.Errorf("card lacks the filter:\n%s", card)
		}
		outs[i], _ = os.ReadFile(filepath.Join(out, ManifestFile))
	}
	if string(outs[0]) != string(outs[1]) {
		t.Error("reruns differ")
	}
	// By hand from testInput: rows T0..T3 of query q have the confidence
	// ((5q + 3t) mod 9) / 8, T4 and T5 none. At 0.5 (>= 4/8) a query keeps
	// a row when some t in 0..3 has (5q + 3t) mod 9 >= 4: every q does (t=0
	// gives 5q mod 9, t=1 adds 3, ...: the residues 5q, 5q+3, 5q+6 cover one
	// of each class mod 3 and so at least one of 4..8), so no query is dropped.
	if wf.DroppedQueries != 0 || wf.KeptQueries != 12 {
		t.Errorf("filter %+v", wf)
	}
	below := 0
	for q := range 12 {
		for tm := range 4 {
			if (q*5+tm*3)%9 < 4 {
				below++
			}
		}
	}
	if wf.Below != below || wf.Kept != 72-below {
		t.Errorf("below %d kept %d, want %d and %d", wf.Below, wf.Kept, below, 72-below)
	}
}

// The export of a ground truth without the confidence column (written before
// labels had one) still works, with a null confidence everywhere, and
// --min-confidence refuses it with a clear message.
func TestExportOldGroundTruth(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(6, 4, 33)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	var b strings.Builder
	b.WriteString("query,term,label\n")
	for _, r := range gt {
		b.WriteString(r.Query + "," + r.Term + "," + []string{"-2", "", "0", "1", "2", "3", "4"}[r.Label+2] + "\n")
	}
	if err := os.WriteFile(gtp, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dataset")
	m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Validate(context.Background(), out); err != nil || !v.Valid {
		t.Fatalf("validate: %v %v", err, v.Problems)
	}
	for _, d := range m.Confidence {
		if d.Unknown != d.Rows {
			t.Errorf("label %d: %d of %d rows have a confidence", d.Label, d.Rows-d.Unknown, d.Rows)
		}
	}
	_, err = Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: filepath.Join(t.TempDir(), "d"), Options: Options{Seed: 1, MinConfidence: 0.5}})
	if err == nil || !strings.Contains(err.Error(), "no label has a confidence") || !strings.Contains(err.Error(), gtp) {
		t.Errorf("--min-confidence on a ground truth without confidences: %v", err)
	}
}

// validate reports a confidence column that disagrees with the ground truth,
// a missing column when the ground truth has confidences, and a manifest
// whose distribution or filter counts do not match.
func TestValidateConfidence(t *testing.T) {
	gt := []sampling.Row{{Query: "a", Term: "t", Label: 4, Confidence: 0.75}, {Query: "a", Term: "s", Label: 0, Confidence: none}}
	var v Validation
	checkConfidenceColumn(&v, "x.parquet", []float64{0.75, none}, gt)
	if len(v.Problems) != 0 {
		t.Errorf("agreeing column: %v", v.Problems)
	}
	checkConfidenceColumn(&v, "x.parquet", []float64{0.5, 0.25}, gt)
	if len(v.Problems) != 2 || !strings.Contains(v.Problems[0], "row 1: confidence 0.5, ground_truth.csv row 2 says 0.75") || !strings.Contains(v.Problems[1], "row 2: confidence 0.25, ground_truth.csv row 3 says null") {
		t.Errorf("disagreeing column: %q", v.Problems)
	}
	v = Validation{}
	checkConfidenceColumn(&v, "x.parquet", nil, gt)
	if len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "no confidence column") {
		t.Errorf("missing column: %q", v.Problems)
	}
	v = Validation{}
	checkConfidenceColumn(&v, "x.parquet", nil, gt[1:])
	if len(v.Problems) != 0 {
		t.Errorf("old dataset: %q", v.Problems)
	}

	dir, _, _ := buildDir(t, Options{Seed: 4})
	m := readManifest(t, dir)
	rows := readDatasetGroundTruth(t, dir)
	v = Validation{}
	checkConfidenceManifest(&v, m, rows)
	if len(v.Problems) != 0 {
		t.Errorf("written manifest: %q", v.Problems)
	}
	m.Confidence[0].Bins[9]++
	m.Parameters.MinConfidence = 0.5
	checkConfidenceManifest(&v, m, rows)
	if len(v.Problems) != 2 || !strings.Contains(v.Problems[0], "confidence_distribution does not agree") || !strings.Contains(v.Problems[1], "no confidence_filter counts") {
		t.Errorf("tampered manifest: %q", v.Problems)
	}
}

// The card of a manifest written before confidences (no
// confidence_distribution) renders as it did then, without a word about
// confidence, so validate still accepts those datasets' cards.
func TestCardOfOldManifest(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 4})
	m := readManifest(t, dir)
	if !strings.Contains(string(RenderCard(m)), "confidence") {
		t.Error("the card of a new dataset does not mention the confidence")
	}
	m.Confidence = nil
	if card := string(RenderCard(m)); strings.Contains(strings.ToLower(card), "confidence") || !strings.Contains(card, "label, partition, then one column per feature") {
		t.Errorf("old manifest's card mentions the confidence:\n%s", card)
	}
}

// export --query-order and --min-query-agreement: twelve queries whose
// expected agreements are set by hand, 0.5 + 0.04 q for query q (q = 0..10)
// and none for query 11 (its labels all equal). The manifest sums them up:
// 11 of 12 with one, mean over q = 0..10 of 0.5 + 0.04 q = 0.7, lowest
// 0.5. At a minimum of 0.68, queries 5..10 stay (6 queries, 6 rows each),
// the others go whole, counted as below the agreement; validate passes.
func TestExportQueryAgreement(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	qp := writeQueryOrder(t, in)
	out := filepath.Join(t.TempDir(), "all")
	m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, QueryOrder: qp, Options: Options{Seed: 4}})
	if err != nil {
		t.Fatal(err)
	}
	o := m.OrderAgreement
	if o == nil || o.Queries != 12 || o.WithPairs != 11 || o.Missing != 0 || math.Abs(o.Mean-0.7) > 1e-12 || math.Abs(o.Min-0.5) > 1e-12 {
		t.Fatalf("order agreement %+v", o)
	}
	card, _ := os.ReadFile(filepath.Join(out, CardFile))
	if !strings.Contains(string(card), "11 of the 12 queries have one") || !strings.Contains(string(card), "mean 0.700, lowest 0.500") {
		t.Errorf("card lacks the order agreement")
	}
	out = filepath.Join(t.TempDir(), "min")
	m, err = Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, QueryOrder: qp, Options: Options{Seed: 4, MinQueryAgreement: 0.68}})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.ConfidenceFilter; m.Queries != 6 || m.Rows != 36 || f == nil || f.QueryBelowAgreement != 36 || f.Kept != 36 || f.DroppedQueries != 6 {
		t.Errorf("at 0.68: %d queries, %d rows, filter %+v", m.Queries, m.Rows, m.ConfidenceFilter)
	}
	if v, err := Validate(context.Background(), out); err != nil || !v.Valid {
		t.Fatalf("validate: %v %v", err, v.Problems)
	}
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: filepath.Join(t.TempDir(), "x"), Options: Options{MinQueryAgreement: 0.8}}); err == nil {
		t.Error("a minimum agreement without --query-order: no error")
	}
}

// writeQueryOrder writes into dir the order file of testInput's twelve
// queries: query q's expected agreement is 0.5 + 0.04 q, query 11 has none
// (its labels all equal). It returns its path.
func writeQueryOrder(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(labels.QueryOrderHeader + "\n")
	for q := range 12 {
		if q == 11 {
			fmt.Fprintf(&b, "query %d,4,0,\n", q)
			continue
		}
		fmt.Fprintf(&b, "query %d,4,3,%v\n", q, 0.5+0.04*float64(q))
	}
	qp := filepath.Join(dir, "labels.query_order.csv")
	if err := os.WriteFile(qp, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return qp
}
