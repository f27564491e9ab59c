package clickmodels

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// The training log-likelihood of PBM and UBM from merged items.
//
// Under PBM and UBM the probability of a rank's outcome given the ranks
// above it depends only on the rank's pair, its examination parameter and
// whether it was clicked: a·γ if clicked, 1 - a·γ if not (the models'
// definitions, Chuklin et al. 2015). So the tolerance's log-likelihood,
// sum over SERPs s of w_s/n_s · sum over ranks r of ln P(c_r | c_<r)
// (serpLL's per-SERP mean), is
//
//	sum over items (p, e, n, c) of W · ln(c ? a_p·γ_e : 1 - a_p·γ_e) / n
//
// with W the number of ranks (of SERPs of n ranks) merged into the item.
// The items are the same whatever the engine (a query's records are in one
// chunk, shard or Beam bundle), in the same order (the order of first
// appearance in the query's records, on which the pair M-step's sums
// already rely), and W is a whole number. So, as serpLL does per SERP, the
// terms of one query and one SERP length are gathered as a product of the
// probabilities (each taken W times; one logarithm per query and length
// instead of one per item), and each query's sums go to the exact sum on
// their own: in-core, out-of-core and Beam fits get the same bits. The
// value differs from the per-SERP pass by rounding only (a few units in
// the last place), for a fraction of its cost: the items are fewer than
// the ranks of the distinct SERPs and nothing is gathered per SERP, which
// was most of UBM's default fit (docs/clickmodels.md, "Cost of the default
// estimator").

// llItem is one (pair, examination parameter, SERP length, outcome) of a
// chunk's ranks. PSCM's log-likelihood (pscmll.go) takes it too, with
// compound items and without last.
type llItem struct {
	pair     int32 // pair - the chunk's first pair
	exam     int32
	n        uint8 // ranks of the SERPs the item's ranks belong to
	clicked  bool
	last     bool // the last item of its query
	compound bool // PSCM: a clicked rank crossed by several steps
	// estep: the first unclicked item of its (pair, exam) in the query,
	// where the fused pass (itemsPass) makes the E-step of the
	// factorised item of that (pair, exam), the next one in the chunk's
	// factorized.items (see newItemLL).
	estep bool
	// reps is w when w is a whole number up to 16, for which llFold.add
	// multiplies p in w times (itemsPass inlines that loop); else 0.
	reps uint8
	w    float64 // number of ranks merged
}

// itemLL holds the llItems of every chunk, chunk ci's at
// items[off[ci]:off[ci+1]].
type itemLL struct {
	off   []int
	items []llItem
	// fused: the items' estep flags name the factorised E-step's items
	// (factorized.items) one to one and in their order, so that one pass
	// makes both (itemsPass); checked by newItemLL.
	fused bool
	// lens has, per query (chunk ci's at lens[qoff[ci]:qoff[ci+1]]), bit
	// n-1 set for each SERP length n of its items: the lengths llFold.flush
	// visits.
	lens []uint64
	qoff []int
}

// llItemKey is an llItem's identity within a query (PSCM's, pscmll.go).
type llItemKey struct {
	pair, exam int32
	n          uint8
	clicked    bool
}

// newItemLL merges the ranks of d's PBM or UBM records into llItems.
//
// The factorised E-step's items (newFactorized) are the unclicked ranks
// merged by (pair, exam) in the order of their first rank in the query's
// records; the llItems split them by SERP length, in the order of the
// first rank of each (pair, exam, length, outcome). So the first unclicked
// llItem of each (pair, exam) in a query comes in the order of the
// factorised items: it carries the estep flag, and the pass that computes
// the log-likelihood can make the E-step too, item for item in the same
// order and with the same arithmetic (itemsPass), the same bits as
// iterateFactorized. newItemLL checks the correspondence chunk by chunk
// (itemLL.fused); were it not to hold, the two passes stay apart.
func newItemLL(ctx context.Context, f *fitter) *itemLL {
	d := f.d
	nc := len(d.chunks)
	parts := make([][]llItem, nc)
	lens := make([][]uint64, nc)
	var mismatch atomic.Bool
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		// Gathered in the worker's buffer, kept at the chunk's size: the
		// growth of a slice per chunk was most of the garbage a fit makes.
		items := sc.llItems[:0]
		// next chains the items of one (pair, exam, outcome) of a query
		// (one per SERP length; most have one), from the index's head.
		next := sc.llNext[:0]
		for i := ch.recLo; i < ch.recHi; {
			// Query by query (its records and pairs are contiguous): an
			// index over (pair - the query's first pair, exam, outcome),
			// as newFactorized's over (pair, exam).
			firstPair := d.recPair[d.recOff[i]]
			q := d.pairQuery[firstPair]
			index := newQueryIndex(&sc.llIndex, d.queryPairs(ch, firstPair)*f.ng*2)
			first := len(items)
			for ; i < ch.recHi && d.pairQuery[d.recPair[d.recOff[i]]] == q; i++ {
				pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
				n, w := uint8(len(pairs)), d.recWeight[i]
				examParams(f.kind, f.R, pairs, d.recClicks[i], func(p int32, ei int, clicked bool) {
					key := (int(p-firstPair)*f.ng+ei)*2 + b2i(clicked)
					head := index.get(key)
					it := head
					for it >= 0 && items[it].n != n {
						it = next[it]
					}
					if it < 0 {
						// A new item; the first unclicked one of its
						// (pair, exam) when the chain was empty.
						it = int32(len(items))
						items = append(items, llItem{pair: p - int32(ch.pairLo), exam: int32(ei), n: n, clicked: clicked, estep: !clicked && head < 0})
						next = append(next, head)
						index.set(key, it)
					}
					items[it].w += w
				})
			}
			if len(items) > first {
				items[len(items)-1].last = true
				var m uint64
				for _, it := range items[first:] {
					m |= 1 << (it.n - 1)
				}
				lens[ci] = append(lens[ci], m)
			}
			for _, it := range items[first:] {
				index.clear((int(it.pair+int32(ch.pairLo)-firstPair)*f.ng+int(it.exam))*2 + b2i(it.clicked))
			}
		}
		sc.llNext = next[:0]
		for i := range items {
			if w := items[i].w; w <= 16 && w == math.Trunc(w) {
				items[i].reps = uint8(w)
			}
		}
		parts[ci] = slices.Clone(items)
		sc.llItems = items[:0]
		if fz := f.fz; fz == nil || !fusedItems(items, fz.items[fz.itemOff[ci]:fz.itemOff[ci+1]]) {
			mismatch.Store(true)
		}
	})
	ll := &itemLL{fused: !mismatch.Load()}
	ll.off, ll.items = concatParts(parts)
	ll.qoff, ll.lens = concatParts(lens)
	return ll
}

// fusedItems reports whether the estep flags of a chunk's llItems name
// its factorised items one to one, in order: the same (pair, exam), the
// factorised item's ranks at least the llItem's.
func fusedItems(ll []llItem, fz []item) bool {
	k := 0
	for _, it := range ll {
		if !it.estep {
			continue
		}
		if k == len(fz) || fz[k].pair != it.pair || fz[k].exam != it.exam || fz[k].w < it.w {
			return false
		}
		k++
	}
	return k == len(fz)
}

// trainLLItems is trainLL for PBM and UBM: the log-likelihood from the
// merged items (built on the first call).
func (f *fitter) trainLLItems(ctx context.Context, st *Stats) {
	f.itemsPass(ctx, st, false)
}

// estepLLItems is estepLL for PBM and UBM: the log-likelihood and the
// E-step and pair M-step in one pass over the items (itemsPass) when they
// correspond (itemLL.fused), else trainLLItems' pass and then
// iterateFactorized's. The bits are the same either way.
func (f *fitter) estepLLItems(ctx context.Context, st *Stats) {
	if f.ill == nil {
		f.ill = newItemLL(ctx, f)
	}
	if !f.ill.fused {
		f.trainLLItems(ctx, st)
		f.iterateFactorized(ctx, f.workers, st)
		return
	}
	f.itemsPass(ctx, st, true)
	f.addClickedCounts(st)
}

// itemsPass adds the log-likelihood of the current values from the merged
// items to st (built on the first call); with estep (which needs
// itemLL.fused) it also makes the factorised E-step (estepItems' counts,
// item for item in the same order: at each llItem with the estep flag,
// that of the chunk's next factorised item) and the pair M-step, the
// global counts of the clicked ranks left to the caller
// (addClickedCounts). The attractiveness and examination of an unclicked
// item are read once for both: 1 - e·a is 1 - a·e, the same bits.
func (f *fitter) itemsPass(ctx context.Context, st *Stats, estep bool) {
	if f.ill == nil {
		f.ill = newItemLL(ctx, f)
	}
	d, g, fz := f.d, f.global, f.fz
	f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		attr := f.attr[ch.pairLo:ch.pairHi]
		var aNum []float64
		var fzItems []item
		xNum := sc.xNum[:len(g)]
		if estep {
			aNum = f.chunkNumerators(ch, sc)
			fzItems = fz.items[fz.itemOff[ci]:fz.itemOff[ci+1]]
		}
		k := 0
		lens := f.ill.lens[f.ill.qoff[ci]:f.ill.qoff[ci+1]]
		var fold llFold
		fold.reset()
		// A query whose items are all of one SERP length n (one bit in
		// its mask: every query of a log of one length, most of the
		// others) folds into pr and sum, held in registers, instead of
		// fold.prod[n] and fold.sum[n] in memory, whose product waited on
		// a store and a load per item; other queries load and store their
		// item's length's pair around the same step. The same products
		// and sums in the same order (llFold.add's arithmetic, foldAdd),
		// added as flush adds them.
		one, n1 := false, uint8(0)
		pr, sum := 1.0, 0.0
		if len(lens) > 0 {
			one, n1 = lens[0]&(lens[0]-1) == 0, uint8(bits.TrailingZeros64(lens[0])+1)
		}
		for _, it := range f.ill.items[f.ill.off[ci]:f.ill.off[ci+1]] {
			a, e := attr[it.pair], g[it.exam]
			p := a * e
			if !it.clicked {
				p = 1 - p
				if estep && it.estep {
					an, x := itemCounts(a, e, p, fzItems[k].w)
					k++
					aNum[it.pair] += an
					if smallCount(x) {
						xNum[it.exam].addSmallCount(x)
					} else {
						xNum[it.exam].addLarge(x)
					}
				}
			}
			if !one { // this item's length's product and sum, from memory
				pr, sum = fold.prod[it.n], fold.sum[it.n]
			}
			switch { // llFold.add's arithmetic (foldAdd), its common paths inlined
			case it.w == 1 && p >= 0x1p-100 && pr*p >= 0x1p-900:
				pr *= p // most items
			case it.reps != 0 && p >= 0x1p-100: // a whole w up to 16
				for range it.reps {
					pr *= p
					if pr < 0x1p-900 {
						sum += math.Log(pr)
						pr = 1
					}
				}
			default:
				pr, sum = foldAdd(pr, sum, p, it.w)
			}
			if !one {
				fold.prod[it.n], fold.sum[it.n] = pr, sum
			}
			if it.last {
				if one {
					flushLength(sc, sum, pr, n1)
				} else {
					fold.flush(sc, lens[0])
				}
				pr, sum = 1, 0 // the next query's, if it has one length
				lens = lens[1:]
				if len(lens) > 0 {
					one, n1 = lens[0]&(lens[0]-1) == 0, uint8(bits.TrailingZeros64(lens[0])+1)
				}
			}
		}
		if estep {
			f.pairMStep(ch, aNum)
		}
	})
	f.collect(st)
}

// llFold gathers the log-likelihood's terms of one query per SERP length
// n, as serpLL does per SERP: the sum of the logarithms taken one by one
// and the product of the other probabilities, folded into the sum before
// it could underflow.
type llFold struct {
	sum, prod [MaxSERP + 1]float64
}

// reset empties the fold.
func (l *llFold) reset() {
	for n := range l.prod {
		l.sum[n], l.prod[n] = 0, 1
	}
}

// add takes the probability p w times (w a number of ranks) for SERPs of
// n ranks. The loops take most terms (w = 1, p not tiny, no fold due) on
// an inlined path of their own, the same arithmetic (add is too large to
// be inlined):
//
//	pr := &fold.prod[n]
//	if x := *pr * p; w == 1 && p >= 0x1p-100 && x >= 0x1p-900 {
//		*pr = x
//	} else {
//		fold.add(n, p, w)
//	}
func (l *llFold) add(n uint8, p, w float64) {
	l.prod[n], l.sum[n] = foldAdd(l.prod[n], l.sum[n], p, w)
}

// foldAdd is llFold.add on one length's product and sum: it returns them
// with p taken w times.
func foldAdd(prod, sum, p, w float64) (float64, float64) {
	switch {
	case w == 1 && p >= 0x1p-100: // most items
		prod *= p // >= 2^-1000: no underflow
		if prod < 0x1p-900 {
			sum += math.Log(prod)
			prod = 1
		}
	case w > 16 || w != math.Trunc(w) || !(p >= 0x1p-100): // many ranks, tiny, 0 (-Inf) or NaN
		sum += w * math.Log(p)
	default:
		for k := 0; k < int(w); k++ {
			prod *= p
			if prod < 0x1p-900 {
				sum += math.Log(prod)
				prod = 1
			}
		}
	}
	return prod, sum
}

// flush adds the gathered terms of the lengths lens (bit n-1 for length
// n; allLengths: every length), each length's sum divided by its length
// (serpLL's mean over ranks), to the worker's exact sum, and resets the
// fold: once per query. A length without terms (sum 0, product 1) adds
// nothing.
func (l *llFold) flush(sc *scratch, lens uint64) {
	for ; lens != 0; lens &= lens - 1 {
		n := bits.TrailingZeros64(lens) + 1
		flushLength(sc, l.sum[n], l.prod[n], uint8(n))
		l.sum[n], l.prod[n] = 0, 1
	}
}

// flushLength adds one length n's gathered terms, sum and product, to the
// worker's exact sum (flush's step): nothing when there are none (sum 0,
// product 1).
func flushLength(sc *scratch, sum, prod float64, n uint8) {
	if sum == 0 && prod == 1 {
		return
	}
	if x := (sum + math.Log(prod)) / float64(n); !sc.ll.AddSmall(x) {
		sc.ll.addLarge(x)
	}
}

// allLengths is flush's every length, 1 to MaxSERP.
const allLengths = ^uint64(0) >> (64 - MaxSERP)
