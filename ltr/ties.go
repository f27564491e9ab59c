package ltr

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/ltr/measures"
)

// RunID returns the document id of d in TREC runs and for tie-breaking:
// DocID read from the line's comment (Term) or, for a line without a
// comment, "row" followed by its 1-based data line number.
func (d *Doc) RunID() string {
	id, _ := d.runID()
	return id
}

// runID is RunID with DocID's error; a comment DocID cannot read gives
// the "row" id and the error.
func (d *Doc) runID() (string, error) {
	id, err := d.DocID()
	if id == "" {
		id = "row" + strconv.Itoa(d.Row)
	}
	return id, err
}

// docOrder returns the documents of q in tie order, docid descending
// (byte-wise, as trec_eval), equal docids in file order; nil when that is
// the file order already.
func docOrder(q *Query) []int {
	ids := docIDs(q)
	if slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
		return nil
	}
	perm := make([]int, len(ids))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return strings.Compare(ids[b], ids[a]) })
	return perm
}

// tieRanking returns the documents of one query ranked by decreasing score
// (NaN last), ties by docid descending, then file order: trec_eval's order.
// ids are the documents' DocIDs, in file order.
func tieRanking(scores []float64, ids []string) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		if v := scores[i]; v == v {
			return v
		}
		return math.Inf(-1)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := key(a), key(b)
		switch {
		case ka > kb:
			return -1
		case ka < kb:
			return 1
		}
		return strings.Compare(ids[b], ids[a])
	})
	return idx
}

// rankedTied returns the labels of one query in trec_eval's order and the
// sizes of its groups of equal scores (measures.TieGroups).
func rankedTied(labels, scores []float64, ids []string) ([]float64, []int) {
	idx := tieRanking(scores, ids)
	ranked := make([]float64, len(idx))
	rs := make([]float64, len(idx))
	for r, i := range idx {
		ranked[r] = labels[i]
		rs[r] = scores[i]
		if rs[r] != rs[r] {
			rs[r] = math.Inf(-1)
		}
	}
	return ranked, measures.TieGroups(rs)
}

// ScoreTies returns the metric of one query whose documents (labels,
// scores and DocIDs in file order) are ranked by decreasing score with ties
// ordered by the rule ties: docid descending (TiesDocID, trec_eval's rule;
// also for ""), grade descending or ascending (optimistic, pessimistic), or
// the exact expected value over random orders of every tie group
// (TiesAverage: measures.ExpectedNDCG, ExpectedERR, ExpectedAP).
func (m Metric) ScoreTies(labels, scores []float64, ids []string, ties measures.Ties) float64 {
	ranked, groups := rankedTied(labels, scores, ids)
	return m.scoreRanked(ranked, groups, ties)
}

// scoreRanked is ScoreTies over labels already in trec_eval's order with
// their tie groups (rankedTied), so one ranking serves several metrics and
// tie rules; ranked is not modified.
func (m Metric) scoreRanked(ranked []float64, groups []int, ties measures.Ties) float64 {
	switch ties {
	case measures.TiesAverage:
		switch m.Kind {
		case MetricNDCG:
			return measures.ExpectedNDCG(ranked, groups, m.K)
		case MetricERR:
			return measures.ExpectedERR(ranked, groups, m.K)
		case MetricMAP:
			return measures.ExpectedAP(ranked, groups, RelevantFrom)
		}
		return math.NaN()
	case measures.TiesOptimistic, measures.TiesPessimistic:
		ranked = slices.Clone(ranked)
		measures.OrderTies(ranked, groups, ties)
	}
	return m.Score(ranked)
}

// TieCount returns how many of the first k ranks (k <= 0: all) of a query
// ranked by scores hold a document whose score equals another document's
// score in the query, and how many ranks were looked at.
func TieCount(scores []float64, k int) (tied, ranks int) {
	s := sortedDesc(scores) // NaN last
	for i, v := range s {
		if v != v {
			s[i] = math.Inf(-1)
		}
	}
	ranks = len(s)
	if k > 0 && k < ranks {
		ranks = k
	}
	for r := 0; r < ranks; r++ {
		if r > 0 && s[r-1] == s[r] || r+1 < len(s) && s[r+1] == s[r] {
			tied++
		}
	}
	return tied, ranks
}

// docIDs returns the DocIDs of q's documents in file order.
func docIDs(q *Query) []string {
	ids := make([]string, len(q.Docs))
	for i := range q.Docs {
		ids[i] = q.Docs[i].RunID()
	}
	return ids
}
