package measures

import "math"

// This file holds the four measures the ranker package optimises and
// reports, over one query's labels in ranked order. The ideal ordering is
// the same labels sorted in decreasing order (RankLib's convention: the
// ideal is computed from the list itself, not from external qrels).

// expGain is the RankLib gain 2^g - 1 (Burges et al.; RankLib DCGScorer).
func expGain(g float64) float64 { return math.Exp2(g) - 1 }

// log2Discount is the RankLib discount log2(i+1) for the 1-based rank i.
func log2Discount(i int) float64 { return math.Log2(float64(i) + 1) }

// cutoff returns the number of ranks a measure at cutoff k looks at for a
// list of n items: k <= 0 or k > n means the whole list.
func cutoff(k, n int) int {
	if k <= 0 || k > n {
		return n
	}
	return k
}

// DCG returns the discounted cumulated gain at cutoff k (k <= 0: the whole
// list) with RankLib's gain 2^g - 1 and discount log2(i+1):
//
//	DCG@k = sum_{i=1..k} (2^{l_i} - 1) / log2(i+1)
func DCG(labels []float64, k int) float64 {
	n := cutoff(k, len(labels))
	s := 0.0
	for i := 0; i < n; i++ {
		s += expGain(labels[i]) / log2Discount(i+1)
	}
	return s
}

// NDCG returns DCG@k divided by the DCG@k of the ideal ordering (the labels
// sorted in decreasing order). A list whose ideal DCG is 0 (no label above
// 0, or an empty list) scores 0, as RankLib's NDCGScorer does.
func NDCG(labels []float64, k int) float64 {
	n := cutoff(k, len(labels))
	ideal := sortedDesc(labels)
	idcg := 0.0
	for i := 0; i < n; i++ {
		idcg += expGain(ideal[i]) / log2Discount(i+1)
	}
	if idcg <= 0 {
		return 0
	}
	return DCG(labels, k) / idcg
}

// ERRMaxGrade is the highest grade ERR assumes, as in RankLib's ERRScorer
// (grades 0..4, so the stop probability of grade g is (2^g - 1) / 16).
const ERRMaxGrade = 4

// ERR returns the expected reciprocal rank at cutoff k (k <= 0: the whole
// list) of Chapelle et al. (2009), as RankLib computes it:
//
//	R(g)  = (2^g - 1) / 2^4
//	ERR@k = sum_{r=1..k} (1/r) R(l_r) prod_{i<r} (1 - R(l_i))
//
// Grades above ERRMaxGrade are treated as ERRMaxGrade (R = 15/16), so the
// stop probability stays in [0, 1]; RankLib leaves them unclamped.
func ERR(labels []float64, k int) float64 {
	n := cutoff(k, len(labels))
	s, p := 0.0, 1.0
	for r := 1; r <= n; r++ {
		R := errStop(labels[r-1])
		s += p * R / float64(r)
		p *= 1 - R
	}
	return s
}

// errStop is the ERR stop probability (2^g - 1) / 16 of grade g, clamped to
// grades in [0, ERRMaxGrade].
func errStop(g float64) float64 {
	g = math.Max(0, math.Min(g, ERRMaxGrade))
	return expGain(g) / math.Exp2(ERRMaxGrade)
}

// AP returns the average precision of the list with an item relevant when
// its label is >= relevantFrom:
//
//	AP = (1/|R|) sum_{i relevant} (#relevant in ranks 1..i) / i
//
// with |R| the number of relevant items in the list (RankLib's APScorer
// without external qrels). A list without a relevant item scores 0.
func AP(labels []float64, relevantFrom float64) float64 {
	hits, s := 0, 0.0
	for i, l := range labels {
		if l >= relevantFrom {
			hits++
			s += float64(hits) / float64(i+1)
		}
	}
	if hits == 0 {
		return 0
	}
	return s / float64(hits)
}
