package sessions

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadYandexInterns checks the log readYandex builds from the
// scanner's bytes (Dict.IDBytes, startSERP/endSERP) against one written
// out by hand, on a log whose names repeat across SERPs and sessions,
// with CRLF line ends, a click on a document shown twice, a repeated
// click, clicks ignored for their session and their document, and the
// string path (ScanYandexClicks into Log.add) on the same log.
func TestReadYandexInterns(t *testing.T) {
	in := "s1\t0\tQ\tq1\t0\ta\tb\tc\r\n" +
		"s1\t3\tC\tb\r\n" +
		"s1\t4\tC\tb\n" +
		"s1\t5\tC\ta\n" +
		"s1\t7\tQ\tq2\t0\tc\td\tc\n" +
		"s1\t8\tC\tc\n" +
		"s9\t8\tC\td\n" +
		"s1\t9\tC\tzz\n" +
		"s2\t0\tQ\tq1\t0\tb\ta\te\n" +
		"s2\t1\tC\te\n"
	got, st, err := ReadYandex(strings.NewReader(in), "t", true)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: queries q1=0 q2=1; documents a=0 b=1 c=2 d=3 e=4 in order
	// of first sight; sessions s1=0 s2=1.
	want := &Log{
		Query:      []int32{0, 1, 0},
		Session:    []int32{0, 0, 1},
		Offsets:    []int64{0, 3, 6, 9},
		DocIDs:     []int32{0, 1, 2, 2, 3, 2, 1, 0, 4},
		Clicks:     []uint64{0b011, 0b001, 0b100},
		OrderSERP:  []int32{0},
		OrderOff:   []int64{0, 2},
		OrderRanks: []uint8{1, 0},
	}
	if !slices.Equal(got.Query, want.Query) || !slices.Equal(got.Session, want.Session) ||
		!slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.DocIDs, want.DocIDs) ||
		!slices.Equal(got.Clicks, want.Clicks) || !slices.Equal(got.OrderSERP, want.OrderSERP) ||
		!slices.Equal(got.OrderOff, want.OrderOff) || !slices.Equal(got.OrderRanks, want.OrderRanks) {
		t.Errorf("ReadYandex:\n got %+v\nwant %+v", got, want)
	}
	if !slices.Equal(got.Queries.Names, []string{"q1", "q2"}) || !slices.Equal(got.Docs.Names, []string{"a", "b", "c", "d", "e"}) ||
		!slices.Equal(got.Sessions.Names, []string{"s1", "s2"}) {
		t.Errorf("dictionaries: %v %v %v", got.Queries.Names, got.Docs.Names, got.Sessions.Names)
	}
	if st.Queries != 3 || st.Clicks != 5 || st.IgnoredClickSess != 1 || st.IgnoredClickDoc != 1 || st.Lines != 10 {
		t.Errorf("stats %+v", st)
	}
	// The string path: every SERP through Log.add.
	viaStrings := &Log{}
	if _, err := ScanYandexClicks(strings.NewReader(in), "t", true, func(session, query string, results []string, clicks []Click) error {
		return viaStrings.add(&SERP{SessionID: session, Query: query, Results: slices.Clone(results), Clicks: slices.Clone(clicks)}, true)
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", viaStrings) != fmt.Sprintf("%+v", got) {
		t.Errorf("the string path differs:\n%+v\n%+v", viaStrings, got)
	}
}

// TestDictIDBytes checks that IDBytes numbers names as ID does and keeps
// a copy of a new name, not the caller's bytes (which the scanner
// reuses for the next line).
func TestDictIDBytes(t *testing.T) {
	var d Dict
	b := []byte("doc")
	if d.IDBytes(b) != 0 || d.IDBytes([]byte("other")) != 1 || d.IDBytes([]byte("doc")) != 0 || d.ID("other") != 1 {
		t.Fatalf("IDs %v", d.Names)
	}
	copy(b, "xyz")
	if !slices.Equal(d.Names, []string{"doc", "other"}) || d.IDBytes([]byte("doc")) != 0 || d.IDBytes(b) != 2 {
		t.Errorf("names %v", d.Names)
	}
}

// TestReadYandexRandom checks readYandex's log (names looked up among the
// query's last SERP's documents first, docID) against the string path on
// a random log: queries with pools of documents, lists in the pool's
// order or shuffled, documents new to the query, shown twice, or shown
// by other queries.
func TestReadYandexRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	var b strings.Builder
	for i := range 3000 {
		q := rng.IntN(40)
		fmt.Fprintf(&b, "s%d\t0\tQ\tq%d\t0", i, q)
		k := 1 + rng.IntN(10)
		perm := rng.Perm(12)
		for r := range k {
			d := fmt.Sprintf("q%dd%d", q, r)
			switch x := rng.IntN(10); {
			case x < 3:
				d = fmt.Sprintf("q%dd%d", q, perm[r])
			case x == 3:
				d = fmt.Sprintf("q%dd%d", rng.IntN(40), rng.IntN(12))
			case x == 4:
				d = fmt.Sprintf("q%dd%d", q, rng.IntN(3))
			}
			fmt.Fprintf(&b, "\t%s", d)
		}
		b.WriteString("\n")
	}
	in := b.String()
	got, _, err := ReadYandex(strings.NewReader(in), "t", true)
	if err != nil {
		t.Fatal(err)
	}
	want := &Log{}
	if _, err := ScanYandexClicks(strings.NewReader(in), "t", true, func(session, query string, results []string, clicks []Click) error {
		return want.add(&SERP{SessionID: session, Query: query, Results: slices.Clone(results)}, true)
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.DocIDs, want.DocIDs) || !slices.Equal(got.Docs.Names, want.Docs.Names) || !slices.Equal(got.Query, want.Query) || !slices.Equal(got.Offsets, want.Offsets) {
		t.Errorf("readYandex's log differs from the string path's")
	}
	if got.Docs.Len() < 400 {
		t.Errorf("%d documents: the log does not reach the cases", got.Docs.Len())
	}
}

// BenchmarkLoadForFit reads a Yandex log of 100,000 SERPs of 10 results
// over 2,000 queries, one click in three ranks.
func BenchmarkLoadForFit(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 100000; i++ {
		q := i * 7919 % 2000
		fmt.Fprintf(&buf, "%d\t0\tQ\tq%d\t0", i, q)
		for r := 0; r < 10; r++ {
			fmt.Fprintf(&buf, "\td%d", q*20+(i+r*3)%20)
		}
		buf.WriteByte('\n')
		for r := i % 3; r < 10; r += 3 {
			fmt.Fprintf(&buf, "%d\t%d\tC\td%d\n", i, r+1, q*20+(i+r*3)%20)
		}
	}
	path := filepath.Join(b.TempDir(), "log.tsv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadForFit(path); err != nil {
			b.Fatal(err)
		}
	}
}
