package outofcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// simulatedParquet simulates n SERPs from DBN and writes them as
// dir/sessions.parquet. With interleave, SERPs are given to n/6 user
// sessions at random, so sessions interleave in the log (which the time
// split must handle); else SERP i is session i.
func simulatedParquet(t *testing.T, dir string, n int, interleave bool) {
	t.Helper()
	writeSERPs(t, dir, simulatedSERPs(t, n, interleave))
}

// simulatedSERPs are the SERPs of simulatedParquet.
func simulatedSERPs(t *testing.T, n int, interleave bool) []sessions.SERP {
	t.Helper()
	sc := sim.DefaultSyntheticConfig()
	sc.Queries, sc.Seed = 300, 4
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := sim.SimulateLog(context.Background(), sim.Config{Kind: clickmodels.DBN, SERPs: n, Seed: 8, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	idx := map[string]int{}
	serps := make([]sessions.SERP, log.Len())
	for i := range serps {
		sid := fmt.Sprint("s", i)
		if interleave {
			sid = fmt.Sprint("s", rng.IntN(n/6))
		}
		s := &serps[i]
		s.SessionID, s.Index, s.Query, s.Region = sid, idx[sid], log.Queries.Names[log.Query[i]], "0"
		idx[sid]++
		for r, d := range log.SERPDocs(i) {
			s.Results = append(s.Results, log.Docs.Names[d])
			if log.Clicked(i, r) {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r})
			}
		}
	}
	return serps
}

// outputs reads every output file of a fit; metrics.json without the
// timing fields.
func outputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == atomicfile.IndexFile {
			continue // written by Run's publishing, not by the fit
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "metrics.json" {
			var reps []map[string]any
			if err := json.Unmarshal(b, &reps); err != nil {
				t.Fatal(err)
			}
			for _, r := range reps {
				delete(r, "fit_seconds")
				delete(r, "prepare_seconds")
			}
			b, _ = json.Marshal(reps)
		}
		out[e.Name()] = b
	}
	return out
}

// wholeFit fits cfg on the sessions directory src loaded whole
// (clickmodels.Run) and returns its outputs.
func wholeFit(t *testing.T, src string, cfg clickmodels.RunConfig) map[string][]byte {
	t.Helper()
	whole, err := sessions.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	if _, err := clickmodels.Run(context.Background(), whole, cfg, ref); err != nil {
		t.Fatal(err)
	}
	return outputs(t, ref)
}

// writeSERPs writes serps as dir/sessions.parquet.
func writeSERPs(t *testing.T, dir string, serps []sessions.SERP) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, sessions.ParquetName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sessions.WriteParquet(f, serps); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestShardInvarianceHeavy: the EM models on a log where two SERPs recur
// 6,000 times each (among 1,500 simulated SERPs by default, 3,000 at the
// full size) give the same files in memory and on 3 and 8 query shards
// with 2 and 3 workers. Their merged records weigh 6,000, so
// per-record and per-item counts reach beyond 2^11 (DBN's continuation
// count of a SERP clicked below rank 0 is at least its weight): the
// exact sums take their two-conversion path there and the one-conversion
// path for the other counts, and the sum must not depend on the layout.
// At the default size the 8 shards with 2 workers only; the 3 shards too
// at the full size (LOVBENCH_FULL=1).
func TestShardInvarianceHeavy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := t.TempDir()
	// 12,000 heavy SERPs at both sizes: 8 after each of 1,500 simulated
	// SERPs by default, 4 after each of 3,000 at the full size.
	n, copies := testsize.Pick(1_500, 3_000), testsize.Pick(8, 4)
	serps := simulatedSERPs(t, n, false)
	heavy := []sessions.SERP{
		{Query: "heavy-a", Region: "0", Results: []string{"a1", "a2", "a3", "a4", "a5"}, Clicks: []sessions.Click{{Rank: 2}}},
		{Query: "heavy-b", Region: "0", Results: []string{"b1", "b2", "b3", "b4", "b5", "b6"}, Clicks: []sessions.Click{{Rank: 1}, {Rank: 4}}},
	}
	var all []sessions.SERP
	for i, s := range serps {
		all = append(all, s)
		for k := 0; k < copies; k++ {
			h := heavy[(copies*i+k)%2]
			h.SessionID = fmt.Sprint("h", copies*i+k)
			all = append(all, h)
		}
	}
	writeSERPs(t, src, all)
	cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.PBM, clickmodels.UBM, clickmodels.DBN, clickmodels.CCM},
		Split: split.Spec, TrainFraction: 0.7, Options: clickmodels.Options{Iterations: 4, Workers: 1, Tolerance: 1e-300}}
	want := wholeFit(t, src, cfg)
	// The parameters as Parquet too: spilled fits merge them from pair
	// files.
	pq := cfg
	pq.ParamsFormat = clickmodels.ParamsParquet
	wantPQ := wholeFit(t, src, pq)
	sp := shards.SplitConfig{Split: cfg.Split, TrainFraction: cfg.TrainFraction}
	shardFitsEqual(t, src, sp, cfg, want, testsize.Pick([][2]int{{8, 2}}, [][2]int{{3, 3}, {8, 2}}), func(d *shards.Dir, cc clickmodels.RunConfig, what string) {
		outPQ := t.TempDir()
		cc.ParamsFormat = clickmodels.ParamsParquet
		if _, err := outofcore.RunShards(ctx, d, cc, outPQ); err != nil {
			t.Fatal(err)
		}
		got := outputs(t, outPQ)
		if len(got) != len(wantPQ) {
			t.Fatalf("Parquet parameters: %d files, want %d", len(got), len(wantPQ))
		}
		for f, w := range wantPQ {
			if !bytes.Equal(got[f], w) {
				t.Errorf("%s: %s differs from the in-memory fit", what, f)
			}
		}
	})
}

// shardFitsEqual cuts the sessions directory src into n query shards for
// each {n, workers} of cases, fits them with RunShards (prepared shards in
// memory, then every one spilled to its file) and checks every file of
// want byte for byte; also, if not nil, runs further checks on the same
// shards and configuration.
func shardFitsEqual(t *testing.T, src string, sp shards.SplitConfig, cfg clickmodels.RunConfig, want map[string][]byte, cases [][2]int, also func(d *shards.Dir, cc clickmodels.RunConfig, what string)) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cases {
		n, workers := c[0], c[1]
		dir := t.TempDir()
		if _, err := shards.Write(ctx, src, n, sp, dir, shards.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := shards.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int64{0, 1} { // 1: every shard spilled to its prepared-shard file
			out := t.TempDir()
			cc := cfg
			cc.Workers, cc.PreparedBudget = workers, budget
			if _, err := outofcore.RunShards(ctx, d, cc, out); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%d shards, %d workers, prepared budget %d", n, workers, budget)
			got := outputs(t, out)
			for f, w := range want {
				if !bytes.Equal(got[f], w) {
					t.Errorf("%s: %s differs from the in-memory fit", what, f)
				}
			}
			if also != nil {
				also(d, cc, what)
			}
		}
	}
}

// TestShardInvariance: fitting every model on the whole log in memory
// (Run), on the streamed log (RunShards over shards.Stream) and on 1, 3
// and 8 query shards with 1 to 3 workers, held in memory or (under a
// memory limit) spilled to prepared-shard files, all or some of them (the
// run's log says which), gives byte-identical files, for the spec, random
// and time splits, on a log with one session per SERP and one with
// interleaved sessions. The log has 1,500 SERPs by default (8 shards of
// about 37 queries each, split over 2 workers) and 6,000 at the full size
// (LOVBENCH_FULL=1, internal/testsize).
func TestShardInvariance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	serps := testsize.Pick(1_500, 6_000)
	for ii, interleave := range []bool{false, true} {
		src := t.TempDir()
		simulatedParquet(t, src, serps, interleave)
		log, err := sessions.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		for ki, kind := range []split.Kind{split.Spec, split.Random, split.Time} {
			// At the default size half the pairs: spec and time on the
			// log in order, random on the interleaved one, so that each
			// split and each log is still checked; every pair at the full
			// size.
			if !testsize.Full() && (ii+ki)%2 != 0 {
				continue
			}
			t.Run(fmt.Sprintf("interleave=%v/%s", interleave, kind), func(t *testing.T) {
				t.Parallel()
				// The interleaved log runs the default estimator's kind
				// of fit (DBN's exact E-step, the tolerance's
				// log-likelihood after every iteration) accelerated
				// (Options.Accelerate: two EM steps, then an
				// extrapolation, two more), the other PyClick's; the
				// random split of the interleaved log also with the
				// empirical prior (Options.EmpiricalPrior, whose prior
				// means ride with the globals).
				cfg := clickmodels.RunConfig{Kinds: clickmodels.AllKinds(), Split: kind, Seed: 11, TrainFraction: 0.7,
					Options: clickmodels.Options{Iterations: 4, Workers: 1, Exact: interleave, Accelerate: interleave, Tolerance: map[bool]float64{true: 1e-300}[interleave],
						EmpiricalPrior: interleave && kind == split.Random}}
				ref := t.TempDir()
				if _, err := clickmodels.Run(ctx, log, cfg, ref); err != nil {
					t.Fatal(err)
				}
				want := outputs(t, ref)
				if len(want) != 2*len(cfg.Kinds)+1 {
					t.Fatalf("%d output files", len(want))
				}
				sp := shards.SplitConfig{Split: kind, TrainFraction: 0.7, Seed: 11}
				// check fits on s and compares with the in-memory fit;
				// spilled is how many of n shards the run must have
				// spilled to prepared-shard files: "none", "some" or "all".
				check := func(name string, s split.Source, workers int, budget int64, n int, spilled string) {
					out := t.TempDir()
					c := cfg
					c.Workers = workers
					c.PreparedBudget = budget // > 0: the shards beyond it spilled to prepared-shard files
					var logged bytes.Buffer
					c.Log = slog.New(slog.NewJSONHandler(&logged, nil))
					if _, err := outofcore.RunShards(ctx, s, c, out); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if got := spilledShards(t, logged.Bytes(), n); got != spilled {
						t.Errorf("%s: %s of %d shards spilled, want %s", name, got, n, spilled)
					}
					got := outputs(t, out)
					for f, w := range want {
						if !bytes.Equal(got[f], w) {
							t.Errorf("%s: %s differs from the in-memory fit", name, f)
						}
					}
				}
				st, err := shards.NewStream(ctx, src, sp)
				if err != nil {
					t.Fatal(err)
				}
				check("stream", st, 2, 0, 1, "none")
				for _, c := range []struct{ n, workers int }{{1, 1}, {3, 3}, {8, 2}} {
					dir := t.TempDir()
					if _, err := shards.Write(ctx, src, c.n, sp, dir, shards.WriteOptions{}); err != nil {
						t.Fatal(err)
					}
					d, err := shards.Open(dir)
					if err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("%d shards, %d workers", c.n, c.workers), d, c.workers, 0, c.n, "none")
					if c.n > 1 {
						check(fmt.Sprintf("%d shards spilled to files, %d workers", c.n, c.workers), d, c.workers, 1, c.n, "all")
					}
					if c.n == 8 {
						// A budget that holds the first prepared shard only.
						_, _, maxRanks, _ := d.Info()
						p, err := outofcore.PrepareShard(ctx, d, 0, max(clickmodels.DefaultRanks, maxRanks))
						if err != nil {
							t.Fatal(err)
						}
						check(fmt.Sprintf("%d shards, some spilled, %d workers", c.n, c.workers), d, c.workers, p.Size(), c.n, "some")
					}
				}
			})
		}
	}
}

// spilledShards reads from a RunShards log (JSON lines) how many of its n
// prepared shards went to files: "none", "some" or "all".
func spilledShards(t *testing.T, log []byte, n int) string {
	t.Helper()
	for _, line := range bytes.Split(log, []byte("\n")) {
		var rec struct {
			Msg           string
			Spilled, Held int
		}
		if len(line) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Msg != "prepared shards spilled to files" {
			continue
		}
		switch {
		case rec.Spilled+rec.Held != n:
			return fmt.Sprintf("%d+%d held", rec.Spilled, rec.Held)
		case rec.Held == 0:
			return "all"
		case rec.Spilled > 0:
			return "some"
		}
	}
	return "none"
}

// TestShardFitAPI drives the exported per-shard pieces the way an outside
// engine does (each shard prepared once into a prepared-shard file and
// read back every iteration, Stats and pair values through their binary
// encodings between iterations, new ShardFits each iteration) and must
// give the files of RunShards.
func TestShardFitAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := t.TempDir()
	simulatedParquet(t, src, 4_000, true)
	sp := shards.SplitConfig{Split: split.Spec, TrainFraction: 0.75}
	dir := t.TempDir()
	if _, err := shards.Write(ctx, src, src4, sp, dir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := shards.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []clickmodels.Kind{clickmodels.DCTR, clickmodels.UBM, clickmodels.DBN}
	cfg := clickmodels.RunConfig{Kinds: kinds, Options: clickmodels.Options{Iterations: 3}}
	ref := t.TempDir()
	if _, err := outofcore.RunShards(ctx, d, cfg, ref); err != nil {
		t.Fatal(err)
	}
	_, train, maxRanks, split := d.Info()
	R := max(clickmodels.DefaultRanks, maxRanks)
	out := t.TempDir()
	var reports []clickmodels.Report
	for _, k := range kinds {
		iters := 3
		if !k.EM(false) {
			iters = 1
		}
		pairs := make([][]byte, src4)
		var global []float64
		var parts []clickmodels.ShardModel
		var ev clickmodels.EvalSums
		prep := t.TempDir()
		for i := range src4 {
			p, err := outofcore.PrepareShard(ctx, d, i, R)
			if err != nil {
				t.Fatal(err)
			}
			if err := outofcore.WritePreparedShardFile(filepath.Join(prep, fmt.Sprint(i)), p); err != nil {
				t.Fatal(err)
			}
		}
		for it := 0; it <= iters; it++ {
			st := clickmodels.NewStats(k, R)
			for i := range src4 {
				p, err := outofcore.ReadPreparedShardFile(filepath.Join(prep, fmt.Sprint(i)))
				if err != nil {
					t.Fatal(err)
				}
				f := clickmodels.NewShardFit(ctx, p.Data, p.Test, k, cfg.Options)
				if it > 0 {
					f.SetGlobal(global)
					if err := f.UnmarshalPairs(pairs[i]); err != nil {
						t.Fatal(err)
					}
				}
				if it == iters {
					if err := f.Evaluate(&ev); err != nil {
						t.Fatal(err)
					}
					m, err := f.FinalModel(ctx, iters, cfg.Options)
					if err != nil {
						t.Fatal(err)
					}
					parts = append(parts, clickmodels.ShardModel{Model: m, QueryFirst: p.QueryFirst})
					continue
				}
				one := clickmodels.NewStats(k, R)
				f.EStep(ctx, one)
				b, _ := one.MarshalBinary()
				var back clickmodels.Stats
				if err := back.UnmarshalBinary(b); err != nil {
					t.Fatal(err)
				}
				st.Merge(&back)
				pairs[i] = f.MarshalPairs()
			}
			if it < iters {
				global = clickmodels.MStepGlobals(k, st)
			}
		}
		if err := clickmodels.WriteModelFiles(out, parts); err != nil {
			t.Fatal(err)
		}
		met, err := ev.Metrics(k)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, clickmodels.Report{Model: k.String(), Split: split, TrainSessions: int(train), Metrics: met, Iterations: iters})
	}
	clickmodels.FinishReports(reports)
	if err := clickmodels.WriteMetrics(out, reports); err != nil {
		t.Fatal(err)
	}
	want, got := outputs(t, ref), outputs(t, out)
	for f, w := range want {
		if f == "metrics.json" {
			continue // train_distinct_serps is left out above
		}
		if !bytes.Equal(got[f], w) {
			t.Errorf("%s differs from RunShards", f)
		}
	}
	var wm, gm []map[string]any
	json.Unmarshal(want["metrics.json"], &wm)
	json.Unmarshal(got["metrics.json"], &gm)
	for i := range wm {
		for _, key := range []string{"test_loglikelihood", "test_perplexity", "perplexity_gain_over", "test_sessions"} {
			if fmt.Sprint(wm[i][key]) != fmt.Sprint(gm[i][key]) {
				t.Errorf("%v %s: %v, want %v", wm[i]["model"], key, gm[i][key], wm[i][key])
			}
		}
	}
}

const src4 = 4
