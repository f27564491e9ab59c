package labels

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// ShareTolerance is the agreeing mode's default share tolerance
// (Selection.ShareTolerance, `export --agreeing-share-tolerance`): a
// label's share of the kept rows may differ from its share of the input
// rows by this much, or by half its input share when that is less
// (LabelShareTolerance).
const ShareTolerance = 0.01

// CheckShareTolerance reports a share tolerance outside (0, 1).
func CheckShareTolerance(tol float64) error {
	if !(tol > 0 && tol < 1) {
		return fmt.Errorf("share tolerance %v is not in (0, 1)", tol)
	}
	return nil
}

// LabelShareTolerance is the agreeing mode's bound on the difference
// between a label's share after and its share before, for a label of
// share before share under the share tolerance tol: min(tol, share/2).
// A label of share 2 tol or more has the absolute bound tol; a rarer one
// keeps between half and one and a half times its share, so a label
// present before cannot vanish within its bound (docs/dataset.md, "Whole
// queries that keep the label shares"). A label without rows before has
// the bound 0.
func LabelShareTolerance(tol, share float64) float64 {
	return min(tol, share/2)
}

// ShareTolerances are the LabelShareTolerance of each label of the label
// counts before, under the share tolerance tol.
func ShareTolerances(before []int, tol float64) []float64 {
	total := 0
	for _, n := range before {
		total += n
	}
	out := make([]float64, len(before))
	for i, n := range before {
		if total > 0 {
			out[i] = LabelShareTolerance(tol, float64(n)/float64(total))
		}
	}
	return out
}

// ShareDeviation is the largest absolute difference, over labels, between
// the share of after[i] in after's total and that of before[i] in
// before's; a total of 0 makes every share 0. The two are counts of the
// same labels in the same order. It is the agreeing mode's share
// deviation (docs/dataset.md, "Whole queries that keep the label
// shares"), the L-infinity distance of the two label distributions.
func ShareDeviation(before, after []int) float64 {
	return maxShareDifference(before, after, nil)
}

// ToleranceRatio is the largest, over labels, of the difference between
// the share of after[i] and that of before[i] (as ShareDeviation) over
// the label's bound (ShareTolerances of before under tol): at most 1 when
// every label is within its bound. It is what the agreeing mode keeps at
// most 1, or lowers (see Selection).
func ToleranceRatio(before, after []int, tol float64) float64 {
	return maxShareDifference(before, after, ShareTolerances(before, tol))
}

// maxShareDifference is the largest, over labels, of the absolute
// difference between the share of after[i] and that of before[i], each
// divided by bound[i] (nil: by 1). A difference over a bound of 0 (a
// label without rows before) is infinite, and 0 when there is none.
func maxShareDifference(before, after []int, bound []float64) float64 {
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
		diff := math.Abs(share(after[i], ta) - share(before[i], tb))
		switch {
		case bound == nil:
		case diff == 0:
		case bound[i] == 0:
			diff = math.Inf(1)
		default:
			diff /= bound[i]
		}
		d = max(d, diff)
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
// whole queries, the most agreeing ones whose rows keep every label's
// share within its bound (ShareTolerances under Selection.Tolerance) of
// the input's (see Selection), and marks the rows of the others
// QueryNotChosen.
func (s Selection) agreeing(n int, row func(i int) Candidate, out []Verdict) {
	input, per := labelCounts(n, row, s.Eligible)
	order := make([]string, 0, len(per))
	for q := range per {
		order = append(order, q)
	}
	sortOrder(order, s.QueryAgreement)
	kept := map[string]bool{}
	for _, q := range chooseAgreeing(order, per, input, s.QueryAgreement, KeepCount(s.KeepAgreeing, len(order)), s.Tolerance()) {
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
// pair, so on a large input the adds leave far from the share bounds the
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
// counts, input the input's, ag their agreements and tol the share
// tolerance. It adds queries (agreeingChoice.add) while fewer than target
// are kept, swaps one (agreeingChoice.swap, or fastSwap once
// MaxAgreeingSwapPairs is spent) while the tolerance ratio
// (ToleranceRatio) is above 1, and stops when neither can. Every step
// adds a query (at most target of them), or lowers the ratio at the same
// number kept, so it ends. It returns the kept queries.
func chooseAgreeing(order []string, per map[string][]int, input []int, ag map[string]float64, target int, tol float64) []string {
	c := newAgreeingChoice(order, per, input, ag, tol)
	for (c.n < target && c.add()) || (c.ratio > 1 && (c.swap() || c.fastSwap())) {
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
func newAgreeingChoice(order []string, per map[string][]int, input []int, ag map[string]float64, tol float64) *agreeingChoice {
	c := &agreeingChoice{input: input, bound: ShareTolerances(input, tol), kept: make([]bool, len(order)), counts: make([]int, len(input)),
		with: make([]int, len(input)), ratio: math.Inf(1), swapPairs: MaxAgreeingSwapPairs}
	for _, q := range order {
		c.per, c.ag = append(c.per, per[q]), append(c.ag, ag[q])
	}
	return c
}

// agreeingChoice is the state of chooseAgreeing over the eligible
// queries in order: their label counts and agreements, the input's label
// counts and each label's share bound (ShareTolerances), which queries
// are kept (n of them), the kept rows' label counts and tolerance ratio
// (ToleranceRatio; infinite while none is kept), with, the counts of a
// candidate step, and the swap pairs left to look at.
type agreeingChoice struct {
	per          [][]int
	ag           []float64
	input        []int
	kept         []bool
	n            int
	counts, with []int
	ratio        float64
	swapPairs    int
	bound        []float64
}

// ratioWith is the tolerance ratio of the kept rows with query in added and
// out taken away (either -1: none); their label counts are left in with.
func (c *agreeingChoice) ratioWith(in, out int) float64 {
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
	return maxShareDifference(c.input, c.with, c.bound)
}

// step keeps query in, and not out (-1: none), at ratio d.
func (c *agreeingChoice) step(in, out int, d float64) {
	c.ratioWith(in, out)
	copy(c.counts, c.with)
	c.kept[in], c.ratio = true, d
	if out >= 0 {
		c.kept[out] = false
	} else {
		c.n++
	}
}

// add keeps the first query in order not yet kept whose rows leave the
// tolerance ratio at most 1 or below the kept set's, or, when none does,
// the first that leaves it as it was; false when none does either.
// (Taking the first that leaves it as it was before one that lowers it
// would let the queries that lack a label pile up: a label's difference
// stays the same while its share stays 0.)
func (c *agreeingChoice) add() bool {
	level := -1
	for q, k := range c.kept {
		if k {
			continue
		}
		d := c.ratioWith(q, -1)
		if d <= 1 || d < c.ratio {
			c.step(q, -1, d)
			return true
		}
		if d == c.ratio && level < 0 {
			level = q
		}
	}
	if level >= 0 {
		c.step(level, -1, c.ratio)
	}
	return level >= 0
}

// swap replaces one kept query by one not kept, among the swaps that
// lower the tolerance ratio the one that loses the least agreement (the
// kept query's minus the other's), then the one with the lower ratio, then
// the first kept query in order, then the first other; false when no swap
// lowers the tolerance ratio, or the swap pairs left do not cover a
// swap.
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
// tolerance ratio lowest and the as many others whose joining alone does
// (the first in order among equals), the exchange swap would choose;
// false when none lowers the ratio. Each costs one look at every query
// and fastSwapCandidates^2 pairs, so a large input whose adds end far
// from the share bounds is still brought towards them.
func (c *agreeingChoice) fastSwap() bool {
	type cand struct {
		q int
		d float64
	}
	var outs, ins []cand
	for q, k := range c.kept {
		if k {
			outs = append(outs, cand{q, c.ratioWith(-1, q)})
		} else {
			ins = append(ins, cand{q, c.ratioWith(q, -1)})
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
	in, out, loss, ratio := -1, -1, 0.0, 0.0
	for _, o := range outs {
		for _, i := range ins {
			d := c.ratioWith(i, o)
			if l := c.ag[o] - c.ag[i]; d < c.ratio && (in < 0 || l < loss || (l == loss && d < ratio)) {
				in, out, loss, ratio = i, o, l, d
			}
		}
	}
	if in < 0 {
		return false
	}
	c.step(in, out, ratio)
	return true
}

// Tolerance is the agreeing mode's share tolerance: s.ShareTolerance, or
// ShareTolerance when it is 0.
func (s Selection) Tolerance() float64 {
	if s.ShareTolerance != 0 {
		return s.ShareTolerance
	}
	return ShareTolerance
}
