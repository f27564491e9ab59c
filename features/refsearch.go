package features

import (
	"math"
	"slices"
	"sync"

	"github.com/lovbench/lovbench/features/rdf"
)

// The reference semantics of the search-engine features 2, 3 and 34.
//
// LOVBench's Java did not compute these: it read them from search engines
// (LOVScorer.java: the LOV API's term and vocabulary search; LabelSearch:
// Stardog's full-text search). We emulate the engines:
//
//   - LOV ran Elasticsearch 1.x in 2019, whose default similarity is
//     Lucene's classic TF-IDF (DefaultSimilarity), not BM25. A
//     multi_match query (type best_fields, tie_breaker 0) is a dis_max of
//     one boolean query per field; for document d and field f
//
//     score_f(d) = coord * queryNorm * boost_f * norm_f(d) * sum_{q in Q, q in d.f} sqrt(tf) * idf_f(q)^2
//     idf_f(q)   = 1 + ln(maxDoc / (docFreq_f(q) + 1))
//     norm_f(d)  = 1/sqrt(|d.f|), stored in one byte (SmallFloat.floatToByte315)
//     coord      = (query words found in d.f) / |Q|
//     queryNorm  = 1 / sqrt(max_f boost_f^2 * sum_{q in Q} idf_f(q)^2)
//
//     and score(d) = max_f score_f(d). Q keeps repeated words (one clause
//     each). Scores are computed in float64 (Lucene: float32), on one
//     shard (the LOV index had Elasticsearch's 5, each with its own
//     statistics; which term sat on which shard is not recoverable).
//   - Feature 2 is the API's scoreFeatureHit: the hit score divided by the
//     best hit score of the query (wHitScore = 1), for the 500 results
//     the Java asked for (page_size=500), 0 for the others; the API ranks
//     by hit and popularity, popularity is not in the corpus, so the 500
//     are the best by hit score. The Java rounds to 6 decimals.
//   - Feature 3 is the vocabulary search's raw _score over the fields
//     prefix (boost 12), dcterms:title (3) and dcterms:description (1.5),
//     for the top 500, rounded to 6 decimals.
//   - Feature 34 is Stardog's textMatch over every literal of the
//     repository (LOVSearchRepository.java: the pattern ?term ?p ?l has no
//     predicate, so not only rdfs:label), scored by Lucene's BM25 (k1 1.2,
//     b 0.75, documents = distinct literals) for the query words joined by
//     '|'; a term with several matching literals gets, in the Java, the
//     score of whichever row comes last; we take the largest.

const (
	lovTopK = 500 // page_size of LOVScorer's API calls
	// Boosts of LOV's vocabulary search.
	vocabBoostPrefix, vocabBoostTitle, vocabBoostDesc = 12, 3, 1.5
)

// floatToByte315 and byte315ToFloat are Lucene's SmallFloat encoding of
// field norms (3 mantissa bits, zero exponent 15).
func floatToByte315(f float32) byte {
	bits := int32(math.Float32bits(f))
	small := bits >> (24 - 3)
	if small <= (63-15)<<3 {
		if bits <= 0 {
			return 0
		}
		return 1
	}
	if small >= (63-15)<<3+0x100 {
		return 255
	}
	return byte(small - (63-15)<<3)
}

func byte315ToFloat(b byte) float32 {
	if b == 0 {
		return 0
	}
	bits := uint32(b) << (24 - 3)
	bits += (63 - 15) << 24
	return math.Float32frombits(bits)
}

// classicNorm is DefaultSimilarity's length norm of a field of n words as
// stored and read back.
func classicNorm(n int32) float64 {
	if n <= 0 {
		return 0
	}
	return float64(byte315ToFloat(floatToByte315(float32(1 / math.Sqrt(float64(n))))))
}

// classicBestFields scores every document holding a query word in one of
// the fields by Lucene's classic similarity under a best_fields
// multi_match (see the comment above). toks are the query's words with
// repeats, -1 for a word unknown to the corpus; maxDoc is the number of
// documents of the index. The result maps documents to scores.
func classicBestFields(fis []*fieldIndex, boosts []float64, maxDoc int, toks []int32) map[int32]float64 {
	out := make(map[int32]float64)
	if len(toks) == 0 {
		return out
	}
	idf := func(fi *fieldIndex, w int32) float64 {
		df := 0
		if w >= 0 {
			df = len(fi.postings(w))
		}
		return 1 + math.Log(float64(maxDoc)/float64(df+1))
	}
	var maxVal float64
	for f, fi := range fis {
		var v float64
		for _, w := range toks {
			i := idf(fi, w)
			v += i * i
		}
		maxVal = max(maxVal, v*boosts[f]*boosts[f])
	}
	if maxVal == 0 {
		return out
	}
	qn := 1 / math.Sqrt(maxVal)
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	if len(sc.sum) < maxDoc {
		sc.sum, sc.overlap = make([]float64, maxDoc), make([]int32, maxDoc)
	}
	for f, fi := range fis {
		touched := sc.touched[:0]
		for _, w := range toks {
			if w < 0 {
				continue
			}
			i := idf(fi, w)
			for _, p := range fi.postings(w) {
				if sc.overlap[p.tok] == 0 {
					touched = append(touched, p.tok)
				}
				sc.sum[p.tok] += math.Sqrt(float64(p.count)) * i * i
				sc.overlap[p.tok]++
			}
		}
		for _, d := range touched {
			s := float64(sc.overlap[d]) / float64(len(toks)) * sc.sum[d] * boosts[f] * qn * classicNorm(fi.docLen[d])
			if s > out[d] {
				out[d] = s
			}
			sc.sum[d], sc.overlap[d] = 0, 0
		}
		sc.touched = touched
	}
	return out
}

// scratch holds dense per-document accumulators for classicBestFields,
// all zero between uses.
type scratch struct {
	sum     []float64
	overlap []int32
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// javaRound6 is Java's Math.round(x * 1e6) / 1e6 (LOVScorer.java).
func javaRound6(x float64) float64 {
	return math.Floor(x*1e6+0.5) / 1e6
}

// topK keeps the k best documents by score (ties: lower index first) and
// maps them through f; the others are dropped.
func topK(scores map[int32]float64, k int, f func(float64) float64) map[int32]float64 {
	if len(scores) <= k {
		for d, s := range scores {
			scores[d] = f(s)
		}
		return scores
	}
	type ds struct {
		d int32
		s float64
	}
	docs := make([]ds, 0, len(scores))
	for d, s := range scores {
		docs = append(docs, ds{d, s})
	}
	before := func(a, b ds) bool { return a.s > b.s || (a.s == b.s && a.d < b.d) }
	// Quickselect: move the k best (a total order) to docs[:k].
	lo, hi := 0, len(docs)-1
	for lo < hi {
		p := docs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for before(docs[i], p) {
				i++
			}
			for before(p, docs[j]) {
				j--
			}
			if i <= j {
				docs[i], docs[j] = docs[j], docs[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			lo = hi
		}
	}
	out := make(map[int32]float64, k)
	for _, x := range docs[:k] {
		out[x.d] = f(x.s)
	}
	return out
}

// queryTokens returns the query's words (Tokenize) with repeats as word
// ids, -1 for words unknown to the corpus.
func (c *Corpus) queryTokens(q string) []int32 {
	toks := Tokenize(q)
	ids := make([]int32, len(toks))
	for i, w := range toks {
		id, ok := c.words[w]
		if !ok {
			id = -1
		}
		ids[i] = id
	}
	return ids
}

// refLOVTermMatch computes feature 2 for every term of the query's top 500.
func (c *Corpus) refLOVTermMatch(q string) map[int32]float64 {
	fis := make([]*fieldIndex, numFields)
	boosts := make([]float64, numFields)
	for f := range fis {
		fis[f], boosts[f] = c.fields[f], fieldBoost(f)
	}
	scores := classicBestFields(fis, boosts, len(c.terms), c.queryTokens(q))
	var best float64
	for _, s := range scores {
		best = max(best, s)
	}
	return topK(scores, lovTopK, func(s float64) float64 { return javaRound6(s / best) })
}

// refLOVOntologyMatch computes feature 3 for every vocabulary of the
// query's top 500.
func (c *Corpus) refLOVOntologyMatch(q string) map[int32]float64 {
	ri := c.ref
	scores := classicBestFields(ri.vocabFields[:], []float64{vocabBoostPrefix, vocabBoostTitle, vocabBoostDesc}, len(c.vocabs), c.queryTokens(q))
	return topK(scores, lovTopK, javaRound6)
}

// refLabelSearch computes feature 34 for term t: the best BM25 score of
// its literals for the query's words (repeats included).
func (c *Corpus) refLabelSearch(toks []int32, t int32) float64 {
	ri := c.ref
	var best float64
	for _, l := range ri.termLiterals[t] {
		var s float64
		for _, w := range toks {
			if w < 0 {
				continue
			}
			if tf := ri.literals.tf(int(l), w); tf > 0 {
				s += ri.literals.wordScore(int(l), ri.literals.idf(w), tf)
			}
		}
		best = max(best, s)
	}
	return best
}

// refSearchIndexes builds the vocabulary fields of feature 3 and the
// literal index of feature 34.
func (bd *build) refSearchIndexes(ri *refIndex) {
	b, c := bd.b, bd.c
	var vocabWords [3][][]int32
	for f := range vocabWords {
		vocabWords[f] = make([][]int32, len(c.vocabs))
	}
	addText := func(v int32, p, s string) {
		f := -1
		switch p {
		case iriDCTermsTitle:
			f = 1
		case iriDCTermsDesc:
			f = 2
		}
		if f < 0 {
			return
		}
		vocabWords[f][v] = append(vocabWords[f][v], bd.textWordIDs(s)...)
	}
	for v := range c.vocabs {
		for _, w := range Tokenize(c.vocabs[v].prefix) {
			vocabWords[0][v] = append(vocabWords[0][v], c.wordID(w))
		}
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			if bd.headers[v][t.s] && b.nodes[t.o].Kind == rdf.Literal {
				addText(int32(v), b.nodes[t.p].Value, b.nodes[t.o].Value)
			}
		}
	}
	// Metadata graphs: literals of subjects declaring a vocabulary's
	// namespace (rdfa:uri, vann:preferredNamespaceUri), as Build attaches them.
	for gi, ts := range b.gtriples {
		if bd.graphVocab[gi] >= 0 {
			continue
		}
		owner := make(map[int32]int32)
		for _, t := range ts {
			if p := b.nodes[t.p].Value; p == iriRDFaURI || p == iriVannURI {
				if v := bd.vocabOf(b.nodes[t.o].Value); v >= 0 {
					if _, ok := owner[t.s]; !ok {
						owner[t.s] = v
					}
				}
			}
		}
		for _, t := range ts {
			if v, ok := owner[t.s]; ok && b.nodes[t.o].Kind == rdf.Literal {
				addText(v, b.nodes[t.p].Value, b.nodes[t.o].Value)
			}
		}
	}
	for f := range vocabWords {
		docs := make([][]tokCount, len(c.vocabs))
		for v := range docs {
			docs[v] = countWords(vocabWords[f][v])
		}
		ri.vocabFields[f] = newFieldIndex(docs)
	}
	// Literal documents: every distinct literal object of the corpus
	// (Stardog indexes them all); literalTerms links them to the terms
	// they describe.
	litIdx := make(map[int32]int32)
	var litDocs [][]tokCount
	ri.termLiterals = make([][]int32, len(c.terms))
	for _, ts := range b.gtriples {
		for _, t := range ts {
			if b.nodes[t.o].Kind != rdf.Literal {
				continue
			}
			l, ok := litIdx[t.o]
			if !ok {
				l = int32(len(litDocs))
				litIdx[t.o] = l
				litDocs = append(litDocs, countWords(bd.textWordIDs(b.nodes[t.o].Value)))
			}
			ti, ok := bd.termOfNode[t.s]
			if !ok {
				continue
			}
			if lt := ri.termLiterals[ti]; !slices.Contains(lt, l) {
				ri.termLiterals[ti] = append(lt, l)
			}
		}
	}
	ri.literals = newFieldIndex(litDocs)
}

// refSearchCache holds a query's search-engine features, computed on
// first use.
type refSearchCache struct {
	lovT, lovO map[int32]float64
	toks       []int32 // the query's words for feature 34, nil until used
}

func (qs *queryState) refSearch(f int) map[int32]float64 {
	c, rs, q := qs.c, &qs.rq.search, qs.rq.q
	switch f {
	case FeatLOVMatchT:
		if rs.lovT == nil {
			rs.lovT = c.refLOVTermMatch(q)
		}
		return rs.lovT
	case FeatLOVMatchO:
		if rs.lovO == nil {
			rs.lovO = c.refLOVOntologyMatch(q)
		}
		return rs.lovO
	}
	return nil
}
