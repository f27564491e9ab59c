package clickmodels

// Merging the models of query shards into the one set of files the
// whole log would give: the shards' pairs in log order (each query at the
// log position of its first SERP), read by one pairWriter.

// ShardModel is a shard's fitted model with the log position of the first
// SERP of each of its queries (outofcore.PreparedShard.QueryFirst), which orders the
// queries of all shards as in the whole log.
type ShardModel struct {
	Model      *Model
	QueryFirst []int64
}

// WriteModelFiles writes <MODEL>_relevance.tsv and the parameter file
// (ParamsAuto) to outDir for the shards' models merged in log order (the
// files Run writes for the same fit). All parts must be of one kind and
// fit.
func WriteModelFiles(outDir string, parts []ShardModel) error {
	return WriteModelFilesAs(outDir, parts, ParamsAuto)
}

// firstPositions orders a single model's queries as they are.
func firstPositions(m *Model) []int64 {
	q := make([]int64, len(m.QueryNames))
	for i := range q {
		q[i] = int64(i)
	}
	return q
}

// mergedPairs yields the pairs of the per-shard models in the order of the
// whole log's fit: queries by the log position of their first SERP, each
// query's pairs in its shard's order.
func mergedPairs(parts []ShardModel) *pairWriter {
	pw := shardPairWriter(parts[0].Model)
	pw.pairs = func(yield func(q, d string, v *pairVal) bool) {
		cs := make([]pairCursor, len(parts))
		for i, pt := range parts {
			cs[i] = &modelCursor{sm: pt}
		}
		mergePairs(cs, yield)
	}
	return pw
}

// shardPairWriter is a pairWriter with the header of m0, one of the
// shard models of a fit, and no pairs yet.
func shardPairWriter(m0 *Model) *pairWriter {
	pw := &pairWriter{
		kind: m0.Kind, ranks: m0.Ranks, iterations: m0.Iterations, exact: m0.Exact, pscmAuthors: m0.PSCMAuthors, empiricalPrior: m0.EmpiricalPrior, global: m0.Global,
		hasAttr: m0.Attr != nil, hasSat: m0.Sat != nil,
	}
	if m0.Evidence != nil {
		pw.hasEv, pw.level, pw.gibbs = true, m0.Evidence.Level, m0.Evidence.Gibbs
	}
	return pw
}

// pairCursor walks the pairs of one shard's model query by query, in the
// shard's pair order (its queries in order of first appearance).
type pairCursor interface {
	// head is the log position of the first SERP of the next query's
	// query in the whole log; ok is false after the last query.
	head() (pos int64, ok bool)
	// emit yields the next query's pairs and moves past them; it reports
	// false if yield asked to stop.
	emit(yield func(q, d string, v *pairVal) bool) bool
}

// mergePairs yields the pairs of all cursors in the order of the whole
// log's fit: queries by the log position of their first SERP (a query
// lives in one shard, so positions never tie), each query's pairs in its
// shard's order. A min-heap of the cursors by head position keeps the
// merge at O(log shards) per query.
func mergePairs(cs []pairCursor, yield func(q, d string, v *pairVal) bool) {
	type item struct {
		pos int64
		c   pairCursor
	}
	var h []item
	less := func(i, j int) bool { return h[i].pos < h[j].pos }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && less(r, l) {
				m = r
			}
			if !less(m, i) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, c := range cs {
		if pos, ok := c.head(); ok {
			h = append(h, item{pos, c})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		c := h[0].c
		if !c.emit(yield) {
			return
		}
		if pos, ok := c.head(); ok {
			h[0].pos = pos
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}

// modelCursor is a pairCursor over a shard's model in memory.
type modelCursor struct {
	sm ShardModel
	p  int // next pair
}

func (c *modelCursor) head() (int64, bool) {
	m := c.sm.Model
	if c.p >= len(m.PairQuery) {
		return 0, false
	}
	return c.sm.QueryFirst[m.PairQuery[c.p]], true
}

func (c *modelCursor) emit(yield func(q, d string, v *pairVal) bool) bool {
	m := c.sm.Model
	q := m.PairQuery[c.p]
	var v pairVal
	for ; c.p < len(m.PairQuery) && m.PairQuery[c.p] == q; c.p++ {
		v.setPair(m, c.p)
		if !yield(m.QueryNames[q], m.DocNames[m.PairDoc[c.p]], &v) {
			return false
		}
	}
	return true
}
