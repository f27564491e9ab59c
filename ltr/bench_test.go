package ltr

import (
	"context"
	"testing"
)

// BenchmarkTrain times one training run per algorithm on 300 training and
// 100 validation queries of 25 documents with 33 features (the full
// LOVBench-sized 5-fold run is bench/ltr).
func BenchmarkTrain(b *testing.B) {
	ds, err := Synthetic(SyntheticOptions{Queries: 400, DocsPerQuery: 25, Features: 34, Noise: 0.3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	tr, va, _ := SplitQueries(ds, 300, 400)
	fids := make([]int, 33)
	for i := range fids {
		fids[i] = i + 1
	}
	for _, alg := range Algorithms {
		b.Run(string(alg), func(b *testing.B) {
			for b.Loop() {
				if _, err := Train(context.Background(), alg, tr, va, fids, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLambdaMARTFold times one LambdaMART fold fit (training with
// validation early stopping, default parameters, features 1..33) at a
// fifth of a LOVBench-sized fold: 900 training and 300 validation queries of
// about 25 documents (a full fold is 4,440 + 1,480 queries; the 5-fold run
// is `go run ./bench/ltr -algorithms lambdamart -workers 1`). It reports the
// trees fitted per run.
func BenchmarkLambdaMARTFold(b *testing.B) {
	ds, err := Synthetic(SyntheticOptions{Queries: 1200, DocsPerQuery: 25, Features: 34, Noise: 0.3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	tr, va, _ := SplitQueries(ds, 900, 1200)
	fids := make([]int, 33)
	for i := range fids {
		fids[i] = i + 1
	}
	trees := 0
	for b.Loop() {
		m, err := Train(context.Background(), LambdaMART, tr, va, fids, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		trees = m.Iterations
	}
	b.ReportMetric(float64(trees), "trees")
}
