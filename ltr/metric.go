package ltr

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/ltr/measures"
)

// MetricKind names a list measure of package measures.
type MetricKind string

// The metrics a ranker can optimise and be selected on.
const (
	MetricNDCG MetricKind = "NDCG"
	MetricERR  MetricKind = "ERR"
	MetricMAP  MetricKind = "MAP"
)

// Metric is a per-query effectiveness measure at a cutoff, computed with
// RankLib's conventions by package measures (NDCG and ERR with gain
// 2^l - 1; MAP with relevant = label >= 1, docs/method.md section 8).
type Metric struct {
	Kind MetricKind
	// K is the cutoff; 0 means the whole list.
	K int
}

// RelevantFrom is the label from which an item counts as relevant for MAP
// (docs/method.md section 8: label >= 1).
const RelevantFrom = 1.0

// ParseMetric parses "NDCG@10", "ERR@5", "MAP" (case-insensitive); NDCG and
// ERR without "@k" mean the whole list.
func ParseMetric(s string) (Metric, error) {
	name, k := strings.ToUpper(strings.TrimSpace(s)), 0
	if i := strings.IndexByte(name, '@'); i >= 0 {
		v, err := strconv.Atoi(name[i+1:])
		if err != nil || v < 1 {
			return Metric{}, fmt.Errorf("metric %q: cutoff after @ must be a positive integer", s)
		}
		name, k = name[:i], v
	}
	switch MetricKind(name) {
	case MetricNDCG, MetricERR:
		return Metric{Kind: MetricKind(name), K: k}, nil
	case MetricMAP:
		if k != 0 {
			return Metric{}, fmt.Errorf("metric %q: MAP takes no cutoff", s)
		}
		return Metric{Kind: MetricMAP}, nil
	}
	return Metric{}, fmt.Errorf("unknown metric %q (want NDCG@k, ERR@k or MAP)", s)
}

// String returns the canonical name ("NDCG@10", "MAP").
func (m Metric) String() string {
	if m.K > 0 {
		return fmt.Sprintf("%s@%d", m.Kind, m.K)
	}
	return string(m.Kind)
}

// Score returns the metric of one query's labels in ranked order.
func (m Metric) Score(ranked []float64) float64 {
	switch m.Kind {
	case MetricNDCG:
		return measures.NDCG(ranked, m.K)
	case MetricERR:
		return measures.ERR(ranked, m.K)
	case MetricMAP:
		return measures.AP(ranked, RelevantFrom)
	}
	return math.NaN()
}

// scorer evaluates the metric on many rankings of the same queries. For
// NDCG it caches each query's gains 2^l - 1, the discounts 1/log2(r+1) and
// the ideal DCG (computed once by measures.DCG on the labels sorted in
// decreasing order, which is the ideal measures.NDCG uses), so the inner
// loops of the rankers neither allocate nor call exp/log; a test checks the
// fast path against measures.NDCG. ERR and MAP call package measures.
type scorer struct {
	m    Metric
	idcg []float64
	gain [][]float64
	disc []float64
	buf  []float64
	keys []float64
	idx  []int
}

func newScorer(m Metric, t *table) *scorer {
	s := &scorer{m: m}
	maxN := 0
	for _, b := range t.blocks {
		maxN = max(maxN, b.n)
	}
	s.buf = make([]float64, maxN)
	s.keys = make([]float64, maxN)
	s.idx = make([]int, maxN)
	if m.Kind == MetricNDCG {
		s.idcg = make([]float64, len(t.blocks))
		s.gain = make([][]float64, len(t.blocks))
		for qi, b := range t.blocks {
			s.idcg[qi] = measures.DCG(sortedDesc(b.labels), m.K)
			s.gain[qi] = make([]float64, b.n)
			for i, l := range b.labels {
				s.gain[qi][i] = math.Exp2(l) - 1
			}
		}
		s.disc = make([]float64, maxN)
		for r := range s.disc {
			s.disc[r] = 1 / math.Log2(float64(r)+2)
		}
	}
	return s
}

// query returns the metric of query qi of t ranked by scores.
func (s *scorer) query(t *table, qi int, scores []float64) float64 {
	b := &t.blocks[qi]
	idx := s.idx[:b.n]
	sortByKeys(scores, idx, s.keys[:b.n])
	return s.ordered(t, qi, idx)
}

// ordered returns the metric of query qi of t ranked in the order idx.
func (s *scorer) ordered(t *table, qi int, idx []int) float64 {
	b := &t.blocks[qi]
	if s.m.Kind == MetricNDCG {
		if s.idcg[qi] <= 0 {
			return 0
		}
		n := b.n
		if s.m.K > 0 && s.m.K < n {
			n = s.m.K
		}
		g, dcg := s.gain[qi], 0.0
		for r := 0; r < n; r++ {
			dcg += g[idx[r]] * s.disc[r]
		}
		return dcg / s.idcg[qi]
	}
	ranked := s.buf[:b.n]
	for r, i := range idx {
		ranked[r] = b.labels[i]
	}
	return s.m.Score(ranked)
}

// insertionByKey sorts idx (any permutation of 0..n-1) by decreasing
// key[i], ties by increasing i: the order of rankOrder, reached in O(n)
// when idx is nearly sorted already.
func insertionByKey(idx []int, key []float64) {
	for p := 1; p < len(idx); p++ {
		cur := idx[p]
		kc := key[cur]
		q := p
		for q > 0 {
			prev := idx[q-1]
			if kp := key[prev]; kp > kc || (kp == kc && prev < cur) {
				break
			}
			idx[q] = prev
			q--
		}
		idx[q] = cur
	}
}

// topKByKey orders idx so that idx[:k] holds, in rankOrder's order, the k
// items of largest key (ties by increasing index); the rest of idx is left
// in no particular order. k <= 0 or k >= len(idx) sorts everything. It is
// cheaper than a full sort when only the top k matter (NDCG@k, ERR@k).
func topKByKey(idx []int, key []float64, k int) {
	n := len(idx)
	if k <= 0 || k >= n {
		insertionByKey(idx, key)
		return
	}
	insertionByKey(idx[:k], key)
	for p := k; p < n; p++ {
		cur := idx[p]
		kc := key[cur]
		last := idx[k-1]
		if kl := key[last]; kl > kc || (kl == kc && last < cur) {
			continue
		}
		idx[p] = last
		q := k - 1
		for q > 0 {
			prev := idx[q-1]
			if kp := key[prev]; kp > kc || (kp == kc && prev < cur) {
				break
			}
			idx[q] = prev
			q--
		}
		idx[q] = cur
	}
}

// sortByKeys is rankOrder with a caller-provided key buffer: a stable
// insertion sort for short lists.
func sortByKeys(scores []float64, idx []int, keys []float64) {
	if len(idx) > 64 {
		rankOrder(scores, idx)
		return
	}
	for i, v := range scores[:len(idx)] {
		if v != v {
			v = math.Inf(-1)
		}
		j := i
		for j > 0 && keys[j-1] < v {
			keys[j] = keys[j-1]
			idx[j] = idx[j-1]
			j--
		}
		keys[j] = v
		idx[j] = i
	}
}

// mean returns the mean metric over all queries with per-document scores
// laid out query after query (as scoreTable returns them).
func (s *scorer) mean(t *table, scores []float64) float64 {
	if len(t.blocks) == 0 {
		return 0
	}
	sum, off := 0.0, 0
	for qi := range t.blocks {
		n := t.blocks[qi].n
		sum += s.query(t, qi, scores[off:off+n])
		off += n
	}
	return sum / float64(len(t.blocks))
}

// rankOrder fills idx with 0..n-1 ordered by decreasing score; ties keep
// input order, NaN ranks last. Over a block, whose rows are in docid
// descending order (makeBlock), that is trec_eval's order.
func rankOrder(scores []float64, idx []int) {
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		if v := scores[i]; v == v {
			return v
		}
		return math.Inf(-1)
	}
	if len(idx) > 64 {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(b), key(a)) })
		return
	}
	// Stable insertion sort: fast for the short lists of ranking data.
	for i := 1; i < len(idx); i++ {
		cur := idx[i]
		kc := key(cur)
		j := i
		for j > 0 && key(idx[j-1]) < kc {
			idx[j] = idx[j-1]
			j--
		}
		idx[j] = cur
	}
}

// rankedLabels returns labels in the order of decreasing score (ties by
// input order).
func rankedLabels(labels, scores []float64) []float64 {
	idx := make([]int, len(labels))
	rankOrder(scores, idx)
	out := make([]float64, len(labels))
	for r, i := range idx {
		out[r] = labels[i]
	}
	return out
}

func sortedDesc(x []float64) []float64 {
	y := slices.Clone(x)
	slices.SortFunc(y, func(a, b float64) int { return cmp.Compare(b, a) })
	return y
}

// Evaluate ranks every query of ds by score (one value per document, in
// file order; ties by docid descending, trec_eval's rule, see ScoreTies)
// and returns the metric of each query.
func Evaluate(ds *Dataset, score func(q *Query) []float64, m Metric) []float64 {
	out := make([]float64, len(ds.Queries))
	labels := []float64{}
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		labels = labels[:0]
		for di := range q.Docs {
			labels = append(labels, q.Docs[di].Label)
		}
		out[qi] = m.ScoreTies(labels, score(q), docIDs(q), measures.TiesDocID)
	}
	return out
}

// Mean returns the arithmetic mean of v (0 for an empty slice).
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
