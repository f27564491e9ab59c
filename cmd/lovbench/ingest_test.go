package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestAndStatsCLI runs the README example on the bundled test log:
// ingest it, then print its statistics.
func TestIngestAndStatsCLI(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "clean")
	td := filepath.Join("..", "..", "ingest", "testdata", "lov")
	code, stdout, stderr := runCLI(t, "ingest", "--quiet", "--format", "lov",
		"--queries", filepath.Join(td, "queries.jsonl"), "--clicks", filepath.Join(td, "clicks.jsonl"),
		"--pii-blacklist", filepath.Join(td, "blacklist.txt"), "--out", out)
	if code != 0 {
		t.Fatalf("ingest: code %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"sessions.parquet", "clean.yandex.tsv", "report.json", "quarantine.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// 5 sessions with a click, 6 SERPs with 5 distinct queries (see
	// TestGoldenLOV), and session F, kept without a click for the click
	// models (its query q19, "place", is the sixth distinct query).
	code, stdout, _ = runCLI(t, "stats", "--sessions", out)
	if code != 0 || !strings.Contains(stdout, "raw log           9 sessions, 18 queries, 11 clicks") || !strings.Contains(stdout, "sessions          6") || !strings.Contains(stdout, "distinct queries  6") {
		t.Fatalf("stats: code %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "stats", "--sessions", out, "--json")
	if code != 0 || !strings.Contains(stdout, `"serps": 7`) || !strings.Contains(stdout, `"serps_with_click": 6`) {
		t.Fatalf("stats --json: code %d\n%s", code, stdout)
	}
}

func TestIngestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"ingest", "--format", "lov", "--out", "x"},               // no --queries/--clicks
		{"ingest", "--format", "yandex", "--out", "x"},            // no --log
		{"ingest", "--format", "csv", "--log", "a", "--out", "x"}, // unknown format
		{"ingest", "--format", "yandex", "--log", "a"},            // no --out
		{"ingest", "--format", "lov", "--kind", "x", "--queries", "a", "--clicks", "b", "--out", "x"},
		{"stats"},
	} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
	code, _, stderr := runCLI(t, "ingest", "--format", "yandex", "--log", "/nonexistent/log.tsv", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "/nonexistent/log.tsv") {
		t.Errorf("missing file: code %d, stderr %q", code, stderr)
	}
}
