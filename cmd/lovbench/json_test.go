package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// ingest --json and fit --json print what they also write (report.json,
// metrics.json), so scripts need not read the files.
func TestIngestAndFitJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log.tsv")
	// Two sessions by hand: s1 clicks rank 2 of 10, s2 clicks nothing. By
	// default both are kept for the click models (2 queries, 1 click of 3
	// input events; 1 SERP of a session with a click, 1 without); with
	// --drop-clickless rule 1 drops s2: 1 query, 1 click.
	serp := "\ta\tb\tc\td\te\tf\tg\th\ti\tj\n"
	in := "s1\t0\tQ\tq\t0" + serp + "s1\t5\tC\tb\n" + "s2\t0\tQ\tq\t0" + serp
	if err := os.WriteFile(log, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "ingest", "-q", "--json", "--format", "yandex", "--log", log, "--out", filepath.Join(dir, "ing"))
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	type ingestReport struct {
		InputEvents int `json:"input_events"`
		KeptQueries int `json:"kept_queries"`
		KeptClicks  int `json:"kept_clicks"`
		With        int `json:"serps_of_sessions_with_click"`
		Without     int `json:"serps_of_sessions_without_click"`
	}
	var rep ingestReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, out)
	}
	if rep != (ingestReport{InputEvents: 3, KeptQueries: 2, KeptClicks: 1, With: 1, Without: 1}) {
		t.Fatalf("ingest --json: %+v, want 3 events, 2 queries (1 of a session with a click, 1 without), 1 click kept", rep)
	}
	code, out, stderr = runCLI(t, "ingest", "-q", "--json", "--drop-clickless", "--format", "yandex", "--log", log, "--out", filepath.Join(dir, "ing-drop"))
	if code != 0 {
		t.Fatalf("ingest --drop-clickless: exit %d: %s", code, stderr)
	}
	rep = ingestReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, out)
	}
	if rep != (ingestReport{InputEvents: 3, KeptQueries: 1, KeptClicks: 1, With: 1}) {
		t.Fatalf("ingest --drop-clickless --json: %+v, want 3 events, 1 query, 1 click kept", rep)
	}
	code, out, stderr = runCLI(t, "fit", "-q", "--json", "--log", log, "--models", "dctr", "--out", filepath.Join(dir, "fit"))
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var reps []struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 || reps[0].Model != "DCTR" {
		t.Fatalf("fit --json: %v %+v\n%s", err, reps, out)
	}
}
