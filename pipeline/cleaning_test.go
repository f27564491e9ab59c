package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCleaningCountsLeaveOutZeros: the report's cleaning table leaves out
// drop and quarantine reasons that counted 0 (as its text says) and shows
// the queries whose control characters ingest removed.
func TestCleaningCountsLeaveOutZeros(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "report.json")
	rep := `{"format":"yandex","input_events":10,"quarantined":{"bad_json":0,"bad_time":1},"dropped":{"rule1_session_without_click":3,"rule3_pii_email":0},
"kept_queries":4,"kept_clicks":2,"sessions":{"seen":3,"kept":2},"query_control_characters":{"c0":2,"bidi":0}}`
	if err := os.WriteFile(p, []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := cleaningCounts(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Name] = r.Value
	}
	for _, gone := range []string{"dropped: rule3_pii_email", "quarantined: bad_json", "queries with control characters removed: bidi"} {
		if _, ok := got[gone]; ok {
			t.Errorf("row %q counted 0 and is shown", gone)
		}
	}
	for name, want := range map[string]int64{"dropped: rule1_session_without_click": 3, "quarantined: bad_time": 1, "queries with control characters removed: c0": 2, "input events": 10} {
		if got[name] != want {
			t.Errorf("%s = %d, want %d (rows %v)", name, got[name], want, rows)
		}
	}
}
