package labels

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// agreeingRows are five queries with an agreement and one without, as
// (label 1 rows, label 0 rows): a 0.9 (1, 1), b 0.8 (3, 1), c 0.8 (1, 3),
// d 0.7 (1, 2), e 0.6 (2, 2), z none (0, 7). In all, 8 of 24 rows are
// label 1: a share of 1/3.
func agreeingRows() ([]Candidate, map[string]float64) {
	rows := mixRows(mix{"z", 0, 7}, mix{"e", 2, 2}, mix{"d", 1, 2}, mix{"c", 1, 3}, mix{"b", 3, 1}, mix{"a", 1, 1})
	return rows, map[string]float64{"a": 0.9, "b": 0.8, "c": 0.8, "d": 0.7, "e": 0.6, "z": math.NaN()}
}

// mix is a query's rows of label 1 and of label 0.
type mix struct {
	q      string
	l1, l0 int
}

// mixRows are the rows of queries ms, in order: each query's l1 rows of
// label 1 (confidence 0.5), then its l0 of label 0 (sampled terms, without
// a confidence).
func mixRows(ms ...mix) []Candidate {
	var rows []Candidate
	for _, m := range ms {
		for range m.l1 {
			rows = append(rows, Candidate{Query: m.q, Label: 1, Confidence: 0.5})
		}
		for range m.l0 {
			rows = append(rows, Candidate{Query: m.q, Label: 0, Confidence: NoConfidence})
		}
	}
	return rows
}

// keptQueries runs s over rows and returns the queries whose rows are
// kept, checking that every query is kept or left out whole.
func keptQueries(t *testing.T, s Selection, rows []Candidate) []string {
	t.Helper()
	v := s.Select(len(rows), func(i int) Candidate { return rows[i] })
	verdict := map[string]Verdict{}
	for i, r := range rows {
		if w, ok := verdict[r.Query]; ok && w != v[i] {
			t.Fatalf("query %s kept in part", r.Query)
		}
		verdict[r.Query] = v[i]
		if v[i] != Kept && v[i] != QueryNotChosen {
			t.Fatalf("row %d: verdict %v", i, v[i])
		}
	}
	var out []string
	for q, w := range verdict {
		if w == Kept {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// By hand, F = 0.6 over the 5 queries with an agreement: target
// floor(3 + 1/2) = 3. Order a, b, c (b before c: a tie, byte order), d, e.
//   - step 1: a, the most agreeing: label 1 share 1/2, deviation 1/6;
//   - step 2: b would give 4 of 6 (deviation 1/3, not below 1/6): no; c
//     gives 2 of 6 = 1/3, deviation 0: kept;
//   - step 3: b gives 5 of 10 (1/6 > 0.01): no; d gives 3 of 9, deviation
//     0: kept. 3 kept: done.
//
// Kept a, c, d: 9 rows, 3 of label 1, exactly the input's share, where
// --min-query-agreement 0.8 keeps a, b, c with 5 of 10. With F = 1
// (target 5) the walk goes on: b gives 6 of 12 (deviation 1/6), e 5 of 13
// (0.051), both above 0.01 and above 0: it stops at 3 of 5 (the
// deviation is 0: no swap). With F = 0.2 (target 1), a alone is 1/6 off,
// and swaps lower that: a for b gives 3 of 4 (5/12: no), for c 1 of 4
// (1/12, agreement lost 0.1), for d 1 of 3 (0, lost 0.2), for e 2 of 4
// (1/6: no). The least loss first: c. Then from c: c for d gives 0 (lost
// 0.1; a and e 1/6, b 5/12: no): d alone.
func TestSelectAgreeingByHand(t *testing.T) {
	rows, ag := agreeingRows()
	for _, c := range []struct {
		f    float64
		want []string
	}{{0.6, []string{"a", "c", "d"}}, {1, []string{"a", "c", "d"}}, {0.2, []string{"d"}}} {
		if got := keptQueries(t, Selection{KeepAgreeing: c.f, QueryAgreement: ag}, rows); !slices.Equal(got, c.want) {
			t.Errorf("F = %v: kept %v, want %v", c.f, got, c.want)
		}
	}
	plain := Selection{MinQueryAgreement: 0.8, QueryAgreement: ag}.Select(len(rows), func(i int) Candidate { return rows[i] })
	kept, l1 := 0, 0
	for i, v := range plain {
		if v == Kept {
			kept++
			if rows[i].Label == 1 {
				l1++
			}
		}
	}
	if kept != 10 || l1 != 5 {
		t.Errorf("--min-query-agreement 0.8 kept %d rows, %d of label 1; want 10, 5", kept, l1)
	}
}

// Before the tolerance is reached, a query joins when it leaves the
// deviation no higher, even when it does not lower it, and may open the
// way to one that could not join before: with a (1, 2) at 0.9, b (1, 0) at
// 0.8 and c (3, 6) at 0.7, as (label 1, label 0) (input 5 of 13 label 1,
// 0.3846), F = 1, target 3:
//   - a: 1 of 3, deviation 0.0513;
//   - b: 2 of 4 (0.1154, higher): no; c: 4 of 12, 0.0513 again: kept;
//   - b: 5 of 13, deviation 0: kept. All three.
func TestSelectAgreeingLevel(t *testing.T) {
	rows := mixRows(mix{"a", 1, 2}, mix{"b", 1, 0}, mix{"c", 3, 6})
	ag := map[string]float64{"a": 0.9, "b": 0.8, "c": 0.7}
	if got := keptQueries(t, Selection{KeepAgreeing: 1, QueryAgreement: ag}, rows); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("kept %v, want [a b c]", got)
	}
	// With F = 2/3 (target 2): a, then c (b would raise it), 0.0513 off.
	// Swaps: a for b gives 4 of 10 (0.0154, agreement lost 0.1), c for b
	// 2 of 4 (0.1154): no. From b and c, b for a gives 4 of 12 (0.0513) and
	// c for a 2 of 4: neither lowers it. b and c.
	if got := keptQueries(t, Selection{KeepAgreeing: 2.0 / 3, QueryAgreement: ag}, rows); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("target 2: kept %v, want [b c]", got)
	}
}

// Ties of agreement go to the query first in byte order: w and x have the
// same agreement and mix; KeepCount(0.5, 2) = 1 keeps w.
func TestSelectAgreeingTie(t *testing.T) {
	rows := []Candidate{{Query: "x", Label: 1}, {Query: "x", Label: 0}, {Query: "w", Label: 0}, {Query: "w", Label: 1}}
	if got := keptQueries(t, Selection{KeepAgreeing: 0.5, QueryAgreement: map[string]float64{"x": 0.6, "w": 0.6}}, rows); !slices.Equal(got, []string{"w"}) {
		t.Errorf("kept %v, want [w]", got)
	}
}

// ShareDeviation by hand: label shares 2/4, 1/4, 1/4 before and 1/2, 1/2,
// 0 after differ by at most 1/4; an empty after has every share 0.
func TestShareDeviation(t *testing.T) {
	if got := ShareDeviation([]int{2, 1, 1}, []int{1, 1, 0}); got != 0.25 {
		t.Errorf("deviation %v, want 0.25", got)
	}
	if got := ShareDeviation([]int{2, 1, 1}, []int{0, 0, 0}); got != 0.5 {
		t.Errorf("deviation of nothing kept %v, want 0.5", got)
	}
}

// The agreeing mode needs the agreements and excludes the other filters.
func TestSelectionCheckAgreeing(t *testing.T) {
	ag := map[string]float64{"a": 1}
	for _, s := range []Selection{
		{KeepAgreeing: 0.5},
		{KeepAgreeing: 0.5, QueryAgreement: ag, MinConfidence: 0.1},
		{KeepAgreeing: 0.5, QueryAgreement: ag, MinQueryAgreement: 0.1},
		{KeepAgreeing: 0.5, QueryAgreement: ag, KeepConfident: 0.1},
		{KeepAgreeing: 1.5, QueryAgreement: ag},
	} {
		if s.Check() == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (Selection{KeepAgreeing: 0.5, QueryAgreement: ag}).Check(); err != nil {
		t.Error(err)
	}
}

// Swaps by hand: a 0.9 (3, 1), b 0.8 (1, 2), d 0.75 (2, 3), c 0.7 (1, 3)
// and z without an agreement (2, 0), as (label 1, label 0): 9 of 18 rows
// label 1, a share of 1/2. F = 0.5 of 4 queries: target 2.
//   - add a (3 of 4, deviation 1/4), then b (4 of 7, 1/14, lower): 2 kept,
//     above 0.01;
//   - swaps from a, b: a for d 3 of 8 (1/8), a for c 2 of 7 (3/14): no;
//     b for d 5 of 9 (1/18, agreement lost 0.05), b for c 4 of 8 (0, lost
//     0.1): the least loss, d;
//   - from a, d: a for b 3 of 8, a for c 3 of 9, d for b 4 of 7: no; d for
//     c 4 of 8 (0, lost 0.05): a and c, the shares exactly the input's.
//
// --min-query-agreement 0.8 keeps a and b instead, 4 of 7.
func TestSelectAgreeingSwaps(t *testing.T) {
	rows := mixRows(mix{"a", 3, 1}, mix{"b", 1, 2}, mix{"d", 2, 3}, mix{"c", 1, 3}, mix{"z", 2, 0})
	ag := map[string]float64{"a": 0.9, "b": 0.8, "d": 0.75, "c": 0.7}
	if got := keptQueries(t, Selection{KeepAgreeing: 0.5, QueryAgreement: ag}, rows); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("kept %v, want [a c]", got)
	}
}

// Past the swap bound the fast swap (agreeingChoice.fastSwap) takes
// over; where its candidates are every query it makes the same choices
// as the exhaustive swap. TestSelectAgreeingSwaps's queries started from
// a and b (4 of 7 label 1, 1/14 off) with no swap pair left: the fast
// swaps go b for d (5 of 9, 1/18, agreement lost 0.05; b for c would
// lose 0.1), then d for c (4 of 8, 0): a and c, as the exhaustive swaps
// do.
func TestSelectAgreeingFastSwap(t *testing.T) {
	rows := mixRows(mix{"a", 3, 1}, mix{"b", 1, 2}, mix{"d", 2, 3}, mix{"c", 1, 3}, mix{"z", 2, 0})
	ag := map[string]float64{"a": 0.9, "b": 0.8, "d": 0.75, "c": 0.7}
	input, per := labelCounts(len(rows), func(i int) Candidate { return rows[i] }, Selection{QueryAgreement: ag}.Eligible)
	order := []string{"a", "b", "d", "c"}
	c := newAgreeingChoice(order, per, input, ag, ShareTolerance)
	c.step(0, -1, c.ratioWith(0, -1))
	c.step(1, -1, c.ratioWith(1, -1))
	c.swapPairs = 0
	if c.swap() {
		t.Fatal("a swap past the bound")
	}
	var steps []string
	for c.ratio > 1 && c.fastSwap() {
		var kept []string
		for i, k := range c.kept {
			if k {
				kept = append(kept, order[i])
			}
		}
		steps = append(steps, fmt.Sprint(kept, " ", math.Round(ShareDeviation(input, c.counts)*1e6)/1e6))
	}
	want := []string{fmt.Sprint([]string{"a", "d"}, " ", math.Round(1e6/18)/1e6), fmt.Sprint([]string{"a", "c"}, " ", 0.0)}
	if !slices.Equal(steps, want) {
		t.Errorf("fast swaps %q, want %q", steps, want)
	}
}

// rareRows are queries of rows of label 4, 1 and 0 (confidence 0.5 for
// 4 and 1; label 0 without one), in that order per query.
func rareRows(qs ...[4]any) []Candidate {
	var rows []Candidate
	for _, q := range qs {
		for i, l := range []int{4, 1, 0} {
			for range q[i+1].(int) {
				c := Candidate{Query: q[0].(string), Label: l, Confidence: 0.5}
				if l == 0 {
					c.Confidence = NoConfidence
				}
				rows = append(rows, c)
			}
		}
	}
	return rows
}

// A rare label is kept within its bound. Share tolerance 0.1 (as
// --agreeing-share-tolerance 0.1); queries as (label 4, label 1, label 0)
// rows: a 0.9 (0, 2, 8), b 0.8 (0, 2, 8), c 0.7 (1, 2, 7), d 0.6 (1, 2, 7).
// Input: 40 rows, label 4 2 (5%), label 1 8 (20%), label 0 30 (75%).
// F = 0.5: target 2.
//
// An absolute bound of 0.1 for every label (the rule before) keeps a (0%
// / 20% / 80%: 5 points off, within 10) and then b (the same shares): a
// and b, label 4 gone. The bounds are min(0.1, share/2): label 4 0.025,
// labels 1 and 0 0.1. a alone: label 4 is 0.05 off, ratio 2 (label 0:
// 0.05/0.1 = 0.5); kept, the first. b leaves the ratio at 2 (the first
// such, kept only if nothing does better); c gives 1 / 4 / 15 of 20 =
// 5% / 20% / 75%, ratio 0: kept. a and c.
//
// Where the kept rows cannot hold the rare label within its bound, the
// ratio decides between none and one row: a (0, 1, 3), b (0, 1, 3),
// c (1, 1, 2), d (1, 1, 2) with z (0, 6, 18) without an agreement: 40
// rows, label 4 5%, label 1 25%, label 0 70%; target 2 of 4 rows each.
// a: 0 / 25% / 75%, ratio 2; b the same (level); c gives 1 of 8 =
// 12.5% of label 4, 7.5 points off, ratio 3 (no), d the same. b joins
// at 2; every swap gives a query of label 4 beside one without, ratio 3:
// no. a and b: one row of 8 would be 2.5 times label 4's share, further
// from it than none (docs/dataset.md).
func TestSelectAgreeingRareLabel(t *testing.T) {
	rows := rareRows([4]any{"a", 0, 2, 8}, [4]any{"b", 0, 2, 8}, [4]any{"c", 1, 2, 7}, [4]any{"d", 1, 2, 7})
	ag := map[string]float64{"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}
	s := Selection{KeepAgreeing: 0.5, QueryAgreement: ag, ShareTolerance: 0.1}
	if got := keptQueries(t, s, rows); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("kept %v, want [a c]", got)
	}
	// The counts in AllLabels order (4, 3, 2, 1, 0, junk): a and b are
	// within an absolute 0.1 (0.05 off) but twice label 4's bound.
	input, ab := []int{2, 0, 0, 8, 30, 0}, []int{0, 0, 0, 4, 16, 0}
	if d, r := ShareDeviation(input, ab), ToleranceRatio(input, ab, 0.1); math.Abs(d-0.05) > 1e-12 || math.Abs(r-2) > 1e-12 {
		t.Errorf("a and b: deviation %v, ratio %v; want 0.05, 2", d, r)
	}
	small := rareRows([4]any{"a", 0, 1, 3}, [4]any{"b", 0, 1, 3}, [4]any{"c", 1, 1, 2}, [4]any{"d", 1, 1, 2}, [4]any{"z", 0, 6, 18})
	ag["z"] = math.NaN()
	if got := keptQueries(t, s, small); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("8 rows: kept %v, want [a b]", got)
	}
}

// The bounds by hand: label shares 5%, 20%, 75% (2, 8, 30 of 40) under a
// tolerance of 0.1 are 0.025, 0.1, 0.1, under 0.01 all 0.01; 0, 4, 16
// kept is 0.05 off for labels 4 and 0: ratio 2 under 0.1, 5 under 0.01. A
// label without rows before has bound 0: kept rows of it make the ratio
// infinite.
func TestToleranceRatio(t *testing.T) {
	before, after := []int{2, 8, 30}, []int{0, 4, 16}
	for _, c := range []struct {
		tol, ratio float64
		bounds     []float64
	}{{0.1, 2, []float64{0.025, 0.1, 0.1}}, {0.01, 5, []float64{0.01, 0.01, 0.01}}} {
		b := ShareTolerances(before, c.tol)
		for i := range b {
			if math.Abs(b[i]-c.bounds[i]) > 1e-15 {
				t.Errorf("tolerance %v: bounds %v, want %v", c.tol, b, c.bounds)
			}
		}
		if r := ToleranceRatio(before, after, c.tol); math.Abs(r-c.ratio) > 1e-9 {
			t.Errorf("tolerance %v: ratio %v, want %v", c.tol, r, c.ratio)
		}
	}
	if r := ToleranceRatio([]int{0, 4}, []int{1, 4}, 0.1); !math.IsInf(r, 1) {
		t.Errorf("a label kept that was not there: ratio %v, want +Inf", r)
	}
	if r := ToleranceRatio([]int{0, 4}, []int{0, 2}, 0.1); r != 0 {
		t.Errorf("the same shares: ratio %v, want 0", r)
	}
}

// The share tolerance must lie in (0, 1); 0 is the default.
func TestSelectionCheckShareTolerance(t *testing.T) {
	ag := map[string]float64{"a": 1}
	for _, tol := range []float64{-0.1, 1, 1.5, math.NaN(), math.Inf(1)} {
		if err := (Selection{KeepAgreeing: 0.5, QueryAgreement: ag, ShareTolerance: tol}).Check(); err == nil || !strings.Contains(err.Error(), "not in (0, 1)") {
			t.Errorf("tolerance %v: error %v", tol, err)
		}
	}
	for _, tol := range []float64{0, 0.001, 0.5} {
		if err := (Selection{KeepAgreeing: 0.5, QueryAgreement: ag, ShareTolerance: tol}).Check(); err != nil {
			t.Errorf("tolerance %v: %v", tol, err)
		}
	}
	if got := (Selection{}).Tolerance(); got != 0.01 {
		t.Errorf("default tolerance %v, want 0.01", got)
	}
}
