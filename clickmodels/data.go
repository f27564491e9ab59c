package clickmodels

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	// Keep the dictionaries only: the SERP columns of log are not needed
	// after preparation and may be freed by the caller.
	d := &Data{log: &sessions.Log{Queries: log.Queries, Docs: log.Docs}, ranks: ranks, serps: n}

	// 1. Group the SERPs by query (counting sort, stable: file order within
	// a query).
	nq := log.Queries.Len()
	start := make([]int, nq+1)
	for _, q := range log.Query {
		start[q+1]++
	}
	for q := 0; q < nq; q++ {
		start[q+1] += start[q]
	}
	order := make([]int32, n)
	pos := slices.Clone(start[:nq])
	for i, q := range log.Query {
		order[pos[q]] = int32(i)
		pos[q]++
	}
	pos = nil

	// 2. Per block of queries, in parallel: merge identical SERPs of each
	// query into records (in order of first appearance) and number the
	// query's documents in order of first appearance. Blocks are cut by
	// SERP count, independently of the number of workers.
	var blocks []prepBlock
	const blockSERPs = 1 << 16
	for q := 0; q < nq; {
		b := prepBlock{qLo: q}
		for q < nq && (q == b.qLo || start[q+1]-start[b.qLo] <= blockSERPs) {
			q++
		}
		b.qHi = q
		blocks = append(blocks, b)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			heads := make(map[uint64]int32)
			var chain []int32
			docPair := make(map[int32]int32)
			for {
				bi := int(next.Add(1) - 1)
				if bi >= len(blocks) {
					return
				}
				b := &blocks[bi]
				b.recOff = []int64{0}
				for q := b.qLo; q < b.qHi; q++ {
					clear(heads)
					clear(docPair)
					recBase := len(b.first)
					chain = chain[:0]
					for _, i32 := range order[start[q]:start[q+1]] {
						i := int(i32)
						h := serpHash(log, i)
						rec := int32(-1)
						head, ok := heads[h]
						if ok {
							for r := head; r >= 0; r = chain[r] {
								if sameSERP(log, int(b.first[recBase+int(r)]), i) {
									rec = r
									break
								}
							}
						} else {
							head = -1
						}
						if rec < 0 {
							rec = int32(len(chain))
							chain = append(chain, head)
							heads[h] = rec
							b.first = append(b.first, i32)
							b.weight = append(b.weight, 0)
							for _, doc := range log.SERPDocs(i) {
								p, ok := docPair[doc]
								if !ok {
									p = int32(len(b.pairDoc))
									docPair[doc] = p
									b.pairDoc = append(b.pairDoc, doc)
									b.pairQuery = append(b.pairQuery, int32(q))
								}
								b.recPair = append(b.recPair, p)
							}
							b.recOff = append(b.recOff, int64(len(b.recPair)))
						}
						b.weight[recBase+int(rec)]++
					}
				}
			}
		}()
	}
	wg.Wait()

	// 3. Concatenate the blocks (pair numbers shifted by the pairs of the
	// blocks before) and cut chunks at query boundaries.
	nr, npairs, nranks := 0, 0, 0
	for i := range blocks {
		nr += len(blocks[i].first)
		npairs += len(blocks[i].pairDoc)
		nranks += len(blocks[i].recPair)
	}
	d.recOff = make([]int64, 1, nr+1)
	d.recPair = make([]int32, 0, nranks)
	d.recClicks = make([]uint64, 0, nr)
	d.recWeight = make([]float64, 0, nr)
	d.pairQuery = make([]int32, 0, npairs)
	d.pairDoc = make([]int32, 0, npairs)
	cur := chunk{}
	ranksInChunk := 0
	prevQ := int32(-1)
	for bi := range blocks {
		b := &blocks[bi]
		base := int32(len(d.pairDoc))
		for r, s := range b.first {
			q := log.Query[s]
			if q != prevQ && ranksInChunk >= chunkRanks {
				cur.recHi, cur.pairHi = len(d.recClicks), len(d.pairQuery)+int(firstPairOf(b, r))
				d.chunks = append(d.chunks, cur)
				cur = chunk{recLo: cur.recHi, pairLo: cur.pairHi}
				ranksInChunk = 0
			}
			prevQ = q
			for _, p := range b.recPair[b.recOff[r]:b.recOff[r+1]] {
				d.recPair = append(d.recPair, base+p)
			}
			d.recOff = append(d.recOff, int64(len(d.recPair)))
			d.recClicks = append(d.recClicks, log.Clicks[s])
			d.recWeight = append(d.recWeight, b.weight[r])
			ranksInChunk += log.Ranks(int(s))
		}
		d.pairQuery = append(d.pairQuery, b.pairQuery...)
		d.pairDoc = append(d.pairDoc, b.pairDoc...)
		blocks[bi] = prepBlock{}
	}
	if nr > 0 {
		cur.recHi, cur.pairHi = nr, len(d.pairQuery)
		d.chunks = append(d.chunks, cur)
	}
	return d, nil
}

// prepBlock is the part of Prepare's work on a run of queries.
type prepBlock struct {
	qLo, qHi  int
	first     []int32   // first SERP of each record
	weight    []float64 // copies
	pairDoc   []int32   // documents of the block's pairs, query by query
	pairQuery []int32
	recPair   []int32 // local pair numbers, rank by rank
	recOff    []int64 // local offsets into recPair
}

// firstPairOf is the local number of the first pair of record r's query in
// block b: the pairs of earlier queries of the block all precede it.
func firstPairOf(b *prepBlock, r int) int32 {
	q := b.pairQuery[b.recPair[b.recOff[r]]]
	p := b.recPair[b.recOff[r]]
	for p > 0 && b.pairQuery[p-1] == q {
		p--
	}
	return p
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
