package ltr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The analytic gradient of the pairwise cross-entropy equals central finite
// differences of rankNetQueryLoss for every weight.
func TestRankNetGradientCheck(t *testing.T) {
	ds, _ := Synthetic(SyntheticOptions{Queries: 3, DocsPerQuery: 8, Features: 9, Noise: 0.3, Seed: 11})
	tb := makeTable(ds, []int{1, 2, 3, 5, 9}, NormZScore)
	d, H := tb.d, 4
	rng := rand.New(rand.NewPCG(4, 4))
	w := &RankNetWeights{Hidden: make([][]float64, H), Output: make([]float64, H+1)}
	for k := range w.Hidden {
		w.Hidden[k] = make([]float64, d+1)
		for j := range w.Hidden[k] {
			w.Hidden[k][j] = rng.NormFloat64()
		}
	}
	for k := range w.Output {
		w.Output[k] = 2 * rng.NormFloat64()
	}
	const eps = 1e-6
	for qi := range tb.blocks {
		b := &tb.blocks[qi]
		gr := newRankNetGrad(H, d, b.n)
		queryGradient(w, b, d, gr)
		if rankNetQueryLoss(w, b, d) == 0 {
			t.Fatalf("query %d has no pairs; the check would be vacuous", qi)
		}
		check := func(name string, p *float64, analytic float64) {
			orig := *p
			*p = orig + eps
			up := rankNetQueryLoss(w, b, d)
			*p = orig - eps
			down := rankNetQueryLoss(w, b, d)
			*p = orig
			numeric := (up - down) / (2 * eps)
			if math.Abs(numeric-analytic) > 1e-6*math.Max(1, math.Abs(numeric)) {
				t.Errorf("query %d %s: analytic %.10g, numeric %.10g", qi, name, analytic, numeric)
			}
		}
		for k := 0; k < H; k++ {
			for j := 0; j <= d; j++ {
				check("hidden", &w.Hidden[k][j], gr.gh[k][j])
			}
		}
		for k := 0; k <= H; k++ {
			check("output", &w.Output[k], gr.go_[k])
		}
	}
}
