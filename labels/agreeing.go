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
// same labels in the same order.
func ShareDeviation(before, after []int) float64 {
	share := func(n []int) func(i int) float64 {
		total := 0
		for _, c := range n {
			total += c
		}
		return func(i int) float64 {
			if total == 0 {
				return 0
			}
			return float64(n[i]) / float64(total)
		}
	}
	b, a := share(before), share(after)
	d := 0.0
	for i := range before {
		d = max(d, math.Abs(a(i)-b(i)))
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
	at := map[int]int{}
	for i, l := range AllLabels() {
		at[l] = i
	}
	input := make([]int, len(at))
	per := map[string][]int{} // label counts of each eligible query
	for i := range n {
		r := row(i)
		input[at[r.Label]]++
		if s.Eligible(r.Query) {
			if per[r.Query] == nil {
				per[r.Query] = make([]int, len(at))
			}
			per[r.Query][at[r.Label]]++
		}
	}
	order := make([]string, 0, len(per))
	for q := range per {
		order = append(order, q)
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.QueryAgreement[b], s.QueryAgreement[a]), cmp.Compare(a, b))
	})
	kept := s.chooseAgreeing(order, per, input, KeepCount(s.KeepAgreeing, len(order)))
	for i := range n {
		if !kept[row(i).Query] {
			out[i] = QueryNotChosen
		}
	}
}

// chooseAgreeing is the agreeing mode's choice (see Selection): order
// lists the eligible queries, most agreeing first, per their label counts
// and input the input's. It adds queries (agreeingChoice.add) while fewer
// than target are kept, swaps one (agreeingChoice.swap) while the
// deviation is above ShareTolerance, and stops when neither can. Every
// step adds a query (at most target of them), or lowers the deviation at
// the same number kept, so it ends.
func (s Selection) chooseAgreeing(order []string, per map[string][]int, input []int, target int) map[string]bool {
	c := &agreeingChoice{order: order, per: per, input: input, ag: s.QueryAgreement,
		kept: map[string]bool{}, counts: make([]int, len(input)), dev: math.Inf(1)}
	for (len(c.kept) < target && c.add()) || (c.dev > ShareTolerance && c.swap()) {
	}
	return c.kept
}

// agreeingChoice is the state of chooseAgreeing: the queries kept, their
// label counts and share deviation (infinite while none is kept).
type agreeingChoice struct {
	order  []string
	per    map[string][]int
	input  []int
	ag     map[string]float64
	kept   map[string]bool
	counts []int
	dev    float64
}

// with returns the kept label counts with query in added and out taken
// away ("" for none).
func (c *agreeingChoice) with(in, out string) []int {
	w := slices.Clone(c.counts)
	for l := range w {
		w[l] += c.per[in][l]
		if out != "" {
			w[l] -= c.per[out][l]
		}
	}
	return w
}

// add keeps the first query of order not yet kept whose rows leave the
// deviation at most ShareTolerance or not above the kept set's; false
// when none does.
func (c *agreeingChoice) add() bool {
	for _, q := range c.order {
		if c.kept[q] {
			continue
		}
		w := c.with(q, "")
		if d := ShareDeviation(c.input, w); d <= max(ShareTolerance, c.dev) {
			c.kept[q], c.counts, c.dev = true, w, d
			return true
		}
	}
	return false
}

// swap replaces one kept query by one not kept, among the swaps that
// lower the deviation the one that loses the least agreement (the kept
// query's minus the other's), then the one with the lower deviation, then
// the first kept query in order, then the first other; false when no swap
// lowers the deviation.
func (c *agreeingChoice) swap() bool {
	var best struct {
		in, out   string
		loss, dev float64
		counts    []int
	}
	for _, out := range c.order {
		if !c.kept[out] {
			continue
		}
		for _, in := range c.order {
			if c.kept[in] {
				continue
			}
			w := c.with(in, out)
			d := ShareDeviation(c.input, w)
			if loss := c.ag[out] - c.ag[in]; d < c.dev && (best.counts == nil || loss < best.loss || (loss == best.loss && d < best.dev)) {
				best.in, best.out, best.loss, best.dev, best.counts = in, out, loss, d, w
			}
		}
	}
	if best.counts == nil {
		return false
	}
	delete(c.kept, best.out)
	c.kept[best.in], c.counts, c.dev = true, best.counts, best.dev
	return true
}
