package ltr

import (
	"bytes"
	"context"
	"testing"
)

var ndcg10 = Metric{Kind: MetricNDCG, K: 10}

// gateData is a synthetic dataset whose true scoring function is
// SyntheticTruth: labels are its noisy, quantised value.
func gateData(t *testing.T) (tr, va, te *Dataset) {
	t.Helper()
	ds, err := Synthetic(SyntheticOptions{Queries: 1000, DocsPerQuery: 25, Features: 10, Noise: 0.2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return SplitQueries(ds, 700, 800)
}

func truthScores(q *Query) []float64 {
	s := make([]float64, len(q.Docs))
	for i := range q.Docs {
		s[i] = SyntheticTruth(q.Docs[i].Features)
	}
	return s
}

// bestSingleFeature returns the test NDCG@10 of the unlearned feature with
// the best training NDCG@10.
func bestSingleFeature(tr, te *Dataset) (int, float64) {
	best, bestTrain := 0, -1.0
	for f := 1; f <= tr.NumFeatures; f++ {
		if v := Mean(Evaluate(tr, BaselineModel(f).Scores, ndcg10)); v > bestTrain {
			best, bestTrain = f, v
		}
	}
	return best, Mean(Evaluate(te, BaselineModel(best).Scores, ndcg10))
}

func TestRankersBeatBestSingleFeature(t *testing.T) {
	tr, va, te := gateData(t)
	f, single := bestSingleFeature(tr, te)
	truth := Mean(Evaluate(te, truthScores, ndcg10))
	t.Logf("true function NDCG@10 %.4f; best single feature %d: %.4f", truth, f, single)
	if f != 1 {
		t.Fatalf("best single feature is %d; by construction (weight 2 on x1) it is 1", f)
	}
	fids := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, alg := range Algorithms {
		m, err := Train(context.Background(), alg, tr, va, fids, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		got := Mean(Evaluate(te, m.Scores, ndcg10))
		t.Logf("%-10s test NDCG@10 %.4f (train %.4f, validation %.4f, %d iterations)", alg, got, m.TrainScore, m.ValidationScore, m.Iterations)
		if got <= single+0.02 {
			t.Errorf("%s: test NDCG@10 %.4f does not beat the best single feature %.4f by 0.02", alg, got, single)
		}
		if alg == LambdaMART && got < truth-0.02 {
			t.Errorf("lambdamart: test NDCG@10 %.4f more than 0.02 below the true function's %.4f", got, truth)
		}
		// JSON round trip: identical scores.
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadModel(bytes.NewReader(buf.Bytes()), "model.json")
		if err != nil {
			t.Fatal(err)
		}
		for qi := range te.Queries {
			a, b := m.Scores(&te.Queries[qi]), back.Scores(&te.Queries[qi])
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%s: query %d doc %d score %v after JSON round trip, was %v", alg, qi, i, b[i], a[i])
				}
			}
		}
	}
}
