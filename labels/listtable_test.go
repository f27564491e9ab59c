package labels

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// TestListTable: the table keeps what was stored in each slot through its
// growth, against a Go map of the same hashes: 300,000 look-ups of 60,000
// keys (every shard grows several times), the key 0 included.
func TestListTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	type key struct{ h1, h2 uint64 }
	keys := make([]key, 60000)
	for i := range keys {
		keys[i] = key{rng.Uint64(), rng.Uint64()}
	}
	keys[7] = key{0, 12345} // stored as h1 = 1
	want := map[key]uint32{}
	var tab listTable
	for range 300000 {
		k := keys[rng.IntN(len(keys))]
		s, ok := tab.slot(k.h1, k.h2)
		n, had := want[k]
		if ok != had {
			t.Fatalf("key %v: found %v, want %v", k, ok, had)
		}
		if !ok {
			s.i = int32(k.h2 % 1000)
		}
		if s.v.count != n || s.i != int32(k.h2%1000) {
			t.Fatalf("key %v: count %d q %d, want %d, %d", k, s.v.count, s.i, n, k.h2%1000)
		}
		s.v.count++
		want[k] = n + 1
	}
	if tab.len() != len(want) {
		t.Fatalf("%d lists, want %d", tab.len(), len(want))
	}
	for i := range tab.shards {
		sh := &tab.shards[i]
		if len(sh.slots) <= 64 || 5*sh.n > 4*len(sh.slots) {
			t.Fatalf("shard %d: %d lists in %d slots", i, sh.n, len(sh.slots))
		}
	}
}

// TestOnePassManyLists: a log of 30,000 SERPs over 2,000 queries (60,000
// with LOVBENCH_FULL=1) where half the SERPs show a list of their own
// (about 15,000 lists of one SERP, enough for every shard of the list
// table to grow, which the test checks) and the others one of three lists
// per query, so that leaders change and tie often: the label stage writes
// the files of the in-memory path, with and without a memory limit.
func TestOnePassManyLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 2))
	var serps []sessions.SERP
	for i := range testsize.Pick(30000, 60000) {
		q := rng.IntN(2000)
		res := make([]string, 10)
		if rng.IntN(2) == 0 {
			for r := range res {
				res[r] = fmt.Sprintf("d%d", rng.IntN(40))
			}
		} else {
			v := rng.IntN(3)
			for r := range res {
				res[r] = fmt.Sprintf("d%d", (r+v)%12)
			}
		}
		serps = append(serps, sessions.SERP{SessionID: fmt.Sprint("s", i), Query: fmt.Sprint("q", q), Region: "0", Results: res})
	}
	var b strings.Builder
	b.WriteString(RelevanceHeader + "\n")
	for q := range 2000 {
		for d := range 40 {
			if q%7 != 0 || d != 3 { // every seventh query lacks d3
				fmt.Fprintf(&b, "q%d\td%d\t%.3f\n", q, d, rng.Float64())
			}
		}
	}
	rel := filepath.Join(t.TempDir(), "rel.tsv")
	if err := os.WriteFile(rel, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeSessionsDir(t, serps, 4096)
	for _, choice := range []SERPChoice{MostFrequent, Earliest} {
		opts := Options{Choice: choice}
		wantL, wantQ := inMemoryFiles(t, dir, rel, opts)
		if n := strings.Count(string(wantL), "\n"); n < 5000 {
			t.Fatalf("%s: only %d labels", choice, n-1)
		}
		for _, limit := range []int64{0, 1 << 20} {
			l, q, _ := runFiles(t, dir, rel, opts, limit)
			if string(l) != string(wantL) || string(q) != string(wantQ) {
				t.Errorf("%s, memory limit %d: files differ from the in-memory path", choice, limit)
			}
		}
	}
	fs := newFirstSERPs(Options{}.withDefaults())
	for _, s := range serps {
		res := make([][]byte, len(s.Results))
		for i, r := range s.Results {
			res[i] = []byte(r)
		}
		if err := fs.add([]byte(s.Query), res); err != nil {
			t.Fatal(err)
		}
	}
	// The shards grew (past their first 64 slots), their lists put back
	// in. The hashes are seeded afresh in every process (maphash), so how
	// many lists a shard gets varies from run to run: about 20,500 lists
	// over 256 shards is 80 a shard, and in 40 runs the fullest-to-emptiest
	// shard held 50 to 61 (a shard grows when it is looked up holding 51
	// lists, 5 x 52 > 4 x 64), one shard short of growing in 4 of them.
	// So: a shard holding 52 lists or more has grown, one holding fewer
	// than 51 has not, and at least 250 of the 256 have (one short in a
	// tenth of the runs makes seven short about 2e-11); the full size has
	// more than 25,000 lists.
	grown := 0
	for i := range fs.lists.shards {
		sh := &fs.lists.shards[i]
		if g := len(sh.slots) > 64; (sh.n >= 52 && !g) || (sh.n < 51 && g) {
			t.Fatalf("shard %d of the list table: %d lists in %d slots", i, sh.n, len(sh.slots))
		} else if g {
			grown++
		}
	}
	if grown < 250 {
		t.Fatalf("%d of the %d shards of the list table grew, want at least 250", grown, len(fs.lists.shards))
	}
	if n := fs.lists.len(); testsize.Full() && n < 25000 {
		t.Fatalf("%d lists, want more than 25,000", n)
	}
}

// TestRunNoLabelsOnError: the labels are written as they come, but a run
// that fails (here: no usable relevance row) leaves no labels file, and no
// temporary file, behind.
func TestRunNoLabelsOnError(t *testing.T) {
	s := func(q string, docs ...string) sessions.SERP {
		return sessions.SERP{SessionID: "s" + q, Query: q, Region: "0", Results: docs}
	}
	dir := writeSessionsDir(t, []sessions.SERP{s("a", "x1", "x2", "x3")}, 4)
	rel := filepath.Join(t.TempDir(), "rel.tsv")
	if err := os.WriteFile(rel, []byte(RelevanceHeader+"\nnot a row\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	_, err := Run(context.Background(), Config{Relevance: rel, Sessions: dir, Out: filepath.Join(outDir, "labels.csv"), Options: Options{SERPSize: 3}})
	var empty *textio.EmptyError
	if !errors.As(err, &empty) {
		t.Fatalf("error %v, want an EmptyError", err)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Fatalf("%s holds %v, want nothing", outDir, ents)
	}
}

// TestHashSlotSize: a slot of either table is 24 bytes (by hand: an
// 8-byte and a 4-byte hash, a 4-byte i and an 8-byte v, no padding), a
// third of what a Go map of the pairs seen took (about 75 bytes a pair,
// measured).
func TestHashSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(hashSlot[listCount]{}); n != 24 {
		t.Errorf("list slot: %d bytes, want 24", n)
	}
	if n := unsafe.Sizeof(hashSlot[float64]{}); n != 24 {
		t.Errorf("seen slot: %d bytes, want 24", n)
	}
}
