package fit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// sizedSource is a split.Source that only tells its size (Info), as a
// log of that many training SERPs does before any shard is prepared.
type sizedSource struct{ train int64 }

func (s sizedSource) NumShards() int { return 1 }
func (s sizedSource) Info() (int64, int64, int, split.Kind) {
	return s.train * 4 / 3, s.train, 10, split.Spec
}
func (s sizedSource) Scan(context.Context, int, func(int64, bool, *sessions.SERP) error) error {
	return errors.New("not read")
}

// TestCheckSubsetMemoryByHand: the sampler's subset under a limit L gets
// a quarter of it (membudget's table), at 512 bytes a training SERP of
// the subset (docs/scale.md), the subset being about --gibbs-subset-serps
// S (default 50,000) or the log's training SERPs if fewer. By hand:
//   - bench/scale's log of 35 M SERPs, 26.25 M training, the default fit
//     (auto: gibbs-subset above 300,000) under 1 GiB: 50,000 x 512 =
//     25.6 MB <= 256 MiB, accepted (the cron's contract); under 97 MiB
//     (share 25,427,968 bytes) refused, under 98 MiB (25,690,112) accepted;
//   - --gibbs-subset-serps 20,000,000 under 1 GiB: 10.24 GB > 256 MiB,
//     refused, the error naming the size that fits, 268,435,456 / 512 =
//     524,288, and the limit, 4 x 10.24 GB = 40.96 GB;
//   - DCTR and UBM alone, or intervals from the counts: no subset, never
//     refused; no limit: never refused;
//   - auto takes the sampler on the whole log up to 300,000 training
//     SERPs (its chains bounded out of core as before), no subset; above,
//     the default subset's 25.6 MB: refused under 97 MiB, not under 98;
//   - with --intervals-from gibbs-subset, the smallest limits of the
//     tests (32, 48, 64 MiB) take the default size on logs of up to
//     L/2048 training SERPs (16,384 at 32 MiB), whole, and refuse it above.
func TestCheckSubsetMemoryByHand(t *testing.T) {
	const mib = 1 << 20
	dflt := DefaultConfig().RunConfig // dctr, ubm, dbn; intervals auto
	withS := func(s float64) clickmodels.RunConfig {
		c := dflt
		c.SubsetSERPs = s
		return c
	}
	counts := dflt
	counts.Intervals = clickmodels.IntervalsCounts
	subset := dflt // --intervals-from gibbs-subset, its default size
	subset.Intervals = clickmodels.IntervalsGibbsSubset
	noDBN := dflt
	noDBN.Kinds = []clickmodels.Kind{clickmodels.DCTR, clickmodels.UBM}
	cases := []struct {
		name    string
		cfg     clickmodels.RunConfig
		train   int64
		limit   int64
		refused bool
	}{
		{"35 M, default, 1 GiB", dflt, 26_250_000, 1 << 30, false},
		{"35 M, default, 97 MiB", dflt, 26_250_000, 97 * mib, true},
		{"35 M, default, 98 MiB", dflt, 26_250_000, 98 * mib, false},
		{"35 M, 20 M subset, 1 GiB", withS(20_000_000), 26_250_000, 1 << 30, true},
		{"35 M, 20 M subset, no limit", withS(20_000_000), 26_250_000, 0, false},
		{"35 M, 20 M subset, counts", func() clickmodels.RunConfig { c := counts; return c }(), 26_250_000, 1 << 30, false},
		{"35 M, dctr and ubm, 1 MiB", noDBN, 26_250_000, mib, false},
		{"auto at 300,000: the sampler on the whole log", dflt, 300_000, 32 * mib, false},
		{"auto at 300,001, 97 MiB", dflt, 300_001, 97 * mib, true},
		{"auto at 300,001, 98 MiB", dflt, 300_001, 98 * mib, false},
		{"gibbs-subset, 16,384 at 32 MiB", subset, 16_384, 32 * mib, false},
		{"gibbs-subset, 16,385 at 32 MiB", subset, 16_385, 32 * mib, true},
		{"gibbs-subset, 24,576 at 48 MiB", subset, 24_576, 48 * mib, false},
		{"gibbs-subset, 24,577 at 48 MiB", subset, 24_577, 48 * mib, true},
		{"gibbs-subset, 32,768 at 64 MiB", subset, 32_768, 64 * mib, false},
		{"gibbs-subset, 32,769 at 64 MiB", subset, 32_769, 64 * mib, true},
	}
	for _, c := range cases {
		err := checkSubsetMemory(c.cfg, membudget.ForFit(c.limit), sizedSource{c.train})
		var se *SubsetMemoryError
		if got := errors.As(err, &se); got != c.refused || (err != nil && !got) {
			t.Errorf("%s: error %v, want refused %v", c.name, err, c.refused)
		}
	}
	err := checkSubsetMemory(withS(20_000_000), membudget.ForFit(1<<30), sizedSource{26_250_000})
	var se *SubsetMemoryError
	if !errors.As(err, &se) {
		t.Fatalf("20 M subset under 1 GiB: %v", err)
	}
	if se.SERPs != 20_000_000 || se.Need != 10_240_000_000 || se.Share != 256*mib || se.TrainSERPs != 26_250_000 {
		t.Errorf("20 M subset under 1 GiB: %+v, want 20,000,000 SERPs needing 10,240,000,000 bytes of a 256 MiB share", *se)
	}
	for _, w := range []string{"--gibbs-subset-serps 524288 or less", "--memory-limit 38.1GiB or more", "--memory-limit 1.0GiB"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestRunRefusesSubsetOverLimit: Run on gibbsLog's 3,000 SERPs (2,250
// training) with intervals from gibbs-subset, its default size taking
// the whole log: 2,250 x 512 = 1,152,000 bytes, more than the quarter
// of 4 MiB (1,048,576), is refused before any file is written, on the
// Parquet file and on 3 query shards; with --gibbs-subset-serps 2,048
// (2,048 x 512 = 1,048,576) it fits; under 5 MiB (a share of 1,310,720)
// the default fits; the smallest limit of the tests with the sampler,
// 64 MiB, takes it too.
func TestRunRefusesSubsetOverLimit(t *testing.T) {
	_, parquet := gibbsLog(t)
	sp := shards.SplitConfig{Split: split.Spec, TrainFraction: split.DefaultTrainFraction, Seed: split.DefaultSeed}
	shardDir := t.TempDir()
	if _, err := shards.Write(context.Background(), filepath.Dir(parquet), 3, sp, shardDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	run := func(limit int64, subset float64, set func(*Config)) (string, error) {
		cfg := DefaultConfig()
		cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
		cfg.Intervals, cfg.SubsetSERPs, cfg.Workers, cfg.Iterations = clickmodels.IntervalsGibbsSubset, subset, 1, 5
		cfg.Input, cfg.MemoryLimit, cfg.Dir, cfg.NoMetricsFile = parquet, limit, t.TempDir(), true
		set(&cfg)
		_, err := Run(context.Background(), cfg)
		return cfg.Dir, err
	}
	for _, p := range []struct {
		name string
		set  func(*Config)
	}{{"parquet", func(*Config) {}}, {"3 query shards", func(c *Config) { c.Input, c.ShardDir, c.ShardSplit = "", shardDir, true }}} {
		dir, err := run(4<<20, 0, p.set)
		var se *SubsetMemoryError
		if !errors.As(err, &se) || se.SERPs != 2250 || se.Need != 1_152_000 || se.Share != 1_048_576 ||
			!strings.Contains(err.Error(), "--gibbs-subset-serps 2048 or less") {
			t.Errorf("%s under 4 MiB: error %v, want a SubsetMemoryError of 2,250 SERPs needing 1,152,000 bytes of 1,048,576, naming 2048", p.name, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s under 4 MiB: the refused fit left %d entries in its directory", p.name, len(ents))
		}
		for _, ok := range []struct {
			limit  int64
			subset float64
		}{{4 << 20, 2048}, {5 << 20, 0}, {64 << 20, 0}} {
			dir, err := run(ok.limit, ok.subset, p.set)
			if err != nil {
				t.Errorf("%s under %d bytes, subset %v: %v", p.name, ok.limit, ok.subset, err)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, clickmodels.RelevanceFile("DBN"))); err != nil {
				t.Errorf("%s under %d bytes, subset %v: %v", p.name, ok.limit, ok.subset, err)
			}
		}
	}
}
