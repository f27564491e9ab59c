package labels

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Selection is the one rule that decides which labels a benchmark keeps as
// confident: `export --min-confidence`, `--keep-confident`,
// `--min-query-agreement` and `--keep-agreeing-queries`, the report's
// recovery table and the confidence sweeps all call Select
// (docs/dataset.md, "Confidence and --min-confidence C", "A filter that
// keeps the label shares" and "Whole queries that keep the label
// shares"). The zero Selection keeps every row. It has three modes.
//
// The plain mode (MinConfidence, MinQueryAgreement):
//
//   - A row with a confidence below MinConfidence is left out
//     (BelowConfidence).
//   - A query is kept only when, with MinConfidence above 0, at least one
//     of its rows has a confidence of at least MinConfidence, and, with
//     MinQueryAgreement above 0, its expected agreement
//     (QueryAgreement[query], OrderAgreement) is at least
//     MinQueryAgreement; a query without one (all its labels equal, or not
//     in the map) does not reach it. The other rows of a query left out
//     go with it (WithQuery, QueryDisagrees): its sampled rows alone would
//     make a query without a judged result.
//   - A row without a confidence (NoConfidence: a sampled term, whose label
//     0 is the LETOR sampling convention, not a click-model estimate) is
//     kept with its query.
//
// A minimum confidence keeps the labels of wide bands and drops those of
// narrow ones (issue 36, part 5), so the plain mode changes the label
// distribution. The stratified mode (KeepConfident F, alone) keeps it:
// the rows are split into strata by label and by whether they have a
// confidence, and each stratum of n rows keeps KeepCount(F, n) =
// floor(F n + 1/2) of them (rounded half up), so every label's share after
// is its share before up to that rounding:
//
//   - a stratum with confidences keeps its most confident rows, ties
//     broken by query, then term, in byte order, then by row order; the
//     others are BelowConfidence;
//   - a query none of whose rows with a confidence is kept is left out
//     whole (WithQuery), as in the plain mode;
//   - a stratum without confidences (the sampled terms) keeps its quota
//     among the rows of the kept queries, spread over them by water
//     filling: every kept query keeps the same number m of its first rows
//     (row order: for a ground truth, sampling's draw order, so a query
//     keeps the terms a smaller sample would have drawn), or all it has if
//     fewer, m the largest that fits the quota, and the rows left over go
//     one each to the queries that have more, in byte order of the query.
//     The rest are BeyondShare. When the kept queries hold fewer rows of
//     the stratum than its quota, all are kept and the share falls short:
//     export reports the shares after, and the stratum's kept rows.
//
// A minimum query agreement skews the shares too: queries with many
// distinct labels have a lower expected agreement. The agreeing mode
// (KeepAgreeing F, alone) keeps whole queries and the shares within
// bounds:
//
//   - each label's bound is LabelShareTolerance: the share tolerance t
//     (Tolerance: ShareTolerance unless ShareTolerance sets another), or
//     half the label's share of the input rows when that is less, so a
//     label rarer than 2t keeps between half and one and a half times its
//     share, and cannot vanish within its bound. The tolerance ratio of
//     the kept rows (ToleranceRatio) is the largest, over labels, of the
//     difference between the label's share of the kept rows and of all
//     input rows over its bound: every label is within its bound when it
//     is at most 1;
//   - the eligible queries are those with an expected agreement
//     (QueryAgreement, not NaN); the others are never kept. They are
//     ordered by agreement, highest first, ties by query in byte order;
//   - the target is KeepCount(F, eligible queries);
//   - add: while fewer than the target are kept, the first eligible query
//     in that order not yet kept whose rows (all of them, sampled terms
//     included), added to the kept rows, leave the tolerance ratio at
//     most 1, or below the ratio before it, is kept; when none does, the
//     first that leaves the ratio as it was. The first query kept is the
//     most agreeing;
//   - swap: when no query can be added (the target reached, or none
//     qualifies) and the ratio is above 1, one kept query is exchanged
//     for one not kept: of the exchanges that lower the ratio, the one
//     losing the least agreement (the kept query's minus the other's),
//     then the one with the lower ratio, then the first kept and the
//     first other query in that order. Then add again;
//   - it stops when neither step applies: the target kept and the ratio
//     at most 1, or no exchange lowers it;
//   - every row of a query not kept is QueryNotChosen; a kept query keeps
//     all its rows.
//
// So the ratio never rises: once at most 1 it stays there, and the
// choice ends there unless no single exchange lowers it: a swap looks at
// every pair of a kept and another query until the swaps have looked at
// MaxAgreeingSwapPairs pairs in all, then only at the pairs of the
// fastSwapCandidates kept queries whose leaving, and the as many others
// whose joining, alone leaves the ratio lowest. export reports the ratio
// and the share deviation (ShareDeviation, the largest absolute
// difference) reached and the queries kept against the target.
type Selection struct {
	MinConfidence     float64
	MinQueryAgreement float64
	// QueryAgreement is each query's expected agreement (NaN: none);
	// needed when MinQueryAgreement is above 0.
	QueryAgreement map[string]float64
	// KeepConfident, in (0, 1], selects the stratified mode: each label
	// keeps this fraction of its rows, its most confident (0: the plain
	// mode). It excludes MinConfidence and MinQueryAgreement.
	KeepConfident float64
	// KeepAgreeing, in (0, 1], selects the agreeing mode: the fraction of
	// the queries with an expected agreement to keep, whole, the most
	// agreeing within the share tolerance (0: off). It needs
	// QueryAgreement and excludes the other filters.
	KeepAgreeing float64
	// ShareTolerance, in (0, 1), is the agreeing mode's share tolerance
	// (0: the default, the constant ShareTolerance; see Tolerance).
	ShareTolerance float64
}

// Candidate is one row offered to Select: its query, term, label and
// confidence (NoConfidence: none).
type Candidate struct {
	Query, Term string
	Label       int
	Confidence  float64
}

// Verdict is what Select decided for one row.
type Verdict uint8

const (
	// Kept: the row stays.
	Kept Verdict = iota
	// BelowConfidence: its confidence is below MinConfidence (the
	// stratified mode: below the most confident of its label it keeps).
	BelowConfidence
	// QueryDisagrees: its query's expected agreement is below
	// MinQueryAgreement (or it has none).
	QueryDisagrees
	// WithQuery: no row of its query has a confidence of at least
	// MinConfidence (the stratified mode: no row of its query with a
	// confidence is kept).
	WithQuery
	// BeyondShare (stratified mode): a row without a confidence of a kept
	// query, beyond its stratum's quota.
	BeyondShare
	// QueryNotChosen (agreeing mode): its query was not kept.
	QueryNotChosen
)

// Active reports whether s leaves anything out at all.
func (s Selection) Active() bool {
	return s.MinConfidence > 0 || s.MinQueryAgreement > 0 || s.KeepConfident > 0 || s.KeepAgreeing > 0
}

// Check reports a Selection that cannot be applied: a minimum or a
// fraction outside [0, 1], a minimum agreement or the agreeing mode
// without agreements, the stratified mode with a minimum, the agreeing
// mode with any other filter, or a share tolerance outside (0, 1) (0: the
// default).
func (s Selection) Check() error {
	if math.IsNaN(s.MinConfidence) || s.MinConfidence < 0 || s.MinConfidence > 1 {
		return fmt.Errorf("minimum confidence %v is not in (0, 1]", s.MinConfidence)
	}
	if math.IsNaN(s.MinQueryAgreement) || s.MinQueryAgreement < 0 || s.MinQueryAgreement > 1 {
		return fmt.Errorf("minimum query agreement %v is not in (0, 1]", s.MinQueryAgreement)
	}
	if math.IsNaN(s.KeepConfident) || s.KeepConfident < 0 || s.KeepConfident > 1 {
		return fmt.Errorf("fraction of confident labels to keep %v is not in (0, 1]", s.KeepConfident)
	}
	if s.KeepConfident > 0 && (s.MinConfidence > 0 || s.MinQueryAgreement > 0) {
		return fmt.Errorf("a fraction of confident labels to keep per label excludes a minimum confidence and a minimum query agreement")
	}
	if math.IsNaN(s.KeepAgreeing) || s.KeepAgreeing < 0 || s.KeepAgreeing > 1 {
		return fmt.Errorf("fraction of agreeing queries to keep %v is not in (0, 1]", s.KeepAgreeing)
	}
	if s.KeepAgreeing > 0 && (s.MinConfidence > 0 || s.MinQueryAgreement > 0 || s.KeepConfident > 0) {
		return fmt.Errorf("a fraction of agreeing queries to keep excludes a minimum confidence, a minimum query agreement and a fraction of confident labels")
	}
	if s.ShareTolerance != 0 {
		if err := CheckShareTolerance(s.ShareTolerance); err != nil {
			return err
		}
	}
	if s.KeepAgreeing > 0 && s.QueryAgreement == nil {
		return fmt.Errorf("a fraction of agreeing queries to keep needs the queries' expected agreement (the labels' .query_order.csv)")
	}
	if s.MinQueryAgreement > 0 && s.QueryAgreement == nil {
		return fmt.Errorf("a minimum query agreement needs the queries' expected agreement (the labels' .query_order.csv)")
	}
	return nil
}

// KeepCount is the number of rows a stratum of n rows keeps with
// Selection.KeepConfident f: f n rounded half up.
func KeepCount(f float64, n int) int {
	return min(n, int(math.Floor(f*float64(n)+0.5)))
}

// Select returns the verdict of each of n rows, whose i-th is row(i).
// Rows are visited twice, in order.
func (s Selection) Select(n int, row func(i int) Candidate) []Verdict {
	out := make([]Verdict, n)
	if !s.Active() {
		return out
	}
	if s.KeepConfident > 0 {
		s.stratified(n, row, out)
		return out
	}
	if s.KeepAgreeing > 0 {
		s.agreeing(n, row, out)
		return out
	}
	supported := map[string]bool{}
	for i := range n {
		r := row(i)
		if s.MinConfidence <= 0 || (r.Confidence != NoConfidence && r.Confidence >= s.MinConfidence) {
			supported[r.Query] = true
		}
	}
	for i := range n {
		r := row(i)
		switch {
		case s.MinConfidence > 0 && r.Confidence != NoConfidence && r.Confidence < s.MinConfidence:
			out[i] = BelowConfidence
		case s.MinQueryAgreement > 0 && !(s.QueryAgreement[r.Query] >= s.MinQueryAgreement):
			out[i] = QueryDisagrees
		case !supported[r.Query]:
			out[i] = WithQuery
		}
	}
	return out
}

// stratified is Select's stratified mode (see Selection).
func (s Selection) stratified(n int, row func(i int) Candidate, out []Verdict) {
	type stratum struct {
		label int
		known bool
	}
	rows := make([]Candidate, n)
	by := map[stratum][]int{}
	for i := range n {
		rows[i] = row(i)
		k := stratum{rows[i].Label, rows[i].Confidence != NoConfidence}
		by[k] = append(by[k], i)
	}
	keptQ := map[string]bool{}
	for k, idx := range by {
		if !k.known {
			continue
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			ra, rb := rows[a], rows[b]
			return cmp.Or(cmp.Compare(rb.Confidence, ra.Confidence), cmp.Compare(ra.Query, rb.Query), cmp.Compare(ra.Term, rb.Term), cmp.Compare(a, b))
		})
		keep := KeepCount(s.KeepConfident, len(idx))
		for j, i := range idx {
			if j < keep {
				keptQ[rows[i].Query] = true
			} else {
				out[i] = BelowConfidence
			}
		}
	}
	for k, idx := range by {
		if k.known {
			continue
		}
		perQuery := map[string][]int{} // row order
		for _, i := range idx {
			if q := rows[i].Query; keptQ[q] {
				perQuery[q] = append(perQuery[q], i)
			} else {
				out[i] = WithQuery
			}
		}
		allot := waterFill(perQuery, KeepCount(s.KeepConfident, len(idx)))
		for q, is := range perQuery {
			for j, i := range is {
				if j >= allot[q] {
					out[i] = BeyondShare
				}
			}
		}
	}
}

// waterFill spreads quota rows over the queries of perQuery, each holding
// len(perQuery[q]) rows: every query gets the same m, or all its rows if
// fewer, m the largest whose total fits the quota; the rows left over go
// one each to the queries with more than m, in byte order of the query.
// When the queries hold fewer rows than the quota, each gets all its rows.
func waterFill(perQuery map[string][]int, quota int) map[string]int {
	qs := make([]string, 0, len(perQuery))
	for q := range perQuery {
		qs = append(qs, q)
	}
	slices.Sort(qs)
	total := func(m int) (t int) {
		for _, q := range qs {
			t += min(m, len(perQuery[q]))
		}
		return t
	}
	most := 0
	for _, q := range qs {
		most = max(most, len(perQuery[q]))
	}
	// The largest m in [0, most] with total(m) <= quota; total is
	// non-decreasing in m.
	m := sort.Search(most+1, func(m int) bool { return total(m) > quota }) - 1
	allot := make(map[string]int, len(qs))
	left := quota - total(m)
	for _, q := range qs {
		allot[q] = min(m, len(perQuery[q]))
		if left > 0 && len(perQuery[q]) > m {
			allot[q]++
			left--
		}
	}
	return allot
}

// SelectLabels is Select over labels.
func (s Selection) SelectLabels(ls []Label) []Verdict {
	return s.Select(len(ls), func(i int) Candidate {
		return Candidate{Query: ls[i].Query, Term: ls[i].Term, Label: ls[i].Grade, Confidence: ls[i].Confidence}
	})
}
