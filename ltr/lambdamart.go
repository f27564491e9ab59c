package ltr

import (
	"context"
	"fmt"
	"math"
	"math/bits"
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
	// MinHessian floors the sum of the lambda weights (second derivatives)
	// in a leaf's Newton step, bounding a leaf value by Shrinkage times
	// |sum(lambda)| / MinHessian (LightGBM's min_sum_hessian_in_leaf,
	// 1e-3; RankLib has no floor).
	MinHessian float64
}

// DefaultLambdaMARTParams returns RankLib's defaults.
func DefaultLambdaMARTParams() LambdaMARTParams {
	return LambdaMARTParams{Trees: 1000, Leaves: 10, Shrinkage: 0.1, Bins: 256, MinLeafSupport: 1, EarlyStop: 100, MinHessian: 1e-3}
}

// binner maps each column's values to at most 256 bins; bin b holds the
// values in (thr[b-1], thr[b]].
type binner struct {
	thr [][]float64
}

// newBinner computes each column's bin thresholds from the table's values.
// When cols is not nil (length rows*d) it also receives the bin of every
// value, column-major (cols[j*rows+r] = bin(j, x[r][j])), read off the
// sorted column instead of searched value by value.
func newBinner(t *table, maxBins int, cols []uint8) *binner {
	bn := &binner{thr: make([][]float64, t.d)}
	vals := make([]float64, 0, t.rows)
	var sc radixScratch
	var rows []int32
	if cols != nil {
		rows = make([]int32, t.rows)
	}
	gather := func(j int) {
		vals = vals[:0]
		for qi := range t.blocks {
			b := &t.blocks[qi]
			for i := 0; i < b.n; i++ {
				vals = append(vals, b.x[i*t.d+j])
			}
		}
	}
	for j := 0; j < t.d; j++ {
		gather(j)
		for i := range rows {
			rows[i] = int32(i)
		}
		permuted := sortFloats(vals, rows, &sc)
		bn.thr[j] = cutPoints(vals, maxBins)
		if cols == nil {
			continue
		}
		col := cols[j*t.rows : (j+1)*t.rows]
		if !permuted { // rows not carried along: search value by value
			gather(j)
			bn.binInto(j, vals, col)
			continue
		}
		// vals ascending: the first threshold >= v only moves up.
		thr, b := bn.thr[j], 0
		last := len(thr) - 1
		for i, v := range vals {
			for b < last && !(thr[b] >= v) {
				b++
			}
			col[rows[i]] = uint8(b)
		}
	}
	return bn
}

// cutPoints returns the thresholds of one column from its sorted values:
// the distinct values when there are at most maxBins, else equal-frequency
// cut points.
func cutPoints(vals []float64, maxBins int) []float64 {
	distinct := 0 // up to maxBins+1
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			if distinct++; distinct > maxBins {
				break
			}
		}
	}
	if distinct <= maxBins {
		return slices.Compact(slices.Clone(vals))
	}
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
	return thr
}

// radixScratch holds sortFloats' buffers between calls.
type radixScratch struct {
	keys, tmp  []uint64
	rows, rtmp []int32
}

// sortFloats sorts v increasingly, as sort.Float64s does, and applies the
// same permutation to rows when rows is not nil, by a
// least-significant-digit radix sort (8-bit digits; a pass whose digit is
// the same for every value is skipped) of the order-preserving bit patterns
// (sign bit flipped for non-negative values, all bits for negative ones),
// so -0 sorts before +0 (sort.Float64s leaves them in any order; they
// compare equal, so the bins are the same). Lists with a NaN, and short
// lists, use sort.Float64s and leave rows as they were; the result says
// whether rows was permuted.
func sortFloats(v []float64, rows []int32, sc *radixScratch) bool {
	n := len(v)
	if n < 512 {
		sort.Float64s(v)
		return false
	}
	for _, x := range v {
		if x != x {
			sort.Float64s(v)
			return false
		}
	}
	keys, tmp := slices.Grow(sc.keys[:0], n)[:n], slices.Grow(sc.tmp[:0], n)[:n]
	sc.keys, sc.tmp = keys, tmp
	var rtmp []int32
	if rows != nil {
		rtmp = slices.Grow(sc.rtmp[:0], n)[:n]
		sc.rtmp = rtmp
	}
	for i, x := range v {
		u := math.Float64bits(x)
		if u>>63 != 0 {
			u = ^u
		} else {
			u |= 1 << 63
		}
		keys[i] = u
	}
	src, dst := keys, tmp
	rsrc, rdst := rows, rtmp
	for shift := uint(0); shift < 64; shift += 8 {
		var cnt [256]int
		for _, k := range src {
			cnt[byte(k>>shift)]++
		}
		if cnt[byte(src[0]>>shift)] == n {
			continue
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		if rows != nil {
			for i, k := range src {
				d := byte(k >> shift)
				dst[cnt[d]] = k
				rdst[cnt[d]] = rsrc[i]
				cnt[d]++
			}
			rsrc, rdst = rdst, rsrc
		} else {
			for _, k := range src {
				d := byte(k >> shift)
				dst[cnt[d]] = k
				cnt[d]++
			}
		}
		src, dst = dst, src
	}
	for i, u := range src {
		if u>>63 != 0 {
			u &^= 1 << 63
		} else {
			u = ^u
		}
		v[i] = math.Float64frombits(u)
	}
	if rows != nil && &rsrc[0] != &rows[0] {
		copy(rows, rsrc)
	}
	return rows != nil
}

// bin returns the bin of value v of column j: the first b with
// thr[b] >= v (sort.SearchFloat64s), or the last bin when v is above every
// threshold or NaN. A branch-free binary search (Khuong & Morin 2017).
func (bn *binner) bin(j int, v float64) uint8 {
	thr := bn.thr[j]
	base, n := 0, len(thr)
	for n > 1 {
		half := n / 2
		if !(thr[base+half] >= v) {
			base += half
		}
		n -= half
	}
	if !(thr[base] >= v) && base < len(thr)-1 {
		base++
	}
	return uint8(base)
}

// binInto sets out[i] = bn.bin(j, vals[i]), running four of the binary
// searches side by side (they are independent, so their memory loads
// overlap).
func (bn *binner) binInto(j int, vals []float64, out []uint8) {
	thr := bn.thr[j]
	last := len(thr) - 1
	out = out[:len(vals)]
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		v0, v1, v2, v3 := vals[i], vals[i+1], vals[i+2], vals[i+3]
		b0, b1, b2, b3 := 0, 0, 0, 0
		for n := len(thr); n > 1; {
			half := n / 2
			if !(thr[b0+half] >= v0) {
				b0 += half
			}
			if !(thr[b1+half] >= v1) {
				b1 += half
			}
			if !(thr[b2+half] >= v2) {
				b2 += half
			}
			if !(thr[b3+half] >= v3) {
				b3 += half
			}
			n -= half
		}
		if !(thr[b0] >= v0) && b0 < last {
			b0++
		}
		if !(thr[b1] >= v1) && b1 < last {
			b1++
		}
		if !(thr[b2] >= v2) && b2 < last {
			b2++
		}
		if !(thr[b3] >= v3) && b3 < last {
			b3++
		}
		out[i], out[i+1], out[i+2], out[i+3] = uint8(b0), uint8(b1), uint8(b2), uint8(b3)
	}
	for ; i < len(vals); i++ {
		out[i] = bn.bin(j, vals[i])
	}
}

// histStride is the number of histogram slots per column (the most bins a
// column can have), so that a uint8 bin indexes a column's slots without a
// bounds check.
const histStride = 256

// A histogram slot is one int64 holding both sums of the rows in the bin:
// sum(q) << cb + count, where q is the row's lambda target quantised to a
// fixed-point integer (lmTrainer.quantise) and cb the number of bits that
// holds any row count. One integer addition per row and column updates
// both sums, sibling subtraction is exact, and a cumulative sum of slots
// decodes to the cumulative (sum, count) of a split's left side:
// count = v & (1<<cb - 1), sum = v >> cb (arithmetic shift). The scale is
// chosen per tree so that no sum over the training rows can overflow.

// lmLeaf is a leaf being grown: rows idx[start:end], their histogram h
// (histStride slots per column) and their best split.
type lmLeaf struct {
	start, end int
	h          []int64
	node       int
	gain       float64
	col, bin   int
}

// lmTrainer holds one LambdaMART fit. The training features are quantised
// once per fit into at most 256 bins per column (uint8, column-major), and
// each query keeps its current ranking between trees.
type lmTrainer struct {
	p      LambdaMARTParams
	n, d   int       // training rows and columns
	bn     *binner   // bin thresholds, in normalised feature units
	nb     []int     // bins per column
	cols   []uint8   // column-major bins: cols[j*n+r]
	cb     uint      // count bits of a packed histogram slot
	unit   float64   // target units per quantisation step of this tree
	maxAbs float64   // max |target| of this tree
	packed []int64   // per row: quantised target << cb + 1
	target []float64 // lambda of each row
	weight []float64 // sum of rho(1-rho)|dNDCG| of each row
	idx    []int32   // rows, partitioned leaf by leaf; ascending within a leaf
	tmp    []int32
	pl     []int64 // packed values of the rows being histogrammed, in row order
	pool   [][]int64
	leafOf []int32 // leaf node of each row in the last tree
	// Lambda state: row offset of each query (len queries+1), each row's
	// gain 2^l - 1, 1/IDCG@k per query (0 when the ideal DCG is 0: such
	// queries have no lambdas), discounts 1/log2(r+2), each query's
	// current ranking (indices local to the query), and per-rank scratch.
	qoff     []int
	gain     []float64
	invIDCG  []float64
	disc     []float64
	k        int
	ord      []int32
	rg, re   []float64
	rlam, rw []float64
	// ex[r] is exp(s_r - c_q) for a per-query constant c_q, kept up to
	// date by multiplying with exp(leaf value) after each tree (one exp
	// per leaf, not per row); lambdas rescales a query to c_q = max s when
	// its largest value leaves [1e-100, 1e100]. Only ratios within a query
	// are used, so c_q cancels.
	ex      []float64
	nodeBin []int   // bin of each node of the tree being grown
	vcols   []uint8 // validation bins, column-major: vcols[j*vrows+r]
	vidx    []int32 // validation rows, partitioned node by node
	vtmp    []int32
	vrange  [][2]int // each node's range of vidx
	vord    []int    // each validation query's current ranking
	vrows   int
}

func (lt *lmTrainer) newHist() []int64 {
	if n := len(lt.pool); n > 0 {
		h := lt.pool[n-1]
		lt.pool = lt.pool[:n-1]
		clear(h)
		return h
	}
	return make([]int64, lt.d*histStride)
}

// quantise packs this tree's targets: q = target / unit rounded toward 0, with
// unit = max|target| / Q and Q = floor(2^(62-cb) / n), so that any sum of
// at most n values of q is below 2^(62-cb) in magnitude and a slot
// (sum << cb + count < 2^62 + 2^cb) cannot overflow. The targets keep
// their float64 values for the leaf outputs; only split finding sees the
// quantised sums, whose resolution is max|target| / Q (about 1.5e-9 of
// the largest lambda for 110,000 rows). maxAbs is max|target| (lambdas
// computes it).
func (lt *lmTrainer) quantise(maxAbs float64) {
	if !(maxAbs > 0) || math.IsInf(maxAbs, 0) {
		// No lambdas (or non-finite ones): no split can gain.
		lt.unit = 0
		for r := range lt.packed {
			lt.packed[r] = 1
		}
		return
	}
	q := float64((int64(1) << (62 - lt.cb)) / int64(max(lt.n, 1)))
	scale := q / maxAbs
	lt.unit = maxAbs / q
	for r, t := range lt.target {
		lt.packed[r] = int64(t*scale)<<lt.cb + 1 // rounded toward 0
	}
}

// fillRoot builds the histogram of all training rows over the
// column-major bins, four columns per pass.
func (lt *lmTrainer) fillRoot(h []int64) {
	n, d := lt.n, lt.d
	pk := lt.packed[:n]
	j := 0
	for ; j+4 <= d; j += 4 {
		h0 := (*[histStride]int64)(h[j*histStride : (j+1)*histStride])
		h1 := (*[histStride]int64)(h[(j+1)*histStride : (j+2)*histStride])
		h2 := (*[histStride]int64)(h[(j+2)*histStride : (j+3)*histStride])
		h3 := (*[histStride]int64)(h[(j+3)*histStride : (j+4)*histStride])
		c0 := lt.cols[j*n : (j+1)*n]
		c1 := lt.cols[(j+1)*n : (j+2)*n][:len(c0)]
		c2 := lt.cols[(j+2)*n : (j+3)*n][:len(c0)]
		c3 := lt.cols[(j+3)*n : (j+4)*n][:len(c0)]
		pk := pk[:len(c0)]
		for r, b0 := range c0 {
			v := pk[r]
			h0[b0] += v
			h1[c1[r]] += v
			h2[c2[r]] += v
			h3[c3[r]] += v
		}
	}
	for ; j < d; j++ {
		hj := (*[histStride]int64)(h[j*histStride : (j+1)*histStride])
		col := lt.cols[j*n : (j+1)*n]
		pk := pk[:len(col)]
		for r, b := range col {
			hj[b] += pk[r]
		}
	}
}

// fill builds the histogram of rows (ascending row numbers): their packed
// values are gathered once, then the columns' bins are read in row order,
// four columns per pass.
func (lt *lmTrainer) fill(h []int64, rows []int32) {
	pl := lt.pl[:len(rows)]
	for i, r := range rows {
		pl[i] = lt.packed[r]
	}
	n, d := lt.n, lt.d
	j := 0
	for ; j+4 <= d; j += 4 {
		h0 := (*[histStride]int64)(h[j*histStride : (j+1)*histStride])
		h1 := (*[histStride]int64)(h[(j+1)*histStride : (j+2)*histStride])
		h2 := (*[histStride]int64)(h[(j+2)*histStride : (j+3)*histStride])
		h3 := (*[histStride]int64)(h[(j+3)*histStride : (j+4)*histStride])
		c0 := lt.cols[j*n : (j+1)*n]
		c1 := lt.cols[(j+1)*n : (j+2)*n][:len(c0)]
		c2 := lt.cols[(j+2)*n : (j+3)*n][:len(c0)]
		c3 := lt.cols[(j+3)*n : (j+4)*n][:len(c0)]
		for i, r := range rows {
			v := pl[i]
			h0[c0[r]] += v
			h1[c1[r]] += v
			h2[c2[r]] += v
			h3[c3[r]] += v
		}
	}
	for ; j < d; j++ {
		hj := (*[histStride]int64)(h[j*histStride : (j+1)*histStride])
		col := lt.cols[j*n : (j+1)*n]
		for i, r := range rows {
			hj[col[r]] += pl[i]
		}
	}
}

// bestSplit finds the least-squares split of a leaf: the (column, bin)
// maximising GL^2/NL + GR^2/NR - G^2/N (variance reduction of the lambda
// targets, as RankLib's regression trees), ties to the lowest column and
// bin.
//
// The scan avoids two divisions per bin: a bin can only win when
// GL^2 NR + GR^2 NL > (best + 1e-12 + G^2/N) NL NR, the same test
// multiplied by NL NR > 0; it is applied with a relative slack of 1e-9,
// far above the rounding error of either form, so that every bin the
// exact test accepts passes it, and the exact gain (with divisions) then
// decides. The chosen split is the one the exact scan chooses.
func (lt *lmTrainer) bestSplit(l *lmLeaf) {
	l.gain, l.col, l.bin = 0, -1, -1
	n := l.end - l.start
	if n < 2*lt.p.MinLeafSupport || lt.unit == 0 {
		return
	}
	minS := float64(lt.p.MinLeafSupport)
	N := float64(n)
	cb, mask, unit := lt.cb, int64(1)<<lt.cb-1, lt.unit
	for j := 0; j < lt.d; j++ {
		hb := l.h[j*histStride : j*histStride+lt.nb[j]]
		var tot int64
		for _, v := range hb {
			tot += v
		}
		G := float64(tot>>cb) * unit
		base := G * G / N
		bound := (l.gain + 1e-12 + base) * (1 - 1e-9)
		var cum int64
		for b := 0; b < len(hb)-1; b++ {
			v := hb[b]
			cum += v
			if v&mask == 0 { // no rows in this bin
				continue
			}
			cl := float64(cum & mask)
			if cl < minS {
				continue
			}
			cr := N - cl
			if cr < minS {
				break
			}
			gl := float64(cum>>cb) * unit
			gr := G - gl
			if gl*gl*cr+gr*gr*cl <= bound*cl*cr {
				continue
			}
			gain := gl*gl/cl + gr*gr/cr - base
			if gain > l.gain+1e-12 {
				l.gain, l.col, l.bin = gain, j, b
				bound = (l.gain + 1e-12 + base) * (1 - 1e-9)
			}
		}
	}
}

// grow fits one regression tree to lt.target, best-first up to Leaves
// leaves, with Newton leaf values shrinkage * sum(lambda) / sum(w). The
// histogram of the smaller child of a split is built from its rows and the
// larger child's is the parent's minus it. lt.nodeBin receives the bin of
// each internal node's threshold.
func (lt *lmTrainer) grow() Tree {
	for i := range lt.idx {
		lt.idx[i] = int32(i)
	}
	tree := Tree{Nodes: []TreeNode{{Column: -1}}}
	lt.nodeBin = append(lt.nodeBin[:0], -1)
	lt.quantise(lt.maxAbs)
	root := &lmLeaf{start: 0, end: len(lt.idx), h: lt.newHist(), node: 0}
	lt.fillRoot(root.h)
	lt.bestSplit(root)
	leaves := []*lmLeaf{root}
	n := lt.n
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
		col := lt.cols[l.col*n : (l.col+1)*n]
		rows := lt.idx[l.start:l.end]
		// Branch-free: each row is written to both sides and the side it
		// does not belong to is overwritten later.
		nl, nr := 0, 0
		tmp := lt.tmp[:len(rows)]
		bin := l.bin
		for _, r := range rows {
			right := int(uint(bin-int(col[r])) >> 63) // 1 when bin(r) > l.bin
			rows[nl] = r
			tmp[nr] = r
			nl += 1 - right
			nr += right
		}
		copy(rows[nl:], tmp[:nr])
		left := &lmLeaf{start: l.start, end: l.start + nl}
		right := &lmLeaf{start: l.start + nl, end: l.end}
		small, large := left, right
		if right.end-right.start < left.end-left.start {
			small, large = right, left
		}
		if len(leaves)+1 < lt.p.Leaves {
			small.h = lt.newHist()
			lt.fill(small.h, lt.idx[small.start:small.end])
			large.h = l.h // parent minus small child
			sh := small.h[:len(large.h)]
			for i := range large.h {
				large.h[i] -= sh[i]
			}
		} else {
			// The tree is complete after this split: the children are
			// never split, so their histograms are not needed.
			lt.pool = append(lt.pool, l.h)
		}
		ni := len(tree.Nodes)
		tree.Nodes[l.node] = TreeNode{Column: l.col, Threshold: lt.bn.thr[l.col][l.bin], Left: ni, Right: ni + 1}
		lt.nodeBin[l.node] = l.bin
		tree.Nodes = append(tree.Nodes, TreeNode{Column: -1}, TreeNode{Column: -1})
		lt.nodeBin = append(lt.nodeBin, -1, -1)
		left.node, right.node = ni, ni+1
		left.col, right.col = -1, -1
		if left.h != nil {
			lt.bestSplit(left)
			lt.bestSplit(right)
		}
		leaves[bi] = left
		leaves = append(leaves, right)
	}
	for _, l := range leaves {
		sg, sw := 0.0, 0.0
		node := int32(l.node)
		for _, r := range lt.idx[l.start:l.end] {
			sg += lt.target[r]
			sw += lt.weight[r]
			lt.leafOf[r] = node
		}
		tree.Nodes[l.node].Value = newtonLeaf(sg, sw, lt.p.Shrinkage, lt.p.MinHessian)
		if l.h != nil {
			lt.pool = append(lt.pool, l.h)
		}
	}
	return tree
}

// rankKey orders NaN scores last, as rankOrder does.
func rankKey(v float64) float64 {
	if v != v {
		return math.Inf(-1)
	}
	return v
}

// rerank sorts ord (a permutation of the query's local indices, the
// ranking of the previous tree) by decreasing score, ties by increasing
// index: rankOrder's order, reached by an insertion sort that is linear
// when one tree changed the ranking little.
func rerank[I int | int32](ord []I, s []float64) {
	for p := 1; p < len(ord); p++ {
		cur := ord[p]
		kc := rankKey(s[cur])
		q := p
		for q > 0 {
			prev := ord[q-1]
			if kp := rankKey(s[prev]); kp > kc || (kp == kc && prev < cur) {
				break
			}
			ord[q] = prev
			q--
		}
		ord[q] = cur
	}
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
//
// Each query is handled in one pass over its ranking: the ranking of the
// previous tree is re-sorted (nearly sorted already), gains and
// e_r = exp(s_r - c) (lmTrainer.ex) are laid out in rank order, so that the pair loop
// reads memory sequentially and rho needs no exp per pair; the lambdas and
// weights of the rank being paired are accumulated in registers. Pairs
// with equal labels have equal gains and so add exactly 0 (see the loop),
// which spares the loop a hard-to-predict branch.
func (lt *lmTrainer) lambdas(scores []float64) {
	disc := lt.disc
	maxAbs := 0.0
	defer func() { lt.maxAbs = maxAbs }()
	for qi, inv := range lt.invIDCG {
		if inv == 0 {
			continue // targets and weights stay 0
		}
		off, end := lt.qoff[qi], lt.qoff[qi+1]
		n := end - off
		s := scores[off:end]
		ord := lt.ord[off:end]
		rerank(ord, s)
		gain := lt.gain[off:end]
		rg, re, rlam, rw := lt.rg[:n], lt.re[:n], lt.rlam[:n], lt.rw[:n]
		ex := lt.ex[off:end]
		if top := ex[ord[0]]; !(top >= 1e-100 && top <= 1e100) {
			// Rescale the query's exponentials to exp(s - max s).
			smax := s[ord[0]]
			for i := range ex {
				ex[i] = math.Exp(s[i] - smax)
			}
		}
		for q, i := range ord {
			rg[q] = gain[i]
			re[q] = ex[i]
			rlam[q] = 0
			rw[q] = 0
		}
		top := n
		if lt.k > 0 && lt.k < n {
			top = lt.k
		}
		for p := 0; p < top; p++ {
			gp, ep, dp := rg[p], re[p], disc[p]
			sp := s[ord[p]]
			var lamP, wP, lamP2, wP2 float64
			// With dg = g_p - g_q, c = |D_p - D_q| / IDCG and
			// r = 1/(1 + exp(s_p - s_q)) = e_q / (e_p + e_q): if p is the
			// better document, rho = r and p gains rho c |dg|; if q is,
			// rho = 1 - r and p loses rho c |dg|. Both are
			// c (|dg| (r - 1/2) + dg/2), without a branch on the labels;
			// equal labels (dg = 0) add 0. The weight rho (1 - rho) c |dg|
			// is r (1 - r) c |dg| either way.
			q := p + 1
			for ; q < top; q++ { // partners within the top k
				dg := gp - rg[q]
				adg := math.Abs(dg)
				c := (dp - disc[q]) * inv
				eq := re[q]
				den := ep + eq
				r := eq / den
				if !(den > 0) { // both exp underflowed
					r = sigmoidOfDiff(sp, s[ord[q]])
				}
				l := c * (adg*(r-0.5) + 0.5*dg)
				ww := r * (1 - r) * c * adg
				lamP += l
				rlam[q] -= l
				wP += ww
				rw[q] += ww
			}
			// Partners beyond the top k: D_q = 0, so c is the same for
			// all; two pairs per step with separate sums.
			c := dp * inv
			for ; q+1 < n; q += 2 {
				dg, dg2 := gp-rg[q], gp-rg[q+1]
				adg, adg2 := math.Abs(dg), math.Abs(dg2)
				eq, eq2 := re[q], re[q+1]
				den, den2 := ep+eq, ep+eq2
				r, r2 := eq/den, eq2/den2
				if !(den > 0) {
					r = sigmoidOfDiff(sp, s[ord[q]])
				}
				if !(den2 > 0) {
					r2 = sigmoidOfDiff(sp, s[ord[q+1]])
				}
				l, l2 := c*(adg*(r-0.5)+0.5*dg), c*(adg2*(r2-0.5)+0.5*dg2)
				ww, ww2 := r*(1-r)*c*adg, r2*(1-r2)*c*adg2
				lamP += l
				lamP2 += l2
				rlam[q] -= l
				rlam[q+1] -= l2
				wP += ww
				wP2 += ww2
				rw[q] += ww
				rw[q+1] += ww2
			}
			if q < n {
				dg := gp - rg[q]
				adg := math.Abs(dg)
				eq := re[q]
				den := ep + eq
				r := eq / den
				if !(den > 0) {
					r = sigmoidOfDiff(sp, s[ord[q]])
				}
				l := c * (adg*(r-0.5) + 0.5*dg)
				ww := r * (1 - r) * c * adg
				lamP += l
				rlam[q] -= l
				wP += ww
				rw[q] += ww
			}
			rlam[p] += lamP + lamP2
			rw[p] += wP + wP2
		}
		tg, wg := lt.target[off:end], lt.weight[off:end]
		for q, i := range ord {
			tg[i] = rlam[q]
			wg[i] = rw[q]
			if a := math.Abs(rlam[q]); a > maxAbs {
				maxAbs = a
			}
		}
	}
}

// newtonLeaf is a leaf's value: the Newton step sum(lambda) / sum(w)
// times the shrinkage, with the sum of second derivatives sw floored at
// minHess. Documents whose pairs are all decided with a large margin have
// w near 0 while their lambdas are not, and the unbounded step grows
// without limit (to 1e62 on the bench folds). RankLib divides by sw
// unless it is 0; LightGBM floors it (min_sum_hessian_in_leaf, 1e-3) and
// XGBoost refuses such leaves (min_child_weight). The value is rounded to
// float32, as RankLib stores a leaf output.
func newtonLeaf(sg, sw, shrinkage, minHess float64) float64 {
	if sg == 0 {
		return 0
	}
	return float64(float32(shrinkage * sg / max(sw, minHess)))
}

// sigmoidOfDiff is 1/(1 + exp(sp - sq)), for the pairs whose e_p + e_q
// underflowed.
func sigmoidOfDiff(sp, sq float64) float64 {
	return 1 / (1 + math.Exp(sp-sq))
}

// newLMTrainer quantises the training table and prepares the lambda state.
func newLMTrainer(p LambdaMARTParams, tr *table, k int) *lmTrainer {
	n, d := tr.rows, tr.d
	lt := &lmTrainer{p: p, n: n, d: d, k: k}
	lt.cols = make([]uint8, n*d)
	lt.bn = newBinner(tr, p.Bins, lt.cols)
	lt.nb = make([]int, d)
	for j := range lt.nb {
		lt.nb[j] = len(lt.bn.thr[j])
	}
	lt.cb = uint(bits.Len(uint(n)))
	lt.packed = make([]int64, n)
	lt.qoff = make([]int, len(tr.blocks)+1)
	maxN := 0
	for qi := range tr.blocks {
		maxN = max(maxN, tr.blocks[qi].n)
		lt.qoff[qi+1] = lt.qoff[qi] + tr.blocks[qi].n
	}
	sc := newScorer(Metric{Kind: MetricNDCG, K: k}, tr)
	lt.gain = make([]float64, 0, n)
	lt.invIDCG = make([]float64, len(tr.blocks))
	for qi := range tr.blocks {
		lt.gain = append(lt.gain, sc.gain[qi]...)
		if sc.idcg[qi] > 0 {
			lt.invIDCG[qi] = 1 / sc.idcg[qi]
		}
	}
	lt.disc = sc.disc
	lt.ord = make([]int32, n)
	for qi := range tr.blocks {
		for i := lt.qoff[qi]; i < lt.qoff[qi+1]; i++ {
			lt.ord[i] = int32(i - lt.qoff[qi])
		}
	}
	lt.rg, lt.re = make([]float64, maxN), make([]float64, maxN)
	lt.rlam, lt.rw = make([]float64, maxN), make([]float64, maxN)
	lt.target = make([]float64, n)
	lt.weight = make([]float64, n)
	lt.idx = make([]int32, n)
	lt.tmp = make([]int32, n)
	lt.pl = make([]int64, n)
	lt.leafOf = make([]int32, n)
	lt.ex = make([]float64, n)
	for r := range lt.ex {
		lt.ex[r] = 1 // exp(0): every score starts at 0
	}
	return lt
}

// binValidation quantises the validation rows with the training bins
// (column-major, like the training rows), so that trees can be applied by
// bin: x <= thr[b] exactly when bin(x) <= b, for every split bin b (a
// split is never at the last bin, which also holds the values above the
// training maximum).
func (lt *lmTrainer) binValidation(va *table) {
	d, n := lt.d, va.rows
	lt.vcols = make([]uint8, n*d)
	vals := make([]float64, n)
	for j := 0; j < d; j++ {
		row := 0
		for qi := range va.blocks {
			b := &va.blocks[qi]
			for i := 0; i < b.n; i++ {
				vals[row] = b.x[i*d+j]
				row++
			}
		}
		lt.bn.binInto(j, vals, lt.vcols[j*n:(j+1)*n])
	}
	lt.vrows = n
	lt.vidx = make([]int32, n)
	lt.vtmp = make([]int32, n)
}

// applyValidation adds the tree's output to every validation row's score.
// Rows are routed as the training rows are: nodes in index order (a
// parent before its children), each internal node's rows partitioned by
// bin into its children's ranges, branch-free; then each leaf's value is
// added to its rows. Every row receives exactly its leaf's value, as
// Tree.eval would give it.
func (lt *lmTrainer) applyValidation(tree *Tree, vscores []float64) {
	n := lt.vrows
	nodes, nb := tree.Nodes, lt.nodeBin
	idx := lt.vidx[:n]
	for i := range idx {
		idx[i] = int32(i)
	}
	lt.vrange = append(lt.vrange[:0], make([][2]int, len(nodes))...)
	rng := lt.vrange
	rng[0] = [2]int{0, n}
	for i := range nodes {
		nd := &nodes[i]
		start, end := rng[i][0], rng[i][1]
		if nd.Column < 0 {
			v := nd.Value
			for _, r := range idx[start:end] {
				vscores[r] = float64(float32(vscores[r] + v)) // as Model.scoreBlock
			}
			continue
		}
		col := lt.vcols[nd.Column*n : (nd.Column+1)*n]
		rows := idx[start:end]
		tmp := lt.vtmp[:len(rows)]
		nl, nr := 0, 0
		bin := nb[i]
		for _, r := range rows {
			right := int(uint(bin-int(col[r])) >> 63)
			rows[nl] = r
			tmp[nr] = r
			nl += 1 - right
			nr += right
		}
		copy(rows[nl:], tmp[:nr])
		rng[nd.Left] = [2]int{start, start + nl}
		rng[nd.Right] = [2]int{start + nl, end}
	}
}

// validationMean is vsc.mean(va, vscores), bit for bit: the same metric
// of the same rankings, summed in the same order, but each query's ranking
// is re-sorted from the previous tree's (lt.vord) instead of from scratch.
func (lt *lmTrainer) validationMean(vsc *scorer, va *table, vscores []float64) float64 {
	if lt.vord == nil {
		lt.vord = make([]int, va.rows)
		off := 0
		for qi := range va.blocks {
			for i := 0; i < va.blocks[qi].n; i++ {
				lt.vord[off+i] = i
			}
			off += va.blocks[qi].n
		}
	}
	if len(va.blocks) == 0 {
		return 0
	}
	sum, off := 0.0, 0
	for qi := range va.blocks {
		n := va.blocks[qi].n
		ord := lt.vord[off : off+n]
		rerank(ord, vscores[off:off+n])
		sum += vsc.ordered(va, qi, ord)
		off += n
	}
	return sum / float64(len(va.blocks))
}

// fitScores are the training and validation scores of the returned model,
// laid out as scoreTable lays them out and summed tree by tree in the
// same order, so they equal scoreTable's values bit for bit; nil when not
// known.
type fitScores struct {
	train, vali []float64
}

func trainLambdaMART(ctx context.Context, m *Model, tr, va *table, opt Options) (*fitScores, error) {
	p := opt.LambdaMART
	if p.Trees < 1 || p.Leaves < 2 || !(p.Shrinkage > 0) || p.Bins < 2 || p.Bins > 256 || p.MinLeafSupport < 1 {
		return nil, fmt.Errorf("lambdamart: need trees >= 1, leaves >= 2, shrinkage > 0, 2 <= bins <= 256, min leaf support >= 1")
	}
	k := 10
	if opt.Metric.Kind == MetricNDCG {
		k = opt.Metric.K
	}
	lt := newLMTrainer(p, tr, k)
	scores := make([]float64, tr.rows)
	var vsc *scorer
	var vscores, bestT, bestV []float64
	if va != nil {
		vsc = newScorer(opt.Metric, va)
		vscores = make([]float64, va.rows)
		lt.binValidation(va)
	}
	var trees []Tree
	var fac []float64
	best, bestN := math.Inf(-1), 0
	for it := 0; it < p.Trees; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lt.lambdas(scores)
		tree := lt.grow()
		trees = append(trees, tree)
		// Training rows: add the value of the leaf each row fell into.
		// Their exponentials (see lmTrainer.ex) are multiplied by
		// exp(value).
		fac = fac[:0]
		for i := range tree.Nodes {
			fac = append(fac, math.Exp(tree.Nodes[i].Value))
		}
		ex := lt.ex[:len(lt.leafOf)]
		for r, leaf := range lt.leafOf {
			// Accumulated in float32 as the model scores (Tree).
			scores[r] = float64(float32(scores[r] + tree.Nodes[leaf].Value))
			ex[r] *= fac[leaf]
		}
		if va == nil {
			continue
		}
		lt.applyValidation(&tree, vscores)
		if v := lt.validationMean(vsc, va, vscores); v > best {
			best, bestN = v, len(trees)
			bestT = append(bestT[:0], scores...)
			bestV = append(bestV[:0], vscores...)
		}
		if p.EarlyStop > 0 && len(trees)-bestN >= p.EarlyStop {
			break
		}
	}
	fs := &fitScores{train: scores}
	if va != nil {
		fs = &fitScores{train: bestT, vali: bestV}
		if bestN == 0 { // the metric was never a number: keep one tree
			fs = nil
		}
		trees = trees[:max(bestN, 1)]
	}
	m.Trees = trees
	m.Iterations = len(trees)
	return fs, nil
}
