package clickmodels

import (
	"context"
	"math"
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
	itemOff  []int     // chunk ci owns items [itemOff[ci], itemOff[ci+1])
	itemPair []int32   // pair of the item
	itemExam []int32   // examination parameter index of the item
	itemW    []float64 // number of unclicked ranks merged into the item

	aNum0, aDen []float64  // per pair: prior + clicked counts; prior + all counts
	gNum0, gDen []ExactSum // per global parameter: clicked counts; all counts (no prior)
}

func newFactorized(ctx context.Context, d *Data, kind Kind, workers int) *factorized {
	R := d.ranks
	ng := kind.globalParams(R)
	np := d.Pairs()
	fz := &factorized{
		aNum0: filled(np, 1), aDen: filled(np, 2),
	}
	nc := len(d.chunks)
	type part struct {
		pair, exam []int32
		w          []float64
	}
	parts := make([]part, nc)
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
				sc.xDen[ei].Add(w)
				if clicks&(1<<uint(r)) != 0 {
					fz.aNum0[p] += w
					sc.xNum[ei].Add(w)
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
					it = int32(len(pt.pair))
					pt.pair = append(pt.pair, p)
					pt.exam = append(pt.exam, int32(ei))
					pt.w = append(pt.w, 0)
					if dense != nil {
						dense[key] = it
					} else {
						sparse[key] = it
					}
				}
				pt.w[it] += w
			}
		}
	})
	fz.itemOff = make([]int, nc+1)
	for ci := range parts {
		fz.itemOff[ci+1] = fz.itemOff[ci] + len(parts[ci].pair)
	}
	total := fz.itemOff[nc]
	fz.itemPair = make([]int32, 0, total)
	fz.itemExam = make([]int32, 0, total)
	fz.itemW = make([]float64, 0, total)
	for ci := range parts {
		pt := &parts[ci]
		fz.itemPair = append(fz.itemPair, pt.pair...)
		fz.itemExam = append(fz.itemExam, pt.exam...)
		fz.itemW = append(fz.itemW, pt.w...)
		parts[ci] = part{}
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
		pairs, exams, ws := fz.itemPair[lo:hi], fz.itemExam[lo:hi], fz.itemW[lo:hi]
		qs := &sc.qs
		for j, p := range pairs {
			ei := exams[j]
			a, e := attr[p], g[ei]
			t := ws[j] / (1 - e*a)
			aNum[p-lo0] += (1 - e) * a * t
			// A query's items are contiguous and in the same order in
			// every layout (they follow its records), so its partial sums
			// are layout-free (querySums).
			qs.next(d.pairQuery[p], sc)
			qs.addNum(int(ei), (1-a)*e*t)
		}
		qs.flush(sc)
		for p := ch.pairLo; p < ch.pairHi; p++ {
			attr[p] = math.Min(aNum[p-ch.pairLo]/fz.aDen[p], probMax)
		}
	})
	f.collect(st)
	for j := range fz.gNum0 {
		st.Num[j].Merge(&fz.gNum0[j])
		st.Den[j].Merge(&fz.gDen[j])
	}
}
