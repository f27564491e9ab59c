package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// ltr --ties: an unknown rule is a usage error; a known one is recorded in
// results.json, and every row carries its tie statistics.
func TestLTRTiesFlag(t *testing.T) {
	t.Parallel()
	data := writeSyntheticFolds(t)
	out := t.TempDir()
	if code, _, _ := runCLI(t, "-q", "ltr", "--data", data, "--out", out, "--ties", "random"); code != 2 {
		t.Errorf("--ties random: exit %d, want 2", code)
	}
	code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "adarank", "--configs", "simple",
		"--permutations", "50", "--ties", "pessimistic", "--no-models", "--out", out)
	if code != 0 {
		t.Fatalf("ltr: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rf struct {
		Ties string `json:"ties"`
		Rows []struct {
			Values map[string]float64 `json:"values"`
			Ties   *struct {
				Pessimistic float64 `json:"ndcg@10_pessimistic"`
			} `json:"ties"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &rf); err != nil {
		t.Fatal(err)
	}
	if rf.Ties != "pessimistic" || len(rf.Rows) == 0 {
		t.Fatalf("results.json ties %q, %d rows", rf.Ties, len(rf.Rows))
	}
	for i, r := range rf.Rows {
		// Under --ties pessimistic, NDCG@10 is the pessimistic value.
		if r.Ties == nil || r.Values["NDCG@10"] != r.Ties.Pessimistic {
			t.Errorf("row %d: NDCG@10 %v, ties %+v", i, r.Values["NDCG@10"], r.Ties)
		}
	}
}
