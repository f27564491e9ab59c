package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRunFitsAsFit: the run's click_models section carries every option of
// lovbench fit. A run with non-default values of each (the random split
// and its seed, a fixed number of PyClick iterations without a tolerance,
// the interval level, JSON parameter files, two workers) writes the same
// relevance and parameter files as lovbench fit with the same flags on the
// run's own ingested sessions. Before the options were passed, the run
// fitted with the spec split, the default level and the estimator's
// tolerance, and these files differed.
func TestRunFitsAsFit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wd := filepath.Join(dir, "work")
	cfg := filepath.Join(dir, "lovbench.yaml")
	smallCorpus(t, filepath.Join(dir, "vocabs")) // the fit does not depend on the corpus's size
	os.WriteFile(cfg, []byte(`simulate: {sessions: 600, queries: 60, model: ubm, seed: 3}
corpus: {paths: [vocabs]}
click_models:
  models: [ubm, dbn]
  estimator: pyclick
  iterations: 7
  tolerance: 0
  split: random
  seed: 11
  interval: 0.8
  params_format: json
  workers: 2
ltr: {algorithms: [adarank], configs: [full], iterations: 2, permutations: 50}
`), 0o644)
	// With -q, run prints nothing (errors only), on a fresh work directory
	// and then over unchanged stages (this run stands for the run -q of
	// TestDemoAndRunOutputLevels, which checked it on a run of its own).
	code, stdout, stderr := runCLI(t, "-q", "run", "--config", cfg, "--workdir", wd)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if stdout != "" || stderr != "" {
		t.Errorf("run -q: stdout %q, stderr %q (want nothing)", stdout, stderr)
	}
	if code, out, stderr := runCLI(t, "-q", "run", "--config", cfg, "--workdir", wd); code != 0 || out != "" || stderr != "" {
		t.Errorf("run -q over unchanged stages: code %d, stdout %q, stderr %q (want nothing)", code, out, stderr)
	}
	out := filepath.Join(dir, "fit")
	if code, _, stderr := runCLI(t, "-q", "fit", "--sessions", filepath.Join(wd, "stages", "ingest"), "--models", "ubm,dbn",
		"--estimator", "pyclick", "--iterations", "7", "--tolerance", "0", "--split", "random", "--seed", "11",
		"--interval", "0.8", "--params-format", "json", "--workers", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	sameFitFiles(t, filepath.Join(wd, "stages", "fit"), out, "UBM_relevance.tsv", "UBM_params.json", "DBN_relevance.tsv", "DBN_params.json")
}

// sameFitFiles checks that the run's fit stage directory runFit and
// lovbench fit's output directory out hold the same files, byte for byte,
// each of at least 100 bytes.
func sameFitFiles(t *testing.T, runFit, out string, files ...string) {
	t.Helper()
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(runFit, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || len(a) < 100 {
			t.Errorf("%s: the run's (%d bytes) and lovbench fit's (%d bytes) differ", f, len(a), len(b))
		}
	}
}
