package clickmodels

import (
	"context"
)

// PBM and UBM have E-steps that factorise over ranks: the expected counts of
// a rank depend only on its pair p, its examination parameter e and whether
// it was clicked (Chuklin et al. 2015, section 4.2; PyClick's PBM and UBM
// parameter updates):
//
//	clicked:     attr += 1,                     exam += 1
//	not clicked: attr += (1-e)a / (1-ea),       exam += (1-a)e / (1-ea)
//
// and every rank adds 1 to both denominators. So the clicked ranks and all
// denominators are constants, counted once, and the unclicked ranks with the
// same (pair, examination parameter) are merged into one weighted item. Each
// EM iteration then only visits the distinct unclicked items. The result is
// the same as the per-SERP E-step (up to the order of floating-point sums).

// factorized is the per-item form of the training data for PBM and UBM.
type factorized struct {
	itemOff []int  // chunk ci owns items [itemOff[ci], itemOff[ci+1])
	items   []item // in the order of their first rank in the chunk's records

	aNum0, aDen []float64  // per pair: prior + clicked counts; prior + all counts
	gNum0, gDen []ExactSum // per global parameter: clicked counts; all counts (no prior)
}

// item is one (pair, examination parameter) of the unclicked ranks.
type item struct {
	pair, exam int32   // pair; examination parameter index
	w          float64 // number of unclicked ranks merged into the item
}

func newFactorized(ctx context.Context, d *Data, kind Kind, workers int) *factorized {
	R := d.ranks
	ng := kind.globalParams(R)
	np := d.Pairs()
	fz := &factorized{
		aNum0: filled(np, 1), aDen: filled(np, 2),
	}
	nc := len(d.chunks)
	parts := make([][]item, nc)
	f := &fitter{d: d, ng: ng}
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		pt := &parts[ci]
		// Merge items: a dense index over (pair - pairLo, exam) when small,
		// else a map.
		npc := ch.pairHi - ch.pairLo
		var dense []int32
		var sparse map[int64]int32
		if npc*ng <= 1<<22 {
			dense = make([]int32, npc*ng)
			for i := range dense {
				dense[i] = -1
			}
		} else {
			sparse = make(map[int64]int32)
		}
		for i := ch.recLo; i < ch.recHi; i++ {
			w := d.recWeight[i]
			clicks := d.recClicks[i]
			prev := R - 1
			for r, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				ei := r
				if kind == UBM {
					ei = r*R + prev
				}
				fz.aDen[p] += w
				sc.gd[ei] += w
				if clicks&(1<<uint(r)) != 0 {
					fz.aNum0[p] += w
					sc.gn[ei] += w
					prev = r
					continue
				}
				key := int64(int(p)-ch.pairLo)*int64(ng) + int64(ei)
				var it int32
				var ok bool
				if dense != nil {
					it = dense[key]
					ok = it >= 0
				} else {
					it, ok = sparse[key]
				}
				if !ok {
					it = int32(len(*pt))
					*pt = append(*pt, item{pair: p, exam: int32(ei)})
					if dense != nil {
						dense[key] = it
					} else {
						sparse[key] = it
					}
				}
				(*pt)[it].w += w
			}
		}
		// The weights are whole numbers of SERPs, so their float64 sums
		// are exact (below 2^53) in any order; one exact addition per
		// chunk and parameter.
		for j := range sc.gn {
			sc.xNum[j].Add(sc.gn[j])
			sc.xDen[j].Add(sc.gd[j])
			sc.gn[j], sc.gd[j] = 0, 0
		}
	})
	fz.itemOff = make([]int, nc+1)
	for ci := range parts {
		fz.itemOff[ci+1] = fz.itemOff[ci] + len(parts[ci])
	}
	fz.items = make([]item, 0, fz.itemOff[nc])
	for ci := range parts {
		fz.items = append(fz.items, parts[ci]...)
		parts[ci] = nil
	}
	st := NewStats(kind, R)
	f.collect(st)
	fz.gNum0, fz.gDen = st.Num, st.Den
	return fz
}

// iterateFactorized is one EM iteration of PBM or UBM on the merged items.
func (f *fitter) iterateFactorized(ctx context.Context, workers int, st *Stats) {
	fz := f.fz
	d := f.d
	attr, g := f.attr, f.global
	f.parallel(ctx, workers, func(ci int, sc *scratch) {
		ch := d.chunks[ci]
		// The chunk's pair numerators, in the worker's buffer (indexed by
		// pair - pairLo): no numerator array over all pairs is kept.
		if cap(sc.pairBuf) < ch.pairHi-ch.pairLo {
			sc.pairBuf = make([]float64, ch.pairHi-ch.pairLo)
		}
		aNum := sc.pairBuf[:ch.pairHi-ch.pairLo]
		copy(aNum, fz.aNum0[ch.pairLo:ch.pairHi])
		lo0 := int32(ch.pairLo)
		lo, hi := fz.itemOff[ci], fz.itemOff[ci+1]
		estepItems(fz.items[lo:hi], attr, g, aNum, lo0, sc.xNum)
		aDen := fz.aDen[ch.pairLo:ch.pairHi]
		for i, num := range aNum {
			v := num / aDen[i]
			if v > probMax { // math.Min, without its call (no NaN here)
				v = probMax
			}
			attr[ch.pairLo+i] = v
		}
	})
	f.collect(st)
	for j := range fz.gNum0 {
		st.Num[j].Merge(&fz.gNum0[j])
		st.Den[j].Merge(&fz.gDen[j])
	}
}

// estepItems is the E-step of items (one chunk's): it adds their
// attractiveness counts to aNum (indexed by pair - lo0) and their
// examination counts to xNum. Each item's count goes to the exact sum on
// its own, so the sum is the same whatever the items' order or grouping
// (docs/scale.md, "Order-free sums").
func estepItems(items []item, attr, g, aNum []float64, lo0 int32, xNum []ExactSum) {
	xNum = xNum[:len(g)]
	for _, it := range items {
		a, e := attr[it.pair], g[it.exam]
		t := it.w / (1 - e*a)
		aNum[it.pair-lo0] += (1 - e) * a * t
		if x := (1 - a) * e * t; !xNum[it.exam].AddSmall(x) {
			xNum[it.exam].Add(x)
		}
	}
}
