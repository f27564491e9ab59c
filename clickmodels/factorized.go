package clickmodels

import (
	"context"
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// PBM and UBM have E-steps that factorise over ranks: the expected counts of
// a rank depend only on its pair p, its examination parameter e and whether
// it was clicked (Chuklin et al. 2015, section 4.2; PyClick's PBM and UBM
// parameter updates), and so does PSCM's over its (step, rank)
// observations (pscm.go):
//
//	clicked:     attr += 1,                     exam += 1
//	not clicked: attr += (1-e)a / (1-ea),       exam += (1-a)e / (1-ea)
//
// and every rank adds 1 to both denominators. So the clicked ranks and all
// denominators are constants, counted once, and the unclicked ranks with the
// same (pair, examination parameter) are merged into one weighted item. Each
// EM iteration then only visits the distinct unclicked items. The result is
// the same as the per-SERP E-step (up to the order of floating-point sums).

// factorized is the per-item form of the training data for PBM, UBM and
// PSCM.
type factorized struct {
	itemOff []int  // chunk ci owns items [itemOff[ci], itemOff[ci+1])
	items   []item // in the order of their first rank in the chunk's records

	aNum0, aDen []float64  // per pair: prior + clicked counts; prior + all counts
	gNum0, gDen []ExactSum // per global parameter: clicked counts; all counts (no prior)
}

// item is one (pair, examination parameter) of the unclicked ranks.
type item struct {
	pair, exam int32   // pair - the chunk's first pair; examination parameter index
	w          float64 // number of unclicked ranks merged into the item
}

func newFactorized(ctx context.Context, d *Data, kind Kind, workers int) *factorized {
	R := d.ranks
	ng := kind.GlobalParams(R)
	np := d.Pairs()
	fz := &factorized{
		aNum0: filled(np, 1), aDen: filled(np, 2),
	}
	nc := len(d.chunks)
	parts := make([][]item, nc)
	f := &fitter{d: d, ng: ng}
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		items := sc.items[:0]
		// Merge items query by query (a query's records and pairs are
		// contiguous): a dense index over (pair - the query's first pair,
		// exam), reused and reset after each query, or a map for a query
		// with very many pairs.
		for i := ch.recLo; i < ch.recHi; {
			first := d.recPair[d.recOff[i]] // the query's first pair
			q := d.pairQuery[first]
			index := newQueryIndex(&sc.index, d.queryPairs(ch, first)*ng)
			qItems := len(items)
			// observe counts one observation of pair p under examination
			// parameter ei, clicked or not, of weight w.
			observe := func(p int32, ei int, clicked bool, w float64) {
				fz.aDen[p] += w
				sc.gd[ei] += w
				if clicked {
					fz.aNum0[p] += w
					sc.gn[ei] += w
					return
				}
				key := int(p-first)*ng + ei
				it := index.get(key)
				if it < 0 {
					it = int32(len(items))
					items = append(items, item{pair: p - int32(ch.pairLo), exam: int32(ei)})
					index.set(key, it)
				}
				items[it].w += w
			}
			for ; i < ch.recHi && d.pairQuery[d.recPair[d.recOff[i]]] == q; i++ {
				clicks := d.recClicks[i]
				pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
				if kind == PSCM {
					// Every (step, rank) of every click order (pscm.go).
					var obuf [MaxSERP]uint8
					d.eachOrder(i, func(order []uint8, w float64) {
						if order == nil {
							order = sessions.RankOrder(obuf[:0], clicks)
						}
						pscmSteps(order, len(pairs), R, pscmModel, func(r, ei int, clicked bool) {
							observe(pairs[r], ei, clicked, w)
						})
					})
					continue
				}
				w := d.recWeight[i]
				examParams(kind, R, pairs, clicks, func(p int32, ei int, clicked bool) { observe(p, ei, clicked, w) })
			}
			for _, it := range items[qItems:] {
				index.clear(int(it.pair+int32(ch.pairLo)-first)*ng + int(it.exam))
			}
		}
		parts[ci] = slices.Clone(items)
		sc.items = items[:0]
		// The weights are whole numbers of SERPs, so their float64 sums
		// are exact (below 2^53) in any order; one exact addition per
		// chunk and parameter.
		for j := range sc.gn {
			sc.xNum[j].Add(sc.gn[j])
			sc.xDen[j].Add(sc.gd[j])
			sc.gn[j], sc.gd[j] = 0, 0
		}
	})
	fz.itemOff, fz.items = concatParts(parts)
	st := NewStats(kind, R)
	f.collect(st)
	fz.gNum0, fz.gDen = st.Num, st.Den
	return fz
}

// iterateFactorized is one EM iteration of PBM, UBM or PSCM on the merged
// items.
func (f *fitter) iterateFactorized(ctx context.Context, workers int, st *Stats) {
	fz := f.fz
	d := f.d
	attr, g := f.attr, f.global
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		aNum := f.chunkNumerators(ch, sc)
		lo, hi := fz.itemOff[ci], fz.itemOff[ci+1]
		estepItems(fz.items[lo:hi], attr[ch.pairLo:ch.pairHi], g, aNum, sc.xNum)
		f.pairMStep(ch, aNum)
	})
	f.collect(st)
	f.addClickedCounts(st)
}

// chunkNumerators returns chunk ch's pair numerators before the E-step
// (the prior and the clicked counts), in the worker's buffer (indexed by
// pair - pairLo): no numerator array over all pairs is kept.
func (f *fitter) chunkNumerators(ch chunk, sc *scratch) []float64 {
	if cap(sc.pairBuf) < ch.pairHi-ch.pairLo {
		sc.pairBuf = make([]float64, ch.pairHi-ch.pairLo)
	}
	aNum := sc.pairBuf[:ch.pairHi-ch.pairLo]
	copy(aNum, f.fz.aNum0[ch.pairLo:ch.pairHi])
	return aNum
}

// pairMStep is the factorised E-step's pair M-step for chunk ch from its
// numerators aNum (chunkNumerators plus the items' counts).
func (f *fitter) pairMStep(ch chunk, aNum []float64) {
	aDen := f.fz.aDen[ch.pairLo:ch.pairHi]
	attrC := f.attr[ch.pairLo:ch.pairHi]
	f.keep(ch)
	for i, num := range aNum {
		v := num / aDen[i]
		if v > probMax { // math.Min, without its call (no NaN here)
			v = probMax
		}
		attrC[i] = v
	}
}

// addClickedCounts adds the global counts that do not change between
// iterations (the clicked ranks' numerators, every rank's denominators)
// to st, after the items' E-step.
func (f *fitter) addClickedCounts(st *Stats) {
	fz := f.fz
	for j := range fz.gNum0 {
		st.Num[j].Merge(&fz.gNum0[j])
		st.Den[j].Merge(&fz.gDen[j])
	}
}

// estepItems is the E-step of items (one chunk's): it adds their
// attractiveness counts to aNum and their examination counts to xNum; attr
// and aNum are indexed as item.pair, from the chunk's first pair. Each
// item's count goes to the exact sum on its own, so the sum is the same
// whatever the items' order or grouping (docs/scale.md, "Order-free sums").
func estepItems(items []item, attr, g, aNum []float64, xNum []ExactSum) {
	aNum, xNum = aNum[:len(attr)], xNum[:len(g)]
	for _, it := range items {
		a, e := attr[it.pair], g[it.exam]
		an, x := itemCounts(a, e, 1-e*a, it.w)
		aNum[it.pair] += an
		if smallCount(x) {
			xNum[it.exam].addSmallCount(x)
		} else {
			xNum[it.exam].addLarge(x)
		}
	}
}

// itemCounts is an unclicked item's expected counts, w times
// P(A=1 | C=0) = (1-e)a / (1-ea) for the attractiveness and
// P(E=1 | C=0) = (1-a)e / (1-ea) for the examination, with q = 1 - ea
// (see above).
func itemCounts(a, e, q, w float64) (attr, exam float64) {
	t := w / q
	return (1 - e) * a * t, (1 - a) * e * t
}

// examParams calls fn with every rank of a PBM or UBM SERP showing pairs
// with the click mask clicks: the rank's pair, its examination parameter
// (PBM: the rank; UBM: the rank and the previous click's rank, R-1 before
// the first click; the models' definitions in Chuklin et al. 2015) and whether
// it was clicked.
func examParams(kind Kind, R int, pairs []int32, clicks uint64, fn func(p int32, ei int, clicked bool)) {
	prev := R - 1
	for r, p := range pairs {
		ei := r
		if kind == UBM {
			ei = r*R + prev
		}
		clicked := clicks&(1<<uint(r)) != 0
		fn(p, ei, clicked)
		if clicked {
			prev = r
		}
	}
}

// concatParts returns the chunks' parts end to end, chunk ci's at
// all[off[ci]:off[ci+1]], releasing each part as it is copied.
func concatParts[T any](parts [][]T) (off []int, all []T) {
	off = make([]int, len(parts)+1)
	for ci := range parts {
		off[ci+1] = off[ci] + len(parts[ci])
	}
	all = make([]T, 0, off[len(parts)])
	for ci := range parts {
		all = append(all, parts[ci]...)
		parts[ci] = nil
	}
	return off, all
}

// queryPairs is the number of pairs of the query whose first pair is
// first, in chunk ch (a query's pairs are contiguous).
func (d *Data) queryPairs(ch chunk, first int32) int {
	q := d.pairQuery[first]
	n := 1
	for int(first)+n < ch.pairHi && d.pairQuery[int(first)+n] == q {
		n++
	}
	return n
}

// queryIndex maps keys in [0, keys) of one query's items to the items'
// indices (-1: none): dense, in a worker's buffer that is all -1 between
// queries (the caller clears the keys it set), unless the query has so
// many keys that a map is smaller. newFactorized and newItemLL merge a
// query's ranks through it.
type queryIndex struct {
	dense  []int32
	sparse map[int]int32
}

// newQueryIndex returns the index of a query of keys keys, dense in *buf
// (grown as needed) up to 1<<22 keys.
func newQueryIndex(buf *[]int32, keys int) queryIndex {
	if keys > 1<<22 {
		return queryIndex{sparse: make(map[int]int32)}
	}
	if len(*buf) < keys {
		*buf = filledInt32(keys, -1)
	}
	return queryIndex{dense: *buf}
}

// get returns the item of key, -1 if none.
func (x queryIndex) get(key int) int32 {
	if x.dense != nil {
		return x.dense[key]
	}
	if it, ok := x.sparse[key]; ok {
		return it
	}
	return -1
}

// set makes it the item of key.
func (x queryIndex) set(key int, it int32) {
	if x.dense != nil {
		x.dense[key] = it
	} else {
		x.sparse[key] = it
	}
}

// clear removes key, leaving the dense buffer all -1 for the next query.
func (x queryIndex) clear(key int) {
	if x.dense != nil {
		x.dense[key] = -1
	}
}

// filledInt32 returns a slice of n copies of v.
func filledInt32(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}
