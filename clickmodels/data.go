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

	// The click orders other than rank order (PSCM; nil when the log has
	// none): record i was clicked in order varOrd[varOff[j]:varOff[j+1]]
	// by varWeight[j] of its SERPs, for j in [recVar[i], recVar[i+1]),
	// and in rank order by the rest of its weight. Records (identical
	// SERPs) are the same with or without orders, so every other model's
	// fit is unchanged by them.
	recVar    []int32
	varOff    []int64
	varOrd    []uint8
	varWeight []float64

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
	var buf [MaxSERP]uint8
	next := 0 // the next SERP with a click order of its own is log.OrderSERP[next]
	for i := range log.Len() {
		var order []uint8
		if next < len(log.OrderSERP) && int(log.OrderSERP[next]) == i {
			order = log.ClickOrder(buf[:0], i)
			next++
		}
		a.add(log.Query[i], log.SERPDocs(i), log.Clicks[i], order)
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

	// Click orders other than rank order, in order of first appearance:
	// variant j is record varRec[j] clicked in order
	// varOrd[varOff[j]:varOff[j+1]] by varWeight[j] SERPs. A record's
	// variants are a list, varHead[r] its first + 1 (0: none) and
	// varNext[j] the next + 1: a record has few orders (at most k! for k
	// clicks, and a log shows fewer), so a walk finds one without an
	// index keyed by the order.
	varHead   []int32
	varNext   []int32
	varRec    []int32
	varOff    []int64
	varOrd    []uint8
	varWeight []float64
}

// add counts one SERP: query q, documents docs in rank order (not kept),
// click mask clicks, click order order (nil: rank order; not kept).
func (a *aggregator) add(q int32, docs []int32, clicks uint64, order []uint8) {
	r := a.record(q, docs, clicks)
	if order == nil || sessions.InRankOrder(order) {
		return
	}
	for j := a.varHeadOf(r) - 1; j >= 0; j = a.varNext[j] - 1 {
		if slices.Equal(a.varOrd[a.varOff[j]:a.varOff[j+1]], order) {
			a.varWeight[j]++
			return
		}
	}
	if len(a.varOff) == 0 {
		a.varOff = append(a.varOff, 0)
	}
	j := int32(len(a.varRec))
	a.varNext = append(a.varNext, a.varHead[r]) // the new variant goes first
	a.varHead[r] = j + 1
	a.varRec = append(a.varRec, r)
	a.varOrd = append(a.varOrd, order...)
	a.varOff = append(a.varOff, int64(len(a.varOrd)))
	a.varWeight = append(a.varWeight, 1)
}

// varHeadOf returns varHead[r], growing varHead to cover record r.
func (a *aggregator) varHeadOf(r int32) int32 {
	if int(r) >= len(a.varHead) {
		a.varHead = append(a.varHead, make([]int32, len(a.recHash)-len(a.varHead))...)
	}
	return a.varHead[r]
}

// record counts one SERP in its record (query q, documents docs, click
// mask clicks), adding the record if new, and returns its number.
func (a *aggregator) record(q int32, docs []int32, clicks uint64) int32 {
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
			return int32(len(a.recHash) - 1)
		}
		if a.recHash[r] == h && a.recQuery[r] == q && a.recClicks[r] == clicks &&
			slices.Equal(a.recDocs[a.recOff[r]:a.recOff[r+1]], docs) {
			a.recWeight[r]++
			return r
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
	a.dataOrders(d, order)
	*a = aggregator{}
	return d, nil
}

// dataOrders moves the click-order variants into d, grouped by record in
// d's record order (order[k] is the aggregator's number of d's record k),
// each record's in order of first appearance.
func (a *aggregator) dataOrders(d *Data, order []int32) {
	if len(a.varRec) == 0 {
		return
	}
	newRec := make([]int32, len(order))
	for k, r := range order {
		newRec[r] = int32(k)
	}
	d.recVar = make([]int32, len(order)+1)
	for _, r := range a.varRec {
		d.recVar[newRec[r]+1]++
	}
	for k := range order {
		d.recVar[k+1] += d.recVar[k]
	}
	pos := slices.Clone(d.recVar[:len(order)])
	idx := make([]int32, len(a.varRec)) // d's variant j is the aggregator's idx[j]
	for j, r := range a.varRec {
		k := newRec[r]
		idx[pos[k]] = int32(j)
		pos[k]++
	}
	d.varOff = make([]int64, 1, len(idx)+1)
	d.varOrd = make([]uint8, 0, len(a.varOrd))
	d.varWeight = make([]float64, 0, len(idx))
	for _, j := range idx {
		d.varOrd = append(d.varOrd, a.varOrd[a.varOff[j]:a.varOff[j+1]]...)
		d.varOff = append(d.varOff, int64(len(d.varOrd)))
		d.varWeight = append(d.varWeight, a.varWeight[j])
	}
}

// eachOrder calls fn with the click orders of record i and their weights:
// rank order (nil) with the weight of the SERPs clicked in rank order, if
// any, then every other order (eachVariant).
func (d *Data) eachOrder(i int, fn func(order []uint8, w float64)) {
	d.eachVariant(i, func(j int, w float64) { fn(d.variant(j), w) })
}

// eachVariant is eachOrder by variant: it calls fn with j = -1 (rank
// order) and the weight of the SERPs of record i clicked in rank order, if
// any, then with every variant j of the record (click order d.variant(j))
// and its weight.
func (d *Data) eachVariant(i int, fn func(j int, w float64)) {
	w := d.recWeight[i]
	if d.recVar == nil {
		fn(-1, w)
		return
	}
	lo, hi := int(d.recVar[i]), int(d.recVar[i+1])
	for j := lo; j < hi; j++ {
		w -= d.varWeight[j]
	}
	if w > 0 {
		fn(-1, w)
	}
	for j := lo; j < hi; j++ {
		fn(j, d.varWeight[j])
	}
}

// variant is the click order of variant j, nil (rank order) for j = -1.
func (d *Data) variant(j int) []uint8 {
	if j < 0 {
		return nil
	}
	return d.varOrd[d.varOff[j]:d.varOff[j+1]]
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
	var obuf [MaxSERP]uint8
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
		var order []uint8
		if len(s.Clicks) > 1 {
			if o, inOrder := sessions.ClickOrder(obuf[:0], s.Clicks, nil); !inOrder {
				order = o
			}
		}
		if tr {
			agg.add(q, docs, mask, order)
			return nil
		}
		test.Query = append(test.Query, q)
		test.DocIDs = append(test.DocIDs, docs...)
		test.Offsets = append(test.Offsets, int64(len(test.DocIDs)))
		test.Clicks = append(test.Clicks, mask)
		test.SetLastOrder(order)
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
	no, wo, wr := 0, 0, int64(0) // click orders: read and write cursors, ranks written
	for j, q := range test.Query {
		var olo, ohi int64
		hasOrder := no < len(test.OrderSERP) && int(test.OrderSERP[no]) == j
		if hasOrder {
			olo, ohi = test.OrderOff[no], test.OrderOff[no+1]
			no++
		}
		if !trains[q] {
			continue
		}
		if hasOrder {
			test.OrderSERP[wo] = int32(n)
			wr += int64(copy(test.OrderRanks[wr:], test.OrderRanks[olo:ohi]))
			test.OrderOff[wo+1] = wr
			wo++
		}
		lo, hi := test.Offsets[j], test.Offsets[j+1]
		test.Query[n], test.Clicks[n] = q, test.Clicks[j]
		nd += int64(copy(test.DocIDs[nd:], test.DocIDs[lo:hi]))
		test.Offsets[n+1] = nd
		n++
	}
	if len(test.OrderOff) > 0 {
		test.OrderSERP, test.OrderOff, test.OrderRanks = slices.Clip(test.OrderSERP[:wo]), slices.Clip(test.OrderOff[:wo+1]), slices.Clip(test.OrderRanks[:wr])
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
