package features

import (
	"fmt"
	"index/suffixarray"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// This file holds the reference semantics (SemanticsReference) of the
// query-match and RDF-graph text features 1, 4-7, 17-25: what LOVBench's
// Java code computes (github.com/nut-hatch/LOVBench, lovbench-dataset/), quirks included.
// The package comment lists the quirks; docs/features.md gives, feature by
// feature, both semantics and the Java class read.

// refIndex holds what the reference semantics need beyond the shared
// corpus index. It is nil for a corpus built with the paper semantics.
type refIndex struct {
	// ontology is the Java "ontology of a term" (LOVPrefixes.
	// getOntologyUriOfTermUri) as a vocabulary index, -1 when that
	// ontology is no graph of the corpus.
	ontology []int32
	// typedInOnt: the term is typed as a class or property in the graph
	// of its Java ontology.
	typedInOnt []bool
	// prefixes are the term prefixes of each vocabulary (Java: Prefix.
	// termPrefix and alternativeTermPrefix), sorted.
	prefixes [][]string
	// ent are the entries (refentry.go): each term as the graph of each
	// vocabulary typing it sees it, sorted by term then vocabulary; term
	// t's are ent[entStart[t]:entStart[t+1]], ontEntry[t] the one in its
	// Java ontology (-1 if none), entByVocab the typed ones per vocabulary.
	ent        []refEntry
	entStart   []int32
	ontEntry   []int32
	entByVocab [][]int32
	// text is the lower-cased match text of every entry: the term's local
	// name (after the last '/' or '#') then the values of the nine LOV
	// match properties in the entry's graph, each followed by NUL. Entry
	// e's text is text[starts[e]:starts[e+1]]; its local name ends at
	// localEnd[e].
	text     []byte
	starts   []int32
	localEnd []int32
	// sa indexes text for the word lookups (refWord); it is built by the
	// first lookup (suffixArray), so a corpus whose reference features are
	// never extracted (a command that only searches or samples) does not
	// pay for it.
	saOnce sync.Once
	sa     *suffixarray.Index
	// vocabFields are the prefix, dcterms:title and dcterms:description
	// of the vocabularies (feature 3); literals indexes every distinct
	// literal (feature 34), termLiterals the literals of each term.
	vocabFields  [3]*fieldIndex
	literals     *fieldIndex
	termLiterals [][]int32
	// labels are each entry's rdfs:label values in its graph, lower-cased
	// (features 5-6).
	labels [][]string
	// noGraph stands for a Java ontology of a term that is no graph of the
	// corpus: the repository has no triple and no term of it, so every
	// ontology feature is 0 but Min_Hub_O, which HubDWRankScorer.java
	// starts at Double.MAX_VALUE (line 69) and lowers only in its loop over
	// the ontology's terms (none).
	noGraph vocabRec
	// tf, tfidf and bm25 are features 17, 19 and 23 of each term in its
	// Java ontology (equal to the qi values when that ontology is the
	// defining vocabulary).
	tf, tfidf, bm25 []float64

	mu    sync.Mutex
	words map[string]*refWord
}

// refWord is what one query word (lower-cased) matches, computed once per
// distinct word and shared by every query containing it.
type refWord struct {
	entries []int32 // sorted entries whose local name or match values contain the word
	// ontologies is the number of vocabularies whose graph types a
	// matching term (LOVRepository.getQueryMatch: the denominator of
	// VSMOntology's idf).
	ontologies int
	// tfidf sums tf(t, O)·idf(t) of the matching terms typed in each
	// vocabulary O (VSMOntology).
	tfidf map[int32]float64
	// byVocab lists the matching typed entries per vocabulary.
	byVocab map[int32][]int32
}

// javaSplitSpace splits like Java's String.split(" ") (TermQuery.java:
// `queryString.split(" ")`): on every single space, keeping empty words
// between consecutive spaces and dropping trailing empty words; "" gives
// one empty word.
func javaSplitSpace(q string) []string {
	if q == "" {
		return []string{""}
	}
	parts := strings.Split(q, " ")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// javaLocalName is LOVPrefixes.getLocalName: the part after the last '/'
// or '#' (empty when the IRI ends with one).
func javaLocalName(iri string) string {
	return iri[strings.LastIndexAny(iri, "/#")+1:]
}

// bm25SizeRatio is |O| / avgos(R) of equation (8) for a vocabulary of size
// triples in a corpus of total triples over n vocabularies. Paper: the
// ratio of triple counts. Reference (LOVRepository.ontologySize and
// averageOntologySize): both sizes are COUNT(?s)*3, and the average is an
// integer division, so 3|O| / floor(3*total/n).
func bm25SizeRatio(sem Semantics, size int, total float64, n int) float64 {
	if sem == SemanticsReference {
		return 3 * float64(size) / math.Floor(3*total/float64(n))
	}
	return float64(size) / (total / float64(n))
}

// bm25Term is equation (8) as printed and as BM25Term.java computes it:
// idf * (tf*k + 1) / (tf + k*(1 - b + b*ratio)).
func bm25Term(idf, tf, ratio float64) float64 {
	return idf * (tf*bm25K + 1) / (tf + bm25K*(1-bm25B+bm25B*ratio))
}

// reference builds the refIndex (reference semantics only): the Java
// ontology of every term, the substring-match text and its suffix array,
// and features 17, 19 and 23 in the Java ontology.
func (bd *build) reference() error {
	c := bd.c
	if c.sem != SemanticsReference {
		return nil
	}
	ri := &refIndex{words: make(map[string]*refWord)}
	ri.noGraph.qi[FeatMinHub] = math.MaxFloat64
	c.ref = ri
	bd.refOntologies(ri)
	bd.refClasses, bd.refProps = make([]map[int32]bool, len(c.vocabs)), make([]map[int32]bool, len(c.vocabs))
	for v := range c.vocabs {
		bd.refClasses[v], bd.refProps[v] = bd.refTyped(bd.vocabGraph[v])
	}
	bd.refEntries(ri, bd.refClasses, bd.refProps)
	bd.refEntryText(ri)
	bd.refTermWeights(ri)
	bd.refSearchIndexes(ri)
	return nil
}

// refOntologies computes the Java ontology of every term
// (LOVPrefixes.getOntologyUriOfTermUri): among the vocabularies whose term
// prefix (vann:preferredNamespaceUri, rdfa:uri or the LOV prefix file's
// termPrefix, owned by the vocabulary as in Build) starts the term's URI,
// the one with the longest vocabulary URI; otherwise the URI up to its
// last '/' or '#', which must then be the name of a graph.
//
// A namespace declared inside a vocabulary's graph belongs to that
// vocabulary; one declared in a metadata graph to the vocabulary whose URI
// is the declaring subject (LOV's voaf graph), else to the vocabulary
// owning the namespace (Build's model). A vocabulary without any declared
// namespace takes the namespaces its terms use: the Java needs every
// vocabulary in its prefix table, and LOV declares one for each.
func (bd *build) refOntologies(ri *refIndex) {
	b, c := bd.b, bd.c
	// A candidate: a term prefix of a vocabulary (vocab -1: a LOV
	// vocabulary that is no graph of the corpus) whose URI has uriLen bytes.
	type cand struct {
		prefix string
		vocab  int32
		uriLen int
	}
	type key struct {
		prefix string
		vocab  int32
	}
	seen := make(map[key]bool)
	var cands []cand
	add := func(ns string, v int32, uriLen int) {
		if ns != "" && !seen[key{ns, v}] {
			seen[key{ns, v}] = true
			cands = append(cands, cand{ns, v, uriLen})
		}
	}
	graphVocab := make(map[string]int32, len(c.vocabs))
	for v := range c.vocabs {
		graphVocab[c.vocabs[v].uri] = int32(v)
	}
	for gi, ts := range b.gtriples {
		for _, t := range ts {
			if p := b.nodes[t.p].Value; p != iriVannURI && p != iriRDFaURI {
				continue
			}
			ns := b.nodes[t.o].Value
			v := bd.graphVocab[gi]
			if v < 0 {
				var ok bool
				if v, ok = graphVocab[b.nodes[t.s].Value]; !ok {
					v = bd.vocabOf(ns)
				}
			}
			if v >= 0 {
				add(ns, v, len(c.vocabs[v].uri))
			}
		}
	}
	// The LOV prefix file: by vocabulary URI when the file gives one, a
	// vocabulary outside the corpus included (its terms then have an
	// ontology that is no graph, as in the Java).
	for _, lv := range b.lovVocabs {
		switch v, ok := graphVocab[lv.uri]; {
		case ok:
			add(lv.prefix, v, len(lv.uri))
		case lv.uri != "":
			add(lv.prefix, -1, len(lv.uri))
		default:
			if v := bd.vocabOf(lv.prefix); v >= 0 {
				add(lv.prefix, v, len(c.vocabs[v].uri))
			}
		}
	}
	declared := make([]bool, len(c.vocabs))
	for _, cd := range cands {
		if cd.vocab >= 0 {
			declared[cd.vocab] = true
		}
	}
	var undeclared []cand
	for ti := range c.terms {
		v := c.terms[ti].vocab
		if ns := namespaceOf(c.terms[ti].uri); !declared[v] && ns != "" && !seen[key{ns, v}] {
			seen[key{ns, v}] = true
			undeclared = append(undeclared, cand{ns, v, len(c.vocabs[v].uri)})
		}
	}
	cands = append(cands, undeclared...)
	// Corpus vocabularies first, by URI order, then foreign ones.
	sort.SliceStable(cands, func(i, j int) bool {
		vi, vj := uint32(cands[i].vocab), uint32(cands[j].vocab) // -1 sorts last
		if vi != vj {
			return vi < vj
		}
		return cands[i].prefix < cands[j].prefix
	})
	ri.prefixes = make([][]string, len(c.vocabs))
	for _, cd := range cands {
		if cd.vocab >= 0 {
			ri.prefixes[cd.vocab] = append(ri.prefixes[cd.vocab], cd.prefix)
		}
	}
	ri.ontology = make([]int32, len(c.terms))
	ri.typedInOnt = make([]bool, len(c.terms))
	for ti := range c.terms {
		uri := c.terms[ti].uri
		best, bestLen, bestPrefix := int32(-1), -1, ""
		for _, cd := range cands {
			// Longest ontology URI wins; ties (a Java HashMap order) go to
			// the first vocabulary by URI.
			if strings.HasPrefix(uri, cd.prefix) && cd.uriLen > bestLen {
				best, bestLen, bestPrefix = cd.vocab, cd.uriLen, cd.prefix
			}
		}
		rule := fmt.Sprintf("term prefix %s, the one with the longest vocabulary URI among the prefixes starting the term (LOVPrefixes.getOntologyUriOfTermUri)", bestPrefix)
		if bestLen < 0 {
			rule = "no term prefix starts the term: its URI up to the last '/' or '#' (LOVPrefixes.getOntologyUriOfTermUri)"
			if i := strings.LastIndexAny(uri, "/#"); i > 0 {
				if v, ok := graphVocab[uri[:i]]; ok {
					best = v
				}
			}
		}
		if bd.traced(int32(ti)) {
			if best < 0 {
				rule += "; that ontology is no graph of the corpus"
			}
			bd.note(0, "ontology: %s", rule)
		}
		ri.ontology[ti] = best
		if best >= 0 {
			node := bd.nodeOfTerm(int32(ti))
			_, ri.typedInOnt[ti] = bd.typedIn[node][bd.vocabGraph[best]]
		}
	}
}

// refTermWeights computes TF, TF-IDF and BM25 the way TFIDFScorer and
// BM25Term/BM25Ontology do. tf(t, O) = 0.5 + 0.5*f(t,O)/max when t starts
// with a term prefix of O and occurs in O's graph, else 0 (the frequency
// table of O only holds LOVRepository.getAllTerms(O): terms typed in O
// under O's term prefix); max is taken over those terms. The qi values
// (used by the ontology features 20-25) are each term's values in its
// defining vocabulary; ri.tf, ri.tfidf and ri.bm25 (features 17, 19, 23)
// its values in its Java ontology, with tf 0 and size 0 when that ontology
// is no graph.
func (bd *build) refTermWeights(ri *refIndex) {
	b, c := bd.b, bd.c
	n := len(c.terms)
	ri.tf = make([]float64, n)
	ri.tfidf = make([]float64, n)
	ri.bm25 = make([]float64, n)
	var total float64
	for _, v := range c.vocabs {
		total += float64(v.size)
	}
	occ := make([]map[int32]int, len(c.vocabs))
	for v := range c.vocabs {
		m := make(map[int32]int)
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			m[t.s]++
			if t.p != t.s {
				m[t.p]++
			}
			if t.o != t.s && t.o != t.p {
				m[t.o]++
			}
		}
		occ[v] = m
	}
	underPrefix := func(ti, v int32) bool { return ri.underPrefix(c.terms[ti].uri, v) }
	maxF := make([]int, len(c.vocabs))
	for v := range c.vocabs {
		for _, ti := range c.vocabs[v].terms {
			if underPrefix(ti, int32(v)) {
				maxF[v] = max(maxF[v], occ[v][bd.nodeOfTerm(ti)])
			}
		}
	}
	tfIn := func(ti, v int32) float64 {
		if f := occ[v][bd.nodeOfTerm(ti)]; f > 0 && underPrefix(ti, v) {
			return 0.5 + 0.5*float64(f)/float64(max(maxF[v], f))
		}
		return 0
	}
	ratio := func(v int32) float64 {
		return bm25SizeRatio(SemanticsReference, c.vocabs[v].size, total, len(c.vocabs))
	}
	if tr := c.trace; tr != nil && tr.term >= 0 {
		if o := ri.ontology[tr.term]; o >= 0 {
			bd.note(FeatTFT, "f(t, O) = %d triples of %s contain the term; max over O's terms under its term prefix = %d; under O's term prefix %v (TFIDFScorer.tf)",
				occ[o][bd.nodeOfTerm(tr.term)], c.vocabs[o].uri, maxF[o], underPrefix(tr.term, o))
			bd.note(FeatBM25T, "|O| = 3·%d triples, average ⌊3·Σ|O_i| / |R|⌋ = %d, ratio %.6g; k = 2, b = 0.75",
				c.vocabs[o].size, int(3*total)/len(c.vocabs), ratio(o))
		}
	}
	for ti := range c.terms {
		t := &c.terms[ti]
		idf := t.qi[FeatIDFT]
		tf := tfIn(int32(ti), t.vocab)
		t.qi[FeatTFT], t.qi[FeatTFIDFT], t.qi[FeatBM25T] = tf, tf*idf, bm25Term(idf, tf, ratio(t.vocab))
		switch o := ri.ontology[ti]; {
		case o == t.vocab:
			ri.tf[ti], ri.tfidf[ti], ri.bm25[ti] = t.qi[FeatTFT], t.qi[FeatTFIDFT], t.qi[FeatBM25T]
		case o >= 0:
			tf := tfIn(int32(ti), o)
			ri.tf[ti], ri.tfidf[ti], ri.bm25[ti] = tf, tf*idf, bm25Term(idf, tf, ratio(o))
		default:
			ri.bm25[ti] = bm25Term(idf, 0, 0)
		}
	}
	// Each entry: tf(t, O) and BM25 of t in O (BM25Ontology.getScore), the
	// qi values for the defining vocabulary.
	for e := range ri.ent {
		en := &ri.ent[e]
		t := &c.terms[en.term]
		if en.vocab == t.vocab {
			en.tf, en.bm25 = t.qi[FeatTFT], t.qi[FeatBM25T]
			continue
		}
		en.tf = tfIn(en.term, en.vocab)
		en.bm25 = bm25Term(t.qi[FeatIDFT], en.tf, ratio(en.vocab))
	}
	// VSMOntology's ontology norm (TFIDFScorer.getOntologyNorm).
	for v := range c.vocabs {
		var norm float64
		for _, ti := range c.vocabs[v].terms {
			norm += c.terms[ti].qi[FeatTFIDFT] * c.terms[ti].qi[FeatTFIDFT]
		}
		c.vocabs[v].tfidfNorm = math.Sqrt(norm)
	}
}

// underPrefix reports whether uri starts with one of vocabulary v's term
// prefixes.
func (ri *refIndex) underPrefix(uri string, v int32) bool {
	for _, p := range ri.prefixes[v] {
		if strings.HasPrefix(uri, p) {
			return true
		}
	}
	return false
}

// suffixArray returns the suffix array of ri.text, built on first use.
func (ri *refIndex) suffixArray() *suffixarray.Index {
	ri.saOnce.Do(func() { ri.sa = suffixarray.New(ri.text) })
	return ri.sa
}

// word returns what the lower-cased query word w matches, from the cache
// or by a suffix-array lookup (AbstractQuery.getSearchWordsFilterExpression:
// a case-insensitive regex of the words, matched against the local name
// and the nine LOV match properties; an empty word matches every term).
func (c *Corpus) refWord(w string) *refWord {
	ri := c.ref
	ri.mu.Lock()
	rw, ok := ri.words[w]
	ri.mu.Unlock()
	if ok {
		return rw
	}
	rw = &refWord{tfidf: make(map[int32]float64), byVocab: make(map[int32][]int32)}
	switch {
	case w == "":
		rw.entries = make([]int32, len(ri.ent))
		for i := range rw.entries {
			rw.entries[i] = int32(i)
		}
	case strings.IndexByte(w, 0) < 0:
		offs := ri.suffixArray().Lookup([]byte(w), -1)
		slices.Sort(offs)
		e := 0
		for _, off := range offs {
			for ri.starts[e+1] <= int32(off) {
				e++
			}
			if n := len(rw.entries); n == 0 || rw.entries[n-1] != int32(e) {
				rw.entries = append(rw.entries, int32(e))
			}
		}
	}
	for _, e := range rw.entries {
		en := &ri.ent[e]
		if !en.typed() {
			continue
		}
		v := en.vocab
		if _, ok := rw.tfidf[v]; !ok {
			rw.ontologies++
		}
		rw.tfidf[v] += en.tf * c.terms[en.term].qi[FeatIDFT]
		rw.byVocab[v] = append(rw.byVocab[v], e)
	}
	ri.mu.Lock()
	ri.words[w] = rw
	ri.mu.Unlock()
	return rw
}

// refQuery is a query under the reference semantics.
type refQuery struct {
	q      string         // the query as given
	search refSearchCache // features 2, 3 and 34, on first use
	words  []string       // lower-cased, split as TermQuery does, repeats kept
	per    []*refWord     // what each word matches
	count  []int          // how often each word occurs in the query
	maxF   int            // the largest count
	all    []int32        // sorted union of per[i].entries
}

func (c *Corpus) newRefQuery(q string) *refQuery {
	rq := &refQuery{q: q, words: javaSplitSpace(q)}
	seen := make(map[string]int)
	var sets [][]int32
	for i, w := range rq.words {
		w = strings.ToLower(w)
		rq.words[i] = w
		seen[w]++
		rw := c.refWord(w)
		rq.per = append(rq.per, rw)
		if seen[w] == 1 {
			sets = append(sets, rw.entries)
		}
	}
	for _, w := range rq.words {
		rq.count = append(rq.count, seen[w])
		rq.maxF = max(rq.maxF, seen[w])
	}
	switch len(sets) {
	case 0:
	case 1:
		rq.all = sets[0]
	default:
		var all []int32
		for _, s := range sets {
			all = append(all, s...)
		}
		slices.Sort(all)
		rq.all = slices.Compact(all)
	}
	return rq
}

func containsEntry(es []int32, e int32) bool {
	_, ok := slices.BinarySearch(es, e)
	return ok
}

// refMatches reports whether word i of the query matches term t in the
// graph of t's Java ontology: its local name or its match values in that
// graph (LOVRepository.getTermQueryMatchLabels), typed there or not.
func (c *Corpus) refMatches(rq *refQuery, i int, t int32) bool {
	e := c.ref.ontEntry[t]
	return e >= 0 && containsEntry(rq.per[i].entries, e)
}

// refBooleanMatch is feature 1 (BooleanMatch.getScore): the term is in
// LOVRepository.getTermQueryMatch(query, ontology of the term), i.e. it is
// typed in that graph and some word matches it there.
func (c *Corpus) refBooleanMatch(rq *refQuery, t int32) float64 {
	if c.ref.ontology[t] < 0 || !c.ref.typedInOnt[t] {
		return 0
	}
	for i := range rq.words {
		if c.refMatches(rq, i, t) {
			return 1
		}
	}
	return 0
}

// refTextRelevancy is feature 4 (TextRelevancy.getScore): the number of
// query words, repeats included, contained (ignoring case) in the term's
// local name or in one of its match values in the graph of its Java
// ontology (LOVRepository.getTermQueryMatchLabels); 0 when that ontology
// is no graph.
func (c *Corpus) refTextRelevancy(rq *refQuery, t int32) float64 {
	if c.ref.ontology[t] < 0 {
		return 0
	}
	n := 0
	for i := range rq.words {
		if c.refMatches(rq, i, t) {
			n++
		}
	}
	return float64(n)
}

// refClassPropMatch is features 5 and 6 (ClassMatchMeasure and
// PropertyMatchMeasure.getScore with LOVRepository.
// getClass/PropertyQueryMatchRDFSLabels) for vocabulary v: for every
// query word (repeats included) and every IRI typed as a class (a
// property) in v's graph with an rdfs:label in that graph containing the
// word, exact if one of those labels, lower-cased, equals the lower-cased
// word, partial otherwise; alpha*exact + beta*partial. Terms of other
// vocabularies re-declared in v's graph count with v's labels, and an IRI
// typed as both counts for both features (the Java's two SPARQL queries
// each take it). The Java lower-cases every label as it reads it
// (LOVRepository.getClass/PropertyQueryMatchRDFSLabels, the toLowerCase of
// str_classLabel and str_propertyLabel) and looks the lower-cased word up
// in that set (ClassMatchMeasure.java line 52), so "Person" is an exact
// match of the query word "person".
//
// seen, if not nil, is told every (word, entry) counted, for Explain.
func (c *Corpus) refClassPropMatch(rq *refQuery, v int32, seen func(w string, e int32, exact bool)) (class, prop float64) {
	var ce, cp, pe, pp int
	for i, w := range rq.words {
		for _, e := range rq.per[i].byVocab[v] {
			en := &c.ref.ent[e]
			exact, partial := false, false
			for _, l := range c.ref.labels[e] {
				if l == w {
					exact = true
				} else if strings.Contains(l, w) {
					partial = true
				}
			}
			if seen != nil && (exact || partial) {
				seen(w, e, exact)
			}
			switch {
			case exact:
				ce, pe = ce+b2i(en.class), pe+b2i(en.prop)
			case partial:
				cp, pp = cp+b2i(en.class), pp+b2i(en.prop)
			}
		}
	}
	return matchAlpha*float64(ce) + matchBeta*float64(cp), matchAlpha*float64(pe) + matchBeta*float64(pp)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// refVSM is feature 25 as VSMOntology.getScore computes it for vocabulary
// v: for every query word (repeats included) with a match in v, the sum of
// the matches' TF-IDF_T times tf-idf_Q = (count/maxCount as an integer
// division) * ln(|R| / |ontologies matching the word| as an integer
// division); the query norm sums only those words; the sum is divided by
// both norms when it is positive.
func (c *Corpus) refVSM(rq *refQuery, v int32) float64 {
	var vsm, qnorm float64
	nR := len(c.vocabs)
	for i := range rq.words {
		rw := rq.per[i]
		s, ok := rw.tfidf[v]
		if !ok {
			continue
		}
		tq := float64(rq.count[i]/rq.maxF) * math.Log(float64(nR/rw.ontologies))
		qnorm += tq * tq
		vsm += s * tq
	}
	if vsm > 0 {
		if on, qn := c.vocabs[v].tfidfNorm, math.Sqrt(qnorm); on > 0 && qn > 0 {
			vsm /= on * qn
		}
	}
	return vsm
}

// termWeight returns feature 17, 19 or 23 of term t in its Java ontology.
func (ri *refIndex) termWeight(f int, t int32) float64 {
	switch f {
	case FeatTFT:
		return ri.tf[t]
	case FeatTFIDFT:
		return ri.tfidf[t]
	}
	return ri.bm25[t]
}
