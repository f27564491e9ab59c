package measures

import "sort"

// The measures of this file take the gains of the retrieved items in ranked
// order (the list L, already cut at the cutoff) and the ideal gains: the
// gains of all judged items of the query in decreasing order (Definition 3
// of Küster and König-Ries (2010)). The ideal ranking is padded
// with zero gains when L is longer than it. |R| is the number of ideal gains
// above zero and isrel(i) = 1 iff the gain at rank i is above zero
// (Definition 2). A query without a relevant item (|R| = 0) scores 0 on
// every measure here, as NDCG does in RankLib and trec_eval.

// at returns x[i] or, past the end, 0 (the zero-gain padding).
func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}

// numRelevant returns |R|, the number of positive ideal gains.
func numRelevant(ideal []float64) int {
	n := 0
	for _, g := range ideal {
		if g > 0 {
			n++
		}
	}
	return n
}

// GradedDCG returns DCG at cutoff k (k <= 0: the whole list) with the given
// discount: DCG(k) = sum_{i=1..k} g(r_i)/disc(i) (section 3.1).
func GradedDCG(gains []float64, k int, disc DiscountFunc) float64 {
	n := cutoff(k, len(gains))
	s := 0.0
	for i := 0; i < n; i++ {
		s += gains[i] / disc(i+1)
	}
	return s
}

// GradedNDCG returns NDCG_l = DCG(l)/IDCG(l) (section 3.1) at the cutoff k:
// k <= 0 means l = |L| for the run and the whole ideal ranking for the
// ideal, as trec_eval's ndcg does. With k > |L| the run's missing ranks add
// no gain while the ideal is still taken to rank k (trec_eval's ndcg_cut).
func GradedNDCG(gains, ideal []float64, k int, disc DiscountFunc) float64 {
	var dcg, idcg float64
	if k <= 0 {
		dcg = GradedDCG(gains, 0, disc)
		idcg = GradedDCG(ideal, 0, disc)
	} else {
		dcg = GradedDCG(gains, k, disc)
		idcg = GradedDCG(ideal, k, disc)
	}
	if idcg <= 0 {
		return 0
	}
	return dcg / idcg
}

// awdp computes (1/|R|) sum_{i<=|L|} w(i) DCG(i)/IDCG(i) where w(i) is
// isrel(i) when relOnly (AWP, AWDP) and 1 otherwise (ANCG, ANDCG), and the
// normaliser is |R| for relOnly and |L| otherwise.
func awdp(gains, ideal []float64, disc DiscountFunc, relOnly bool) float64 {
	R := numRelevant(ideal)
	if R == 0 || len(gains) == 0 {
		return 0
	}
	var dcg, idcg, s float64
	for i, g := range gains {
		d := disc(i + 1)
		dcg += g / d
		idcg += at(ideal, i) / d
		if relOnly && !(g > 0) {
			continue
		}
		s += dcg / idcg
	}
	if relOnly {
		return s / float64(R)
	}
	return s / float64(len(gains))
}

// AWP returns the Average Weighted Precision (section 3.1):
//
//	AWP = (1/|R|) sum_{i=1..|L|} isrel(i) CG(i)/ICG(i)
func AWP(gains, ideal []float64) float64 { return awdp(gains, ideal, NoDiscount, true) }

// AWDP returns the Average Weighted Discounted Precision (section 3.1):
//
//	AWDP = (1/|R|) sum_{i=1..|L|} isrel(i) DCG(i)/IDCG(i)
func AWDP(gains, ideal []float64, disc DiscountFunc) float64 {
	return awdp(gains, ideal, disc, true)
}

// ANCG returns the Averaged Normalized Cumulated Gain, the corrected AWP of
// section 3.3, averaged over all |L| ranks (the area under the NCG chart):
//
//	ANCG = (1/|L|) sum_{i=1..|L|} CG(i)/ICG(i)
//
// The paper's formula prints 1/|R|, but only 1/|L| gives an ideal ranking
// the score 1 and reproduces Table 2 (R2: (8 + 13/16)/9 = 0.98).
func ANCG(gains, ideal []float64) float64 { return awdp(gains, ideal, NoDiscount, false) }

// ANDCG returns the Averaged Normalized Discounted Cumulated Gain, the
// corrected AWDP of section 3.3: (1/|L|) sum_{i=1..|L|} DCG(i)/IDCG(i).
func ANDCG(gains, ideal []float64, disc DiscountFunc) float64 {
	return awdp(gains, ideal, disc, false)
}

// QMeasure returns Sakai's Q-measure with parameter beta (section 3.1):
//
//	Q = (1/|R|) sum_{i=1..|L|} isrel(i) (beta CG(i) + count(i)) / (beta ICG(i) + i)
//
// with count(i) the number of relevant items in ranks 1..i. beta = 0 gives
// binary AveP.
func QMeasure(gains, ideal []float64, beta float64) float64 {
	R := numRelevant(ideal)
	if R == 0 {
		return 0
	}
	var cg, icg, s float64
	count := 0
	for i, g := range gains {
		cg += g
		icg += at(ideal, i)
		if g > 0 {
			count++
			s += (beta*cg + float64(count)) / (beta*icg + float64(i+1))
		}
	}
	return s / float64(R)
}

// GenAveP returns Kishida's generalised average precision (section 3.1):
//
//	GenAveP = sum_{i=1..|L|} isrel(i) CG(i)/i / sum_{i=1..|R|} ICG(i)/i
func GenAveP(gains, ideal []float64) float64 {
	R := numRelevant(ideal)
	if R == 0 {
		return 0
	}
	var cg, num, icg, den float64
	for i, g := range gains {
		cg += g
		if g > 0 {
			num += cg / float64(i+1)
		}
	}
	for i := 0; i < R; i++ {
		icg += ideal[i]
		den += icg / float64(i+1)
	}
	return num / den
}

// GenAvePPrime returns GenAveP', the corrected GenAveP of section 3.3 that
// averages over all ranks:
//
//	GenAveP' = sum_{i=1..|L|} CG(i)/i / sum_{i=1..|L|} ICG(i)/i
//
// The paper's formula prints the upper bound |R| in the denominator, but
// only |L| gives an ideal ranking the score 1 and reproduces Table 2.
func GenAvePPrime(gains, ideal []float64) float64 {
	if numRelevant(ideal) == 0 || len(gains) == 0 {
		return 0
	}
	var cg, icg, num, den float64
	for i, g := range gains {
		cg += g
		icg += at(ideal, i)
		num += cg / float64(i+1)
		den += icg / float64(i+1)
	}
	return num / den
}

// TauPrime returns Kendall's tau between the ranking and the ideal ranking,
// normalised to [0, 1] (section 3.1): tau' = (tau + 1)/2.
//
// The ranking is the retrieved list followed by the relevant items it
// missed (in decreasing order of gain), so that a missed relevant item
// counts as ranked below everything retrieved. Items of equal gain are tied
// in the ideal ranking and a pair of them counts as concordant, so with n
// items and D discordant pairs (i < j and g(r_i) < g(r_j)):
//
//	tau = 1 - 2D / (n(n-1)/2),   tau' = 1 - D / (n(n-1)/2)
//
// which reproduces Table 1 (R4: D = 3 of 36 pairs, tau' = 0.92). A ranking
// of fewer than two items has tau' = 1 when it holds a relevant item.
func TauPrime(gains, ideal []float64) float64 {
	if numRelevant(ideal) == 0 {
		return 0
	}
	full := append(append([]float64(nil), gains...), missedRelevant(gains, ideal)...)
	n := len(full)
	if n < 2 {
		return 1
	}
	D := discordant(full)
	pairs := float64(n) * float64(n-1) / 2
	return 1 - float64(D)/pairs
}

// missedRelevant returns the positive ideal gains that the retrieved gains
// do not account for (multiset difference), in decreasing order.
func missedRelevant(gains, ideal []float64) []float64 {
	seen := map[float64]int{}
	for _, g := range gains {
		if g > 0 {
			seen[g]++
		}
	}
	var out []float64
	for _, g := range ideal {
		if !(g > 0) {
			continue
		}
		if seen[g] > 0 {
			seen[g]--
			continue
		}
		out = append(out, g)
	}
	return out
}

// discordant counts the pairs i < j with x[i] < x[j] in O(n log n) with a
// Fenwick tree over the distinct values.
func discordant(x []float64) int64 {
	vals := append([]float64(nil), x...)
	sort.Float64s(vals)
	uniq := vals[:0]
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			uniq = append(uniq, v)
		}
	}
	tree := make([]int64, len(uniq)+1)
	var d int64
	for _, v := range x {
		r := sort.SearchFloat64s(uniq, v) + 1 // 1-based rank of v
		// Earlier items with a smaller value form a discordant pair with v:
		// they are ranked above v but have a lower gain.
		for i := r - 1; i > 0; i -= i & -i {
			d += tree[i]
		}
		for i := r; i < len(tree); i += i & -i {
			tree[i]++
		}
	}
	return d
}
