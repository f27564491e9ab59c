package lbbeam

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestBatcherRoundTrip feeds a batcher more SERPs than one batch holds
// (several batches per shard, and the all-shards flush) and checks that
// the emitted batches give back every SERP once, in its shard, with its
// place, and in order within the shard.
func TestBatcherRoundTrip(t *testing.T) {
	const n, nShards = 20000, 3
	results := make([]string, 10)
	for i := range results {
		results[i] = fmt.Sprintf("http://example.org/vocabulary/term-with-a-long-name-%02d", i)
	}
	type got struct {
		shard, part, ord int
		s                sessions.SERP
	}
	var out []got
	emitted := map[int]int{}
	b := newBatcher(nShards, func(shard int, batch []byte) {
		emitted[shard]++
		if err := eachSERP(batch, func(part, ord int, s *sessions.SERP) error {
			out = append(out, got{shard, part, ord, *s})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	want := make([]sessions.SERP, n)
	for i := range want {
		want[i] = sessions.SERP{SessionID: fmt.Sprint("s", i/3), Index: i % 3, TimePassed: int64(i), Query: fmt.Sprint("q", i%97),
			Region: "r", Results: results, Clicks: []sessions.Click{{Rank: i % 10, TimePassed: 7}}}
		b.add(i%nShards, 5, i, &want[i])
	}
	b.flush()
	if len(out) != n {
		t.Fatalf("%d SERPs out, %d in", len(out), n)
	}
	for sh := range nShards {
		if emitted[sh] < 2 {
			t.Errorf("shard %d: %d batches, want several (about %d bytes each)", sh, emitted[sh], batchBytes)
		}
	}
	last := map[int]int{}
	seen := make([]bool, n)
	for _, g := range out {
		if g.part != 5 || g.shard != g.ord%nShards || seen[g.ord] || !reflect.DeepEqual(g.s, want[g.ord]) {
			t.Fatalf("SERP %d: shard %d part %d %+v", g.ord, g.shard, g.part, g.s)
		}
		if o, ok := last[g.shard]; ok && o > g.ord {
			t.Fatalf("shard %d: SERP %d after %d", g.shard, g.ord, o)
		}
		seen[g.ord], last[g.shard] = true, g.ord
	}
	if err := eachSERP([]byte{200}, func(int, int, *sessions.SERP) error { return nil }); err == nil {
		t.Error("a truncated batch was accepted")
	}
}
