package features

import (
	"math"
	"slices"
	"sort"
)

// Text BM25 as Lucene/Elasticsearch computes it (the engine behind LOV's
// search, LOVBench features 2, 3 and 34): for a document d and the distinct
// query words q,
//
//	score(Q, d) = sum_q idf(q) * tf(q,d) * (k1 + 1) / (tf(q,d) + k1 * (1 - b + b * |d| / avgdl))
//	idf(q)      = ln(1 + (N - n(q) + 0.5) / (n(q) + 0.5))
//
// with k1 = 1.2 and b = 0.75 (Elasticsearch's defaults; the paper's k = 2.0
// belongs to its ontology BM25, equation (8)). N is the number of documents
// with the field, n(q) those containing q, |d| the field's length in words
// and avgdl the mean length over documents with the field. Lucene stores
// |d| lossily in one byte; this index keeps it exact.
const (
	textK1 = 1.2
	textB  = 0.75
)

// tokCount is a word id and its count in one document field.
type tokCount struct {
	tok   int32
	count int32
}

// fieldIndex is an inverted index of one text field over a set of documents
// (terms or vocabularies), identified by index 0..n-1.
type fieldIndex struct {
	docs   [][]tokCount // per document, sorted by tok
	docLen []int32      // words per document
	// The postings of word w (the documents containing it, tok = document,
	// sorted) are entries[start[w]:start[w+1]], for w < len(start)-1: one
	// array for all words instead of a map of slices (a fifth of the
	// text phase of Build went to that map's lookups and growth).
	start    []int32
	entries  []tokCount
	docCount int // documents with at least one word
	avgdl    float64
}

// countWords returns the distinct words of ws with their counts, sorted.
func countWords(ws []int32) []tokCount {
	if len(ws) == 0 {
		return nil
	}
	sorted := slices.Clone(ws)
	slices.Sort(sorted)
	var tcs []tokCount
	for _, w := range sorted {
		if n := len(tcs); n > 0 && tcs[n-1].tok == w {
			tcs[n-1].count++
			continue
		}
		tcs = append(tcs, tokCount{w, 1})
	}
	return tcs
}

// newFieldIndex builds the index from per-document word counts (as
// countWords returns them; documents may share a slice, read-only).
func newFieldIndex(docs [][]tokCount) *fieldIndex {
	fi := &fieldIndex{
		docs:   docs,
		docLen: make([]int32, len(docs)),
	}
	// Count the documents of each word, then place each (document, count)
	// at its word's next free entry, in document order.
	var words int32
	for _, tcs := range docs {
		for _, tc := range tcs {
			words = max(words, tc.tok+1)
		}
	}
	fi.start = make([]int32, words+1)
	for _, tcs := range docs {
		for _, tc := range tcs {
			fi.start[tc.tok+1]++
		}
	}
	for w := int32(1); w <= words; w++ {
		fi.start[w] += fi.start[w-1]
	}
	fi.entries = make([]tokCount, fi.start[words])
	next := slices.Clone(fi.start[:words])
	var total int
	for d, tcs := range docs {
		if len(tcs) == 0 {
			continue
		}
		fi.docCount++
		for _, tc := range tcs {
			fi.docLen[d] += tc.count
			fi.entries[next[tc.tok]] = tokCount{int32(d), tc.count}
			next[tc.tok]++
		}
		total += int(fi.docLen[d])
	}
	if fi.docCount > 0 {
		fi.avgdl = float64(total) / float64(fi.docCount)
	}
	return fi
}

// postings returns the documents containing word w (tok = document, with
// w's count), sorted; none for a word the index does not hold.
func (fi *fieldIndex) postings(w int32) []tokCount {
	if w < 0 || int(w) >= len(fi.start)-1 {
		return nil
	}
	return fi.entries[fi.start[w]:fi.start[w+1]]
}

// tf returns the count of word w in document d.
func (fi *fieldIndex) tf(d int, w int32) int {
	tcs := fi.docs[d]
	i := sort.Search(len(tcs), func(i int) bool { return tcs[i].tok >= w })
	if i < len(tcs) && tcs[i].tok == w {
		return int(tcs[i].count)
	}
	return 0
}

// idf is Lucene's BM25 idf of word w.
func (fi *fieldIndex) idf(w int32) float64 {
	n := float64(len(fi.postings(w)))
	return math.Log(1 + (float64(fi.docCount)-n+0.5)/(n+0.5))
}

// score is the BM25 score of document d for the distinct query words qs.
func (fi *fieldIndex) score(d int, qs []int32) float64 {
	if fi.docLen[d] == 0 {
		return 0
	}
	var s float64
	for _, w := range qs {
		if tf := fi.tf(d, w); tf > 0 {
			s += fi.wordScore(d, fi.idf(w), tf)
		}
	}
	return s
}

// wordScore is one word's term of the BM25 sum: idf * tf*(k1+1) / (tf + norm(d)).
func (fi *fieldIndex) wordScore(d int, idf float64, tf int) float64 {
	norm := textK1 * (1 - textB + textB*float64(fi.docLen[d])/fi.avgdl)
	return idf * float64(tf) * (textK1 + 1) / (float64(tf) + norm)
}

// scoreAll adds the BM25 score of every document containing a query word
// to acc (indexed by document) and appends newly touched documents to
// touched. Words are added in the order of qs, as in score, so both give
// bit-identical sums.
func (fi *fieldIndex) scoreAll(qs []int32, acc []float64, touched []int32) []int32 {
	for _, w := range qs {
		ps := fi.postings(w)
		if len(ps) == 0 {
			continue
		}
		idf := fi.idf(w)
		for _, p := range ps {
			if acc[p.tok] == 0 {
				touched = append(touched, p.tok)
			}
			acc[p.tok] += fi.wordScore(int(p.tok), idf, int(p.count))
		}
	}
	return touched
}
