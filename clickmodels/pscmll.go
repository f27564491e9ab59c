package clickmodels

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// PSCM's training log-likelihood (the tolerance's) from merged items, as
// itemll.go computes UBM's.
//
// The probability of a SERP's outcomes given its click sequence (pscm.go,
// pscmProbs) is, rank by rank, prod over the steps crossing the rank of
// (1 - alpha gamma_imn) where it was not clicked and 1 minus that product
// where it was. So the SERP's ln P (serpLL's sum) is a sum of terms, each
// of which depends on one pair and on gammas only:
//
//   - every step crossing an unclicked rank: ln(1 - alpha gamma_e);
//   - a clicked rank crossed by one step (every click of a SERP clicked
//     in rank order): ln(alpha gamma_e);
//   - a clicked rank crossed by k >= 2 steps (a return crosses it again):
//     ln(1 - prod over its k gammas of (1 - alpha gamma_e)), a compound
//     item of the pair and its k gamma indices (in time order).
//
// The terms with the same pair, gammas, SERP length and outcome are one
// item, weighted by the number of (SERP, click order)s merged into it, and
// the items are gathered per query and SERP length as itemll.go's
// (llFold): the same items in the same order in every engine (a query's
// records and their click orders are in one chunk, shard or Beam bundle),
// whole-number weights, each query's sums to the exact sum on their own.
// The value differs from the per-SERP pass (serpLL over pscmProbs) by
// rounding only, and the pass visits each distinct term once instead of
// every step of every distinct (SERP, click order), which was most of
// PSCM's default fit (docs/clickmodels.md, "Cost of PSCM").

// The classes of PSCM's llItems, in the order of a query's items: one loop
// each, with no branch on the class or the weight in it.
const (
	pscmLLUnclicked1 = iota // unclicked, w = 1
	pscmLLClicked1          // clicked by one step, w = 1
	pscmLLCompound1         // clicked, crossed by several steps, w = 1
	pscmLLUnclicked         // unclicked, w > 1
	pscmLLClicked           // clicked by one step, w > 1
	pscmLLCompound          // clicked, crossed by several steps, w > 1
	pscmLLClasses
)

// pscmLLClass is the class of PSCM's log-likelihood item it.
func pscmLLClass(it *llItem) int {
	c := pscmLLUnclicked1
	switch {
	case it.compound:
		c = pscmLLCompound1
	case it.clicked:
		c = pscmLLClicked1
	}
	if it.w != 1 {
		c += 3
	}
	return c
}

// pscmLL holds the llItems of PSCM's log-likelihood of every chunk, chunk
// ci's at items[off[ci]:off[ci+1]], query by query and, within a query,
// by class: the items of class c of the chunk's k-th query end at
// off[ci] + ends[ci][k*pscmLLClasses+c] (last is not set). A compound
// item's exam is the offset in multi[ci] of its number of gammas k,
// followed by the k gamma indices.
type pscmLL struct {
	off   []int
	items []llItem
	ends  [][]int32
	multi [][]int32
}

// newPSCMLL merges the terms of every (record, click order) of d's
// records into llItems (the model's steps: the factorised fit, never
// Options.PSCMAuthors, takes this pass).
func newPSCMLL(ctx context.Context, f *fitter) *pscmLL {
	d, R := f.d, f.R
	nc := len(d.chunks)
	parts := make([][]llItem, nc)
	ends, multi := make([][]int32, nc), make([][]int32, nc)
	stride := (R + 1) * (R + 1) // pscmIndex's step in i
	f.parallel(ctx, f.workers, func(ci int, _ *scratch) {
		ch := d.chunks[ci]
		var items []llItem
		var end, mult []int32
		var sorted []llItem
		index := make(map[llItemKey]int32)
		compound := make(map[string]int32) // key: pscmCompoundKey
		var key []byte
		var spanBuf [MaxSERP + 1]pscmSpan
		var obuf [MaxSERP]uint8
		// The gammas of the steps crossing each clicked rank, in time
		// order: crossed[r][:nCross[r]].
		var crossed [MaxSERP][MaxSERP + 1]int32
		var nCross [MaxSERP]int
		add := func(k llItemKey, w float64) {
			it, ok := index[k]
			if !ok {
				it = int32(len(items))
				index[k] = it
				items = append(items, llItem{pair: k.pair, exam: k.exam, n: k.n, clicked: k.clicked})
			}
			items[it].w += w
		}
		for i := ch.recLo; i < ch.recHi; {
			// Query by query (its records and pairs are contiguous), so
			// the indices stay small.
			q := d.pairQuery[d.recPair[d.recOff[i]]]
			clear(index)
			clear(compound)
			first := len(items)
			for ; i < ch.recHi && d.pairQuery[d.recPair[d.recOff[i]]] == q; i++ {
				pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
				n, clicks := len(pairs), d.recClicks[i]
				d.eachOrder(i, func(order []uint8, w float64) {
					if order == nil {
						order = sessions.RankOrder(obuf[:0], clicks)
					}
					for r := range n {
						nCross[r] = 0
					}
					for _, sp := range pscmSpans(order, n, R, pscmModel, spanBuf[:0]) {
						lo := int(sp.lo)
						e := int(sp.base) + lo*stride
						for r := lo; r < lo+int(sp.cnt); r++ {
							if clicks&(1<<uint(r)) != 0 {
								crossed[r][nCross[r]] = int32(e)
								nCross[r]++
							} else {
								add(llItemKey{pair: pairs[r] - int32(ch.pairLo), exam: int32(e), n: uint8(n)}, w)
							}
							e += stride
						}
					}
					for _, c := range order { // the clicked ranks
						r := int(c)
						p := pairs[r] - int32(ch.pairLo)
						if nCross[r] == 1 {
							add(llItemKey{pair: p, exam: crossed[r][0], n: uint8(n), clicked: true}, w)
							continue
						}
						es := crossed[r][:nCross[r]]
						key = pscmCompoundKey(key[:0], p, uint8(n), es)
						it, ok := compound[string(key)]
						if !ok {
							it = int32(len(items))
							compound[string(key)] = it
							items = append(items, llItem{pair: p, exam: int32(len(mult)), n: uint8(n), clicked: true, compound: true})
							mult = append(mult, int32(len(es)))
							mult = append(mult, es...)
						}
						items[it].w += w
					}
				})
			}
			// The query's items by class, each class in the order of
			// first appearance.
			var cnt [pscmLLClasses]int
			for k := range items[first:] {
				cnt[pscmLLClass(&items[first+k])]++
			}
			var at [pscmLLClasses]int
			for c, k := 0, first; c < pscmLLClasses; c++ {
				at[c] = k
				k += cnt[c]
				end = append(end, int32(k))
			}
			sorted = append(sorted[:0], items[first:]...)
			for _, it := range sorted {
				c := pscmLLClass(&it)
				items[at[c]] = it
				at[c]++
			}
			// The weighted items by weight and the compound ones by their
			// number of gammas (each in the order of first appearance):
			// runs of equal loop counts in addPow and pscmNoClick.
			for c := pscmLLCompound1; c < pscmLLClasses; c++ {
				q := end[len(end)-pscmLLClasses:] // the query's class ends
				run := items[q[c-1]:q[c]]
				switch c {
				case pscmLLCompound1:
					slices.SortStableFunc(run, func(x, y llItem) int { return cmp.Compare(mult[x.exam], mult[y.exam]) })
				case pscmLLCompound:
					slices.SortStableFunc(run, func(x, y llItem) int {
						return cmp.Or(cmp.Compare(mult[x.exam], mult[y.exam]), cmp.Compare(x.w, y.w))
					})
				default:
					slices.SortStableFunc(run, func(x, y llItem) int { return cmp.Compare(x.w, y.w) })
				}
			}
		}
		parts[ci], ends[ci], multi[ci] = items, end, mult
	})
	ll := &pscmLL{ends: ends, multi: multi}
	ll.off, ll.items = concatParts(parts)
	return ll
}

// pscmCompoundKey appends a compound item's identity (pair, SERP length,
// gamma indices) to dst.
func pscmCompoundKey(dst []byte, pair int32, n uint8, es []int32) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(pair))
	dst = append(dst, n)
	for _, e := range es {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(e))
	}
	return dst
}

// trainLLPSCM is trainLL for the factorised PSCM fit: the log-likelihood
// from the merged items (built on the first call).
func (f *fitter) trainLLPSCM(ctx context.Context, st *Stats) {
	if f.pll == nil {
		f.pll = newPSCMLL(ctx, f)
	}
	d, g := f.d, f.global
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		attr := f.attr[ch.pairLo:ch.pairHi]
		items, multi := f.pll.items[f.pll.off[ci]:f.pll.off[ci+1]], f.pll.multi[ci]
		var fold llFold
		fold.reset()
		lo := int32(0)
		for end := f.pll.ends[ci]; len(end) > 0; end = end[pscmLLClasses:] {
			// w = 1: llFold.add's path inlined while the product stays
			// at or above 2^-900 (a tiny p too is then multiplied in).
			for _, it := range items[lo:end[pscmLLUnclicked1]] {
				p := 1 - attr[it.pair]*g[it.exam]
				if pr := &fold.prod[it.n]; *pr*p >= 0x1p-900 {
					*pr *= p
				} else {
					fold.add(it.n, p, 1)
				}
			}
			for _, it := range items[end[pscmLLUnclicked1]:end[pscmLLClicked1]] {
				p := attr[it.pair] * g[it.exam]
				if pr := &fold.prod[it.n]; *pr*p >= 0x1p-900 {
					*pr *= p
				} else {
					fold.add(it.n, p, 1)
				}
			}
			for _, it := range items[end[pscmLLClicked1]:end[pscmLLCompound1]] {
				p := 1 - pscmNoClick(attr[it.pair], g, multi[it.exam+1:it.exam+1+multi[it.exam]])
				if pr := &fold.prod[it.n]; *pr*p >= 0x1p-900 {
					*pr *= p
				} else {
					fold.add(it.n, p, 1)
				}
			}
			for _, it := range items[end[pscmLLCompound1]:end[pscmLLUnclicked]] {
				fold.addPow(it.n, 1-attr[it.pair]*g[it.exam], it.w)
			}
			for _, it := range items[end[pscmLLUnclicked]:end[pscmLLClicked]] {
				fold.addPow(it.n, attr[it.pair]*g[it.exam], it.w)
			}
			for _, it := range items[end[pscmLLClicked]:end[pscmLLCompound]] {
				fold.addPow(it.n, 1-pscmNoClick(attr[it.pair], g, multi[it.exam+1:it.exam+1+multi[it.exam]]), it.w)
			}
			fold.flush(sc, allLengths)
			lo = end[pscmLLCompound]
		}
	})
	f.collect(st)
}

// pscmNoClick is the probability that a rank of attractiveness a is
// clicked in none of the steps of gammas es: prod over es of (1 - a g_e).
func pscmNoClick(a float64, g []float64, es []int32) float64 {
	q := 1.0
	for _, e := range es {
		q *= 1 - a*g[e]
	}
	return q
}

// addPow is add for the weighted items of PSCM's log-likelihood: for a
// whole w and a p whose w-th power is at least 2^-896 (w up to 16 and p
// at least 2^-56, or w up to 896 and p at least 1/2), it takes p^w, by
// squaring, as one factor; the other terms as add.
func (l *llFold) addPow(n uint8, p, w float64) {
	if !(w == math.Trunc(w) && (w <= 16 && p >= 0x1p-56 || w <= 896 && p >= 0.5)) {
		l.add(n, p, w)
		return
	}
	x := 1.0
	for k := uint(w); ; p *= p { // p^(2^j) <= p^w: no underflow
		if k&1 != 0 {
			x *= p
		}
		if k >>= 1; k == 0 {
			break
		}
	}
	if pr := &l.prod[n]; *pr*x >= 0x1p-900 {
		*pr *= x
	} else {
		l.add(n, x, 1)
	}
}
