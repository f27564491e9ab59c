package measures

import (
	"fmt"
	"slices"
	"strings"
)

// Ties says how documents with equal scores are ordered when a ranking is
// evaluated. Only TiesDocID and TiesAverage cannot see the
// labels; TiesOptimistic and TiesPessimistic bound the value a ranking with
// ties can get.
type Ties string

// The tie rules.
const (
	// TiesDocID is trec_eval's rule: score descending, then docid
	// descending (byte-wise). The default.
	TiesDocID Ties = "docid"
	// TiesOptimistic puts the higher grade first within a tie (then
	// docid descending): the best value any tie-breaking could give.
	TiesOptimistic Ties = "optimistic"
	// TiesPessimistic puts the lower grade first within a tie (then docid
	// descending): the worst value.
	TiesPessimistic Ties = "pessimistic"
	// TiesAverage is the expected value over all orders of each tie group,
	// every order equally likely, computed exactly (see ExpectedDCG,
	// ExpectedERR, ExpectedAP and AverageTiesSupported).
	TiesAverage Ties = "average"
)

// ParseTies accepts docid (also "" and "trec_eval"), optimistic,
// pessimistic and average.
func ParseTies(s string) (Ties, error) {
	switch t := Ties(strings.ToLower(strings.TrimSpace(s))); t {
	case "", "trec_eval":
		return TiesDocID, nil
	case TiesDocID, TiesOptimistic, TiesPessimistic, TiesAverage:
		return t, nil
	}
	return "", fmt.Errorf("unknown tie rule %q (want docid, optimistic, pessimistic or average)", s)
}

// TieGroups returns the sizes of the runs of equal values in scores, a
// ranked (non-increasing) list: [1 3 1] for scores 5, 4, 4, 4, 2. The sizes
// add up to len(scores).
func TieGroups(scores []float64) []int {
	return appendTieGroups(nil, len(scores), func(i, j int) bool { return scores[i] == scores[j] })
}

// appendTieGroups appends to g the sizes of the runs of n ranked items in
// which same(i, j) holds between each item j and the run's first item i.
func appendTieGroups(g []int, n int, same func(i, j int) bool) []int {
	for i := 0; i < n; {
		j := i + 1
		for j < n && same(i, j) {
			j++
		}
		g = append(g, j-i)
		i = j
	}
	return g
}

// OrderTies reorders, within each tie group (groups as TieGroups returns
// them), the ranked grades and the items of every slice in also, in the same
// way: TiesOptimistic sorts a group by grade descending, TiesPessimistic by
// grade ascending, both stably (so items of equal grade keep their order,
// docid descending when the ranking was made by the docid rule). TiesDocID
// and TiesAverage leave the order as it is.
func OrderTies(grades []float64, groups []int, t Ties, also ...[]int) {
	if t != TiesOptimistic && t != TiesPessimistic {
		return
	}
	s := 0
	idx := []int{}
	for _, m := range groups {
		if m > 1 {
			idx = idx[:0]
			for i := range m {
				idx = append(idx, i)
			}
			g := grades[s : s+m]
			slices.SortStableFunc(idx, func(a, b int) int {
				if t == TiesOptimistic {
					a, b = b, a
				}
				switch {
				case g[a] < g[b]:
					return -1
				case g[a] > g[b]:
					return 1
				}
				return 0
			})
			permute(g, idx)
			for _, x := range also {
				permuteInts(x[s:s+m], idx)
			}
		}
		s += m
	}
}

func permute(x []float64, idx []int) {
	y := slices.Clone(x)
	for i, j := range idx {
		x[i] = y[j]
	}
}

func permuteInts(x []int, idx []int) {
	y := slices.Clone(x)
	for i, j := range idx {
		x[i] = y[j]
	}
}

// groupMeans replaces every value of x by the mean of its tie group: the
// expected value at each position when each group is in random order.
func groupMeans(x []float64, groups []int) []float64 {
	out := make([]float64, len(x))
	s := 0
	for _, m := range groups {
		sum := 0.0
		for _, v := range x[s : s+m] {
			sum += v
		}
		for i := s; i < s+m; i++ {
			out[i] = sum / float64(m)
		}
		s += m
	}
	return out
}

// ExpectedDCG returns the expected DCG@k (RankLib's gain 2^l - 1 and
// discount log2(i+1), k <= 0: the whole list) of the ranked labels when
// every tie group is put in a uniformly random order. DCG is linear in the
// gain at each rank and each item of a group of m is at each of the group's
// ranks with probability 1/m, so the expectation is exact: every rank gets
// its group's mean gain,
//
//	E[DCG@k] = sum_{i<=k} mean_{j in group(i)} (2^{l_j} - 1) / log2(i+1).
func ExpectedDCG(labels []float64, groups []int, k int) float64 {
	gains := make([]float64, len(labels))
	for i, l := range labels {
		gains[i] = expGain(l)
	}
	return GradedDCG(groupMeans(gains, groups), k, log2Discount)
}

// ExpectedNDCG returns ExpectedDCG divided by the ideal DCG@k, which does
// not depend on the order; 0 when the ideal DCG is 0 (as NDCG).
func ExpectedNDCG(labels []float64, groups []int, k int) float64 {
	idcg := DCG(sortedDesc(labels), k)
	if idcg <= 0 {
		return 0
	}
	return ExpectedDCG(labels, groups, k) / idcg
}

// ExpectedERR returns the expected ERR@k (as ERR) of the ranked labels when
// every tie group is in a uniformly random order, exactly. The product of
// (1 - R) over a whole earlier group does not depend on its order; within a
// group G of m items starting at rank s+1, the item at its position j
// (0-based) adds (1/(s+j+1)) E[R_{pi(j)} prod_{t<j} (1 - R_{pi(t)})], and
// for a random order pi
//
//	E[R_{pi(j)} prod_{t<j} (1 - R_{pi(t)})] = (1/m) sum_{x in G} R_x a_j(G \ {x})
//
// where a_j(S) is the mean of prod (1 - R) over the j-subsets of S (the j
// items before x form a uniformly random j-subset of the others).
// a_j is computed by adding one item y at a time to a set of n items:
// a_j <- ((n+1-j)/(n+1)) a_j + (j/(n+1)) (1-R_y) a_{j-1}, from
// e_j(S+y) = e_j(S) + (1-R_y) e_{j-1}(S) for the elementary symmetric
// polynomials e_j = C(n, j) a_j. Items of equal grade share a_j, so the cost
// is O(distinct grades x m x min(m, k)) per group.
func ExpectedERR(labels []float64, groups []int, k int) float64 {
	stops := make([]float64, len(labels))
	for i, l := range labels {
		stops[i] = errStop(l)
	}
	return expectedERR(stops, groups, cutoff(k, len(labels)))
}

func expectedERR(stops []float64, groups []int, n int) float64 {
	sum, survive := 0.0, 1.0
	s := 0
	for _, m := range groups {
		if s >= n {
			break
		}
		g := stops[s : s+m]
		J := min(m, n-s) // positions of the group within the cutoff
		if m == 1 {
			sum += survive * g[0] / float64(s+1)
		} else {
			done := map[float64]bool{}
			a := make([]float64, J)
			for xi, x := range g {
				if done[x] || x == 0 {
					continue
				}
				done[x] = true
				c := 0
				for _, y := range g {
					if y == x {
						c++
					}
				}
				// a_j(G \ {one item of stop probability x}), j < J.
				clear(a)
				a[0] = 1
				size := 0
				for yi, y := range g {
					if yi == xi {
						continue
					}
					for j := min(J-1, size+1); j >= 1; j-- {
						a[j] = float64(size+1-j)/float64(size+1)*a[j] + float64(j)/float64(size+1)*(1-y)*a[j-1]
					}
					size++
				}
				for j := range J {
					sum += survive * float64(c) / float64(m) * x * a[j] / float64(s+j+1)
				}
			}
		}
		for _, x := range g {
			survive *= 1 - x
		}
		s += m
	}
	return sum
}

// ExpectedAP returns the expected AP (as AP: normalised by the relevant
// items of the list) when every tie group is in a uniformly random order,
// exactly: see expectedAPSum.
func ExpectedAP(labels []float64, groups []int, relevantFrom float64) float64 {
	rel := make([]bool, len(labels))
	nrel := 0
	for i, l := range labels {
		rel[i] = l >= relevantFrom
		if rel[i] {
			nrel++
		}
	}
	if nrel == 0 {
		return 0
	}
	return expectedAPSum(rel, groups, len(labels)) / float64(nrel)
}

// expectedAPSum returns E[sum over relevant ranks i <= n of (#relevant in
// ranks 1..i) / i] with every tie group in random order. For a group of m
// items with g relevant, c relevant items before it and its position j
// (0-based, rank s+j+1): the item there is relevant with probability g/m,
// and given that, the j items before it in the group hold on average
// j(g-1)/(m-1) relevant ones (hypergeometric), so the position adds
//
//	(g/m) (c + 1 + j(g-1)/(m-1)) / (s+j+1).
func expectedAPSum(rel []bool, groups []int, n int) float64 {
	sum := 0.0
	s, c := 0, 0
	for _, m := range groups {
		if s >= n {
			break
		}
		g := countTrue(rel[s : s+m])
		if g > 0 {
			for j := 0; j < m && s+j < n; j++ {
				before := 0.0
				if m > 1 {
					before = float64(j) * float64(g-1) / float64(m-1)
				}
				sum += float64(g) / float64(m) * (float64(c) + 1 + before) / float64(s+j+1)
			}
		}
		c += g
		s += m
	}
	return sum
}

// expectedHit returns the probability that a relevant item is in the first
// n ranks with every tie group in random order: 1 if a group entirely
// within the cutoff holds one; for the group cut by the cutoff (m items, g
// relevant, t of its ranks within the cutoff), 1 - C(m-g, t)/C(m, t).
func expectedHit(rel []bool, groups []int, n int) float64 {
	s, m, g, ok := firstRelevantGroup(rel, groups, n)
	if !ok {
		return 0
	}
	t := min(m, n-s)
	none := 1.0
	for i := range t {
		none *= float64(m-g-i) / float64(m-i)
	}
	return 1 - max(none, 0)
}

// firstRelevantGroup returns the first tie group that starts within the
// first n ranks and holds a relevant item: its start s (0-based), its size
// m and its number of relevant items g; ok is false when there is none.
func firstRelevantGroup(rel []bool, groups []int, n int) (s, m, g int, ok bool) {
	for _, m := range groups {
		if s >= n {
			break
		}
		g := countTrue(rel[s : s+m])
		if g > 0 {
			return s, m, g, true
		}
		s += m
	}
	return 0, 0, 0, false
}

// expectedRR returns the expected reciprocal rank of the first relevant
// item within the first n ranks (0 if none) with every tie group in random
// order. The first relevant item is in the first group holding one (m
// items, g relevant, starting at rank s+1); it is at the group's position j
// with probability prod_{i<j} ((m-g-i)/(m-i)) x g/(m-j).
func expectedRR(rel []bool, groups []int, n int) float64 {
	s, m, g, ok := firstRelevantGroup(rel, groups, n)
	if !ok {
		return 0
	}
	sum, none := 0.0, 1.0
	for j := 0; j < m && s+j < n && none > 0; j++ {
		sum += none * float64(g) / float64(m-j) / float64(s+j+1)
		none *= float64(m-g-j) / float64(m-j)
	}
	return sum
}

// countTrue returns the number of true values in b.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
