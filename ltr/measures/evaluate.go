package measures

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Options configure an evaluation. Start from DefaultOptions: the zero
// value has RelevantFrom 0 (every judged document relevant) and Beta 0
// (Q-measure reduced to AveP).
type Options struct {
	Measures     []Measure
	Gain         GainFunc     // grade -> gain for the graded measures; nil: ExpGain
	Discount     DiscountFunc // for ndcg, dcg, awdp, andcg; nil: Log2Discount
	Beta         float64      // Q-measure's beta
	Cutoff       int          // list length for measures without @k; 0: whole list
	RelevantFrom float64      // binary relevance: grade >= RelevantFrom
	Hierarchy    Hierarchy    // for rp@k and rr@k
	Proximity    Proximity    // for rp@k and rr@k
	// Ties orders documents of equal score (""/TiesDocID: trec_eval's
	// docid descending; see Ties). TiesAverage needs every measure to be
	// one of AverageTiesSupported.
	Ties Ties
	// QueriesFromRun evaluates only the judged queries that the runs
	// evaluated together answer (at least one of them, so that runs stay
	// paired); by default every judged query is evaluated and an unanswered
	// one is an empty ranking (trec_eval -c).
	QueriesFromRun bool
}

// DefaultOptions returns the LOVBench defaults: the measures of
// DefaultMeasures, gain 2^g-1, discount log2(i+1), beta 1, the whole list,
// relevant = grade >= 1, symmetric proximity.
func DefaultOptions() Options {
	ms, _ := ParseMeasures(DefaultMeasures)
	return Options{
		Measures: ms, Gain: ExpGain, Discount: Log2Discount, Beta: 1,
		RelevantFrom: 1, Proximity: Symmetric,
	}
}

// Result holds one run's scores.
type Result struct {
	Run      string
	Measures []string             // measure names in the order asked for
	Queries  []string             // evaluated query ids, sorted
	Coverage Coverage             // judged, answered and evaluated query counts
	Mean     map[string]float64   // measure -> mean over Queries (or the global value)
	PerQuery map[string][]float64 // measure -> value per query, aligned with Queries; absent for global measures
}

// Value returns the value of measure m for query qid.
func (r *Result) Value(m, qid string) (float64, bool) {
	vs, ok := r.PerQuery[m]
	if !ok {
		return 0, false
	}
	i := sort.SearchStrings(r.Queries, qid)
	if i == len(r.Queries) || r.Queries[i] != qid {
		return 0, false
	}
	return vs[i], true
}

// Coverage says how many queries a run was evaluated on (item
// 10): a run answering fewer queries than the qrels judge scores 0 on the
// others unless Options.QueriesFromRun is set.
type Coverage struct {
	Judged    int  `json:"judged"`    // queries the qrels judge
	Answered  int  `json:"answered"`  // of those, queries the run retrieves something for
	Evaluated int  `json:"evaluated"` // queries evaluated (the mean's denominator)
	FromRun   bool `json:"from_run"`  // Options.QueriesFromRun was set
}

// JSONResult is the --json layout of one run:
// {"mean": {measure: value}, "per_query": {qid: {measure: value}},
// "queries": {"judged": n, "answered": n, "evaluated": n, "from_run": b}}.
type JSONResult struct {
	Mean     map[string]float64            `json:"mean"`
	PerQuery map[string]map[string]float64 `json:"per_query"`
	Queries  Coverage                      `json:"queries"`
}

// JSON returns r in the --json layout.
func (r *Result) JSON() JSONResult {
	j := JSONResult{Mean: r.Mean, PerQuery: make(map[string]map[string]float64, len(r.Queries)), Queries: r.Coverage}
	for i, q := range r.Queries {
		m := make(map[string]float64, len(r.PerQuery))
		for name, vs := range r.PerQuery {
			m[name] = vs[i]
		}
		j.PerQuery[q] = m
	}
	return j
}

// Evaluate scores one run against the qrels; see EvaluateRuns.
func Evaluate(ctx context.Context, q *Qrels, run *Run, opts Options) (*Result, error) {
	rs, err := EvaluateRuns(ctx, q, []*Run{run}, opts)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// EvaluateRuns scores each run against the qrels.
//
// The evaluated queries are those of the qrels (with
// Options.QueriesFromRun, only those answered by at least one of runs); a
// query a run did not answer counts as an empty ranking (trec_eval -c), so
// that all runs are paired on the same queries. Each Result's Coverage
// counts the judged, answered and evaluated queries. Queries of a run without judgments are
// ignored, as trec_eval ignores them. Retrieved documents without a
// judgment have grade 0.
//
// The catalog of CC@k is every document judged in the qrels or retrieved
// by any of the runs for an evaluated query, so runs evaluated together
// share it.
func EvaluateRuns(ctx context.Context, q *Qrels, runs []*Run, opts Options) ([]*Result, error) {
	if len(q.ids) == 0 {
		return nil, fmt.Errorf("the qrels judge no query")
	}
	if len(opts.Measures) == 0 {
		return nil, fmt.Errorf("no measure to compute")
	}
	if opts.Gain == nil {
		opts.Gain = ExpGain
	}
	if opts.Discount == nil {
		opts.Discount = Log2Discount
	}
	for _, m := range opts.Measures {
		if m.NeedsHierarchy() && opts.Hierarchy == nil {
			return nil, fmt.Errorf("measure %s needs a class/property hierarchy (--corpus)", m.Name)
		}
	}
	if opts.Ties == "" {
		opts.Ties = TiesDocID
	}
	if _, err := ParseTies(string(opts.Ties)); err != nil {
		return nil, err
	}
	if opts.Ties == TiesAverage {
		for _, m := range opts.Measures {
			if !AverageTiesSupported(m) {
				return nil, fmt.Errorf("measure %s: --ties average is computed exactly only for %s; use --ties optimistic and pessimistic for bounds", m.Name, averageTiesList)
			}
		}
	}
	if err := checkGains(q, opts.Gain); err != nil {
		return nil, err
	}
	judged := len(q.ids)
	if opts.QueriesFromRun {
		var ids []string
		for _, id := range q.ids {
			for _, run := range runs {
				if len(run.ranking[id]) > 0 {
					ids = append(ids, id)
					break
				}
			}
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("the runs answer none of the %d judged queries", judged)
		}
		q = &Qrels{grades: q.grades, ids: ids}
	}
	if opts.Ties == TiesOptimistic || opts.Ties == TiesPessimistic {
		runs = reorderTies(q, runs, opts.Ties)
	}
	g := newGlobals(q, runs, opts)
	out := make([]*Result, len(runs))
	for i, run := range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = evaluateRun(q, run, opts, g)
		c := Coverage{Judged: judged, Evaluated: len(q.ids), FromRun: opts.QueriesFromRun}
		for id := range q.grades {
			if len(run.ranking[id]) > 0 {
				c.Answered++
			}
		}
		out[i].Coverage = c
	}
	return out, nil
}

// globals are the inputs of the run-level measures.
type globals struct {
	catalog  int             // |B| of CC@k
	longTail map[string]bool // nil: everything outside shortHead
	short    map[string]bool // short head SH of LTP@k
}

func newGlobals(q *Qrels, runs []*Run, opts Options) *globals {
	need := false
	for _, m := range opts.Measures {
		need = need || m.Global()
	}
	g := &globals{}
	if !need {
		return g
	}
	cat := map[string]bool{}
	awards := map[string]int{}
	total := 0
	for _, qid := range q.ids {
		for d, grade := range q.grades[qid] {
			cat[d] = true
			if relevant(grade, true, opts.RelevantFrom) {
				awards[d]++
				total++
			}
		}
		for _, r := range runs {
			for _, e := range r.ranking[qid] {
				cat[e.Doc] = true
			}
		}
	}
	g.catalog = len(cat)
	g.short = shortHead(awards, total)
	return g
}

// shortHead returns the short head SH of the matchmaking
// offline evaluation (docs/measures.md) (LTP@10): the most awarded items, sorted by awards
// descending (ties by id ascending), up to and including the first item at
// which the cumulated awards reach a fifth of all awards. Here an award is
// a query in which the item is relevant.
func shortHead(awards map[string]int, total int) map[string]bool {
	type item struct {
		id string
		n  int
	}
	items := make([]item, 0, len(awards))
	for id, n := range awards {
		items = append(items, item{id, n})
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].n != items[j].n {
			return items[i].n > items[j].n
		}
		return items[i].id < items[j].id
	})
	sh := map[string]bool{}
	cum := 0
	for _, it := range items {
		if 5*cum >= total {
			break
		}
		sh[it.id] = true
		cum += it.n
	}
	return sh
}

func evaluateRun(q *Qrels, run *Run, opts Options, g *globals) *Result {
	res := &Result{
		Run:      run.Name,
		Queries:  q.ids,
		Mean:     make(map[string]float64, len(opts.Measures)),
		PerQuery: make(map[string][]float64, len(opts.Measures)),
	}
	for _, m := range opts.Measures {
		res.Measures = append(res.Measures, m.Name)
		if !m.Global() {
			res.PerQuery[m.Name] = make([]float64, len(q.ids))
		}
	}
	// Per-query measures, queries in parallel chunks; each query writes
	// only its own index, so the values do not depend on the workers.
	parallelChunks(len(q.ids), func(lo, hi int) {
		var qd queryData
		for i := lo; i < hi; i++ {
			qid := q.ids[i]
			qd.load(q.grades[qid], run.ranking[qid], opts)
			for _, m := range opts.Measures {
				if !m.Global() {
					res.PerQuery[m.Name][i] = qd.score(m, opts)
				}
			}
		}
	})
	// Run-level measures.
	ccSeen := map[int]map[string]bool{}
	ltpNum := map[int]int{}
	ltpDen := map[int]int{}
	for _, m := range opts.Measures {
		if !m.Global() {
			continue
		}
		for _, qid := range q.ids {
			ranking := run.ranking[qid]
			top := ranking[:cutoff(m.K, len(ranking))]
			switch m.fam.k {
			case kCC:
				if ccSeen[m.K] == nil {
					ccSeen[m.K] = map[string]bool{}
				}
				for _, e := range top {
					ccSeen[m.K][e.Doc] = true
				}
			case kLTP:
				for _, e := range top {
					if !g.short[e.Doc] {
						ltpNum[m.K]++
					}
				}
				ltpDen[m.K] += len(top)
			}
		}
	}
	for _, m := range opts.Measures {
		switch m.fam.k {
		case kCC:
			if g.catalog > 0 {
				res.Mean[m.Name] = float64(len(ccSeen[m.K])) / float64(g.catalog)
			}
		case kLTP:
			if ltpDen[m.K] > 0 {
				res.Mean[m.Name] = float64(ltpNum[m.K]) / float64(ltpDen[m.K])
			}
		default:
			s := 0.0
			for _, v := range res.PerQuery[m.Name] {
				s += v
			}
			res.Mean[m.Name] = s / float64(len(q.ids))
		}
	}
	return res
}

// AverageTiesSupported reports whether measure m has an exact expected
// value over random tie orders (Options.Ties = TiesAverage): ndcg, dcg
// (linear in the gain at each rank: every rank gets its tie group's mean
// gain), p, r (likewise for the relevance indicator), map (expectedAPSum),
// err (ExpectedERR), hr (expectedHit), mrr (expectedRR) and pc (order-free).
// The graded measures, tau_prime, rp/rr and the run-level cc/ltp are not
// supported.
func AverageTiesSupported(m Measure) bool {
	switch m.fam.k {
	case kNDCG, kDCG, kP, kR, kMAP, kERR, kHR, kMRR, kPC:
		return true
	}
	return false
}

const averageTiesList = "ndcg, dcg, p, r, map, err, hr, mrr and pc"

// reorderTies returns copies of the runs whose tied documents (equal score)
// are ordered by grade, descending for TiesOptimistic and ascending for
// TiesPessimistic, docid descending within equal grades.
func reorderTies(q *Qrels, runs []*Run, t Ties) []*Run {
	out := make([]*Run, len(runs))
	for ri, r := range runs {
		nr := *r
		nr.ranking = make(map[string][]Entry, len(r.ranking))
		for qid, es := range r.ranking {
			judged := q.grades[qid]
			es = slices.Clone(es)
			slices.SortStableFunc(es, func(a, b Entry) int {
				if c := cmp.Compare(b.Score, a.Score); c != 0 {
					return c
				}
				ga, gb := judged[a.Doc], judged[b.Doc]
				if t == TiesOptimistic {
					return cmp.Compare(gb, ga)
				}
				return cmp.Compare(ga, gb)
			})
			nr.ranking[qid] = es
		}
		out[ri] = &nr
	}
	return out
}

// relevant reports whether a document is relevant for the binary measures:
// it is judged (judged is false for a retrieved document absent from the
// qrels), its grade is not negative (trec_eval's unjudged markers) and the
// grade is >= level. So with level <= 0 an unjudged document is never
// relevant, as in trec_eval -l 0 (form_res_rels.c gives unjudged documents
// RELVALUE_NONPOOL = -1 and counts only grades >= 0 in num_rel).
func relevant(grade float64, judged bool, level float64) bool {
	return judged && grade >= 0 && grade >= level
}

// queryData is one query's ranking joined with its judgments; its slices
// are reused from query to query.
type queryData struct {
	groups   []int // tie groups of the ranking (TiesAverage only)
	ranking  []Entry
	grades   []float64 // grade of each retrieved document (0 if unjudged or negative)
	rel      []bool    // each retrieved document is relevant (see relevant)
	gains    []float64 // gain of each retrieved document (0 if unjudged or negative)
	ideal    []float64 // gains of all judged documents, decreasing
	numRel   int       // judged documents with grade >= RelevantFrom
	judged   map[string]float64
	relTerms []string // judged documents with grade >= RelevantFrom (relaxed P/R)
	relDone  bool
}

func (d *queryData) load(judged map[string]float64, ranking []Entry, opts Options) {
	d.ranking = ranking
	d.judged = judged
	d.grades = d.grades[:0]
	d.rel = d.rel[:0]
	d.gains = d.gains[:0]
	for _, e := range ranking {
		gr, ok := judged[e.Doc]
		d.rel = append(d.rel, relevant(gr, ok, opts.RelevantFrom))
		if !ok || gr < 0 {
			d.grades = append(d.grades, 0)
			d.gains = append(d.gains, 0)
			continue
		}
		d.grades = append(d.grades, gr)
		d.gains = append(d.gains, opts.Gain(gr))
	}
	d.ideal = d.ideal[:0]
	d.numRel = 0
	for _, gr := range judged {
		if gr < 0 {
			d.ideal = append(d.ideal, 0)
			continue
		}
		d.ideal = append(d.ideal, opts.Gain(gr))
		if relevant(gr, true, opts.RelevantFrom) {
			d.numRel++
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(d.ideal)))
	d.relDone = false
	d.groups = d.groups[:0]
	if opts.Ties == TiesAverage {
		d.groups = appendTieGroups(d.groups, len(ranking), func(i, j int) bool { return ranking[i].Score == ranking[j].Score })
	}
}

// scoreAverage computes a measure of AverageTiesSupported as its expected
// value over random orders of the tie groups.
func (d *queryData) scoreAverage(m Measure, opts Options) float64 {
	k := m.K
	if k == 0 {
		k = opts.Cutoff
	}
	n := cutoff(k, len(d.gains))
	// Relevance as everywhere else (relevant: judged, grade >= 0 and >=
	// the level), so that --relevant-from 0 never counts an unjudged
	// document under any tie rule.
	rel := d.rel
	switch m.fam.k {
	case kNDCG:
		return GradedNDCG(groupMeans(d.gains, d.groups), d.ideal, k, opts.Discount)
	case kDCG:
		return GradedDCG(groupMeans(d.gains, d.groups), k, opts.Discount)
	case kMAP:
		if d.numRel == 0 {
			return 0
		}
		return expectedAPSum(rel, d.groups, n) / float64(d.numRel)
	case kP, kR:
		relF := make([]float64, len(rel))
		for i, r := range rel {
			if r {
				relF[i] = 1
			}
		}
		hits := 0.0
		for _, v := range groupMeans(relF, d.groups)[:n] {
			hits += v
		}
		if m.fam.k == kP {
			return hits / float64(m.K)
		}
		if d.numRel == 0 {
			return 0
		}
		return hits / float64(d.numRel)
	case kHR:
		return expectedHit(rel, d.groups, n)
	case kMRR:
		return expectedRR(rel, d.groups, n)
	case kERR:
		stops := make([]float64, len(d.grades))
		for i, g := range d.grades {
			stops[i] = errStop(g)
		}
		return expectedERR(stops, d.groups, n)
	case kPC:
		if len(d.ranking) > 0 {
			return 1
		}
		return 0
	}
	return math.NaN()
}

// relevantTerms returns the relevant documents of the query, sorted.
func (d *queryData) relevantTerms(opts Options) []string {
	if !d.relDone {
		d.relTerms = d.relTerms[:0]
		for doc, gr := range d.judged {
			if relevant(gr, true, opts.RelevantFrom) {
				d.relTerms = append(d.relTerms, doc)
			}
		}
		sort.Strings(d.relTerms)
		d.relDone = true
	}
	return d.relTerms
}

// score computes a per-query measure.
func (d *queryData) score(m Measure, opts Options) float64 {
	if opts.Ties == TiesAverage {
		return d.scoreAverage(m, opts)
	}
	k := m.K
	if k == 0 {
		k = opts.Cutoff
	}
	n := cutoff(k, len(d.gains))
	rel := func(i int) bool { return d.rel[i] }
	switch m.fam.k {
	case kNDCG:
		return GradedNDCG(d.gains, d.ideal, k, opts.Discount)
	case kDCG:
		return GradedDCG(d.gains, k, opts.Discount)
	case kMAP:
		// trec_eval map (map_cut.k with a cutoff): precision at each
		// relevant rank, summed and divided by the judged relevant count.
		if d.numRel == 0 {
			return 0
		}
		hits, s := 0, 0.0
		for i := 0; i < n; i++ {
			if rel(i) {
				hits++
				s += float64(hits) / float64(i+1)
			}
		}
		return s / float64(d.numRel)
	case kP, kR, kHR:
		hits := 0
		for i := 0; i < n; i++ {
			if rel(i) {
				hits++
			}
		}
		switch m.fam.k {
		case kP: // trec_eval P.k: divided by k even if fewer were retrieved
			return float64(hits) / float64(m.K)
		case kR:
			if d.numRel == 0 {
				return 0
			}
			return float64(hits) / float64(d.numRel)
		}
		if hits > 0 {
			return 1
		}
		return 0
	case kMRR:
		for i := 0; i < n; i++ {
			if rel(i) {
				return 1 / float64(i+1)
			}
		}
		return 0
	case kERR:
		return ERR(d.grades, k)
	case kPC:
		if len(d.ranking) > 0 {
			return 1
		}
		return 0
	case kRP, kRR:
		found := make([]string, n)
		for i := 0; i < n; i++ {
			found[i] = d.ranking[i].Doc
		}
		p, r := RelaxedPR(found, d.relevantTerms(opts), opts.Hierarchy, opts.Proximity)
		if m.fam.k == kRP {
			return p
		}
		return r
	}
	gains := d.gains[:n]
	switch m.fam.k {
	case kAWP:
		return AWP(gains, d.ideal)
	case kAWDP:
		return AWDP(gains, d.ideal, opts.Discount)
	case kQ:
		return QMeasure(gains, d.ideal, opts.Beta)
	case kGenAveP:
		return GenAveP(gains, d.ideal)
	case kANCG:
		return ANCG(gains, d.ideal)
	case kANDCG:
		return ANDCG(gains, d.ideal, opts.Discount)
	case kGenAvePPrime:
		return GenAvePPrime(gains, d.ideal)
	default: // kTauPrime, the last family
		return TauPrime(gains, d.ideal)
	}
}

// checkGains reports a judged grade whose gain is not finite (2^g-1
// overflows for grades above 1023), which would make the normalised
// measures undefined.
func checkGains(q *Qrels, gain GainFunc) error {
	done := map[float64]bool{}
	for _, qid := range q.ids {
		for doc, g := range q.grades[qid] {
			if done[g] || g < 0 {
				continue
			}
			done[g] = true
			if v := gain(g); math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("qrels: grade %v (query %q, document %q) has the gain %v; use a smaller grade or another --gain", g, qid, doc, v)
			}
		}
	}
	return nil
}
