package labels

import (
	"cmp"
	"math"
	"slices"
)

// ShareTolerance is the agreeing mode's bound on the label shares
// (Selection.KeepAgreeing): the largest absolute difference between a
// label's share of the kept rows and its share of the input rows
// (ShareDeviation) that a query may bring the kept set to.
const ShareTolerance = 0.01

// ShareDeviation is the largest absolute difference, over labels, between
// the share of after[i] in after's total and that of before[i] in
// before's; a total of 0 makes every share 0. The two are counts of the
// same labels in the same order. It is the agreeing mode's share
// deviation (docs/dataset.md, "Whole queries that keep the label
// shares"), the L-infinity distance of the two label distributions.
func ShareDeviation(before, after []int) float64 {
	tb, ta := 0, 0
	for i := range before {
		tb, ta = tb+before[i], ta+after[i]
	}
	share := func(n, total int) float64 {
		if total == 0 {
			return 0
		}
		return float64(n) / float64(total)
	}
	d := 0.0
	for i := range before {
		d = max(d, math.Abs(share(after[i], ta)-share(before[i], tb)))
	}
	return d
}

// Eligible reports whether the agreeing mode can keep query q: it has an
// expected agreement (in QueryAgreement, not NaN).
func (s Selection) Eligible(q string) bool {
	a, ok := s.QueryAgreement[q]
	return ok && !math.IsNaN(a)
}

// agreeing is Select's agreeing mode (Selection.KeepAgreeing): it keeps
// whole queries, the most agreeing ones whose rows keep the label shares
// within ShareTolerance of the input's (see Selection), and marks the
// rows of the others QueryNotChosen.
func (s Selection) agreeing(n int, row func(i int) Candidate, out []Verdict) {
	input, per := labelCounts(n, row, s.Eligible)
	order := make([]string, 0, len(per))
	for q := range per {
		order = append(order, q)
	}
	sortOrder(order, s.QueryAgreement)
	kept := map[string]bool{}
	for _, q := range chooseAgreeing(order, per, input, s.QueryAgreement, KeepCount(s.KeepAgreeing, len(order))) {
		kept[q] = true
	}
	for i := range n {
		if !kept[row(i).Query] {
			out[i] = QueryNotChosen
		}
	}
}

// sortOrder sorts queries by agreement in ag, highest first, ties by
// query in byte order.
func sortOrder(queries []string, ag map[string]float64) {
	slices.SortFunc(queries, func(a, b string) int {
		return cmp.Or(cmp.Compare(ag[b], ag[a]), cmp.Compare(a, b))
	})
}

// MaxAgreeingSwapPairs bounds the pairs of a kept and another query that
// the agreeing mode's swaps look at, in all: a swap looks at every such
// pair, so on a large input the adds leave far from ShareTolerance the
// swaps would take hours. Past the bound the fast swaps
// (agreeingChoice.fastSwap) go on, each among fastSwapCandidates queries
// of each side.
const MaxAgreeingSwapPairs = 1 << 26

// labelCounts are the label counts, in AllLabels' order, of the n rows
// (input) and of each query that eligible accepts (per).
func labelCounts(n int, row func(i int) Candidate, eligible func(q string) bool) (input []int, per map[string][]int) {
	at := map[int]int{}
	for i, l := range AllLabels() {
		at[l] = i
	}
	input, per = make([]int, len(at)), map[string][]int{}
	for i := range n {
		r := row(i)
		input[at[r.Label]]++
		if eligible(r.Query) {
			if per[r.Query] == nil {
				per[r.Query] = make([]int, len(at))
			}
			per[r.Query][at[r.Label]]++
		}
	}
	return input, per
}

// chooseAgreeing is the agreeing mode's choice (see Selection): order
// lists the eligible queries, most agreeing first, per their label
// counts, input the input's and ag their agreements. It adds queries
// (agreeingChoice.add) while fewer than target are kept, swaps one
// (agreeingChoice.swap, or fastSwap once MaxAgreeingSwapPairs is spent)
// while the deviation is above ShareTolerance, and stops when neither
// can. Every step
// adds a query (at most target of them), or lowers the deviation at the
// same number kept, so it ends. It returns the kept queries.
func chooseAgreeing(order []string, per map[string][]int, input []int, ag map[string]float64, target int) []string {
	c := newAgreeingChoice(order, per, input, ag)
	for (c.n < target && c.add()) || (c.dev > ShareTolerance && (c.swap() || c.fastSwap())) {
	}
	var out []string
	for i, k := range c.kept {
		if k {
			out = append(out, order[i])
		}
	}
	return out
}

// newAgreeingChoice is chooseAgreeing's state before its first step.
func newAgreeingChoice(order []string, per map[string][]int, input []int, ag map[string]float64) *agreeingChoice {
	c := &agreeingChoice{input: input, kept: make([]bool, len(order)), counts: make([]int, len(input)),
		with: make([]int, len(input)), dev: math.Inf(1), swapPairs: MaxAgreeingSwapPairs}
	for _, q := range order {
		c.per, c.ag = append(c.per, per[q]), append(c.ag, ag[q])
	}
	return c
}

// agreeingChoice is the state of chooseAgreeing over the eligible
// queries in order: their label counts and agreements, which are kept
// (n of them), the kept rows' label counts and share deviation (infinite
// while none is kept), with, the counts of a candidate step, and the
// swap pairs left to look at.
type agreeingChoice struct {
	per          [][]int
	ag           []float64
	input        []int
	kept         []bool
	n            int
	counts, with []int
	dev          float64
	swapPairs    int
}

// deviation is the share deviation of the kept rows with query in added
// and out taken away (either -1: none); their label counts are left in
// with.
func (c *agreeingChoice) deviation(in, out int) float64 {
	copy(c.with, c.counts)
	if in >= 0 {
		for l, v := range c.per[in] {
			c.with[l] += v
		}
	}
	if out >= 0 {
		for l, v := range c.per[out] {
			c.with[l] -= v
		}
	}
	return ShareDeviation(c.input, c.with)
}

// step keeps query in, and not out (-1: none), at deviation d.
func (c *agreeingChoice) step(in, out int, d float64) {
	c.deviation(in, out)
	copy(c.counts, c.with)
	c.kept[in], c.dev = true, d
	if out >= 0 {
		c.kept[out] = false
	} else {
		c.n++
	}
}

// add keeps the first query in order not yet kept whose rows leave the
// deviation at most ShareTolerance or below the kept set's, or, when none
// does, the first that leaves it as it was; false when none does either.
// (Taking the first that leaves it as it was before one that lowers it
// would let the queries that lack a label pile up: a label's deviation
// stays the same while its share stays 0.)
func (c *agreeingChoice) add() bool {
	level := -1
	for q, k := range c.kept {
		if k {
			continue
		}
		d := c.deviation(q, -1)
		if d <= ShareTolerance || d < c.dev {
			c.step(q, -1, d)
			return true
		}
		if d == c.dev && level < 0 {
			level = q
		}
	}
	if level >= 0 {
		c.step(level, -1, c.dev)
	}
	return level >= 0
}

// swap replaces one kept query by one not kept, among the swaps that
// lower the deviation the one that loses the least agreement (the kept
// query's minus the other's), then the one with the lower deviation, then
// the first kept query in order, then the first other; false when no swap
// lowers the deviation, or the swap pairs left do not cover a swap.
func (c *agreeingChoice) swap() bool {
	pairs := c.n * (len(c.kept) - c.n)
	if pairs > c.swapPairs {
		return false
	}
	c.swapPairs -= pairs
	var outs, ins []int
	for q, k := range c.kept {
		if k {
			outs = append(outs, q)
		} else {
			ins = append(ins, q)
		}
	}
	return c.swapAmong(outs, ins)
}

// fastSwapCandidates is how many kept queries, and how many others, a
// fast swap (agreeingChoice.fastSwap) looks at.
const fastSwapCandidates = 32

// fastSwap is swap once the swap pairs are spent: of the
// fastSwapCandidates kept queries whose leaving alone leaves the
// deviation lowest and the as many others whose joining alone does
// (the first in order among equals), the exchange swap would choose;
// false when none lowers the deviation. Each costs one look at every
// query and fastSwapCandidates^2 pairs, so a large input whose adds
// end far from ShareTolerance is still brought towards it.
func (c *agreeingChoice) fastSwap() bool {
	type cand struct {
		q int
		d float64
	}
	var outs, ins []cand
	for q, k := range c.kept {
		if k {
			outs = append(outs, cand{q, c.deviation(-1, q)})
		} else {
			ins = append(ins, cand{q, c.deviation(q, -1)})
		}
	}
	best := func(cs []cand) []int {
		slices.SortStableFunc(cs, func(x, y cand) int { return cmp.Compare(x.d, y.d) })
		var qs []int
		for _, x := range cs[:min(len(cs), fastSwapCandidates)] {
			qs = append(qs, x.q)
		}
		slices.Sort(qs)
		return qs
	}
	return c.swapAmong(best(outs), best(ins))
}

// swapAmong makes swap's choice among the exchanges of a kept query of
// outs for one of ins (each in order).
func (c *agreeingChoice) swapAmong(outs, ins []int) bool {
	in, out, loss, dev := -1, -1, 0.0, 0.0
	for _, o := range outs {
		for _, i := range ins {
			d := c.deviation(i, o)
			if l := c.ag[o] - c.ag[i]; d < c.dev && (in < 0 || l < loss || (l == loss && d < dev)) {
				in, out, loss, dev = i, o, l, d
			}
		}
	}
	if in < 0 {
		return false
	}
	c.step(in, out, dev)
	return true
}
