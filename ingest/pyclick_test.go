package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPyClickReferenceLog ingests the shared PyClick reference log and checks
// that every kept session has exactly the SERPs (query, documents, clicked
// ranks) that PyClick's reading of the input gives it (sessions.ReadYandex
// follows PyClick), and that only sessions without clicks or with a click
// outside the SERP are dropped, under LOVBench's rule 1 as written
// (DropClickless; TestKeepClickless checks the default).
func TestPyClickReferenceLog(t *testing.T) {
	r := ingestReference(t, Config{KeepSessionIDs: true, DropClickless: true})
	rep, out, ref, st, got := r.rep, r.out, r.ref, r.st, r.got
	// SERPs of the reference log, by session.
	bySess := map[string][]int{}
	for i := 0; i < ref.Len(); i++ {
		s := ref.Sessions.Names[ref.Session[i]]
		bySess[s] = append(bySess[s], i)
	}
	if rep.Sessions.Seen != ref.Sessions.Len() {
		t.Errorf("sessions seen %d, reference has %d", rep.Sessions.Seen, ref.Sessions.Len())
	}
	// Sessions the reference gives a click, and no ignored click: all kept.
	wantKept := 0
	for _, idx := range bySess {
		clicks := uint64(0)
		for _, i := range idx {
			clicks |= ref.Clicks[i]
		}
		if clicks != 0 {
			wantKept++
		}
	}
	if st.IgnoredClickDoc == 0 && rep.Sessions.Kept != wantKept {
		t.Errorf("kept %d sessions, want %d (sessions with a click)", rep.Sessions.Kept, wantKept)
	}
	gotBySess := map[string][]int{}
	for i := 0; i < got.Len(); i++ {
		s := got.Sessions.Names[got.Session[i]]
		gotBySess[s] = append(gotBySess[s], i)
	}
	for s, gi := range gotBySess {
		ri := bySess[s]
		if len(ri) != len(gi) {
			t.Fatalf("session %s: %d SERPs, reference %d", s, len(gi), len(ri))
		}
		for k := range gi {
			a, b := gi[k], ri[k]
			if got.Queries.Names[got.Query[a]] != ref.Queries.Names[ref.Query[b]] || got.Clicks[a] != ref.Clicks[b] {
				t.Fatalf("session %s SERP %d differs", s, k)
			}
			da, db := got.SERPDocs(a), ref.SERPDocs(b)
			na := make([]string, len(da))
			nb := make([]string, len(db))
			for j := range da {
				na[j] = got.Docs.Names[da[j]]
			}
			for j := range db {
				nb[j] = ref.Docs.Names[db[j]]
			}
			if !slices.Equal(na, nb) {
				t.Fatalf("session %s SERP %d documents differ", s, k)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, ReportFile)); err != nil {
		t.Fatal(err)
	}
	t.Logf("reference log: %d sessions seen, %d kept, %d SERPs, %d clicks", rep.Sessions.Seen, rep.Sessions.Kept, rep.KeptQueries, rep.KeptClicks)
}
