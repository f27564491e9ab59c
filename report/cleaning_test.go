package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCleaningCountsLeaveOutZeros: the report's cleaning table leaves out
// drop and quarantine reasons that counted 0 (as its text says) and shows
// the queries whose control characters ingest removed, and the kept SERPs
// split by whether their session has a click.
func TestCleaningCountsLeaveOutZeros(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "report.json")
	rep := `{"format":"yandex","input_events":10,"quarantined":{"invalid_json":0,"bad_field_date":1},"dropped":{"rule1_session_without_click":3,"rule3_pii_email":0},
"kept_queries":4,"serps_of_sessions_with_click":3,"serps_of_sessions_without_click":1,"kept_clicks":2,"sessions":{"seen":3,"kept":2},"query_control_characters":{"c0":2,"bidi":0}}`
	if err := os.WriteFile(p, []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := cleaningCounts(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	kinds := map[string]CountKind{}
	for _, r := range rows {
		got[r.Name] = r.Value
		kinds[r.Name] = r.Kind
		// Rows read as words, not as the report's keys.
		if strings.Contains(r.Name, "_") {
			t.Errorf("row %q shows a raw ID", r.Name)
		}
	}
	for _, gone := range []string{"dropped by rule 3: query holding personal data (email)", "quarantined as malformed: not valid JSON",
		"queries with control characters removed: bidirectional formatting"} {
		if _, ok := got[gone]; ok {
			t.Errorf("row %q counted 0 and is shown", gone)
		}
	}
	for name, want := range map[string]int64{"dropped by rule 1: events of sessions left without a click": 3, "quarantined as malformed: unreadable date": 1,
		"queries with control characters removed: C0 controls (NUL, ESC, ...)": 2, "input events": 10, "sessions seen": 3, "sessions kept": 2,
		"of them, SERPs of sessions with a click (the labels' SERPs)": 3, "of them, SERPs of sessions without a click (click models only)": 1} {
		if got[name] != want {
			t.Errorf("%s = %d, want %d (rows %v)", name, got[name], want, rows)
		}
	}
	// Session counts are told apart from event counts (the report put
	// 1,011 sessions under an "events" header).
	for name, k := range kinds {
		if strings.HasPrefix(name, "sessions ") != (k == Sessions) {
			t.Errorf("row %q has kind %q", name, k)
		}
	}
}

// Input files are listed in natural order: corpus/2 before corpus/10.
func TestNaturalCompare(t *testing.T) {
	in := []string{"corpus/10/prov.nq.gz", "corpus/1/dcat.nq.gz", "corpus/2/dcmitype.nq.gz", "corpus/0/dc11.nq.gz", "log.tsv", "corpus/11/schema.nq.gz", "corpus/02/x", "a10b2", "a10b10", "a9b99"}
	slices.SortFunc(in, naturalCompare)
	got := strings.Join(in, " ")
	wantOrder := "a9b99 a10b2 a10b10 corpus/0/dc11.nq.gz corpus/1/dcat.nq.gz corpus/2/dcmitype.nq.gz corpus/02/x corpus/10/prov.nq.gz corpus/11/schema.nq.gz log.tsv"
	if got != wantOrder {
		t.Errorf("natural order:\n%s\nwant\n%s", got, wantOrder)
	}
}
