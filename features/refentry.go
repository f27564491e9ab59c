package features

import (
	"slices"
	"strings"

	"github.com/lovbench/lovbench/features/rdf"
)

// refEntry is one term as the graph of one vocabulary O sees it, under the
// reference semantics. LOVBench's Java takes every IRI typed as a class or
// property in O's graph as a term of O (LOVRepository.getTermQueryMatch,
// LOVRepository.java line 191: "GRAPH <O> { ?uri a ?termType ... }"), and
// reads its labels and comments from that graph. So a term re-declared in
// another vocabulary's graph (schema:Organization typed owl:Class in the gr
// graph, foaf:Person with ebucore's comment in the ebucore graph) is a term
// of that vocabulary too, with that graph's text, for the ontology
// features 5, 6, 15, 16 and 20-25, 31.
//
// Every term has an entry for each vocabulary whose graph types it (with
// rdfs:Class, owl:Class or one of the twelve property types of refTyped),
// and one for its Java ontology (refIndex.ontology) even when that graph
// does not type it: features 1 and 4 read the term's text in the graph of
// its ontology (LOVRepository.getTermQueryMatchLabels), typed or not.
type refEntry struct {
	term, vocab int32
	// class and prop: the vocabulary's graph types the term as a class
	// (TermType.CLASS) or as a property. An entry with neither exists only
	// for features 1 and 4.
	class, prop bool
	// tf and bm25 are tf(t, O) (TFIDFScorer.tf: 0 outside O's term
	// prefixes) and BM25 of t in O (BM25Ontology.getScore).
	tf, bm25 float64
	// betw is t's betweenness in O's ontology graph as
	// BetweennessScorer.betweenness(t, O) returns it: 0 for a term outside
	// O's term prefix (runBetweennessScorer, LOVRepository prefix filter).
	betw float64
	// node is t's node in O's ontology graph, -1 if it is none.
	node int32
}

func (e *refEntry) typed() bool { return e.class || e.prop }

// refEntries lists the entries of every term, sorted by term then
// vocabulary, and each term's entry in its Java ontology (-1 when that
// ontology is no graph). classes and props are each vocabulary graph's
// typed nodes (refTyped). It runs after refOntologies.
func (bd *build) refEntries(ri *refIndex, classes, props []map[int32]bool) {
	c := bd.c
	type key struct{ term, vocab int32 }
	flags := make(map[key]*refEntry)
	add := func(ti, v int32) *refEntry {
		k := key{ti, v}
		e := flags[k]
		if e == nil {
			e = &refEntry{term: ti, vocab: v, node: -1}
			flags[k] = e
		}
		return e
	}
	for v := range c.vocabs {
		for node := range classes[v] {
			if ti, ok := bd.termOfNode[node]; ok {
				add(ti, int32(v)).class = true
			}
		}
		for node := range props[v] {
			if ti, ok := bd.termOfNode[node]; ok {
				add(ti, int32(v)).prop = true
			}
		}
	}
	for ti, o := range ri.ontology {
		if o >= 0 {
			add(int32(ti), o)
		}
	}
	ri.ent = make([]refEntry, 0, len(flags))
	for _, e := range flags {
		ri.ent = append(ri.ent, *e)
	}
	slices.SortFunc(ri.ent, func(a, b refEntry) int {
		if a.term != b.term {
			return int(a.term - b.term)
		}
		return int(a.vocab - b.vocab)
	})
	ri.entStart = make([]int32, len(c.terms)+1)
	ri.ontEntry = make([]int32, len(c.terms))
	e := 0
	for ti := range c.terms {
		ri.entStart[ti] = int32(e)
		ri.ontEntry[ti] = -1
		for ; e < len(ri.ent) && ri.ent[e].term == int32(ti); e++ {
			if ri.ent[e].vocab == ri.ontology[ti] {
				ri.ontEntry[ti] = int32(e)
			}
		}
	}
	ri.entStart[len(c.terms)] = int32(e)
	ri.entByVocab = make([][]int32, len(c.vocabs))
	for e := range ri.ent {
		if ri.ent[e].typed() {
			v := ri.ent[e].vocab
			ri.entByVocab[v] = append(ri.entByVocab[v], int32(e))
		}
	}
}

// entryOf returns the entry of term t in vocabulary v, -1 if none.
func (ri *refIndex) entryOf(t, v int32) int32 {
	for e := ri.entStart[t]; e < ri.entStart[t+1]; e++ {
		if ri.ent[e].vocab == v {
			return e
		}
	}
	return -1
}

// refEntryText builds the match text (local name, then the values of the
// nine LOV match properties in the entry's graph) and the lower-cased
// rdfs:label literals (features 5 and 6) of every entry, and the suffix
// array over the text.
func (bd *build) refEntryText(ri *refIndex) {
	b, c := bd.b, bd.c
	values := make([][]string, len(ri.ent))
	ri.labels = make([][]string, len(ri.ent))
	for v := range c.vocabs {
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			ti, ok := bd.termOfNode[t.s]
			if !ok || fieldOf(b.nodes[t.p].Value) == fieldOther {
				continue
			}
			e := ri.entryOf(ti, int32(v))
			if e < 0 {
				continue
			}
			o := b.nodes[t.o]
			if o.Kind == rdf.Literal || o.Kind == rdf.IRI {
				values[e] = append(values[e], strings.ToLower(o.Value))
			}
			if o.Kind == rdf.Literal && b.nodes[t.p].Value == iriRDFSLabel {
				ri.labels[e] = append(ri.labels[e], strings.ToLower(o.Value))
			}
		}
	}
	ri.starts = make([]int32, len(ri.ent)+1)
	ri.localEnd = make([]int32, len(ri.ent))
	var buf []byte
	for e := range ri.ent {
		ri.starts[e] = int32(len(buf))
		buf = append(buf, strings.ToLower(javaLocalName(c.terms[ri.ent[e].term].uri))...)
		ri.localEnd[e] = int32(len(buf))
		buf = append(buf, 0)
		for _, s := range values[e] {
			buf = append(buf, s...)
			buf = append(buf, 0)
		}
	}
	ri.starts[len(ri.ent)] = int32(len(buf))
	ri.text = buf
}

// refAgg computes the query-dependent ontology features of (Q, O), O the
// vocabulary v, in the reference semantics; sig are the entries of O that
// some query word matches (sigma_t(Q, O): LOVRepository.getTermQueryMatch
// run in O's graph), in term order.
//
//   - 20-24 sum, over sig, tf(t, O) (TFOntology), idf(t) (IDFOntology),
//     tf·idf (TFIDFOntology) and BM25 of t in O (BM25Ontology.getScore); a
//     term re-declared in O but outside O's term prefix has tf 0 and adds
//     idf/(k·(1-b+b·|O|/avg)) to BM25_O.
//   - 15 (BetweennessMeasure.getScore): the betweenness in O's graph of
//     the classes of sig, 0 for one outside O's term prefix, summed and
//     divided by their number twice: line 42 divides inside the argument
//     list of a log.debug call, which Java evaluates whatever the log
//     level, and line 43 divides again.
//   - 31 (DensityMeasure.getScore): the mean Density_T of those classes,
//     each in its own Java ontology (TermStatsScorer.java lines 33-55 pass
//     term.getOntologyUriOfTerm()), so schema:Organization matched in gr
//     brings its density in schema.
//   - 16: refSemanticSimilarity over their nodes in O's graph.
//   - 5, 6 (refClassPropMatch), 25 (refVSM) and 3 (refSearch).
func (c *Corpus) refAgg(qs *queryState, v int32, sig []int32, a *vocabAgg) {
	ri := c.ref
	var nodes []int32
	for _, e := range sig {
		en := &ri.ent[e]
		tr := &c.terms[en.term]
		idf := tr.qi[FeatIDFT]
		a.v[FeatTFO] += en.tf
		a.v[FeatIDFO] += idf
		a.v[FeatTFIDFO] += en.tf * idf
		a.v[FeatBM25O] += en.bm25
		if en.class {
			nodes = append(nodes, en.node)
			a.v[FeatBetweennessO] += en.betw
			a.v[FeatDensityO] += tr.qi[FeatDensityT]
		}
	}
	if n := float64(len(nodes)); n > 0 {
		a.v[FeatBetweennessO] /= n
		a.v[FeatBetweennessO] /= n
		a.v[FeatDensityO] /= n
	}
	if qs.wants(FeatSemanticSimilarity) {
		a.v[FeatSemanticSimilarity] = refSemanticSimilarity(c.vocabs[v].og, nodes)
	}
	a.v[FeatClassMatch], a.v[FeatPropertyMatch] = c.refClassPropMatch(qs.rq, v, nil)
	a.v[FeatVSMO] = c.refVSM(qs.rq, v)
	a.v[FeatLOVMatchO] = qs.refSearch(FeatLOVMatchO)[v]
}
