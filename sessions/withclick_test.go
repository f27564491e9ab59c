package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWithClick: sessions are runs of SERPs with one session ID, and a
// session has a click when any of its SERPs has one. By hand: A (no
// click, click) -> both true; B (none) -> false; A again, a new session
// (none) -> false; C (click) -> true.
func TestWithClick(t *testing.T) {
	l := &Log{}
	for _, s := range []SERP{
		{SessionID: "A", Query: "q", Results: []string{"x", "y"}},
		{SessionID: "A", Query: "r", Results: []string{"x", "y"}, Clicks: []Click{{Rank: 1}}},
		{SessionID: "B", Query: "q", Results: []string{"x", "y"}},
		{SessionID: "A", Query: "q", Results: []string{"x", "y"}},
		{SessionID: "C", Query: "s", Results: []string{"x", "y"}, Clicks: []Click{{Rank: 0}}},
	} {
		if err := l.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := l.WithClick(), []bool{true, true, false, false, true}; !reflect.DeepEqual(got, want) {
		t.Errorf("WithClick = %v, want %v", got, want)
	}
	l.Session = nil // no sessions: each SERP its own
	if got, want := l.WithClick(), []bool{false, true, false, false, true}; !reflect.DeepEqual(got, want) {
		t.Errorf("without sessions: WithClick = %v, want %v", got, want)
	}
}

// TestScanParquetSessionResults: the session and click count of every
// row, over many row groups, equal ScanParquet's reading.
func TestScanParquetSessionResults(t *testing.T) {
	var serps []SERP
	for i := range 3000 {
		s := SERP{SessionID: fmt.Sprint("s", i/4), Query: fmt.Sprint("q", i%17), Results: []string{"a", "b", "c"}}
		for r := range i % 4 {
			s.Clicks = append(s.Clicks, Click{Rank: r % 3, TimePassed: int64(r)})
		}
		serps = append(serps, s)
	}
	p := filepath.Join(t.TempDir(), ParquetName)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := NewParquetWriter(f, 700)
	for i := range serps {
		if err := w.Write(&serps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	type rec struct {
		s, q   string
		n      int
		clicks int
	}
	var want, got []rec
	if err := ScanParquet(p, func(s *SERP) error {
		want = append(want, rec{s.SessionID, s.Query, len(s.Results), len(s.Clicks)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := ScanParquetSessionResults(p, func(s, q []byte, res [][]byte, clicks int) error {
		got = append(got, rec{string(s), string(q), len(res), clicks})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3000 || !reflect.DeepEqual(got, want) {
		t.Errorf("ScanParquetSessionResults differs from ScanParquet (%d rows, want %d)", len(got), len(want))
	}
}
