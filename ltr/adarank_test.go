package ltr

import (
	"context"
	"math"
	"testing"

	"github.com/lovbench/lovbench/ltr/measures"
)

// One AdaRank round, checked against Xu & Li's formulas with NDCG values
// computed independently by package measures: the weak ranker is the
// feature with the highest mean NDCG@10 under uniform query weights, and
// alpha = 1/2 ln( sum (1+E_q) / sum (1-E_q) ).
func TestAdaRankFirstRoundByFormula(t *testing.T) {
	mk := func(id string, labels []float64, f1, f2 []float64) Query {
		q := Query{ID: id}
		for i := range labels {
			q.Docs = append(q.Docs, Doc{Label: labels[i], Features: []float64{f1[i], f2[i]}})
		}
		return q
	}
	ds := &Dataset{Name: "hand", NumFeatures: 2, Queries: []Query{
		mk("a", []float64{2, 0, 1, 0}, []float64{0.9, 0.1, 0.5, 0.2}, []float64{0.1, 0.9, 0.2, 0.3}),
		mk("b", []float64{0, 3, 0, 1}, []float64{0.8, 0.7, 0.1, 0.2}, []float64{0.1, 0.9, 0.3, 0.5}),
		mk("c", []float64{1, 0, 0, 2}, []float64{0.3, 0.6, 0.1, 0.9}, []float64{0.6, 0.4, 0.5, 0.2}),
	}}
	// Rankings by each feature, by hand (decreasing value).
	e1 := []float64{
		measures.NDCG([]float64{2, 1, 0, 0}, 10),
		measures.NDCG([]float64{0, 3, 1, 0}, 10),
		measures.NDCG([]float64{2, 0, 1, 0}, 10),
	}
	e2 := []float64{
		measures.NDCG([]float64{0, 0, 1, 2}, 10),
		measures.NDCG([]float64{3, 1, 0, 0}, 10),
		measures.NDCG([]float64{1, 0, 0, 2}, 10),
	}
	best, e := 0, e1
	if Mean(e2) > Mean(e1) {
		best, e = 1, e2
	}
	num, den := 0.0, 0.0
	for _, v := range e {
		num += (1 + v) / 3
		den += (1 - v) / 3
	}
	alpha := 0.5 * math.Log(num/den)
	opt := DefaultOptions()
	opt.Normalization = NormNone
	opt.AdaRank.Rounds = 1
	m, err := Train(context.Background(), AdaRank, ds, nil, []int{1, 2}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Linear) != 1 || m.Linear[0].Column != best || math.Abs(m.Linear[0].Weight-alpha) > 1e-12 {
		t.Fatalf("first round %+v, want column %d weight %v", m.Linear, best, alpha)
	}
}
