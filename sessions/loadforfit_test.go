package sessions

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadForFit checks that LoadForFit reads the same SERPs as Load, from
// a Yandex log and from sessions.parquet, without user sessions or string
// indexes.
func TestLoadForFit(t *testing.T) {
	dir := t.TempDir()
	yandex := filepath.Join(dir, "log.tsv")
	in := "s1\t0\tQ\tq1\t0\ta\tb\tc\n" +
		"s1\t3\tC\tb\n" +
		"s1\t7\tQ\tq2\t0\tc\td\n" +
		"s1\t8\tC\td\n" +
		"s2\t0\tQ\tq1\t0\tb\ta\tc\n" +
		"s2\t1\tC\tb\n" +
		"s2\t2\tC\tc\n"
	if err := os.WriteFile(yandex, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	serps := []SERP{
		{SessionID: "u1", Query: "q1", Region: "0", Results: []string{"a", "b"}, Clicks: []Click{{Rank: 1}}},
		{SessionID: "u2", Query: "q2", Region: "0", Results: []string{"b", "c", "a"}},
		{SessionID: "u2", Index: 1, Query: "q1", Region: "0", Results: []string{"a", "c"}, Clicks: []Click{{Rank: 0}}},
	}
	pq := filepath.Join(dir, ParquetName)
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteParquet(f, serps); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{yandex, pq} {
		full, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := LoadForFit(path)
		if err != nil {
			t.Fatal(err)
		}
		if full.Len() != 3 || full.Sessions.Len() != 2 || len(full.Session) != 3 {
			t.Fatalf("%s: Load: %d SERPs, %d sessions", path, full.Len(), full.Sessions.Len())
		}
		if !slices.Equal(fit.Query, full.Query) || !slices.Equal(fit.Offsets, full.Offsets) ||
			!slices.Equal(fit.DocIDs, full.DocIDs) || !slices.Equal(fit.Clicks, full.Clicks) ||
			!slices.Equal(fit.Queries.Names, full.Queries.Names) || !slices.Equal(fit.Docs.Names, full.Docs.Names) {
			t.Errorf("%s: LoadForFit differs from Load:\n%+v\n%+v", path, fit, full)
		}
		if fit.Session != nil || fit.Sessions.Len() != 0 {
			t.Errorf("%s: LoadForFit kept user sessions: %v %v", path, fit.Session, fit.Sessions.Names)
		}
		if _, ok := fit.Docs.Lookup("a"); ok {
			t.Errorf("%s: LoadForFit kept the document index", path)
		}
		if _, ok := fit.Queries.Lookup("q1"); ok {
			t.Errorf("%s: LoadForFit kept the query index", path)
		}
	}
}

// TestHead checks Head against Slice, that it shares the log's memory and
// that appending to the log leaves it alone.
func TestHead(t *testing.T) {
	l := &Log{}
	for i, s := range []SERP{
		{SessionID: "u1", Query: "q1", Results: []string{"a", "b"}, Clicks: []Click{{Rank: 1}}},
		{SessionID: "u1", Query: "q2", Results: []string{"c"}},
		{SessionID: "u2", Query: "q1", Results: []string{"b", "a", "c"}, Clicks: []Click{{Rank: 0}, {Rank: 2}}},
	} {
		if err := l.Add(&s); err != nil {
			t.Fatal(i, err)
		}
	}
	for n := 0; n <= l.Len(); n++ {
		h, s := l.Head(n), l.Slice(0, n)
		if h.Len() != n || !slices.Equal(h.Query, s.Query) || !slices.Equal(h.Session, s.Session) ||
			!slices.Equal(h.Offsets, s.Offsets) || !slices.Equal(h.DocIDs, s.DocIDs) || !slices.Equal(h.Clicks, s.Clicks) {
			t.Errorf("Head(%d) = %+v, Slice(0, %d) = %+v", n, h, n, s)
		}
	}
	h := l.Head(2)
	if &h.DocIDs[0] != &l.DocIDs[0] || &h.Query[0] != &l.Query[0] {
		t.Error("Head copied the columns")
	}
	if err := l.Add(&SERP{SessionID: "u3", Query: "q3", Results: []string{"d", "e"}}); err != nil {
		t.Fatal(err)
	}
	if h.Len() != 2 || len(h.DocIDs) != 3 || h.Offsets[2] != 3 {
		t.Errorf("appending to the log changed its head: %+v", h)
	}
	if e := (&Log{}).Head(0); e.Len() != 0 || !slices.Equal(e.Offsets, []int64{0}) {
		t.Errorf("Head(0) of an empty log: %+v", e)
	}
}
