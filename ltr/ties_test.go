package ltr

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ltr/measures"
)

// tiedQuery is one query whose lines list the relevant documents first
// (as the pre-issue-11 fold files did), with feature 1 constant, feature 2
// telling the documents apart:
//
//	doc  label  f1  f2   docid order (descending): d, c, b, a
//	a    2      1   3
//	b    1      1   2
//	c    0      1   2
//	d    0      1   1
const tiedQuery = `2 qid:1 1:1 2:3 # q a
1 qid:1 1:1 2:2 # q b
0 qid:1 1:1 2:2 # q c
0 qid:1 1:1 2:1 # q d
`

func readTied(t *testing.T) *Dataset {
	t.Helper()
	ds, err := ReadSVMLight(strings.NewReader(tiedQuery), "tied.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A constant scorer ranks by docid descending (d, c, b, a), not file order,
// in Evaluate, in the training scorer and in the rank column of WriteRun.
func TestTiesBrokenByDocIDNotFileOrder(t *testing.T) {
	ds := readTied(t)
	l3, l5 := math.Log2(3), math.Log2(5)
	// Gains 2^l - 1: a 3, b 1. Order d c b a: DCG = 1/log2(4) + 3/log2(5);
	// ideal a b c d: 3 + 1/log2(3).
	want := (1.0/2 + 3/l5) / (3 + 1/l3)
	constant := BaselineModel(1)
	ndcg := Metric{Kind: MetricNDCG}
	if got := Evaluate(ds, constant.Scores, ndcg)[0]; math.Abs(got-want) > 1e-12 {
		t.Errorf("Evaluate: NDCG of a constant scorer %.15g, want %.15g (docid order)", got, want)
	}
	tab := makeTable(ds, []int{1}, NormNone)
	sc := newScorer(ndcg, tab)
	if got := sc.mean(tab, constant.scoreTable(tab)); math.Abs(got-want) > 1e-12 {
		t.Errorf("training scorer: %.15g, want %.15g", got, want)
	}
	// Feature 2 ties b and c: docid order puts c (label 0) before b.
	byF2 := BaselineModel(2)
	want2 := (3 + 0/l3 + 1/math.Log2(4)) / (3 + 1/l3)
	if got := Evaluate(ds, byF2.Scores, ndcg)[0]; math.Abs(got-want2) > 1e-12 {
		t.Errorf("Evaluate by feature 2: %.15g, want %.15g", got, want2)
	}
	tab2 := makeTable(ds, []int{2}, NormNone)
	if got := newScorer(ndcg, tab2).mean(tab2, byF2.scoreTable(tab2)); math.Abs(got-want2) > 1e-12 {
		t.Errorf("training scorer by feature 2: %.15g, want %.15g", got, want2)
	}
	// Scores come back in file order.
	if s := byF2.Scores(&ds.Queries[0]); s[0] != 3 || s[1] != 2 || s[2] != 2 || s[3] != 1 {
		t.Errorf("Scores %v, want file order 3 2 2 1", s)
	}
	var b bytes.Buffer
	if err := WriteRun(&b, ds, byF2, "t"); err != nil {
		t.Fatal(err)
	}
	wantRun := "1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 2 t\n1 Q0 d 4 1 t\n"
	if b.String() != wantRun {
		t.Errorf("run:\n%s\nwant:\n%s", b.String(), wantRun)
	}
}

// The tie rules on a tie group straddling the cutoff: feature 2 ranks a,
// then {b, c} tied at ranks 2-3, then d; NDCG@2 looks at one of b, c.
func TestScoreTiesModes(t *testing.T) {
	ds := readTied(t)
	q := &ds.Queries[0]
	labels := []float64{2, 1, 0, 0}
	scores := BaselineModel(2).Scores(q)
	ids := docIDs(q)
	l3 := math.Log2(3)
	ideal2 := 3 + 1/l3
	cases := []struct {
		m    Metric
		ties measures.Ties
		want float64
	}{
		{Metric{Kind: MetricNDCG, K: 2}, measures.TiesDocID, 3 / ideal2},              // a c
		{Metric{Kind: MetricNDCG, K: 2}, measures.TiesOptimistic, 1},                  // a b
		{Metric{Kind: MetricNDCG, K: 2}, measures.TiesPessimistic, 3 / ideal2},        // a c
		{Metric{Kind: MetricNDCG, K: 2}, measures.TiesAverage, (3 + 0.5/l3) / ideal2}, // rank 2: b or c
		// MAP (relevant: label >= 1, a and b): a at 1; b at 2 or 3.
		{Metric{Kind: MetricMAP}, measures.TiesOptimistic, 1},
		{Metric{Kind: MetricMAP}, measures.TiesPessimistic, (1 + 2.0/3) / 2},
		{Metric{Kind: MetricMAP}, measures.TiesAverage, (1 + (1+2.0/3)/2) / 2},
		// ERR@2: R(2) = 3/16 at rank 1, then R(1) = 1/16 or 0 at rank 2.
		{Metric{Kind: MetricERR, K: 2}, measures.TiesAverage, 3.0/16 + 0.5*(13.0/16)*(1.0/16)/2},
	}
	for _, c := range cases {
		if got := c.m.ScoreTies(labels, scores, ids, c.ties); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s with ties %s: %.15g, want %.15g", c.m, c.ties, got, c.want)
		}
	}
	if tied, top := TieCount(scores, 10); tied != 2 || top != 4 {
		t.Errorf("TieCount = %d of %d, want 2 of 4", tied, top)
	}
	if tied, top := TieCount([]float64{1, 1, 1, 0}, 2); tied != 2 || top != 2 {
		t.Errorf("TieCount of a tie below the cutoff = %d of %d, want 2 of 2", tied, top)
	}
}

// The experiment reports the tie rate and the optimistic/pessimistic
// NDCG@10 of each system: a constant baseline ties every rank.
func TestExperimentTieStats(t *testing.T) {
	folds := smallFolds(t)
	for _, f := range folds {
		for _, ds := range []*Dataset{f.Train, f.Vali, f.Test} {
			for qi := range ds.Queries {
				for di := range ds.Queries[qi].Docs {
					ds.Queries[qi].Docs[di].Features[33] = 1 // constant baseline
				}
			}
		}
	}
	cfgs, _ := SelectConfigs("simple")
	opt := ExperimentOptions{Algorithms: []Algorithm{AdaRank}, Configs: cfgs, Train: fastOptions(), Permutations: 50, Ties: measures.TiesAverage}
	res, err := RunExperiment(context.Background(), folds, opt)
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Rows(AdaRank)
	base := rows[len(folds)] // baseline MEAN
	if base.Configuration != "Baseline" || base.Fold != "MEAN" || base.Ties == nil || base.Ties.Rate != 1 {
		t.Fatalf("baseline MEAN row %+v, want tie rate 1", base)
	}
	if !(base.Ties.NDCG10Optimistic > base.Values["NDCG@10"] && base.Values["NDCG@10"] > base.Ties.NDCG10Pessimistic) {
		t.Errorf("constant baseline: optimistic %v, average %v, pessimistic %v not in order", base.Ties.NDCG10Optimistic, base.Values["NDCG@10"], base.Ties.NDCG10Pessimistic)
	}
	// Ties sorted by grade are the ideal order: NDCG@10 1 for every query
	// with a relevant document, 0 for the others (mean of fold means).
	wantOpt := 0.0
	for _, f := range folds {
		n := 0
		for _, q := range f.Test.Queries {
			for _, d := range q.Docs {
				if d.Label > 0 {
					n++
					break
				}
			}
		}
		wantOpt += float64(n) / float64(len(f.Test.Queries)) / float64(len(folds))
	}
	if math.Abs(base.Ties.NDCG10Optimistic-wantOpt) > 1e-12 {
		t.Errorf("optimistic NDCG@10 of a constant scorer %v, want %v", base.Ties.NDCG10Optimistic, wantOpt)
	}
	learned := rows[len(rows)-1]
	if learned.Ties == nil || learned.Ties.Rate >= 1 || learned.Ties.NDCG10Optimistic < learned.Ties.NDCG10Pessimistic {
		t.Errorf("learned MEAN row ties %+v", learned.Ties)
	}
	if _, err := RunExperiment(context.Background(), folds, ExperimentOptions{Algorithms: []Algorithm{AdaRank}, Configs: cfgs, Train: fastOptions(), Ties: "random"}); err == nil {
		t.Error("unknown tie rule accepted")
	}
}
