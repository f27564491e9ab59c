package clickmodels

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// TestPrepare checks Prepare's aggregation against a direct computation:
// records are the distinct (query, documents, clicks) SERPs, grouped by
// query in order of query ID and first appearance, weighted by their copies;
// pairs are numbered query by query in order of first appearance; chunks
// cover the records, never split a query and own exactly the pairs their
// records use. It also checks that Prepare does not depend on GOMAXPROCS.
func TestPrepare(t *testing.T) {
	log, err := SimulatedLog(context.Background(), UBM, 40_000, 6, 300, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Direct computation.
	key := func(i int) string { return fmt.Sprint(log.Query[i], log.SERPDocs(i), log.Clicks[i]) }
	count := map[string]float64{}
	var firsts [][]int // per query: first SERP of each distinct SERP
	firsts = make([][]int, log.Queries.Len())
	for i := 0; i < log.Len(); i++ {
		k := key(i)
		if count[k] == 0 {
			firsts[log.Query[i]] = append(firsts[log.Query[i]], i)
		}
		count[k]++
	}
	rec := 0
	pairSeen := map[[2]int32]int32{}
	nextPair := int32(0)
	for q := range firsts {
		for _, i := range firsts[q] {
			if rec >= d.Records() {
				t.Fatalf("only %d records", d.Records())
			}
			if d.recClicks[rec] != log.Clicks[i] || d.recWeight[rec] != count[key(i)] {
				t.Fatalf("record %d: clicks %b weight %v, want %b %v", rec, d.recClicks[rec], d.recWeight[rec], log.Clicks[i], count[key(i)])
			}
			for r, doc := range log.SERPDocs(i) {
				pk := [2]int32{int32(q), doc}
				p, ok := pairSeen[pk]
				if !ok {
					p = nextPair
					pairSeen[pk] = p
					nextPair++
				}
				got := d.recPair[d.recOff[rec]+int64(r)]
				if got != p || d.pairQuery[got] != int32(q) || d.pairDoc[got] != doc {
					t.Fatalf("record %d rank %d: pair %d, want %d", rec, r, got, p)
				}
			}
			rec++
		}
	}
	if rec != d.Records() || int(nextPair) != d.Pairs() {
		t.Fatalf("%d records, %d pairs; want %d, %d", d.Records(), d.Pairs(), rec, nextPair)
	}
	if len(d.chunks) < 4 {
		t.Fatalf("%d chunks", len(d.chunks))
	}
	recLo, pairLo := 0, 0
	for ci, ch := range d.chunks {
		if ch.recLo != recLo || ch.pairLo != pairLo || ch.recHi <= ch.recLo {
			t.Fatalf("chunk %d: %+v does not continue at record %d, pair %d", ci, ch, recLo, pairLo)
		}
		for i := ch.recLo; i < ch.recHi; i++ {
			for _, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				if int(p) < ch.pairLo || int(p) >= ch.pairHi {
					t.Fatalf("chunk %d: record %d uses pair %d outside [%d, %d)", ci, i, p, ch.pairLo, ch.pairHi)
				}
			}
		}
		if ci > 0 && recQuery(d, ch.recLo) == recQuery(d, ch.recLo-1) {
			t.Fatalf("chunk %d splits a query", ci)
		}
		recLo, pairLo = ch.recHi, ch.pairHi
	}
	if recLo != d.Records() || pairLo != d.Pairs() {
		t.Fatalf("chunks end at record %d, pair %d", recLo, pairLo)
	}
	// The same with one OS thread.
	old := runtime.GOMAXPROCS(1)
	d1, err := Prepare(log, 0)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d1.recPair, d1.recWeight, d1.chunks) != fmt.Sprint(d.recPair, d.recWeight, d.chunks) {
		t.Fatal("Prepare depends on GOMAXPROCS")
	}
}

// recQuery is the query of record i (the query of its first pair).
func recQuery(d *Data, i int) int32 { return d.pairQuery[d.recPair[d.recOff[i]]] }
