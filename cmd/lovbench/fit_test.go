package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateFitCLI runs simulate, fit and fit --load end to end and checks
// exit codes, outputs and that a rerun gives identical relevance files.
func TestSimulateFitCLI(t *testing.T) {
	dir := t.TempDir()
	logFile, truth := filepath.Join(dir, "sim.tsv"), filepath.Join(dir, "truth.json")
	if code, _, stderr := runCLI(t, "simulate", "--model", "ubm", "--sessions", "3000", "--queries", "50", "--seed", "4", "--out", logFile, "--truth", truth, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	out1, out2, out3 := filepath.Join(dir, "fit1"), filepath.Join(dir, "fit2"), filepath.Join(dir, "fit3")
	for _, out := range []string{out1, out2} {
		if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--format", "yandex", "--models", "dctr,ubm,dbn", "--out", out, "--iterations", "5", "-q"); code != 0 {
			t.Fatalf("fit: exit %d: %s", code, stderr)
		}
	}
	for _, f := range []string{"UBM_relevance.tsv", "DBN_params.json"} {
		a, err := os.ReadFile(filepath.Join(out1, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out2, f))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between two runs", f)
		}
		if f == "UBM_relevance.tsv" && !strings.HasPrefix(string(a), "query\tdoc\trelevance\n") {
			t.Errorf("%s: header %q", f, strings.SplitN(string(a), "\n", 2)[0])
		}
	}
	if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--models", "ubm", "--load", out1, "--out", out3, "-q"); code != 0 {
		t.Fatalf("fit --load: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{
		{"fit", "--log", logFile, "--models", "xyz", "--out", out3},
		{"fit", "--models", "ubm", "--out", out3},
		{"fit", "--log", logFile, "--format", "parquet", "--out", out3},
		{"simulate", "--model", "ubm"},
	} {
		if code, _, _ := runCLI(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", bad, code)
		}
	}
	if code, _, stderr := runCLI(t, "fit", "--log", filepath.Join(dir, "missing.tsv"), "--out", out3); code != 1 || !strings.Contains(stderr, "missing.tsv") {
		t.Errorf("missing log: exit %d, stderr %q", code, stderr)
	}
}
