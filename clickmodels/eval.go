package clickmodels

import (
	"fmt"
	"math"

	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// Metrics are a model's scores on a test log.
type Metrics struct {
	// Sessions is the number of test SERPs (PyClick calls a SERP a session).
	Sessions int `json:"test_sessions"`
	// LogLikelihood is the mean over SERPs of the mean over ranks of
	// ln P(C_r = c_r | C_<r = c_<r) (PyClick's LogLikelihood).
	LogLikelihood float64 `json:"test_loglikelihood"`
	// Perplexity is the mean of PerplexityAtRank.
	Perplexity float64 `json:"test_perplexity"`
	// PerplexityAtRank[r] = 2^(-(1/N_r) sum_s log2 P(C_r = c_r)) with the
	// unconditional click probability, N_r the number of SERPs with a rank
	// r (Dupret and Piwowarski 2008; PyClick's Perplexity, which divides by
	// the number of all SERPs: the same when all SERPs have the same
	// length).
	PerplexityAtRank []float64 `json:"test_perplexity_at_rank"`
}

// Gain is the perplexity gain of a model with perplexity pa over a baseline
// with perplexity pb: (pb - pa) / (pb - 1) (docs/method.md section 3; Chuklin et al.
// 2015, chapter 5 on evaluation).
func Gain(pa, pb float64) float64 { return (pb - pa) / (pb - 1) }

// Evaluate scores m on the SERPs of log. Pairs not seen in training get the
// parameter value Unseen (0.5), as in PyClick. A SERP longer than the
// model's ranks is an error.
func Evaluate(m *Model, log *sessions.Log) (Metrics, error) {
	var acc EvalSums
	if err := acc.Add(m, log); err != nil {
		return Metrics{}, err
	}
	return acc.Metrics(m.Kind)
}

// EvalSums are Evaluate's sums over test SERPs, kept exact so that the
// sums of disjoint parts of a test log (query shards) merge, in any order,
// into exactly the metrics of the whole.
type EvalSums struct {
	N      int64      // test SERPs
	LL     ExactSum   // sum of per-SERP log-likelihoods
	LogSum []ExactSum // per rank: sum of log2 P(C_r = c_r)
	Count  []int64    // per rank: SERPs with that rank
}

// Add adds the test SERPs of log, scored by m.
func (e *EvalSums) Add(m *Model, log *sessions.Log) error {
	res := m.resolver(log)
	return e.add(m, log, func(v *view, i int, a, s []float64) { res.view(v, log, i, a, s) })
}

// AddPrepared is Add for a test log that shares its dictionaries with the
// data d that m was fitted on (a prepared shard): pairs are found by ID
// among the query's own pairs, without building string indexes.
func (e *EvalSums) AddPrepared(m *Model, d *Data, log *sessions.Log) error {
	x := newPairIndex(d, log.Queries.Len())
	return e.add(m, log, func(v *view, i int, a, s []float64) {
		docs := v.setSERP(m, log, i, a, s)
		q := log.Query[i]
		for r, doc := range docs {
			v.setPair(m, r, x.pair(q, doc))
		}
	})
}

func (e *EvalSums) add(m *Model, log *sessions.Log, fill func(v *view, i int, a, s []float64)) error {
	n := log.Len()
	maxLen := 0
	for i := 0; i < n; i++ {
		maxLen = max(maxLen, log.Ranks(i))
	}
	if maxLen > m.Ranks {
		return fmt.Errorf("click models: a test SERP has %d results, the %v model only %d ranks", maxLen, m.Kind, m.Ranks)
	}
	for len(e.LogSum) < maxLen {
		e.LogSum = append(e.LogSum, ExactSum{})
		e.Count = append(e.Count, 0)
	}
	var a, s, cond, full [MaxSERP]float64
	var v view
	for i := 0; i < n; i++ {
		fill(&v, i, a[:], s[:])
		k := v.n
		clickProbs(m.Kind, &v, cond[:k], full[:k])
		e.LL.Add(serpLL(cond[:k]))
		for r := 0; r < k; r++ {
			p := full[r]
			if !v.clicked(r) {
				p = 1 - p
			}
			// PyClick skips (and reports) non-positive probabilities.
			if p > 0 {
				e.LogSum[r].Add(math.Log2(p))
			}
			e.Count[r]++
		}
	}
	e.N += int64(n)
	return nil
}

// Merge adds o to e.
func (e *EvalSums) Merge(o *EvalSums) {
	for len(e.LogSum) < len(o.LogSum) {
		e.LogSum = append(e.LogSum, ExactSum{})
		e.Count = append(e.Count, 0)
	}
	for r := range o.LogSum {
		e.LogSum[r].Merge(&o.LogSum[r])
		e.Count[r] += o.Count[r]
	}
	e.LL.Merge(&o.LL)
	e.N += o.N
}

// Metrics turns the sums into the metrics of a model of the given kind.
func (e *EvalSums) Metrics(kind Kind) (Metrics, error) {
	var out Metrics
	out.Sessions = int(e.N)
	if e.N == 0 {
		return out, fmt.Errorf("click models: no test sessions to evaluate %v on", kind)
	}
	out.LogLikelihood = e.LL.Float64() / float64(e.N)
	maxLen := len(e.LogSum)
	out.PerplexityAtRank = make([]float64, maxLen)
	sum := 0.0
	for r := range maxLen {
		out.PerplexityAtRank[r] = math.Pow(2, -e.LogSum[r].Float64()/float64(e.Count[r]))
		sum += out.PerplexityAtRank[r]
	}
	out.Perplexity = sum / float64(maxLen)
	return out, nil
}

// resolver maps a log's query and document IDs to the model's pairs.
type resolver struct {
	m     *Model
	query []int32 // log query ID -> model query index or -1
	doc   []int32
}

func (m *Model) resolver(log *sessions.Log) *resolver {
	lk := m.pairs()
	r := &resolver{m: m, query: make([]int32, log.Queries.Len()), doc: make([]int32, log.Docs.Len())}
	for i, s := range log.Queries.Names {
		if q, ok := lk.queries[s]; ok {
			r.query[i] = q
		} else {
			r.query[i] = -1
		}
	}
	for i, s := range log.Docs.Names {
		if d, ok := lk.docs[s]; ok {
			r.doc[i] = d
		} else {
			r.doc[i] = -1
		}
	}
	return r
}

// view fills v with the parameters of SERP i of log, using a and s as
// storage.
func (rs *resolver) view(v *view, log *sessions.Log, i int, a, s []float64) {
	m := rs.m
	docs := v.setSERP(m, log, i, a, s)
	if v.a == nil && v.s == nil {
		return
	}
	q := rs.query[log.Query[i]]
	lk := m.pairs()
	for r, d := range docs {
		p := int32(-1)
		if q >= 0 && rs.doc[d] >= 0 {
			if pp, ok := lk.pairs[pairKey(q, rs.doc[d])]; ok {
				p = pp
			}
		}
		v.setPair(m, r, p)
	}
}

// setSERP points v at SERP i of log under m, with a and s as storage for
// the attractiveness and satisfaction m has, and returns the SERP's docs.
func (v *view) setSERP(m *Model, log *sessions.Log, i int, a, s []float64) []int32 {
	docs := log.SERPDocs(i)
	n := len(docs)
	v.n, v.clicks, v.R, v.g = n, log.Clicks[i], m.Ranks, m.Global
	v.a, v.s, v.order, v.pscmAuthors = nil, nil, nil, m.PSCMAuthors
	if m.Kind == PSCM {
		v.order = log.ClickOrder(v.obuf[:0], i)
	}
	if m.Attr != nil {
		v.a = a[:n]
	}
	if m.Sat != nil {
		v.s = s[:n]
	}
	return docs
}

// setPair fills rank r of v with m's parameters of pair p, or Unseen when
// p < 0 (a pair the model never saw).
func (v *view) setPair(m *Model, r int, p int32) {
	if v.a != nil {
		v.a[r] = Unseen
		if p >= 0 {
			v.a[r] = m.Attr[p]
		}
	}
	if v.s != nil {
		v.s[r] = Unseen
		if p >= 0 {
			v.s[r] = m.Sat[p]
		}
	}
}

// Split is the split of docs/method.md section 3: the first floor(fraction x n) SERPs in file
// order train; the rest test, keeping only SERPs whose query occurs in
// training. train is a view of log's first SERPs (sessions.Log.Head: no
// copy); test is a copy.
func Split(log *sessions.Log, fraction float64) (train, test *sessions.Log) {
	cut := split.TrainCut(log.Len(), fraction)
	train = log.Head(cut)
	return train, filterTest(log, train, func(yield func(int) bool) {
		for i := cut; i < log.Len(); i++ {
			if !yield(i) {
				return
			}
		}
	})
}

// RandomSplit puts a seeded random floor(fraction x n) SERPs in training
// and the rest in test (test filtered to training queries); both keep file
// order.
func RandomSplit(log *sessions.Log, fraction float64, seed uint64) (train, test *sessions.Log) {
	n := log.Len()
	inTrain := split.RandomTrain(n, fraction, seed)
	train = log.Select(indices(n, func(i int) bool { return inTrain[i] }))
	return train, filterTest(log, train, indices(n, func(i int) bool { return !inTrain[i] }))
}

// TimeSplit splits by time at the granularity of user sessions
// (split.TimeSplit). A Log keeps SERPs in time order within a user session
// and user sessions in order of their first SERP (the order of the input,
// which ingest writes chronologically), but no clock: so "by time" means
// that a user session whose first SERP lies in the first
// floor(fraction x n) SERPs trains with all its SERPs, and later user
// sessions test (filtered to training queries). Unlike Split, no user
// session is cut in two.
func TimeSplit(log *sessions.Log, fraction float64) (train, test *sessions.Log) {
	n := log.Len()
	ts := split.NewTimeSplit[int32](int64(n), fraction)
	for i := 0; i < n && ts.Before(int64(i)); i++ {
		ts.Start(log.Session[i])
	}
	isTrain := func(i int) bool { return ts.Train(int64(i), log.Session[i]) }
	train = log.Select(indices(n, isTrain))
	return train, filterTest(log, train, indices(n, func(i int) bool { return !isTrain(i) }))
}

func indices(n int, keep func(int) bool) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if keep(i) && !yield(i) {
				return
			}
		}
	}
}

// filterTest selects the SERPs idx yields whose query occurs in train.
func filterTest(log, train *sessions.Log, idx func(yield func(int) bool)) *sessions.Log {
	seen := make([]bool, log.Queries.Len())
	for _, q := range train.Query {
		seen[q] = true
	}
	return log.Select(func(yield func(int) bool) {
		for i := range idx {
			if seen[log.Query[i]] && !yield(i) {
				return
			}
		}
	})
}
