package lbbeam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/shards"
)

type pyclickMetrics struct {
	Model          string    `json:"model"`
	TestSessions   int       `json:"test_sessions"`
	LogLikelihood  float64   `json:"test_loglikelihood"`
	Perplexity     float64   `json:"test_perplexity"`
	PerplexityRank []float64 `json:"test_perplexity_at_rank"`
}

// TestFitGoldenLog fits DCTR, UBM and DBN on Prism over PyClick's golden
// log read as PyClick reads it (lovbench shard's Yandex reading, 5 query
// shards) and checks the outputs against lovbench fit on the same log (the
// relevance and parameter files byte for byte, metrics.json to 1e-9,
// timing aside) and against PyClick's own metrics to 1e-6.
func TestFitGoldenLog(t *testing.T) {
	ref := refdata.Path(t, "pyclick")
	ctx := context.Background()
	dir := t.TempDir()
	logPath := filepath.Join(ref, "golden_ubm6k.tsv")
	log, err := sessions.Load(logPath)
	if err != nil {
		t.Fatal(err)
	}
	shardDir := filepath.Join(dir, "shards")
	m, err := shards.Write(ctx, logPath, 5, shards.SplitConfig{}, shardDir, shards.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.TrainSERPs != 4500 {
		t.Fatalf("%d training SERPs, PyClick's split has 4500", m.TrainSERPs)
	}
	got := fitBoth(t, log, shardDir, "", clickmodels.Options{})

	b, err := os.ReadFile(filepath.Join(ref, "golden_ubm6k", "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pc []pyclickMetrics
	if err := json.Unmarshal(b, &pc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, pm := range pc {
		for _, g := range got {
			if g.Model != pm.Model {
				continue
			}
			checked++
			if g.Sessions != pm.TestSessions {
				t.Errorf("%s: %d test sessions, PyClick %d", g.Model, g.Sessions, pm.TestSessions)
			}
			if math.Abs(g.LogLikelihood-pm.LogLikelihood) > 1e-6 || math.Abs(g.Perplexity-pm.Perplexity) > 1e-6 {
				t.Errorf("%s: LL %.9f perplexity %.9f, PyClick %.9f %.9f", g.Model, g.LogLikelihood, g.Perplexity, pm.LogLikelihood, pm.Perplexity)
			}
			for r, v := range pm.PerplexityRank {
				if math.Abs(g.PerplexityAtRank[r]-v) > 1e-6 {
					t.Errorf("%s: perplexity at rank %d %.9f, PyClick %.9f", g.Model, r+1, g.PerplexityAtRank[r], v)
				}
			}
		}
	}
	if checked != len(BeamKinds)-2 { // PyClick's reference has no CCM, PyClick no PSCM
		t.Errorf("compared %d models with PyClick, want %d", checked, len(BeamKinds)-2)
	}
}

// TestShardThenFitCleanedLog runs the whole Beam path, ingest and cleaning
// into query shards and then EM, on the golden log and checks it against
// lovbench ingest followed by lovbench fit: once on local files, once with
// the log, the shards, the prepared shards and the outputs on memfs://.
func TestShardThenFitCleanedLog(t *testing.T) {
	ref := refdata.Path(t, "pyclick")
	dir := t.TempDir()
	logPath := filepath.Join(ref, "golden_ubm6k.tsv")
	log := ingestLog(t, logPath, filepath.Join(dir, "ingest"))
	shardDir := filepath.Join(dir, "shards")
	memLog, memShards := memRoot(t)+"/golden.tsv", memRoot(t)+"/shards"
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	memfs.Write(memLog, b)
	for in, out := range map[string]string{logPath: shardDir, memLog: memShards} {
		p, s := beam.NewPipelineWithRoot()
		if err := BuildShard(s, ShardOptions{Logs: []string{in}, Shards: 3, OutDir: out, PartSize: 50000, PIISalt: testSalt}); err != nil {
			t.Fatal(err)
		}
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
	}
	fitBoth(t, log, shardDir, memShards, clickmodels.Options{Iterations: 10})
}

// TestFitTolerance: with a tolerance EM stops at the same iteration as
// lovbench fit's, with the same files, before the 50 iterations asked
// (the synthetic log's training log-likelihood settles within about a
// dozen iterations to 1e-4), on a log needing no shared data.
func TestFitTolerance(t *testing.T) {
	log, shardDir := ingestShards(t, awkwardLog(t, 20000))
	// PyClick's E-step, then the exact one (the default estimator's),
	// then the exact one accelerated (SQUAREM, accel.go), and that with
	// the empirical-Bayes prior (clickmodels.Options.EmpiricalPrior,
	// whose per-rank means ride with the globals): byte-identical to
	// lovbench fit's under each.
	for _, opt := range []clickmodels.Options{{Iterations: 50, Tolerance: 1e-4}, {Iterations: 50, Tolerance: 1e-4, Exact: true},
		{Iterations: 50, Tolerance: 1e-4, Exact: true, Accelerate: true},
		{Iterations: 50, Tolerance: 1e-4, Exact: true, Accelerate: true, EmpiricalPrior: true}} {
		exact := opt.Exact
		got := fitBoth(t, log, shardDir, "", opt)
		for _, r := range got {
			k, err := clickmodels.ParseKind(r.Model)
			if err != nil {
				t.Fatal(err)
			}
			// A model counted in one pass (DCTR; SDBN and DCM under
			// PyClick's estimator) runs one iteration.
			if k.EM(exact) && (r.Iterations < 2 || r.Iterations >= 50) || !k.EM(exact) && r.Iterations != 1 {
				t.Errorf("%s stopped after %d iterations; the tolerance should stop it early", r.Model, r.Iterations)
			}
			if k.ExactEStep() && r.Exact != exact {
				t.Errorf("%s: exact_estep %v, want %v", r.Model, r.Exact, exact)
			}
			// The empirical prior is recorded for the models it changes.
			if want := opt.EmpiricalPrior && exact && k.ExactEStep(); r.EmpiricalPrior != want {
				t.Errorf("%s: empirical_prior %v, want %v", r.Model, r.EmpiricalPrior, want)
			}
			t.Logf("exact %v, accelerate %v, empirical prior %v, %s: %d iterations", exact, opt.Accelerate, opt.EmpiricalPrior, r.Model, r.Iterations)
		}
	}
}

// fitBoth fits BeamKinds with lovbench (clickmodels.Run on log) and with
// the Beam pipeline, with opt's iterations, tolerance, estimator and
// acceleration, checks that
// the outputs agree and returns the Beam metrics. The Beam pipeline runs
// twice: on shardDir with local prepared shards and outputs, and on
// memShardDir (a memfs:// copy of shardDir if empty) with the prepared
// shards and the outputs on memfs://.
func fitBoth(t *testing.T, log *sessions.Log, shardDir, memShardDir string, opt clickmodels.Options) []clickmodels.Report {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	wantDir := filepath.Join(dir, "want")
	cfg := clickmodels.RunConfig{Kinds: BeamKinds, Options: opt}
	if _, err := clickmodels.Run(ctx, log, cfg, wantDir); err != nil {
		t.Fatal(err)
	}
	// Local files with the worker's cache of opened shards, memfs
	// without it (every step reads its shard back): the same outputs.
	got := fitBeam(t, wantDir, shardDir, filepath.Join(dir, "beam"), filepath.Join(dir, "prepared"), opt, 0)
	root := memRoot(t)
	if memShardDir == "" {
		memShardDir = root + "/shards"
		toMemfs(t, shardDir, memShardDir)
	}
	fitBeam(t, wantDir, memShardDir, root+"/fit", root+"/fit/.prepared", opt, -1)
	return got
}

// fitBeam runs the Beam fit on shardDir into gotDir, with the prepared
// shards in prepDir and a shard cache of cache bytes (FitOptions.ShardCache), and checks its outputs against lovbench fit's in
// wantDir: the relevance and parameter files byte for byte, metrics.json
// to 1e-9.
func fitBeam(t *testing.T, wantDir, shardDir, gotDir, prepDir string, opt clickmodels.Options, cache int64) []clickmodels.Report {
	t.Helper()
	ctx := context.Background()
	p, s := beam.NewPipelineWithRoot()
	if err := BuildFit(s, FitOptions{ShardDir: shardDir, Kinds: BeamKinds, Iterations: opt.Iterations, Tolerance: opt.Tolerance, Exact: opt.Exact, EmpiricalPrior: opt.EmpiricalPrior, Accelerate: opt.Accelerate, OutDir: gotDir, PrepDir: prepDir, ShardCache: cache}); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	// Each shard was prepared once into its prepared-shard file.
	m, err := ReadManifest(ctx, shardDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m.Shards; i++ {
		if _, err := ReadPrepared(ctx, PreparedPath(prepDir, i)); err != nil {
			t.Errorf("prepared shard %d: %v", i, err)
		}
	}
	for _, k := range BeamKinds {
		for _, suffix := range []string{"_relevance.tsv", "_params.json"} {
			sameFile(t, filepath.Join(wantDir, k.String()+suffix), JoinPath(gotDir, k.String()+suffix))
		}
	}
	want, got := readMetrics(t, wantDir), readMetrics(t, gotDir)
	if len(got) != len(want) {
		t.Fatalf("%d models in metrics.json, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.Model != w.Model || g.TrainSessions != w.TrainSessions || g.TrainRecords != w.TrainRecords ||
			g.Iterations != w.Iterations || g.Sessions != w.Sessions || g.Split != w.Split ||
			g.Exact != w.Exact || g.PSCMAuthors != w.PSCMAuthors || g.EmpiricalPrior != w.EmpiricalPrior {
			t.Errorf("%s: report %+v, lovbench fit %+v", w.Model, g, w)
		}
		near := func(what string, a, b float64) {
			if math.Abs(a-b) > 1e-9 {
				t.Errorf("%s %s: Beam %.15g, lovbench fit %.15g", w.Model, what, a, b)
			}
		}
		near("log-likelihood", g.LogLikelihood, w.LogLikelihood)
		near("perplexity", g.Perplexity, w.Perplexity)
		if len(g.PerplexityAtRank) != len(w.PerplexityAtRank) {
			t.Fatalf("%s: %d ranks, lovbench fit %d", w.Model, len(g.PerplexityAtRank), len(w.PerplexityAtRank))
		}
		for r := range w.PerplexityAtRank {
			near("perplexity at rank", g.PerplexityAtRank[r], w.PerplexityAtRank[r])
		}
		for m, v := range w.PerplexityGain {
			near("perplexity gain over "+m, g.PerplexityGain[m], v)
		}
	}
	return got
}

func readMetrics(t *testing.T, dir string) []clickmodels.Report {
	t.Helper()
	b, err := readFile(context.Background(), JoinPath(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r []clickmodels.Report
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFitGibbsMemfs: DBN's Gibbs sampler (FitOptions.Intervals gibbs)
// with the shards, the prepared shards and so the chain files on
// memfs:// and no cache of opened shards, so that every pass reads its
// shard's chain back through Beam's file-system layer: the relevance and
// parameter files equal lovbench fit's with the same options, the
// prepared-shard directory then holds one chain file per shard (the
// passes and the finish removed the others), and RemoveScratch removes
// it whole. The same for the sampler on a subset of the queries
// (gibbs-subset, a subset of 600 of the some 2,250 training SERPs), whose
// files differ from the whole sampler's, and which writes no chain file
// (the subset is gathered and sampled in one element).
func TestFitGibbsMemfs(t *testing.T) {
	log, shardDir := ingestShards(t, awkwardLog(t, 3000))
	whole := fitGibbsMemfs(t, log, shardDir, clickmodels.IntervalsGibbs, 0)
	sub := fitGibbsMemfs(t, log, shardDir, clickmodels.IntervalsGibbsSubset, 600)
	if bytes.Equal(whole, sub) {
		t.Error("the sampler on a subset wrote the whole sampler's relevance file")
	}
}

// fitGibbsMemfs is TestFitGibbsMemfs with the interval method m and the
// subset's SERPs subset; it returns lovbench fit's relevance file.
func fitGibbsMemfs(t *testing.T, log *sessions.Log, shardDir string, m clickmodels.IntervalMethod, subset float64) []byte {
	ctx := context.Background()
	opt := clickmodels.Options{Iterations: 10, Exact: true, Intervals: m, SubsetSERPs: subset}
	wantDir := filepath.Join(t.TempDir(), "want")
	if _, err := clickmodels.Run(ctx, log, clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.DBN}, Options: opt}, wantDir); err != nil {
		t.Fatal(err)
	}
	root := memRoot(t) + "_" + strings.ReplaceAll(string(m), "-", "_")
	toMemfs(t, shardDir, root+"/shards")
	prep := root + "/fit/.prepared"
	p, s := beam.NewPipelineWithRoot()
	if err := BuildFit(s, FitOptions{ShardDir: root + "/shards", Kinds: []clickmodels.Kind{clickmodels.DBN}, Iterations: opt.Iterations, Exact: true,
		Intervals: m, SubsetSERPs: subset, OutDir: root + "/fit", PrepDir: prep, ShardCache: -1}); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"DBN_relevance.tsv", "DBN_params.json"} {
		sameFile(t, filepath.Join(wantDir, f), root+"/fit/"+f)
	}
	fsys, err := remoteFS(prep)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := fsys.List(ctx, prep+"/chain-*")
	if err != nil {
		t.Fatal(err)
	}
	// The sampler on a subset runs on the gathered subset in one
	// element (buildGibbsSubset): no chain file.
	want := 1
	if m == clickmodels.IntervalsGibbsSubset {
		want = 0
	}
	for i := range 3 {
		if n := len(slices.DeleteFunc(slices.Clone(chains), func(c string) bool { return !strings.HasPrefix(c, prep+fmt.Sprintf("/chain-%05d-DBN-", i)) })); n != want {
			t.Errorf("shard %d: %d chain files left, want %d: %q", i, n, want, chains)
		}
	}
	if err := RemoveScratch(ctx, prep); err != nil {
		t.Fatal(err)
	}
	if left, err := fsys.List(ctx, prep+"/*"); err != nil || len(left) != 0 {
		t.Errorf("left in the prepared-shard directory: %q (%v)", left, err)
	}
	b, err := os.ReadFile(filepath.Join(wantDir, "DBN_relevance.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ingestShards ingests the Yandex log b as lovbench ingest does and
// writes it as 3 query shards (the spec split), returning the ingested
// log and the shard directory.
func ingestShards(t *testing.T, b []byte) (*sessions.Log, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ingDir := filepath.Join(dir, "ingest")
	log := ingestLog(t, logPath, ingDir)
	shardDir := filepath.Join(dir, "shards")
	if _, err := shards.Write(ctx, ingDir, 3, shards.SplitConfig{Split: "spec", TrainFraction: 0.75}, shardDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return log, shardDir
}

// ingestLog ingests the Yandex log at logPath into ingDir as lovbench
// ingest does and loads it.
func ingestLog(t *testing.T, logPath, ingDir string) *sessions.Log {
	t.Helper()
	if _, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: ingDir, PIISalt: testSalt}); err != nil {
		t.Fatal(err)
	}
	log, err := sessions.Load(ingDir)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// TestFitGibbsSubset: DBN's and SDBN's Gibbs sampler on a subset of the
// queries (FitOptions.Intervals gibbs-subset, the subset's SERPs lowered
// to a third of the log's training SERPs so that a small log has queries
// outside it), with the worker's cache, its rate resolved from the
// manifest's training SERPs: the relevance and parameter files equal
// lovbench fit's (clickmodels.Run, the whole log in memory, with the
// same options) byte for byte, and so does the uncertainty report with
// the maps of the counts' Betas to the sampler's the writer fitted
// (metrics.json's gibbs_transfer); the relevance file is not the
// counts'. (TestFitGibbsMemfs checks DBN's file without the cache.)
func TestFitGibbsSubset(t *testing.T) {
	ctx := context.Background()
	log, shardDir := ingestShards(t, awkwardLog(t, 3000))
	m, err := ReadManifest(ctx, shardDir)
	if err != nil {
		t.Fatal(err)
	}
	subset := float64(m.TrainSERPs / 3)
	kinds := []clickmodels.Kind{clickmodels.DBN, clickmodels.SDBN}
	fitMem := func(opt clickmodels.Options) string {
		dir := filepath.Join(t.TempDir(), "want")
		opt.Iterations, opt.Exact = 10, true
		if _, err := clickmodels.Run(ctx, log, clickmodels.RunConfig{Kinds: kinds, Options: opt}, dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	want := fitMem(clickmodels.Options{Intervals: clickmodels.IntervalsGibbsSubset, SubsetSERPs: subset})
	gotDir := filepath.Join(t.TempDir(), "fit")
	p, s := beam.NewPipelineWithRoot()
	if err := BuildFit(s, FitOptions{ShardDir: shardDir, Kinds: kinds, Iterations: 10, Exact: true, Intervals: clickmodels.IntervalsGibbsSubset,
		SubsetSERPs: subset, OutDir: gotDir, PrepDir: filepath.Join(gotDir, ".prepared")}); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		for _, suffix := range []string{"_relevance.tsv", "_params.json"} {
			sameFile(t, filepath.Join(want, k.String()+suffix), filepath.Join(gotDir, k.String()+suffix))
		}
	}
	wantRep, gotRep := readMetrics(t, want), readMetrics(t, gotDir)
	if len(gotRep) != len(kinds) || len(wantRep) != len(kinds) {
		t.Fatalf("%d and %d models in metrics.json, want %d", len(gotRep), len(wantRep), len(kinds))
	}
	for i := range kinds {
		w, err1 := json.Marshal(wantRep[i].Uncertainty)
		g, err2 := json.Marshal(gotRep[i].Uncertainty)
		if err1 != nil || err2 != nil || !bytes.Equal(w, g) {
			t.Errorf("%s: the uncertainty report (%d bytes) differs from lovbench fit's (%d bytes)", kinds[i], len(g), len(w))
		}
		if u := gotRep[i].Uncertainty; u == nil || u.Gibbs == nil || u.Gibbs.Subset != subset || !(u.Gibbs.SubsetRate > 0 && u.Gibbs.SubsetRate < 1) || len(u.GibbsTransfer) == 0 {
			t.Errorf("%s: metrics.json without the subset's setting (%v SERPs, a rate in (0, 1)) or its maps", kinds[i], subset)
		}
	}
	rel := clickmodels.RelevanceFile("DBN")
	sub, err := os.ReadFile(filepath.Join(gotDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fitMem(clickmodels.Options{Intervals: clickmodels.IntervalsCounts}), rel))
	if err != nil || bytes.Equal(b, sub) {
		t.Errorf("%s: the sampler on a subset writes the counts' file (%v)", rel, err)
	}
}
