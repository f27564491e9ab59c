package clickmodels

import (
	"context"
	"fmt"
	"slices"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
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
	var a aggregator
	for i := range log.Len() {
		a.add(log.Query[i], log.SERPDocs(i), log.Clicks[i])
	}
	// Keep the dictionaries only: the SERP columns of log are not needed
	// after preparation and may be freed by the caller.
	return a.data(log.Queries, log.Docs, ranks)
}

// aggregator merges identical SERPs (same query, documents in the same
// order and same clicks) into weighted records as they arrive, so that
// preparing a log never needs more than its distinct SERPs in memory
// (PrepareShard feeds it straight from a shard's scan). Records are kept
// in order of first appearance and found again through an open-addressing
// table of record numbers keyed by serpHash.
type aggregator struct {
	serps, longest int
	table          []int32 // record number + 1; 0 is an empty slot
	recHash        []uint64
	recQuery       []int32
	recOff         []int64 // record r shows recDocs[recOff[r]:recOff[r+1]]
	recDocs        []int32
	recClicks      []uint64
	recWeight      []float64 // number of identical SERPs
}

// add counts one SERP: query q, documents docs in rank order (not kept),
// click mask clicks.
func (a *aggregator) add(q int32, docs []int32, clicks uint64) {
	a.serps++
	a.longest = max(a.longest, len(docs))
	if 2*(len(a.recHash)+1) > len(a.table) {
		a.grow()
	}
	h := serpHash(q, clicks, docs)
	mask := len(a.table) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		r := a.table[i] - 1
		if r < 0 {
			a.table[i] = int32(len(a.recHash) + 1)
			if len(a.recOff) == 0 {
				a.recOff = append(a.recOff, 0)
			}
			a.recHash = append(a.recHash, h)
			a.recQuery = append(a.recQuery, q)
			a.recDocs = append(a.recDocs, docs...)
			a.recOff = append(a.recOff, int64(len(a.recDocs)))
			a.recClicks = append(a.recClicks, clicks)
			a.recWeight = append(a.recWeight, 1)
			return
		}
		if a.recHash[r] == h && a.recQuery[r] == q && a.recClicks[r] == clicks &&
			slices.Equal(a.recDocs[a.recOff[r]:a.recOff[r+1]], docs) {
			a.recWeight[r]++
			return
		}
	}
}

// grow doubles the table (at least 1024 slots), keeping it at most half
// full.
func (a *aggregator) grow() {
	n := max(1024, 2*len(a.table))
	t := make([]int32, n)
	mask := n - 1
	for r, h := range a.recHash {
		i := int(h) & mask
		for t[i] != 0 {
			i = (i + 1) & mask
		}
		t[i] = int32(r + 1)
	}
	a.table = t
}

// data is the prepared Data of the SERPs added, with the dictionaries
// queries and docs of their IDs: records grouped by query in order of
// query ID (a stable counting sort: first appearance within a query),
// each query's documents numbered as pairs in order of first appearance,
// and the records cut into chunks at query boundaries once a chunk holds
// chunkRanks ranks. The aggregator is emptied.
func (a *aggregator) data(queries, docs sessions.Dict, ranks int) (*Data, error) {
	ranks = max(ranks, DefaultRanks, a.longest)
	if ranks > MaxSERP {
		return nil, fmt.Errorf("click models: %d ranks requested, at most %d supported", ranks, MaxSERP)
	}
	d := &Data{log: &sessions.Log{Queries: queries, Docs: docs}, ranks: ranks, serps: a.serps}
	a.table, a.recHash = nil, nil
	nr := len(a.recQuery)
	nq := queries.Len()
	start := make([]int, nq+1)
	for _, q := range a.recQuery {
		start[q+1]++
	}
	for q := range nq {
		start[q+1] += start[q]
	}
	order := make([]int32, nr)
	for r, q := range a.recQuery {
		order[start[q]] = int32(r)
		start[q]++
	}
	start = nil

	d.recOff = make([]int64, 1, nr+1)
	d.recPair = make([]int32, 0, len(a.recDocs))
	d.recClicks = make([]uint64, 0, nr)
	d.recWeight = make([]float64, 0, nr)
	docPair := make(map[int32]int32)
	cur := chunk{}
	ranksInChunk := 0
	prevQ := int32(-1)
	for _, r := range order {
		q := a.recQuery[r]
		if q != prevQ {
			if ranksInChunk >= chunkRanks {
				cur.recHi, cur.pairHi = len(d.recClicks), len(d.pairQuery)
				d.chunks = append(d.chunks, cur)
				cur = chunk{recLo: cur.recHi, pairLo: cur.pairHi}
				ranksInChunk = 0
			}
			clear(docPair)
			prevQ = q
		}
		rd := a.recDocs[a.recOff[r]:a.recOff[r+1]]
		for _, doc := range rd {
			p, ok := docPair[doc]
			if !ok {
				p = int32(len(d.pairDoc))
				docPair[doc] = p
				d.pairDoc = append(d.pairDoc, doc)
				d.pairQuery = append(d.pairQuery, q)
			}
			d.recPair = append(d.recPair, p)
		}
		d.recOff = append(d.recOff, int64(len(d.recPair)))
		d.recClicks = append(d.recClicks, a.recClicks[r])
		d.recWeight = append(d.recWeight, a.recWeight[r])
		ranksInChunk += len(rd)
	}
	if nr > 0 {
		cur.recHi, cur.pairHi = nr, len(d.pairQuery)
		d.chunks = append(d.chunks, cur)
	}
	*a = aggregator{}
	return d, nil
}

// serpHash mixes the query, click mask and documents of a SERP.
func serpHash(q int32, clicks uint64, docs []int32) uint64 {
	h := hashes.Mix(uint64(uint32(q)) ^ 0x9e3779b97f4a7c15)
	h = hashes.Mix(h ^ clicks)
	for _, d := range docs {
		h = hashes.Mix(h ^ uint64(uint32(d)))
	}
	return h
}

// PrepareSource reads shard i of src and prepares its training SERPs with
// R ranks (the largest of DefaultRanks and the longest SERP of the whole
// log). It also returns the shard's test SERPs whose query trains, and
// the log position of the first SERP of each query (by query ID), for the
// out-of-core engine's prepared shard (clickmodels/outofcore).
func PrepareSource(ctx context.Context, src split.Source, i, R int) (d *Data, test *sessions.Log, first []int64, err error) {
	// The training SERPs go straight into the aggregator (only distinct
	// SERPs are kept), the test SERPs into a compact test log; both share
	// one query and one document dictionary. No copy of the shard, no
	// user sessions.
	var qd, dd sessions.Dict
	var agg aggregator
	test = &sessions.Log{Offsets: []int64{0}}
	var docs []int32
	err = src.Scan(ctx, i, func(pos int64, tr bool, s *sessions.SERP) error {
		if len(s.Results) > sessions.MaxRanks {
			return fmt.Errorf("shard %d, log position %d: %d results, at most %d supported", i, pos, len(s.Results), sessions.MaxRanks)
		}
		var mask uint64
		for _, c := range s.Clicks {
			if c.Rank < 0 || c.Rank >= len(s.Results) {
				return fmt.Errorf("shard %d, log position %d: click rank %d outside SERP of %d results", i, pos, c.Rank, len(s.Results))
			}
			mask |= 1 << uint(c.Rank)
		}
		nq := qd.Len()
		q := qd.ID(s.Query)
		if qd.Len() > nq {
			first = append(first, pos)
		}
		docs = docs[:0]
		for _, r := range s.Results {
			docs = append(docs, dd.ID(r))
		}
		if tr {
			agg.add(q, docs, mask)
			return nil
		}
		test.Query = append(test.Query, q)
		test.DocIDs = append(test.DocIDs, docs...)
		test.Offsets = append(test.Offsets, int64(len(test.DocIDs)))
		test.Clicks = append(test.Clicks, mask)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	// Keep the test SERPs whose query trains, in place (a filtered copy
	// would hold the shard's test SERPs twice).
	trains := make([]bool, qd.Len())
	for _, q := range agg.recQuery {
		trains[q] = true
	}
	test.Queries, test.Docs = qd, dd
	n, nd := 0, int64(0)
	for j, q := range test.Query {
		if !trains[q] {
			continue
		}
		lo, hi := test.Offsets[j], test.Offsets[j+1]
		test.Query[n], test.Clicks[n] = q, test.Clicks[j]
		nd += int64(copy(test.DocIDs[nd:], test.DocIDs[lo:hi]))
		test.Offsets[n+1] = nd
		n++
	}
	test.Query, test.Clicks = slices.Clip(test.Query[:n]), slices.Clip(test.Clicks[:n])
	test.Offsets, test.DocIDs = slices.Clip(test.Offsets[:n+1]), slices.Clip(test.DocIDs[:nd])
	d, err = agg.data(qd, dd, R)
	if err != nil {
		return nil, nil, nil, err
	}
	// From here on IDs only turn back into names: drop the string indexes
	// (the largest part of a shard's dictionaries) from every copy.
	for _, dc := range []*sessions.Dict{&d.log.Queries, &d.log.Docs, &test.Queries, &test.Docs} {
		dc.DropIndex()
	}
	return d, test, first, nil
}
