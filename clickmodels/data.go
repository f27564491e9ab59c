package clickmodels

import (
	"fmt"
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// Data is a training log prepared for fitting: identical SERPs (same query,
// documents in the same order and same clicks) merged into one weighted
// record, records grouped by query, the (query, document) pairs numbered
// query by query, and the records cut into chunks at query boundaries. One
// Data serves any number of models.
type Data struct {
	log   *sessions.Log // dictionaries only
	ranks int           // R
	serps int           // SERPs before aggregation

	recOff    []int64   // record i shows pairs recPair[recOff[i]:recOff[i+1]]
	recPair   []int32   // pair index per rank
	recClicks []uint64  // click mask
	recWeight []float64 // number of identical SERPs

	pairQuery []int32 // log query ID of pair p
	pairDoc   []int32 // log document ID of pair p

	chunks []chunk
}

// chunk is a run of records whose queries occur in no other chunk, so the
// pairs it touches, [pairLo, pairHi), are its own.
type chunk struct {
	recLo, recHi   int
	pairLo, pairHi int
}

// chunkRanks is the number of ranks (of distinct SERPs) after which a chunk
// is closed at the next query boundary. It fixes the chunking, and with it
// the floating-point summation order, independently of the worker count.
const chunkRanks = 4096

// Records is the number of distinct SERPs (weighted records) in d.
func (d *Data) Records() int { return len(d.recClicks) }

// SERPs is the number of SERPs d was prepared from.
func (d *Data) SERPs() int { return d.serps }

// Pairs is the number of distinct (query, document) pairs in d.
func (d *Data) Pairs() int { return len(d.pairQuery) }

// Ranks is R, the number of ranks models fitted on d are sized for.
func (d *Data) Ranks() int { return d.ranks }

// Prepare aggregates and indexes the training log for fitting. ranks is
// the least R, the size of the rank-indexed parameters: R is the largest of
// ranks, DefaultRanks and the longest training SERP. Give the longest SERP
// of the whole log when test SERPs may be longer than training ones
// (Evaluate rejects SERPs longer than R).
func Prepare(log *sessions.Log, ranks int) (*Data, error) {
	n := log.Len()
	longest := 0
	for i := 0; i < n; i++ {
		longest = max(longest, log.Ranks(i))
	}
	ranks = max(ranks, DefaultRanks, longest)
	if ranks > MaxSERP {
		return nil, fmt.Errorf("click models: %d ranks requested, at most %d supported", ranks, MaxSERP)
	}
	d := &Data{log: log, ranks: ranks, serps: n}

	// 1. Merge identical SERPs; records in order of first appearance.
	var (
		first  []int32   // first SERP of record
		weight []float64 // copies
		next   []int32   // hash chain
		heads  = make(map[uint64]int32, n/2+1)
	)
	for i := 0; i < n; i++ {
		h := serpHash(log, i)
		rec := int32(-1)
		if head, ok := heads[h]; ok {
			for r := head; r >= 0; r = next[r] {
				if sameSERP(log, int(first[r]), i) {
					rec = r
					break
				}
			}
			if rec < 0 {
				rec = int32(len(first))
				first = append(first, int32(i))
				weight = append(weight, 0)
				next = append(next, head)
				heads[h] = rec
			}
		} else {
			rec = int32(len(first))
			first = append(first, int32(i))
			weight = append(weight, 0)
			next = append(next, -1)
			heads[h] = rec
		}
		weight[rec]++
	}
	heads, next = nil, nil

	// 2. Group records by query (counting sort, stable: first appearance
	// within a query is kept).
	nq := log.Queries.Len()
	start := make([]int32, nq+1)
	for _, s := range first {
		start[log.Query[s]+1]++
	}
	for q := 0; q < nq; q++ {
		start[q+1] += start[q]
	}
	order := make([]int32, len(first))
	pos := slices.Clone(start[:nq])
	for r, s := range first {
		q := log.Query[s]
		order[pos[q]] = int32(r)
		pos[q]++
	}

	// 3. Number the pairs in record order (so a query's pairs are
	// contiguous and documents keep their first appearance order) and cut
	// chunks at query boundaries.
	nr := len(first)
	d.recOff = make([]int64, 1, nr+1)
	d.recClicks = make([]uint64, 0, nr)
	d.recWeight = make([]float64, 0, nr)
	pairs := make(map[uint64]int32)
	cur := chunk{}
	ranksInChunk := 0
	prevQ := int32(-1)
	for idx, r := range order {
		s := int(first[r])
		q := log.Query[s]
		if q != prevQ && ranksInChunk >= chunkRanks {
			cur.recHi, cur.pairHi = idx, len(d.pairQuery)
			d.chunks = append(d.chunks, cur)
			cur = chunk{recLo: idx, pairLo: len(d.pairQuery)}
			ranksInChunk = 0
		}
		prevQ = q
		for _, doc := range log.SERPDocs(s) {
			key := pairKey(q, doc)
			p, ok := pairs[key]
			if !ok {
				p = int32(len(d.pairQuery))
				pairs[key] = p
				d.pairQuery = append(d.pairQuery, q)
				d.pairDoc = append(d.pairDoc, doc)
			}
			d.recPair = append(d.recPair, p)
		}
		d.recOff = append(d.recOff, int64(len(d.recPair)))
		d.recClicks = append(d.recClicks, log.Clicks[s])
		d.recWeight = append(d.recWeight, weight[r])
		ranksInChunk += log.Ranks(s)
	}
	if nr > 0 {
		cur.recHi, cur.pairHi = nr, len(d.pairQuery)
		d.chunks = append(d.chunks, cur)
	}
	return d, nil
}

// serpHash mixes the query, click mask and documents of SERP i.
func serpHash(log *sessions.Log, i int) uint64 {
	h := mix(uint64(uint32(log.Query[i])) ^ 0x9e3779b97f4a7c15)
	h = mix(h ^ log.Clicks[i])
	for _, d := range log.SERPDocs(i) {
		h = mix(h ^ uint64(uint32(d)))
	}
	return h
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func sameSERP(log *sessions.Log, i, j int) bool {
	return log.Query[i] == log.Query[j] && log.Clicks[i] == log.Clicks[j] &&
		slices.Equal(log.SERPDocs(i), log.SERPDocs(j))
}
