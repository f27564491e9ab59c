package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/shards"
)

// TestFitMemoryLimitSameOutputs: the fit stage under the run's
// memory_limit (the log streamed into query shards, here
// 3 of them) writes the same relevance and parameter files as the
// in-memory stage, and the log shows that the limited path ran: the log
// cut into query shards (more than one); the temporary directories, under the stage's .shards and
// .prepared-*, are gone afterwards.
func TestFitMemoryLimitSameOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("two small pipeline runs")
	}
	// Both runs in one work directory: the second reuses the first's
	// simulated log and ingested sessions, the fit's only input, and
	// fits again (forced) under the limit. Each fit's output directory
	// is kept until a later run replaces it, so both are compared.
	base := t.TempDir()
	smallCorpus(t, filepath.Join(base, "vocabs")) // the fit does not depend on the corpus's size
	var fitDirs []string
	logs := make([]bytes.Buffer, 2)
	for i, extra := range []string{"", "memory_limit: 1MiB\n"} {
		cfgText := "simulate: {sessions: 3000, queries: 60, model: ubm, seed: 3}\ncorpus: {paths: [vocabs]}\nltr: {enabled: false}\nworkdir: work\nclick_models:\n  models: [dctr, ubm, dbn]\n" + extra
		cfgPath := filepath.Join(base, []string{"mem", "ooc"}[i]+".yaml")
		if err := os.WriteFile(cfgPath, []byte(cfgText), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		lg := slog.New(slog.NewJSONHandler(&logs[i], nil))
		// Up to the fit stage, the one compared (and ingest, read below).
		res, err := Run(context.Background(), cfg, RunOptions{Log: lg, until: StageFit, Force: []string{StageFit}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Stages {
			if s.Name == StageFit && s.Skipped {
				t.Fatalf("run %d: the fit stage did not run", i+1)
			}
		}
		dir, err := filepath.EvalSymlinks(filepath.Join(base, "work", "stages", StageFit))
		if err != nil {
			t.Fatal(err)
		}
		fitDirs = append(fitDirs, dir)
	}
	if fitDirs[0] == fitDirs[1] {
		t.Fatalf("both runs' fit outputs are %s", fitDirs[0])
	}
	// The simulated log has SERPs without a click, which ingest keeps for
	// the click models: both engines fit them.
	rep, err := ingest.ReadReport(filepath.Join(base, "work", "stages", StageIngest, ingest.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.SERPsWithoutClickSession == 0 {
		t.Errorf("ingest kept no SERP without a click (%d SERPs)", rep.KeptQueries)
	}
	// DBN's intervals are the default's on this log, the Gibbs sampler's
	// (auto, 2,250 training SERPs): the sampler's files are the same under
	// the run's memory_limit (cmd/lovbench's TestRunIntervalsFromAsFit
	// relies on this for intervals_from: gibbs).
	for i, dir := range fitDirs {
		var sum FitSummary
		if err := textio.ReadJSON(filepath.Join(dir, FitSummaryFile), &sum); err != nil {
			t.Fatal(err)
		}
		for _, m := range sum.Models {
			if m.Model != "DBN" {
				continue
			}
			method := "none"
			if m.Uncertainty != nil {
				method = m.Uncertainty.Method
			}
			if method != clickmodels.GibbsUncertaintyMethod {
				t.Errorf("run %d: DBN's intervals come from %s, not the Gibbs sampler", i+1, method)
			}
		}
	}
	n := 0
	for _, name := range []string{"DCTR", "UBM", "DBN"} {
		for _, suf := range []string{"_relevance.tsv", "_params.json"} {
			a, err := os.ReadFile(filepath.Join(fitDirs[0], name+suf))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(fitDirs[1], name+suf))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s%s differs with memory_limit", name, suf)
			}
			n++
		}
	}
	// What the limited run logged (and the unlimited one did not).
	limited := func(log []byte) (shards int, spilled bool) {
		dec := json.NewDecoder(bytes.NewReader(log))
		for {
			var rec map[string]any
			if err := dec.Decode(&rec); err != nil {
				return
			}
			switch rec["msg"] {
			case "fitting":
				if n, ok := rec["shards"].(float64); ok {
					shards = max(shards, int(n))
				}
			case "prepared shards spilled to files":
				spilled = true
			}
		}
	}
	if n, sp := limited(logs[0].Bytes()); n > 1 || sp {
		t.Errorf("without a limit: %d shards, spilled %v; want 1 shard in memory", n, sp)
	}
	// About 3000 SERPs at 220 B each take about 640 KB to prepare; a
	// quarter of 1 MiB (262,144 B) per shard needs 3 shards. (That
	// prepared shards spill under the limit's budget is
	// TestFitLogShardDirBudget's.)
	if n, _ := limited(logs[1].Bytes()); n < 2 {
		t.Errorf("memory_limit 1MiB: %d shards; want the log cut into query shards (3)", n)
	}
	ents, _ := os.ReadDir(fitDirs[1])
	for _, e := range ents {
		if e.Name() == ".shards" || strings.HasPrefix(e.Name(), ".prepared-") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
}

// TestFitLogShardDirBudget: a shard directory fitted under a memory limit
// gets the limit's budget for prepared shards too (membudget.ForFit): with
// 16 KiB held at most (a quarter of 64 KiB), prepared shards spill to
// files, and the files equal those of the fit without a limit.
func TestFitLogShardDirBudget(t *testing.T) {
	dir := t.TempDir()
	sc := sim.DefaultSyntheticConfig()
	sc.Queries = 200
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "log.tsv")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.SimulateYandex(context.Background(), sim.Config{Kind: clickmodels.UBM, SERPs: 3000, Seed: 3, Source: src}, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shardDir := filepath.Join(dir, "shards")
	if _, err := shards.Write(context.Background(), logPath, 8, shards.SplitConfig{}, shardDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	for i, limit := range []int64{0, 64 << 10} {
		var logBuf bytes.Buffer
		out := filepath.Join(dir, fmt.Sprint("fit", i))
		os.MkdirAll(out, 0o755)
		cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.UBM}, Options: clickmodels.Options{Iterations: 3},
			MemoryLimit: limit, Log: slog.New(slog.NewTextHandler(&logBuf, nil))}
		if _, err := fit.Run(context.Background(), fit.Config{ShardDir: shardDir, Dir: out, RunConfig: cfg}); err != nil {
			t.Fatal(err)
		}
		if spilled := strings.Contains(logBuf.String(), "prepared shards spilled to files"); spilled != (limit > 0) {
			t.Errorf("limit %d: spilled %v, want %v", limit, spilled, limit > 0)
		}
		outs[i] = out
	}
	for _, f := range []string{"UBM_relevance.tsv", "UBM_params.json"} {
		a, err1 := os.ReadFile(filepath.Join(outs[0], f))
		b, err2 := os.ReadFile(filepath.Join(outs[1], f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs under the limit (%v, %v)", f, err1, err2)
		}
	}
}
