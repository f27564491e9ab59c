package features

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/lovbench/lovbench/internal/par"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/internal/textio"
)

// Pair is one (query, term) pair to score. Term is a full URI or a prefixed
// name; Line is its line in the input (for error messages, 0 if none).
type Pair struct {
	Query string
	Term  string
	Line  int
}

// UnknownPolicy says what Extract does with a pair whose term is not in the
// corpus.
type UnknownPolicy int

const (
	// UnknownError fails with an error naming the first unknown term's
	// line and the number of unknown terms.
	UnknownError UnknownPolicy = iota
	// UnknownZero writes the row with every term-dependent feature 0 (only
	// Query_Length_Q is computed) and counts it in the report.
	UnknownZero
	// UnknownSkip leaves the pair out and counts it in the report.
	UnknownSkip
)

// unknownPolicyNames are the policies' names, in UnknownPolicy order.
var unknownPolicyNames = [...]string{UnknownError: "error", UnknownZero: "zero", UnknownSkip: "skip"}

// String returns the policy's name as ParseUnknownPolicy reads it.
func (p UnknownPolicy) String() string {
	if p >= 0 && int(p) < len(unknownPolicyNames) {
		return unknownPolicyNames[p]
	}
	return fmt.Sprintf("UnknownPolicy(%d)", int(p))
}

// ParseUnknownPolicy parses "error", "zero" or "skip" (lovbench features
// --unknown).
func ParseUnknownPolicy(s string) (UnknownPolicy, error) {
	for p, name := range unknownPolicyNames {
		if s == name {
			return UnknownPolicy(p), nil
		}
	}
	return 0, fmt.Errorf("unknown-term policy %q: want error, zero or skip", s)
}

// ExtractOptions controls Extract.
type ExtractOptions struct {
	// Features are the feature IDs to compute, in output order; nil means
	// all of 1..34 (the 33 features + the LabelSearch baseline, 34).
	Features []int
	// Workers is the number of goroutines (default GOMAXPROCS). The output
	// does not depend on it.
	Workers int
	// Unknown is the policy for terms not in the corpus.
	Unknown UnknownPolicy
	// Source names the pairs input in error messages.
	Source string
	// Progress configures the progress bar (one step per distinct query).
	Progress progress.Options
}

// Row is one output row: the query, the term's full URI and the values of
// the requested features.
type Row struct {
	Query  string
	Term   string
	Values []float64
}

// Table is the result of Extract: Features (IDs) names the columns of
// every Row's Values.
type Table struct {
	Features []int
	Rows     []Row
	// Origin is how the table was computed: Extract sets the semantics
	// and the corpus digest, the caller the program version.
	// WriteParquet records it in the file's key-value metadata.
	Origin Origin
}

// ExtractReport counts what Extract did.
type ExtractReport struct {
	// Pairs read, Rows written, distinct Queries.
	Pairs, Rows, Queries int
	// Unknown counts pairs whose term is not in the corpus (written as
	// zero rows or skipped, depending on the policy).
	Unknown int
	// UnknownExamples holds up to 10 unknown terms as given, with lines;
	// UnknownReason says why the first is unknown (UnknownTermReason).
	UnknownExamples []string
	UnknownReason   string
}

// Extract computes the requested features for every pair. Rows come out in
// input order (minus skipped pairs); the values do not depend on
// opts.Workers. Query-dependent features are computed once per distinct
// query and vocabulary.
func (c *Corpus) Extract(ctx context.Context, pairs []Pair, opts ExtractOptions) (*Table, ExtractReport, error) {
	feats := opts.Features
	if feats == nil {
		feats = AllFeatures()
	}
	for _, f := range feats {
		if f < 1 || f > numFeatures {
			return nil, ExtractReport{}, fmt.Errorf("unknown feature ID %d (want 1-%d)", f, numFeatures)
		}
	}
	rep := ExtractReport{Pairs: len(pairs)}
	src := opts.Source
	if src == "" {
		src = "pairs"
	}
	termIdx := make([]int32, len(pairs))
	uris := make([]string, len(pairs))
	firstErr, firstReason := "", ""
	for i, p := range pairs {
		uri, ok := c.Resolve(p.Term)
		uris[i] = uri
		if ok {
			termIdx[i] = c.termIdx[uri]
			continue
		}
		termIdx[i] = -1
		rep.Unknown++
		where := fmt.Sprintf("%s:%d: field term: %s", src, p.Line, textio.Quote(p.Term))
		if firstErr == "" {
			firstErr, firstReason = where, c.UnknownTermReason(p.Term)
			rep.UnknownReason = firstReason
		}
		if len(rep.UnknownExamples) < 10 {
			rep.UnknownExamples = append(rep.UnknownExamples, where)
		}
	}
	if rep.Unknown > 0 && opts.Unknown == UnknownError {
		return nil, rep, fmt.Errorf("%s: %s (%d of %d pairs have terms not in the corpus; use the zero or skip policy to keep going)", firstErr, firstReason, rep.Unknown, len(pairs))
	}
	// Group pairs by query.
	byQuery := make(map[string][]int)
	var queries []string
	for i, p := range pairs {
		if _, ok := byQuery[p.Query]; !ok {
			queries = append(queries, p.Query)
		}
		byQuery[p.Query] = append(byQuery[p.Query], i)
	}
	rep.Queries = len(queries)
	values := make([]float64, len(pairs)*len(feats))
	bar := progress.New(opts.Progress, int64(len(queries)), "features")
	var mu sync.Mutex
	err := par.Each(ctx, len(queries), opts.Workers, func(_ context.Context, k int) error {
		q := queries[k]
		qs := c.newQueryState(q, feats)
		for _, i := range byQuery[q] {
			qs.row(termIdx[i], values[i*len(feats):(i+1)*len(feats)])
		}
		mu.Lock()
		bar.Add(1)
		mu.Unlock()
		return nil
	})
	bar.Finish()
	if err != nil {
		return nil, rep, err
	}
	tab := &Table{Features: append([]int(nil), feats...), Rows: make([]Row, 0, len(pairs)), Origin: Origin{Semantics: c.sem, CorpusSHA256: c.digest}}
	for i, p := range pairs {
		if termIdx[i] < 0 && opts.Unknown == UnknownSkip {
			continue
		}
		tab.Rows = append(tab.Rows, Row{Query: p.Query, Term: uris[i], Values: values[i*len(feats) : (i+1)*len(feats) : (i+1)*len(feats)]})
	}
	rep.Rows = len(tab.Rows)
	return tab, rep, nil
}

// queryState holds what one query needs, computed once: its words, the
// match set sigma_t(Q) and, lazily, the per-vocabulary aggregates.
type queryState struct {
	c        *Corpus
	feats    []int
	ids      []int32 // distinct known words
	counts   []int   // f(q_i, Q)
	distinct int     // distinct words, known or not
	byVocab  map[int32][]int32
	vocabAgg map[int32]*vocabAgg
	wq       []float64 // tf-idf_Q of each word, equation (10)
	wqNorm   float64
	rq       *refQuery // the query under SemanticsReference, else nil
}

// vocabAgg holds the query-dependent ontology features of one (Q, O).
type vocabAgg struct {
	v [numFeatures + 1]float64
}

func (c *Corpus) newQueryState(q string, feats []int) *queryState {
	qs := &queryState{c: c, feats: feats, vocabAgg: make(map[int32]*vocabAgg)}
	qs.ids, qs.counts, qs.distinct = c.queryWords(q)
	match := c.matchSet
	if c.ref != nil {
		qs.rq = c.newRefQuery(q)
	}
	if !slices.ContainsFunc(feats, isOntologyFeature) {
		return qs
	}
	qs.byVocab = make(map[int32][]int32)
	if qs.rq != nil {
		// Reference semantics: sigma_t(Q, O) holds entries, the terms
		// typed in O's graph (refentry.go).
		for _, e := range qs.rq.all {
			if en := &c.ref.ent[e]; en.typed() {
				qs.byVocab[en.vocab] = append(qs.byVocab[en.vocab], e)
			}
		}
		return qs
	}
	for _, t := range match(qs.ids) {
		v := c.terms[t].vocab
		qs.byVocab[v] = append(qs.byVocab[v], t)
	}
	if !qs.wants(FeatVSMO) || qs.rq != nil {
		return qs
	}
	// Equation (10): tf-idf_Q(q_i) = f(q_i,Q)/max_j f(q_j,Q) *
	// log(|R| / |{O : some term of O matches q_i}|); 0 if no vocabulary
	// matches q_i.
	maxF := 0
	for _, n := range qs.counts {
		if n > maxF {
			maxF = n
		}
	}
	qs.wq = make([]float64, len(qs.ids))
	for i, w := range qs.ids {
		vs := make(map[int32]bool)
		for _, t := range c.matchPost[w] {
			vs[c.terms[t].vocab] = true
		}
		if len(vs) > 0 {
			qs.wq[i] = float64(qs.counts[i]) / float64(maxF) * math.Log(float64(len(c.vocabs))/float64(len(vs)))
		}
		qs.wqNorm += qs.wq[i] * qs.wq[i]
	}
	qs.wqNorm = math.Sqrt(qs.wqNorm)
	return qs
}

// isOntologyFeature reports whether f is computed per (Q, O) by agg.
func isOntologyFeature(f int) bool {
	switch f {
	case FeatLOVMatchO, FeatClassMatch, FeatPropertyMatch, FeatBetweennessO, FeatSemanticSimilarity,
		FeatTFO, FeatIDFO, FeatTFIDFO, FeatBM25O, FeatVSMO, FeatDensityO:
		return true
	}
	return false
}

// agg returns the (Q, O) aggregates, computing them on first use.
func (qs *queryState) agg(v int32) *vocabAgg {
	if a, ok := qs.vocabAgg[v]; ok {
		return a
	}
	c := qs.c
	vr := &c.vocabs[v]
	a := &vocabAgg{}
	sig := qs.byVocab[v] // sigma_t(Q, O)
	if qs.rq != nil {
		c.refAgg(qs, v, sig, a)
		qs.vocabAgg[v] = a
		return a
	}
	var classes []int32 // sigma_c(Q, O)
	for _, t := range sig {
		tr := &c.terms[t]
		a.v[FeatTFO] += tr.qi[FeatTFT]       // feature 20
		a.v[FeatIDFO] += tr.qi[FeatIDFT]     // feature 21
		a.v[FeatTFIDFO] += tr.qi[FeatTFIDFT] // feature 22
		a.v[FeatBM25O] += tr.qi[FeatBM25T]   // feature 24
		if tr.kind == Class {
			classes = append(classes, t)
			a.v[FeatBetweennessO] += tr.qi[FeatBetweennessT]
			a.v[FeatDensityO] += tr.qi[FeatDensityT]
		}
	}
	if len(classes) > 0 {
		a.v[FeatBetweennessO] /= float64(len(classes)) // feature 15
		a.v[FeatDensityO] /= float64(len(classes))     // feature 31
	}
	if qs.wants(FeatSemanticSimilarity) {
		a.v[FeatSemanticSimilarity] = semanticSimilarity(c, vr.og, classes)
	}
	// Features 5 and 6: sum over query words of alpha*|exact| + beta*|partial|.
	for _, w := range qs.ids {
		cm, pm := vr.classMatch[w], vr.propMatch[w]
		a.v[FeatClassMatch] += matchAlpha*float64(cm[0]) + matchBeta*float64(cm[1])
		a.v[FeatPropertyMatch] += matchAlpha*float64(pm[0]) + matchBeta*float64(pm[1])
	}
	// Feature 25, equation (9).
	if qs.wq != nil && vr.tfidfNorm > 0 && qs.wqNorm > 0 {
		var num float64
		for i, w := range qs.ids {
			var s float64
			for _, t := range sig {
				if c.terms[t].hasWord(w) {
					s += c.terms[t].qi[FeatTFIDFT]
				}
			}
			num += s * qs.wq[i]
		}
		a.v[FeatVSMO] = num / (vr.tfidfNorm * qs.wqNorm)
	}
	a.v[FeatLOVMatchO] = c.vocabText.score(int(v), qs.ids) // feature 3
	qs.vocabAgg[v] = a
	return a
}

func (qs *queryState) wants(f int) bool { return slices.Contains(qs.feats, f) }

// semanticSimilarity is feature 16: the mean of ssm(c_i, c_j) (equation
// (6)) over the unordered pairs i < j of matched classes, with ssm = 1 /
// (shortest undirected path length in G(O)) and 0 when no path exists. A
// single matched class gives 1 (the i = j case of equation (6)); none gives 0.
func semanticSimilarity(c *Corpus, og *ontGraph, classes []int32) float64 {
	nodes := make([]int32, len(classes))
	for i, t := range classes {
		nodes[i] = c.terms[t].node
	}
	return meanPairScore(og, nodes, func(d uint16) float64 {
		if d == 0 {
			return 0
		}
		return 1 / float64(d)
	})
}

// meanPairScore is the mean of score(d) over the unordered pairs of
// classes, given as their nodes in og (-1: no node), d the hop count
// between the two: a pair without a path, or with a class that is no node
// of og, adds 0 but counts as a pair. One class gives 1, none 0.
func meanPairScore(og *ontGraph, nodes []int32, score func(d uint16) float64) float64 {
	switch len(nodes) {
	case 0:
		return 0
	case 1:
		return 1
	}
	var sum float64
	for i := 0; i < len(nodes); i++ {
		if nodes[i] < 0 {
			continue
		}
		row := og.paths.row(nodes[i])
		for j := i + 1; j < len(nodes); j++ {
			if nodes[j] < 0 {
				continue
			}
			if d := row[nodes[j]]; d != unreachable {
				sum += score(d)
			}
		}
	}
	pairs := len(nodes) * (len(nodes) - 1) / 2
	return sum / float64(pairs)
}

// hasWord reports whether w is among the term's match words.
func (t *termRec) hasWord(w int32) bool {
	i := sort.Search(len(t.match), func(i int) bool { return t.match[i] >= w })
	return i < len(t.match) && t.match[i] == w
}

// row fills out with the requested features of term t (-1: unknown term).
func (qs *queryState) row(t int32, out []float64) {
	c := qs.c
	if t < 0 {
		for i, f := range qs.feats {
			out[i] = 0
			if f == FeatQueryLength {
				out[i] = float64(qs.distinct)
				if qs.rq != nil {
					out[i] = float64(len(qs.rq.words))
				}
			}
		}
		return
	}
	tr := &c.terms[t]
	ont := tr.vocab // the ontology of the term
	if qs.rq != nil {
		ont = c.ref.ontology[t]
	}
	vr := &vocabRec{} // paper: a term always has its vocabulary
	switch {
	case ont >= 0:
		vr = &c.vocabs[ont]
	case qs.rq != nil:
		vr = &c.ref.noGraph // a Java ontology that is no graph of the corpus
	}
	var a *vocabAgg
	matched := 0 // feature 4: query words matching the term
	if qs.rq != nil {
		matched = int(c.refTextRelevancy(qs.rq, t))
	} else {
		for _, w := range qs.ids {
			if tr.hasWord(w) {
				matched++
			}
		}
	}
	for i, f := range qs.feats {
		var x float64
		switch f {
		case FeatBooleanMatch:
			if qs.rq != nil {
				x = c.refBooleanMatch(qs.rq, t)
			} else if matched > 0 {
				x = 1
			}
		case FeatLOVMatchT:
			x = c.lovScore(int(t), qs.ids)
			if qs.rq != nil {
				x = qs.refSearch(f)[t]
			}
		case FeatTextRelevancy:
			x = float64(matched)
		case FeatQueryLength:
			x = float64(qs.distinct)
			if qs.rq != nil {
				x = float64(len(qs.rq.words)) // QueryLength.java: the words of TermQuery
			}
		case FeatTFT, FeatTFIDFT, FeatBM25T:
			x = tr.qi[f]
			if qs.rq != nil {
				x = c.ref.termWeight(f, t)
			}
		case FeatPageRankOwlImports, FeatPageRankImplicit, FeatPageRankVoaf, FeatMaxHub, FeatMinHub:
			x = vr.qi[f]
		case FeatHub, FeatBetweennessT, FeatIDFT, FeatSubclasses,
			FeatSuperclasses, FeatRelations, FeatSiblings, FeatDensityT, FeatSubproperties, FeatSuperproperties:
			x = tr.qi[f]
		case FeatLabelSearch:
			x = c.fields[fieldLabel].score(int(t), qs.ids)
			if qs.rq != nil {
				if qs.rq.search.toks == nil {
					qs.rq.search.toks = c.queryTokens(qs.rq.q)
				}
				x = c.refLabelSearch(qs.rq.search.toks, t)
			}
		default: // query-dependent ontology features
			if a == nil {
				a = &vocabAgg{}
				if ont >= 0 {
					a = qs.agg(ont)
				}
			}
			x = a.v[f]
		}
		out[i] = x
	}
}

// lovScore is feature 2, LOV's Elasticsearch multi_match (type best_fields,
// tie_breaker 0): the maximum over the term's text fields of the field boost
// times the field's BM25 score.
func (c *Corpus) lovScore(t int, ids []int32) float64 {
	var best float64
	for f := 0; f < numFields; f++ {
		if s := fieldBoost(f) * c.fields[f].score(t, ids); s > best {
			best = s
		}
	}
	return best
}
