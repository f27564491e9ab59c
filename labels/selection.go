package labels

import (
	"fmt"
	"math"
)

// Selection is the one rule that decides which labels a benchmark keeps as
// confident: `export --min-confidence` and `--min-query-agreement`, the
// report's recovery table and the confidence sweeps all call Select
// (docs/dataset.md, "Confident labels"). The zero Selection keeps every
// row.
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
type Selection struct {
	MinConfidence     float64
	MinQueryAgreement float64
	// QueryAgreement is each query's expected agreement (NaN: none);
	// needed when MinQueryAgreement is above 0.
	QueryAgreement map[string]float64
}

// Verdict is what Select decided for one row.
type Verdict uint8

const (
	// Kept: the row stays.
	Kept Verdict = iota
	// BelowConfidence: its confidence is below MinConfidence.
	BelowConfidence
	// QueryDisagrees: its query's expected agreement is below
	// MinQueryAgreement (or it has none).
	QueryDisagrees
	// WithQuery: no row of its query has a confidence of at least
	// MinConfidence.
	WithQuery
)

// Active reports whether s leaves anything out at all.
func (s Selection) Active() bool { return s.MinConfidence > 0 || s.MinQueryAgreement > 0 }

// Check reports a Selection that cannot be applied: a minimum outside
// [0, 1], or a minimum agreement without agreements.
func (s Selection) Check() error {
	if math.IsNaN(s.MinConfidence) || s.MinConfidence < 0 || s.MinConfidence > 1 {
		return fmt.Errorf("minimum confidence %v is not in (0, 1]", s.MinConfidence)
	}
	if math.IsNaN(s.MinQueryAgreement) || s.MinQueryAgreement < 0 || s.MinQueryAgreement > 1 {
		return fmt.Errorf("minimum query agreement %v is not in (0, 1]", s.MinQueryAgreement)
	}
	if s.MinQueryAgreement > 0 && s.QueryAgreement == nil {
		return fmt.Errorf("a minimum query agreement needs the queries' expected agreement (the labels' .query_order.csv)")
	}
	return nil
}

// Select returns the verdict of each of n rows, whose i-th has query and
// confidence row(i) (NoConfidence: none). Rows are visited twice, in
// order.
func (s Selection) Select(n int, row func(i int) (query string, confidence float64)) []Verdict {
	out := make([]Verdict, n)
	if !s.Active() {
		return out
	}
	supported := map[string]bool{}
	for i := range n {
		q, c := row(i)
		if s.MinConfidence <= 0 || (c != NoConfidence && c >= s.MinConfidence) {
			supported[q] = true
		}
	}
	for i := range n {
		q, c := row(i)
		switch {
		case s.MinConfidence > 0 && c != NoConfidence && c < s.MinConfidence:
			out[i] = BelowConfidence
		case s.MinQueryAgreement > 0 && !(s.QueryAgreement[q] >= s.MinQueryAgreement):
			out[i] = QueryDisagrees
		case !supported[q]:
			out[i] = WithQuery
		}
	}
	return out
}

// SelectLabels is Select over labels.
func (s Selection) SelectLabels(ls []Label) []Verdict {
	return s.Select(len(ls), func(i int) (string, float64) { return ls[i].Query, ls[i].Confidence })
}
