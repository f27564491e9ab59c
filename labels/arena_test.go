package labels

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestLeaderArena: offsets, chunks and compaction of an arena of 16-byte
// chunks, computed by hand. Lists of 10 and 5 bytes share chunk 0; one
// of 3 does not fit in its last byte and starts chunk 1; one of 40 bytes
// takes chunks 2-4 of its own (48 bytes from offset 32); one of 8 fits in
// the rest of chunk 4 (offsets 72-79); one of 1 starts chunk 5. With the
// lists of 5 and 40 bytes dropped, compaction in offset order puts the
// 10 at 0, the 3 at 10, the 8 at 16 (13+8 > 16) and the 1 at 24, in two
// chunks, and drops old chunks 0-4 (all before the last list's chunk).
func TestLeaderArena(t *testing.T) {
	a := leaderArena{shift: 4}
	sizes := []int{10, 5, 3, 40, 8, 1}
	wantAt := []int{0, 10, 16, 32, 72, 80}
	wantChunks := []int{1, 1, 2, 5, 5, 6}
	data := make([][]byte, len(sizes))
	ats := make([]int, len(sizes))
	for i, n := range sizes {
		at, b := a.alloc(n)
		if at != wantAt[i] || len(b) != n || len(a.chunks) != wantChunks[i] {
			t.Fatalf("list %d (%d bytes): at %d, %d bytes, %d chunks; want %d, %d, %d", i, n, at, len(b), len(a.chunks), wantAt[i], n, wantChunks[i])
		}
		for j := range b {
			b[j] = byte(10*i + j)
		}
		data[i], ats[i] = slices.Clone(b), at
	}
	if a.end != 81 || a.used != 67 || a.held() != 96 {
		t.Fatalf("end %d used %d held %d, want 81, 67, 96", a.end, a.used, a.held())
	}
	for i := range sizes {
		if got := a.bytes(ats[i], sizes[i]); !slices.Equal(got, data[i]) {
			t.Fatalf("list %d: %v, want %v", i, got, data[i])
		}
	}
	// Leaders in another order than their offsets; one without a list.
	lead := []leader{
		{count: 2, at: 72, n: 8}, {count: -1}, {count: 1, at: 0, n: 10}, {count: 5, at: 80, n: 1}, {count: 1, at: 16, n: 3},
	}
	from := []int{4, -1, 0, 5, 2} // the list of each leader
	old := a.chunks
	a.compact(lead)
	wantNew := []int{16, 0, 0, 24, 10}
	for i, l := range lead {
		if l.count < 0 {
			continue
		}
		if l.at != wantNew[i] || !slices.Equal(a.bytes(l.at, l.n), data[from[i]]) {
			t.Fatalf("leader %d: at %d bytes %v, want %d, %v", i, l.at, a.bytes(l.at, l.n), wantNew[i], data[from[i]])
		}
	}
	if a.end != 25 || a.used != 22 || a.held() != 32 || len(a.chunks) != 2 {
		t.Fatalf("after compaction: end %d used %d held %d chunks %d, want 25, 22, 32, 2", a.end, a.used, a.held(), len(a.chunks))
	}
	for j, c := range old {
		if (c == nil) != (j < 5) {
			t.Fatalf("old chunk %d dropped: %v, want %v", j, c == nil, j < 5)
		}
	}
}

// TestFirstSERPsArenaCompacts: a query whose two lists of ten 1000-byte
// names are shown A, B, B, A, A, B, B, A, ... changes its leader twice
// every four SERPs (B overtakes A, then A ties B and wins as the list
// shown first), 200 times over 400 SERPs: 2,004,000 bytes of lists of
// which one is live, while 50 other queries keep their first lists
// (510,000 live bytes in all). The pass writes 2.5 MB in all, so it ends
// holding them in at most two 1 MiB chunks only if it compacted (more
// than 1 MiB written, more than twice the live bytes), and the first-SERP
// log names the final leader's docs: A, after 200 SERPs of each list.
func TestFirstSERPsArenaCompacts(t *testing.T) {
	fs := newFirstSERPs(Options{SERPSize: 10, Choice: MostFrequent}.withDefaults())
	list := func(name string) [][]byte {
		r := make([][]byte, 10)
		for i := range r {
			r[i] = []byte(fmt.Sprintf("%s%d-%s", name, i, strings.Repeat("x", 1000-len(name)-2)))
		}
		return r
	}
	a, b := list("A"), list("B")
	for i := range 50 {
		if err := fs.add([]byte(fmt.Sprintf("o%d", i)), list(fmt.Sprintf("O%d-", i))); err != nil {
			t.Fatal(err)
		}
	}
	pattern := [][][]byte{a, b, b, a}
	for i := range 400 {
		if err := fs.add([]byte("q"), pattern[i%4]); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := fs.queries.Lookup("q")
	if l := fs.lead[q]; l.count != 200 || l.ord != 0 {
		t.Fatalf("leader of q: count %d ord %d, want 200, 0 (A)", l.count, l.ord)
	}
	if fs.live != 51*10*(2+1000) || fs.arena.held() > 2<<20 {
		t.Fatalf("live %d held %d, want %d and at most %d", fs.live, fs.arena.held(), 51*10*1002, 2<<20)
	}
	log, docName, _ := fs.log(true)
	if docName == nil || log.Len() != 51 {
		t.Fatalf("%d SERPs, docName %v", log.Len(), docName != nil)
	}
	for i := range log.Len() {
		want := list(fmt.Sprintf("O%d-", i))
		if log.Queries.Names[log.Query[i]] == "q" {
			want = a
		}
		for r, id := range log.SERPDocs(i) {
			if got := docName(id); got != string(want[r]) {
				t.Fatalf("SERP %d rank %d: %.12s..., want %.12s...", i, r, got, want[r])
			}
		}
	}
}
