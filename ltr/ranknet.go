package ltr

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// RankNetParams are RankNet's hyper-parameters.
type RankNetParams struct {
	// Epochs is the number of passes over the training queries (RankLib
	// -epoch, default 100).
	Epochs int
	// Hidden is the number of hidden units of the single hidden layer
	// (RankLib -node, default 10).
	Hidden int
	// LearningRate is the gradient step (RankLib -lr defaults to 5e-5 for
	// unnormalised features and per-document updates; with per-query
	// updates on z-scored features 1e-3 converges within 100 epochs).
	LearningRate float64
}

// DefaultRankNetParams returns 100 epochs, 10 hidden units, rate 1e-3.
func DefaultRankNetParams() RankNetParams {
	return RankNetParams{Epochs: 100, Hidden: 10, LearningRate: 1e-3}
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// rankNetForward returns the network output for row x (length d). When h
// is not nil it receives the hidden activations (length H).
func rankNetForward(w *RankNetWeights, x []float64, h []float64) float64 {
	H := len(w.Hidden)
	d := len(x)
	// Sums in RankLib's order (Neuron.computeOutput over its in-links,
	// wired inputs first and the bias neuron last), so that a RankLib
	// model scores bit for bit as in RankLib.
	z := 0.0
	for k := 0; k < H; k++ {
		wk := w.Hidden[k]
		a := 0.0
		for j, v := range x {
			a += v * wk[j]
		}
		a += wk[d]
		hk := sigmoid(a)
		if h != nil {
			h[k] = hk
		}
		z += hk * w.Output[k]
	}
	z += w.Output[H]
	return sigmoid(z)
}

// rankNetQueryLoss is the pairwise cross-entropy of one query (Burges et
// al. 2005, eq. 1 with target probability 1 for every pair (i,j) with
// label_i > label_j):
//
//	C = sum_{i,j: y_i > y_j} log(1 + exp(-(o_i - o_j)))
func rankNetQueryLoss(w *RankNetWeights, b *block, d int) float64 {
	o := make([]float64, b.n)
	for i := range o {
		o[i] = rankNetForward(w, b.x[i*d:(i+1)*d], nil)
	}
	c := 0.0
	for i := 0; i < b.n; i++ {
		for j := 0; j < b.n; j++ {
			if b.labels[i] > b.labels[j] {
				c += math.Log1p(math.Exp(-(o[i] - o[j])))
			}
		}
	}
	return c
}

// rankNetGrad holds scratch space for the gradient of one query.
type rankNetGrad struct {
	gh  [][]float64 // dC/dHidden
	go_ []float64   // dC/dOutput
	h   []float64   // n*H hidden activations
	o   []float64   // n outputs
	g   []float64   // n: dC/do
}

func newRankNetGrad(H, d, maxN int) *rankNetGrad {
	g := &rankNetGrad{gh: make([][]float64, H), go_: make([]float64, H+1),
		h: make([]float64, maxN*H), o: make([]float64, maxN), g: make([]float64, maxN)}
	for k := range g.gh {
		g.gh[k] = make([]float64, d+1)
	}
	return g
}

// queryGradient computes dC/dw of rankNetQueryLoss for one query into gr.
// The loss depends on the outputs only through the pairs, so
// dC/do_i = -sum_{j: y_i>y_j} lambda_ij + sum_{j: y_j>y_i} lambda_ji with
// lambda_ij = 1/(1+exp(o_i-o_j)) (RankLib's Neuron.computeDelta), and
// back-propagation through the sigmoid output and hidden layers gives the
// weight gradients. Summing the per-document updates of RankLib over the
// query is the factorisation of Burges (2010, section 2.1).
func queryGradient(w *RankNetWeights, b *block, d int, gr *rankNetGrad) {
	H := len(w.Hidden)
	n := b.n
	for i := 0; i < n; i++ {
		gr.o[i] = rankNetForward(w, b.x[i*d:(i+1)*d], gr.h[i*H:(i+1)*H])
		gr.g[i] = 0
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if b.labels[i] > b.labels[j] {
				lam := 1 / (1 + math.Exp(gr.o[i]-gr.o[j]))
				gr.g[i] -= lam
				gr.g[j] += lam
			}
		}
	}
	for k := range gr.gh {
		clear(gr.gh[k])
	}
	clear(gr.go_)
	for i := 0; i < n; i++ {
		if gr.g[i] == 0 {
			continue
		}
		oi := gr.o[i]
		dz := gr.g[i] * oi * (1 - oi) // dC/d(output pre-activation)
		hi := gr.h[i*H : (i+1)*H]
		x := b.x[i*d : (i+1)*d]
		for k := 0; k < H; k++ {
			gr.go_[k] += dz * hi[k]
			da := dz * w.Output[k] * hi[k] * (1 - hi[k]) // dC/d(hidden k pre-activation)
			gk := gr.gh[k]
			for j, v := range x {
				gk[j] += da * v
			}
			gk[d] += da
		}
		gr.go_[H] += dz
	}
}

// trainRankNet trains by gradient descent with one update per query per
// epoch, in a seeded random query order, and keeps the epoch with the best
// validation metric (RankLib's bestModelOnValidation), or the last epoch
// without validation data.
func trainRankNet(ctx context.Context, m *Model, tr, va *table, opt Options, rng *rand.Rand) error {
	p := opt.RankNet
	if p.Epochs < 1 || p.Hidden < 1 || !(p.LearningRate > 0) {
		return fmt.Errorf("ranknet: epochs, hidden units and learning rate must be positive")
	}
	d, H := tr.d, p.Hidden
	w := &RankNetWeights{Hidden: make([][]float64, H), Output: make([]float64, H+1)}
	// RankLib's Synapse initialisation: +-U(0,1)/10.
	initW := func() float64 {
		v := rng.Float64() / 10
		if rng.IntN(2) == 0 {
			return v
		}
		return -v
	}
	for k := range w.Hidden {
		w.Hidden[k] = make([]float64, d+1)
		for j := range w.Hidden[k] {
			w.Hidden[k][j] = initW()
		}
	}
	for k := range w.Output {
		w.Output[k] = initW()
	}
	maxN := 0
	for _, b := range tr.blocks {
		maxN = max(maxN, b.n)
	}
	gr := newRankNetGrad(H, d, maxN)
	order := make([]int, len(tr.blocks))
	for i := range order {
		order[i] = i
	}
	var vsc *scorer
	var vscores []float64
	if va != nil {
		vsc = newScorer(opt.Metric, va)
		vscores = make([]float64, va.rows)
	}
	best := cloneRankNet(w)
	bestScore, bestEpoch := math.Inf(-1), p.Epochs
	lr := p.LearningRate
	for ep := 1; ep <= p.Epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, qi := range order {
			b := &tr.blocks[qi]
			queryGradient(w, b, d, gr)
			for k := 0; k < H; k++ {
				wk, gk := w.Hidden[k], gr.gh[k]
				for j := range wk {
					wk[j] -= lr * gk[j]
				}
			}
			for k := range w.Output {
				w.Output[k] -= lr * gr.go_[k]
			}
		}
		if va != nil {
			off := 0
			for qi := range va.blocks {
				b := &va.blocks[qi]
				for i := 0; i < b.n; i++ {
					vscores[off+i] = rankNetForward(w, b.x[i*d:(i+1)*d], nil)
				}
				off += b.n
			}
			if s := vsc.mean(va, vscores); s > bestScore {
				bestScore, bestEpoch = s, ep
				best = cloneRankNet(w)
			}
		}
	}
	if va == nil {
		best = w
	}
	m.RankNet = best
	m.Iterations = bestEpoch
	return nil
}

func cloneRankNet(w *RankNetWeights) *RankNetWeights {
	c := &RankNetWeights{Hidden: make([][]float64, len(w.Hidden)), Output: slices.Clone(w.Output)}
	for k := range w.Hidden {
		c.Hidden[k] = slices.Clone(w.Hidden[k])
	}
	return c
}
