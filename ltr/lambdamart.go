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
	nb     []int   // bins per column
	off    []int   // histogram offset per column
	bins   []uint8 // row-major: bins[row*d+column]
	target []float64
	weight []float64
	idx    []int32
	tmp    []int32
	pool   []*hist
	sc     *scorer   // NDCG@k gains, discounts and ideal DCGs of the training queries
	exp    []float64 // per-query scratch
	leafOf []int32   // leaf value index of each row in the last tree
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
	d := lt.t.d
	off := lt.off[:d]
	for _, r := range rows {
		t := lt.target[r]
		br := lt.bins[int(r)*d : int(r)*d+d]
		for j, b := range br {
			k := off[j] + int(b)
			h.g[k] += t
			h.c[k]++
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
	for j := 0; j < lt.t.d; j++ {
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
		d := lt.t.d
		rows := lt.idx[l.start:l.end]
		nl := 0
		tmp := lt.tmp[:0]
		for _, r := range rows {
			if int(lt.bins[int(r)*d+l.col]) <= l.bin {
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
		for _, r := range lt.idx[l.start:l.end] {
			lt.leafOf[r] = int32(l.node)
		}
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
// k contributing 0 (so pairs with both ranks beyond k are skipped).
func (lt *lmTrainer) lambdas(scores []float64) {
	t, sc := lt.t, lt.sc
	lam, w := lt.target, lt.weight
	clear(lam)
	clear(w)
	off := 0
	for qi := range t.blocks {
		b := &t.blocks[qi]
		n := b.n
		if sc.idcg[qi] <= 0 {
			off += n
			continue
		}
		s := scores[off : off+n]
		ix := sc.idx[:n]
		sortByKeys(s, ix, sc.keys[:n])
		// e_d = exp(s_d - max s), so exp(s_i - s_j) = e_i / e_j without
		// one exp per pair.
		e := lt.exp[:n]
		smax := s[ix[0]]
		for d := range e {
			e[d] = math.Exp(s[d] - smax)
		}
		g := sc.gain[qi]
		top := n
		if sc.m.K > 0 && sc.m.K < n {
			top = sc.m.K
		}
		inv := 1 / sc.idcg[qi]
		for p := 0; p < top; p++ {
			i := ix[p]
			dp := sc.disc[p]
			for q := p + 1; q < n; q++ {
				j := ix[q]
				if b.labels[i] == b.labels[j] {
					continue
				}
				dq := 0.0
				if q < top {
					dq = sc.disc[q]
				}
				hi, lo := i, j
				if b.labels[j] > b.labels[i] {
					hi, lo = j, i
				}
				delta := math.Abs((g[i]-g[j])*(dp-dq)) * inv
				var ratio float64
				if e[lo] > 0 {
					ratio = e[hi] / e[lo]
				} else {
					ratio = math.Exp(s[hi] - s[lo])
				}
				rho := 1 / (1 + ratio)
				lam[off+hi] += rho * delta
				lam[off+lo] -= rho * delta
				ww := rho * (1 - rho) * delta
				w[off+hi] += ww
				w[off+lo] += ww
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
	lt.bins = make([]uint8, tr.rows*tr.d)
	row := 0
	maxN := 0
	for qi := range tr.blocks {
		b := &tr.blocks[qi]
		maxN = max(maxN, b.n)
		for i := 0; i < b.n; i++ {
			for j := 0; j < tr.d; j++ {
				lt.bins[row*tr.d+j] = lt.bn.bin(j, b.x[i*tr.d+j])
			}
			row++
		}
	}
	lt.target = make([]float64, tr.rows)
	lt.weight = make([]float64, tr.rows)
	lt.idx = make([]int32, tr.rows)
	lt.tmp = make([]int32, 0, tr.rows)
	lt.sc = newScorer(Metric{Kind: MetricNDCG, K: k}, tr)
	lt.exp = make([]float64, maxN)
	lt.leafOf = make([]int32, tr.rows)
	scores := make([]float64, tr.rows)
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
		lt.lambdas(scores)
		tree := lt.grow()
		trees = append(trees, tree)
		// Training rows: add the value of the leaf each row fell into.
		for r, leaf := range lt.leafOf {
			scores[r] += tree.Nodes[leaf].Value
		}
		if va == nil {
			continue
		}
		off := 0
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
