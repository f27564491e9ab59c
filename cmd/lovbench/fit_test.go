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
	t.Parallel()
	dir := t.TempDir()
	logFile, truth := filepath.Join(dir, "sim.tsv"), filepath.Join(dir, "truth.json")
	if code, _, stderr := runCLI(t, "simulate", "--model", "ubm", "--sessions", "3000", "--queries", "50", "--seed", "4", "--out", logFile, "--truth", truth, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	out1, out2, out3 := filepath.Join(dir, "fit1"), filepath.Join(dir, "fit2"), filepath.Join(dir, "fit3")
	// DBN's intervals from the counts: none of the files compared holds
	// the Gibbs sampler's (the default here), whose reruns are
	// clickmodels' TestGibbsDeterministic's.
	for _, out := range []string{out1, out2} {
		if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--format", "yandex", "--models", "dctr,ubm,dbn", "--intervals-from", "counts", "--out", out, "--iterations", "5", "-q"); code != 0 {
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
		// With intervals (fit's default --interval 0.9).
		if f == "UBM_relevance.tsv" && !strings.HasPrefix(string(a), "query\tdoc\trelevance\tlower\tupper\talpha\tbeta\n") {
			t.Errorf("%s: header %q", f, strings.SplitN(string(a), "\n", 2)[0])
		}
	}
	if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--models", "ubm", "--load", out1, "--out", out3, "-q"); code != 0 {
		t.Fatalf("fit --load: exit %d: %s", code, stderr)
	}
	// --no-intervals: the relevance file of old, without intervals;
	// --interval 0, its old spelling, does the same but says so.
	for _, c := range []struct {
		flag, warn string
	}{{"--no-intervals", ""}, {"--interval=0", "old spelling of --no-intervals"}} {
		out4 := filepath.Join(dir, "nointervals"+c.flag)
		code, _, stderr := runCLI(t, "fit", "--log", logFile, "--models", "ubm", "--iterations", "5", c.flag, "--out", out4, "-q")
		if code != 0 {
			t.Fatalf("fit %s: exit %d: %s", c.flag, code, stderr)
		}
		if b, err := os.ReadFile(filepath.Join(out4, "UBM_relevance.tsv")); err != nil || !strings.HasPrefix(string(b), "query\tdoc\trelevance\n") {
			t.Errorf("%s: %v, header %q", c.flag, err, strings.SplitN(string(b), "\n", 2)[0])
		}
		if c.warn == "" && stderr != "" || !strings.Contains(stderr, c.warn) {
			t.Errorf("%s: stderr %q, want a warning %q", c.flag, stderr, c.warn)
		}
	}
	for _, bad := range [][]string{
		{"fit", "--log", logFile, "--models", "xyz", "--out", out3},
		{"fit", "--models", "ubm", "--out", out3},
		{"fit", "--log", logFile, "--models", "ubm", "--interval", "1", "--out", out3},
		{"fit", "--log", logFile, "--models", "ubm", "--interval", "-0.5", "--out", out3},
		{"fit", "--log", logFile, "--models", "ubm", "--interval", "0.8", "--no-intervals", "--out", out3},
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

// TestFitParamsParquetCLI: fit --params-format parquet writes
// <MODEL>_params.parquet (no JSON), --load reads it back and evaluates to
// the same metrics, and the relevance files equal those of the JSON run;
// an unknown --params-format is a usage error.
func TestFitParamsParquetCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "sim.tsv")
	if code, _, stderr := runCLI(t, "simulate", "--model", "dbn", "--sessions", "2000", "--queries", "40", "--seed", "3", "--out", logFile, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	js, pq, again := filepath.Join(dir, "json"), filepath.Join(dir, "pq"), filepath.Join(dir, "again")
	// DBN's intervals from the counts: the parameter files' format does
	// not reach the intervals, whichever computes them.
	for _, c := range []struct{ out, format string }{{js, "json"}, {pq, "parquet"}} {
		if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--format", "yandex", "--models", "ubm,dbn", "--iterations", "4", "--intervals-from", "counts", "--params-format", c.format, "--out", c.out, "-q"); code != 0 {
			t.Fatalf("fit --params-format %s: exit %d: %s", c.format, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(pq, "DBN_params.json")); err == nil {
		t.Error("--params-format parquet also wrote JSON")
	}
	for _, f := range []string{"UBM_relevance.tsv", "DBN_relevance.tsv"} {
		a, _ := os.ReadFile(filepath.Join(js, f))
		b, _ := os.ReadFile(filepath.Join(pq, f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs between the JSON and Parquet runs", f)
		}
	}
	if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--format", "yandex", "--models", "ubm,dbn", "--load", pq, "--out", again, "-q"); code != 0 {
		t.Fatalf("fit --load from Parquet: exit %d: %s", code, stderr)
	}
	m1, _ := os.ReadFile(filepath.Join(js, "metrics.json"))
	m2, _ := os.ReadFile(filepath.Join(again, "metrics.json"))
	ll := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "test_loglikelihood") || strings.Contains(l, "\"test_perplexity\"") {
				out = append(out, strings.TrimSpace(l))
			}
		}
		return strings.Join(out, " ")
	}
	if ll(m1) == "" || ll(m1) != ll(m2) {
		t.Errorf("metrics after --load from Parquet differ:\n%s\n%s", ll(m1), ll(m2))
	}
	if code, _, _ := runCLI(t, "fit", "--log", logFile, "--format", "yandex", "--params-format", "xml", "--out", again); code != 2 {
		t.Errorf("--params-format xml: exit %d, want 2", code)
	}
}
