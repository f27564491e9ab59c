package clickmodels

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
)

// prepareByQuery is the implementation of Prepare up to 2026-11-26: the
// whole log in memory, SERPs grouped by query first, each block of queries
// merged in parallel. It is kept as the oracle of TestPrepareStreamedEqualsByQuery:
// the streamed aggregation must give the same Data, chunks included.
func prepareByQuery(log *sessions.Log, ranks int) (*Data, error) {
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
	var blocks []refBlock
	const blockSERPs = 1 << 16
	for q := 0; q < nq; {
		b := refBlock{qLo: q}
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
						h := serpHash(log.Query[i], log.Clicks[i], log.SERPDocs(i))
						rec := int32(-1)
						head, ok := heads[h]
						if ok {
							for r := head; r >= 0; r = chain[r] {
								if refSameSERP(log, int(b.first[recBase+int(r)]), i) {
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
				cur.recHi, cur.pairHi = len(d.recClicks), len(d.pairQuery)+int(refFirstPairOf(b, r))
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
		blocks[bi] = refBlock{}
	}
	if nr > 0 {
		cur.recHi, cur.pairHi = nr, len(d.pairQuery)
		d.chunks = append(d.chunks, cur)
	}
	return d, nil
}

// refBlock is the part of Prepare's work on a run of queries.
type refBlock struct {
	qLo, qHi  int
	first     []int32   // first SERP of each record
	weight    []float64 // copies
	pairDoc   []int32   // documents of the block's pairs, query by query
	pairQuery []int32
	recPair   []int32 // local pair numbers, rank by rank
	recOff    []int64 // local offsets into recPair
}

// refFirstPairOf is the local number of the first pair of record r's query in
// block b: the pairs of earlier queries of the block all precede it.
func refFirstPairOf(b *refBlock, r int) int32 {
	q := b.pairQuery[b.recPair[b.recOff[r]]]
	p := b.recPair[b.recOff[r]]
	for p > 0 && b.pairQuery[p-1] == q {
		p--
	}
	return p
}

func refSameSERP(log *sessions.Log, i, j int) bool {
	return log.Query[i] == log.Query[j] && log.Clicks[i] == log.Clicks[j] &&
		slices.Equal(log.SERPDocs(i), log.SERPDocs(j))
}

// TestPrepareStreamedEqualsByQuery checks that the streamed aggregation
// gives the same Data as the previous implementation (prepareByQuery):
// same records, weights, pairs and chunks, on simulated logs with
// shuffled results, repeated SERPs, queries of many SERPs and chunk cuts,
// on random logs of uneven lengths over a few documents, and on an
// empty log.
func TestPrepareStreamedEqualsByQuery(t *testing.T) {
	var logs []*sessions.Log
	for _, c := range []struct {
		kind    Kind
		queries int
		shuffle float64
		serps   int
	}{{UBM, 300, 0.3, 40_000}, {DBN, 20, 0.9, 30_000}, {UBM, 5000, 0, 20_000}} {
		log, err := SimulatedLog(t.Context(), c.kind, c.serps, 8, c.queries, c.shuffle, 7)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, log)
	}
	// Random SERPs of 1 to 14 results over 6 documents and 9 queries:
	// many identical SERPs, many hash-table probes.
	rnd := &sessions.Log{Offsets: []int64{0}}
	x := uint64(1)
	next := func(n int) int { x = hashes.Mix(x); return int(x % uint64(n)) }
	for range 20_000 {
		s := sessions.SERP{Query: fmt.Sprint("q", next(9))}
		for range 1 + next(14) {
			s.Results = append(s.Results, fmt.Sprint("d", next(6)))
		}
		if next(3) == 0 {
			s.Clicks = append(s.Clicks, sessions.Click{Rank: next(len(s.Results))})
		}
		if err := rnd.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	logs = append(logs, rnd, &sessions.Log{Offsets: []int64{0}})
	for li, log := range logs {
		for _, ranks := range []int{0, 16} {
			want, err := prepareByQuery(log, ranks)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Prepare(log, ranks)
			if err != nil {
				t.Fatal(err)
			}
			if log.Len() > 10_000 && len(want.chunks) < 2 {
				t.Fatalf("log %d: %d chunks, the test wants chunk cuts", li, len(want.chunks))
			}
			if got.log.Queries.Len() != log.Queries.Len() || got.log.Docs.Len() != log.Docs.Len() {
				t.Fatalf("log %d: dictionaries not kept", li)
			}
			got.log, want.log = nil, nil
			if log.Len() == 0 { // nil and empty slices
				if got.Records() != 0 || got.Pairs() != 0 || len(got.chunks) != 0 || got.ranks != want.ranks {
					t.Fatalf("empty log: %+v", got)
				}
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("log %d, ranks %d: streamed Prepare differs: %d records, %d pairs, %d chunks; want %d, %d, %d",
					li, ranks, got.Records(), got.Pairs(), len(got.chunks), want.Records(), want.Pairs(), len(want.chunks))
			}
		}
	}
}

// BenchmarkPrepare compares the streamed Prepare with the previous
// whole-log implementation on 1,000,000 simulated SERPs (10,000 queries,
// 30% shuffled result lists), side by side in one run.
func BenchmarkPrepare(b *testing.B) {
	log, err := SimulatedLog(b.Context(), UBM, 1_000_000, 2, 10000, 0.3, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func(*sessions.Log, int) (*Data, error)
	}{{"streamed", Prepare}, {"byQuery", prepareByQuery}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.fn(log, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
