package ltr

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// LambdaMARTParams are LambdaMART's hyper-parameters (RankLib's defaults,
// except Trees, which early stopping usually cuts long before 1000).
type LambdaMARTParams struct {
	// Trees is the maximum number of trees (RankLib -tree 1000).
	Trees int
	// Leaves is the number of leaves per tree (RankLib -leaf 10).
	Leaves int
	// Shrinkage is the learning rate (RankLib -shrinkage 0.1).
	Shrinkage float64
	// Bins is the number of candidate thresholds per feature (RankLib -tc
	// 256); at most 256.
	Bins int
	// MinLeafSupport is the minimum number of documents per leaf (RankLib
	// -mls 1).
	MinLeafSupport int
	// EarlyStop stops when the validation metric has not improved for this
	// many trees (RankLib -estop 100); 0 disables.
	EarlyStop int
}

// DefaultLambdaMARTParams returns RankLib's defaults.
func DefaultLambdaMARTParams() LambdaMARTParams {
	return LambdaMARTParams{Trees: 1000, Leaves: 10, Shrinkage: 0.1, Bins: 256, MinLeafSupport: 1, EarlyStop: 100}
}

// binner maps each column's values to at most 256 bins; bin b holds the
// values in (thr[b-1], thr[b]].
type binner struct {
	thr [][]float64
}

func newBinner(t *table, maxBins int) *binner {
	bn := &binner{thr: make([][]float64, t.d)}
	vals := make([]float64, 0, t.rows)
	for j := 0; j < t.d; j++ {
		vals = vals[:0]
		for qi := range t.blocks {
			b := &t.blocks[qi]
			for i := 0; i < b.n; i++ {
				vals = append(vals, b.x[i*t.d+j])
			}
		}
		sort.Float64s(vals)
		uniq := slices.Compact(slices.Clone(vals))
		if len(uniq) <= maxBins {
			bn.thr[j] = uniq
			continue
		}
		// Equal-frequency cut points over the sorted values.
		var thr []float64
		for b := 1; b <= maxBins; b++ {
			v := vals[b*len(vals)/maxBins-1]
			if len(thr) == 0 || v > thr[len(thr)-1] {
				thr = append(thr, v)
			}
		}
		if last := vals[len(vals)-1]; thr[len(thr)-1] < last {
			thr[len(thr)-1] = last
		}
		bn.thr[j] = thr
	}
	return bn
}

func (bn *binner) bin(j int, v float64) uint8 {
	thr := bn.thr[j]
	b := sort.SearchFloat64s(thr, v) // first thr >= v
	if b >= len(thr) {
		b = len(thr) - 1
	}
	return uint8(b)
}

// hist is a per-node histogram: sum of targets and counts per (column, bin).
type hist struct {
	g []float64
	c []int32
}

// lmLeaf is a leaf being grown: rows idx[start:end].
type lmLeaf struct {
	start, end int
	h          *hist
	node       int
	gain       float64
	col, bin   int
}

type lmTrainer struct {
	p      LambdaMARTParams
	t      *table
	bn     *binner
	nb     []int     // bins per column
	off    []int     // histogram offset per column
	bins   [][]uint8 // [column][row]
	target []float64
	weight []float64
	idx    []int32
	tmp    []int32
	pool   []*hist
}

func (lt *lmTrainer) newHist() *hist {
	if n := len(lt.pool); n > 0 {
		h := lt.pool[n-1]
		lt.pool = lt.pool[:n-1]
		clear(h.g)
		clear(h.c)
		return h
	}
	size := lt.off[len(lt.off)-1]
	return &hist{g: make([]float64, size), c: make([]int32, size)}
}

func (lt *lmTrainer) fill(h *hist, rows []int32) {
	for j := range lt.bins {
		col := lt.bins[j]
		g := h.g[lt.off[j]:lt.off[j+1]]
		c := h.c[lt.off[j]:lt.off[j+1]]
		for _, r := range rows {
			b := col[r]
			g[b] += lt.target[r]
			c[b]++
		}
	}
}

// bestSplit finds the least-squares split of a leaf: the (column, bin)
// maximising GL^2/NL + GR^2/NR - G^2/N (variance reduction of the lambda
// targets, as RankLib's regression trees), ties to the lowest column and
// bin.
func (lt *lmTrainer) bestSplit(l *lmLeaf) {
	l.gain, l.col, l.bin = 0, -1, -1
	n := l.end - l.start
	if n < 2*lt.p.MinLeafSupport {
		return
	}
	minS := int32(lt.p.MinLeafSupport)
	for j := range lt.bins {
		g := l.h.g[lt.off[j]:lt.off[j+1]]
		c := l.h.c[lt.off[j]:lt.off[j+1]]
		G := 0.0
		for _, v := range g {
			G += v
		}
		N := int32(n)
		base := G * G / float64(N)
		gl, cl := 0.0, int32(0)
		for b := 0; b < len(g)-1; b++ {
			gl += g[b]
			cl += c[b]
			if c[b] == 0 || cl < minS {
				continue
			}
			cr := N - cl
			if cr < minS {
				break
			}
			gr := G - gl
			gain := gl*gl/float64(cl) + gr*gr/float64(cr) - base
			if gain > l.gain+1e-12 {
				l.gain, l.col, l.bin = gain, j, b
			}
		}
	}
}

// grow fits one regression tree to lt.target, best-first up to Leaves
// leaves, with Newton leaf values shrinkage * sum(lambda) / sum(w).
func (lt *lmTrainer) grow() Tree {
	for i := range lt.idx {
		lt.idx[i] = int32(i)
	}
	tree := Tree{Nodes: []TreeNode{{Column: -1}}}
	root := &lmLeaf{start: 0, end: len(lt.idx), h: lt.newHist(), node: 0}
	lt.fill(root.h, lt.idx)
	lt.bestSplit(root)
	leaves := []*lmLeaf{root}
	for len(leaves) < lt.p.Leaves {
		bi := -1
		for i, l := range leaves {
			if l.col >= 0 && (bi < 0 || l.gain > leaves[bi].gain) {
				bi = i
			}
		}
		if bi < 0 {
			break
		}
		l := leaves[bi]
		// Stable partition of the rows: bin <= l.bin to the left.
		col := lt.bins[l.col]
		rows := lt.idx[l.start:l.end]
		nl := 0
		tmp := lt.tmp[:0]
		for _, r := range rows {
			if int(col[r]) <= l.bin {
				rows[nl] = r
				nl++
			} else {
				tmp = append(tmp, r)
			}
		}
		copy(rows[nl:], tmp)
		left := &lmLeaf{start: l.start, end: l.start + nl}
		right := &lmLeaf{start: l.start + nl, end: l.end}
		small, large := left, right
		if right.end-right.start < left.end-left.start {
			small, large = right, left
		}
		small.h = lt.newHist()
		lt.fill(small.h, lt.idx[small.start:small.end])
		large.h = l.h // parent minus small child
		for i := range large.h.g {
			large.h.g[i] -= small.h.g[i]
			large.h.c[i] -= small.h.c[i]
		}
		ni := len(tree.Nodes)
		tree.Nodes[l.node] = TreeNode{Column: l.col, Threshold: lt.bn.thr[l.col][l.bin], Left: ni, Right: ni + 1}
		tree.Nodes = append(tree.Nodes, TreeNode{Column: -1}, TreeNode{Column: -1})
		left.node, right.node = ni, ni+1
		lt.bestSplit(left)
		lt.bestSplit(right)
		leaves[bi] = left
		leaves = append(leaves, right)
	}
	for _, l := range leaves {
		sg, sw := 0.0, 0.0
		for _, r := range lt.idx[l.start:l.end] {
			sg += lt.target[r]
			sw += lt.weight[r]
		}
		v := 0.0
		if sw > 0 {
			v = sg / sw
		}
		tree.Nodes[l.node].Value = lt.p.Shrinkage * v
		lt.pool = append(lt.pool, l.h)
	}
	return tree
}

// lambdas computes the LambdaMART gradients (Burges 2010, section 7):
// for every pair with y_i > y_j in a query ranked by the current scores,
//
//	rho_ij    = 1 / (1 + exp(s_i - s_j))
//	lambda_i += rho_ij |dNDCG_ij|,  lambda_j -= rho_ij |dNDCG_ij|
//	w_i, w_j += rho_ij (1 - rho_ij) |dNDCG_ij|
//
// where |dNDCG_ij| is the change of NDCG@k when i and j swap ranks:
// |(2^y_i - 2^y_j)(1/log2(1+r_i) - 1/log2(1+r_j))| / IDCG@k, a rank beyond
// k contributing 0.
func lambdas(t *table, k int, idcg []float64, scores, lam, w []float64, idx []int, rank []int) {
	off := 0
	clear(lam)
	clear(w)
	for qi := range t.blocks {
		b := &t.blocks[qi]
		n := b.n
		if idcg[qi] <= 0 {
			off += n
			continue
		}
		s := scores[off : off+n]
		ix := idx[:n]
		rankOrder(s, ix)
		rk := rank[:n]
		for r, i := range ix {
			rk[i] = r
		}
		disc := func(r int) float64 {
			if k > 0 && r >= k {
				return 0
			}
			return 1 / math.Log2(float64(r)+2)
		}
		for i := 0; i < n; i++ {
			yi := b.labels[i]
			gi := math.Exp2(yi)
			di := disc(rk[i])
			for j := 0; j < n; j++ {
				if !(yi > b.labels[j]) {
					continue
				}
				dj := disc(rk[j])
				if di == 0 && dj == 0 {
					continue
				}
				delta := math.Abs((gi-math.Exp2(b.labels[j]))*(di-dj)) / idcg[qi]
				rho := 1 / (1 + math.Exp(s[i]-s[j]))
				lam[off+i] += rho * delta
				lam[off+j] -= rho * delta
				ww := rho * (1 - rho) * delta
				w[off+i] += ww
				w[off+j] += ww
			}
		}
		off += n
	}
}

func trainLambdaMART(ctx context.Context, m *Model, tr, va *table, opt Options) error {
	p := opt.LambdaMART
	if p.Trees < 1 || p.Leaves < 2 || !(p.Shrinkage > 0) || p.Bins < 2 || p.Bins > 256 || p.MinLeafSupport < 1 {
		return fmt.Errorf("lambdamart: need trees >= 1, leaves >= 2, shrinkage > 0, 2 <= bins <= 256, min leaf support >= 1")
	}
	k := 10
	if opt.Metric.Kind == MetricNDCG {
		k = opt.Metric.K
	}
	lt := &lmTrainer{p: p, t: tr, bn: newBinner(tr, p.Bins)}
	lt.off = make([]int, tr.d+1)
	lt.nb = make([]int, tr.d)
	for j := 0; j < tr.d; j++ {
		lt.nb[j] = len(lt.bn.thr[j])
		lt.off[j+1] = lt.off[j] + lt.nb[j]
	}
	lt.bins = make([][]uint8, tr.d)
	for j := range lt.bins {
		lt.bins[j] = make([]uint8, tr.rows)
	}
	row := 0
	maxN := 0
	for qi := range tr.blocks {
		b := &tr.blocks[qi]
		maxN = max(maxN, b.n)
		for i := 0; i < b.n; i++ {
			for j := 0; j < tr.d; j++ {
				lt.bins[j][row] = lt.bn.bin(j, b.x[i*tr.d+j])
			}
			row++
		}
	}
	lt.target = make([]float64, tr.rows)
	lt.weight = make([]float64, tr.rows)
	lt.idx = make([]int32, tr.rows)
	lt.tmp = make([]int32, 0, tr.rows)
	ndcg := Metric{Kind: MetricNDCG, K: k}
	idcg := newScorer(ndcg, tr).idcg
	scores := make([]float64, tr.rows)
	idx, rank := make([]int, maxN), make([]int, maxN)
	var vsc *scorer
	var vscores []float64
	if va != nil {
		vsc = newScorer(opt.Metric, va)
		vscores = make([]float64, va.rows)
	}
	var trees []Tree
	best, bestN := math.Inf(-1), 0
	for it := 0; it < p.Trees; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		lambdas(tr, k, idcg, scores, lt.target, lt.weight, idx, rank)
		tree := lt.grow()
		trees = append(trees, tree)
		off := 0
		for qi := range tr.blocks {
			b := &tr.blocks[qi]
			for i := 0; i < b.n; i++ {
				scores[off+i] += tree.eval(b.x[i*tr.d : (i+1)*tr.d])
			}
			off += b.n
		}
		if va == nil {
			continue
		}
		off = 0
		for qi := range va.blocks {
			b := &va.blocks[qi]
			for i := 0; i < b.n; i++ {
				vscores[off+i] += tree.eval(b.x[i*va.d : (i+1)*va.d])
			}
			off += b.n
		}
		if v := vsc.mean(va, vscores); v > best {
			best, bestN = v, len(trees)
		}
		if p.EarlyStop > 0 && len(trees)-bestN >= p.EarlyStop {
			break
		}
	}
	if va != nil {
		trees = trees[:max(bestN, 1)]
	}
	m.Trees = trees
	m.Iterations = len(trees)
	return nil
}
