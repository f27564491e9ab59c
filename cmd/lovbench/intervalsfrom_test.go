package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/sessions"
)

// relevanceRows reads a relevance file's rows by (query, doc): every
// column after the two names, as text.
func relevanceRows(t *testing.T, path string) map[[2]string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[[2]string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c := strings.Split(line, "\t")
		if i == 0 {
			continue // the header
		}
		rows[[2]string{c[0], c[1]}] = c[2:]
	}
	return rows
}

// uncertaintyOf reads metrics.json's uncertainty report per model.
func uncertaintyOf(t *testing.T, dir string) map[string]*clickmodels.UncertaintyReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, clickmodels.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var reps []clickmodels.Report
	if err := json.Unmarshal(b, &reps); err != nil {
		t.Fatal(err)
	}
	out := map[string]*clickmodels.UncertaintyReport{}
	for _, r := range reps {
		out[r.Model] = r.Uncertainty
	}
	return out
}

// brief is an uncertainty report's method and sampler setting.
func brief(u *clickmodels.UncertaintyReport) string {
	if u == nil {
		return "none"
	}
	if u.Gibbs == nil {
		return u.Method
	}
	return fmt.Sprintf("%s %+v", u.Method, *u.Gibbs)
}

// firstSERPs writes the lines of the Yandex log src up to its n-th query
// line (the sampler's cost grows with the SERPs) to dst and returns dst.
func firstSERPs(t *testing.T, src string, n int, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		if f := strings.SplitN(line, "\t", 4); len(f) > 2 && f[2] == "Q" {
			if n == 0 {
				break
			}
			n--
		}
		out.WriteString(line)
	}
	if n != 0 {
		t.Fatalf("%s: fewer query lines than asked", src)
	}
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestFitIntervalsFromGibbs: on the first 800 SERPs of PyClick's
// 6,000-SERP reference log,
// fit --intervals-from gibbs writes DBN's relevance file byte for byte as
// the library fitted with the sampler's switches set to the setting
// docs/clickmodels.md names best (30 sweeps of burn-in, 100 kept, cells
// by rank bucket alone, the satisfaction pooled), and the default (auto,
// on these 600 training SERPs the sampler) writes every file as it;
// against --intervals-from counts, DBN's relevance column is the same
// and its Betas differ, while
// DCTR's and UBM's files in the same run are unchanged. metrics.json
// names the method and the setting for DBN only.
func TestFitIntervalsFromGibbs(t *testing.T) {
	dir := t.TempDir()
	// The checks hold at any size (2,000 SERPs until 2026-11-30).
	log := firstSERPs(t, refdata.Path(t, "pyclick", "golden_ubm6k.tsv"), 800, filepath.Join(dir, "log.tsv"))
	gibbs, counts, lib, deflt := filepath.Join(dir, "gibbs"), filepath.Join(dir, "counts"), filepath.Join(dir, "lib"), filepath.Join(dir, "default")
	mustRun(t, "-q", "fit", "--log", log, "--models", "dctr,ubm,dbn", "--intervals-from", "gibbs", "--out", gibbs)
	mustRun(t, "-q", "fit", "--log", log, "--models", "dctr,ubm,dbn", "--intervals-from", "counts", "--out", counts)
	// The default, auto, takes the sampler on a log of 600 training
	// SERPs (at most clickmodels.AutoGibbsTrainSERPs).
	mustRun(t, "-q", "fit", "--log", log, "--models", "dctr,ubm,dbn", "--out", deflt)

	// The library's fit, the sampler's switches as the docs give them.
	l, err := sessions.LoadForFit(log)
	if err != nil {
		t.Fatal(err)
	}
	rc := fit.DefaultConfig().RunConfig
	rc.Kinds = []clickmodels.Kind{clickmodels.DBN}
	rc.Gibbs = clickmodels.GibbsSetting{BurnIn: 30, Sweeps: 100, PoolSat: true, RankOnly: true, RefitEvery: 5, HoldShown: 512}
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := clickmodels.RunInto(context.Background(), l, rc, lib); err != nil {
		t.Fatal(err)
	}
	read := func(d, name string) []byte {
		b, err := os.ReadFile(filepath.Join(d, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := read(gibbs, "DBN_relevance.tsv"), read(lib, "DBN_relevance.tsv"); !bytes.Equal(a, b) || len(a) < 1000 {
		t.Errorf("DBN_relevance.tsv: fit --intervals-from gibbs (%d bytes) and the library's 30+100 pooled, rank-only sampler refitting every 5 sweeps (%d bytes) differ", len(a), len(b))
	}
	for _, f := range []string{"DCTR_relevance.tsv", "UBM_relevance.tsv"} {
		if !bytes.Equal(read(gibbs, f), read(counts, f)) {
			t.Errorf("%s: --intervals-from gibbs changed it", f)
		}
	}
	for _, f := range []string{"DCTR_relevance.tsv", "UBM_relevance.tsv", "DBN_relevance.tsv"} {
		if !bytes.Equal(read(gibbs, f), read(deflt, f)) {
			t.Errorf("%s: the default (auto) differs from --intervals-from gibbs on 600 training SERPs", f)
		}
	}
	g, c := relevanceRows(t, filepath.Join(gibbs, "DBN_relevance.tsv")), relevanceRows(t, filepath.Join(counts, "DBN_relevance.tsv"))
	if len(g) != len(c) || len(g) < 100 {
		t.Fatalf("DBN: %d pairs with gibbs, %d with counts", len(g), len(c))
	}
	differ := 0
	for k, cr := range c {
		gr := g[k]
		if len(gr) != 5 || len(cr) != 5 {
			t.Fatalf("pair %v: columns %v and %v, want relevance, lower, upper, alpha, beta", k, gr, cr)
		}
		if gr[0] != cr[0] {
			t.Errorf("pair %v: relevance %s with gibbs, %s with counts; the sampler changes only the Betas", k, gr[0], cr[0])
		}
		if gr[3] != cr[3] || gr[4] != cr[4] {
			differ++
		}
	}
	if differ < len(c)*9/10 {
		t.Errorf("DBN: the Betas differ on %d of %d pairs only", differ, len(c))
	}
	ug, uc := uncertaintyOf(t, gibbs), uncertaintyOf(t, counts)
	if u := ug["DBN"]; u == nil || u.Method != "gibbs-hierarchical-cascade" || u.Gibbs == nil ||
		*u.Gibbs != (clickmodels.GibbsSetting{BurnIn: 30, Sweeps: 100, PoolSat: true, RankOnly: true, RefitEvery: 5, HoldShown: 512}) {
		t.Errorf("DBN's uncertainty with gibbs: %s", brief(u))
	}
	for _, m := range []string{"DCTR", "UBM"} {
		if u := ug[m]; u == nil || u.Method != "empirical-bayes-beta" || u.Gibbs != nil {
			t.Errorf("%s's uncertainty with gibbs: %s, want the default's", m, brief(u))
		}
	}
	if u := uc["DBN"]; u == nil || u.Method != "empirical-bayes-beta" || u.Gibbs != nil {
		t.Errorf("DBN's uncertainty with counts: %s", brief(u))
	}
}

// TestFitIntervalsFromGibbsOutOfCore: fit --intervals-from gibbs writes
// DBN's relevance file byte for byte the same on the first 800 SERPs
// of PyClick's reference log fitted in memory, under --memory-limit
// (with 1 and 2 workers) and from 3 query shards of lovbench shard
// (--shards).
func TestFitIntervalsFromGibbsOutOfCore(t *testing.T) {
	dir := t.TempDir()
	log := firstSERPs(t, refdata.Path(t, "pyclick", "golden_ubm6k.tsv"), 800, filepath.Join(dir, "log.tsv"))
	sh := filepath.Join(dir, "shards")
	mustRun(t, "-q", "shard", "--sessions", log, "--shards", "3", "--out", sh)
	whole := filepath.Join(dir, "whole")
	mustRun(t, "-q", "fit", "--log", log, "--models", "dbn", "--intervals-from", "gibbs", "--workers", "1", "--out", whole)
	for i, args := range [][]string{
		{"--log", log, "--memory-limit", "256MiB", "--workers", "1"},
		{"--log", log, "--memory-limit", "256MiB", "--workers", "2"},
		{"--shards", sh, "--workers", "2"},
	} {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		mustRun(t, append([]string{"-q", "fit", "--models", "dbn", "--intervals-from", "gibbs", "--out", out}, args...)...)
		a, b := mustRead(t, filepath.Join(whole, "DBN_relevance.tsv")), mustRead(t, filepath.Join(out, "DBN_relevance.tsv"))
		if a != b || len(a) < 1000 {
			t.Errorf("%v: DBN_relevance.tsv (%d bytes) differs from the fit in memory (%d bytes)", args, len(b), len(a))
		}
	}
}

// TestFitIntervalsFromRefusals: fit refuses --intervals-from gibbs with
// every option that leaves it nothing to compute or that it cannot take,
// with a usage error naming that option, and writes no output.
func TestFitIntervalsFromRefusals(t *testing.T) {
	log := refdata.Path(t, "pyclick", "golden_ubm6k.tsv")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--log", log, "--no-intervals"}, "--no-intervals"},
		{[]string{"--log", log, "--interval", "0"}, "--no-intervals"},
		{[]string{"--log", log, "--estimator", "pyclick"}, "needs the exact estimator (--estimator exact"},
		{[]string{"--log", log, "--load", dir}, "--load fits nothing"},
	} {
		args := append([]string{"fit", "--models", "dbn", "--intervals-from", "gibbs", "--out", out}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "intervals from gibbs") {
			t.Errorf("%v: exit %d, %q; want 2 and an error naming intervals from gibbs and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", c.args, out)
		}
	}
	if code, _, stderr := runCLI(t, "fit", "--log", log, "--intervals-from", "bootstrap", "--out", out); code != 2 || !strings.Contains(stderr, "--intervals-from") {
		t.Errorf("--intervals-from bootstrap: exit %d, %q", code, stderr)
	}
}

// TestRunIntervalsFromAsFit: run's click_models.intervals_from: gibbs
// writes the relevance files lovbench fit --intervals-from gibbs writes
// on the run's own ingested sessions, and the fit summary names the
// method for DBN. (That the run's memory_limit leaves the sampler's
// files as they are is pipeline's TestFitMemoryLimitSameOutputs, whose
// DBN takes the sampler by default; and lovbench fit's under
// --memory-limit, TestFitIntervalsFromGibbsOutOfCore.)
func TestRunIntervalsFromAsFit(t *testing.T) {
	dir := t.TempDir()
	wd := filepath.Join(dir, "work")
	smallCorpus(t, filepath.Join(dir, "vocabs")) // the fit does not depend on the corpus's size
	body := `simulate: {sessions: 3000, queries: 60, model: dbn, seed: 5}
corpus: {paths: [vocabs]}
click_models:
  models: [dctr, dbn]
  intervals_from: gibbs
ltr: {algorithms: [adarank], configs: [full], iterations: 2, permutations: 50}
`
	cfg := filepath.Join(dir, "lovbench.yaml")
	os.WriteFile(cfg, []byte(body), 0o644)
	if code, _, stderr := runCLI(t, "-q", "run", "--config", cfg, "--workdir", wd); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "fit")
	mustRun(t, "-q", "fit", "--sessions", filepath.Join(wd, "stages", "ingest"), "--models", "dctr,dbn", "--intervals-from", "gibbs", "--out", out)
	sameFitFiles(t, filepath.Join(wd, "stages", "fit"), out, "DCTR_relevance.tsv", "DBN_relevance.tsv")
	b, err := os.ReadFile(filepath.Join(wd, "stages", "fit", fit.FileSummary))
	if err != nil {
		t.Fatal(err)
	}
	var sum fit.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, m := range sum.Models {
		want := map[string]string{"DCTR": "empirical-bayes-beta", "DBN": "gibbs-hierarchical-cascade"}[m.Model]
		if m.Uncertainty == nil || m.Uncertainty.Method != want {
			t.Errorf("fit summary, %s: uncertainty %s, want method %s", m.Model, brief(m.Uncertainty), want)
		}
	}
}
