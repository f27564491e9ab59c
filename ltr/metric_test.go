package ltr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lovbench/lovbench/ltr/measures"
)

func TestRankOrderStableAndNaN(t *testing.T) {
	scores := []float64{1, 3, math.NaN(), 3, 2, 1}
	idx := make([]int, len(scores))
	rankOrder(scores, idx)
	want := []int{1, 3, 4, 0, 5, 2}
	for i := range want {
		if idx[i] != want[i] {
			t.Fatalf("rankOrder = %v, want %v", idx, want)
		}
	}
	keys := make([]float64, len(scores))
	sortByKeys(scores, idx, keys)
	for i := range want {
		if idx[i] != want[i] {
			t.Fatalf("sortByKeys = %v, want %v", idx, want)
		}
	}
}

// The cached NDCG of the training loops equals measures.NDCG.
func TestScorerMatchesMeasures(t *testing.T) {
	ds, _ := Synthetic(SyntheticOptions{Queries: 40, DocsPerQuery: 12, Features: 8, Noise: 0.5, Seed: 5})
	tb := makeTable(ds, []int{1, 2}, NormNone)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []Metric{{MetricNDCG, 3}, {MetricNDCG, 10}, {MetricNDCG, 0}, {MetricERR, 5}, {MetricMAP, 0}} {
		sc := newScorer(m, tb)
		for qi, b := range tb.blocks {
			s := make([]float64, b.n)
			for i := range s {
				s[i] = float64(rng.IntN(4)) // ties on purpose
			}
			got := sc.query(tb, qi, s)
			ranked := rankedLabels(b.labels, s)
			var want float64
			switch m.Kind {
			case MetricNDCG:
				want = measures.NDCG(ranked, m.K)
			case MetricERR:
				want = measures.ERR(ranked, m.K)
			default:
				want = measures.AP(ranked, 1)
			}
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s query %d: %v, measures says %v", m, qi, got, want)
			}
		}
	}
}

func TestParseMetric(t *testing.T) {
	for in, want := range map[string]Metric{"NDCG@10": {MetricNDCG, 10}, "ndcg": {MetricNDCG, 0}, "err@3": {MetricERR, 3}, "MAP": {MetricMAP, 0}} {
		got, err := ParseMetric(in)
		if err != nil || got != want {
			t.Errorf("ParseMetric(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"P@5", "NDCG@0", "NDCG@x", "MAP@3"} {
		if _, err := ParseMetric(bad); err == nil {
			t.Errorf("ParseMetric(%q) accepted", bad)
		}
	}
}

// topKByKey's prefix equals the first k of a full stable sort, from any
// starting permutation.
func TestTopKByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(30)
		key := make([]float64, n)
		for i := range key {
			key[i] = float64(rng.IntN(6))
		}
		want := make([]int, n)
		rankOrder(key, want)
		k := rng.IntN(n + 2)
		idx := rng.Perm(n)
		topKByKey(idx, key, k)
		m := k
		if k <= 0 || k > n {
			m = n
		}
		for r := 0; r < m; r++ {
			if idx[r] != want[r] {
				t.Fatalf("n=%d k=%d: prefix %v, want %v", n, k, idx[:m], want[:m])
			}
		}
		seen := map[int]bool{}
		for _, i := range idx {
			seen[i] = true
		}
		if len(seen) != n {
			t.Fatalf("not a permutation: %v", idx)
		}
	}
}
