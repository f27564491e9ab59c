package fit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
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
// a quarter of it (membudget's table), at 352 bytes a training SERP of
// the subset (docs/scale.md), the subset being about --gibbs-subset-serps
// S (default 50,000) or the log's training SERPs if fewer. By hand:
//   - bench/scale's log of 35 M SERPs, 26.25 M training, the default fit
//     (auto: gibbs-subset above 300,000) under 1 GiB: 50,000 x 352 =
//     17.6 MB <= 256 MiB, accepted (the cron's contract); under 67 MiB
//     (share 17,563,648 bytes) refused, under 68 MiB (17,825,792) accepted;
//   - --gibbs-subset-serps 20,000,000 under 1 GiB: 7.04 GB > 256 MiB,
//     refused, the error naming the size that fits, 268,435,456 / 352 =
//     762,600, and the limit, 4 x 7.04 GB = 28.16 GB (26.2 GiB);
//   - DCTR and UBM alone, or intervals from the counts: no subset, never
//     refused; no limit: never refused;
//   - auto takes the sampler on the whole log up to 300,000 training
//     SERPs (its chains bounded out of core as before), no subset; above,
//     the default subset's 17.6 MB: refused under 67 MiB, not under 68;
//   - with --intervals-from gibbs-subset, the smallest limits of the
//     tests (32, 48, 64 MiB) take the default size on logs of up to
//     L/4/352 training SERPs (23,831 at 32 MiB), whole, and refuse it above.
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
		{"35 M, default, 67 MiB", dflt, 26_250_000, 67 * mib, true},
		{"35 M, default, 68 MiB", dflt, 26_250_000, 68 * mib, false},
		{"35 M, 20 M subset, 1 GiB", withS(20_000_000), 26_250_000, 1 << 30, true},
		{"35 M, 20 M subset, no limit", withS(20_000_000), 26_250_000, 0, false},
		{"35 M, 20 M subset, counts", func() clickmodels.RunConfig { c := counts; return c }(), 26_250_000, 1 << 30, false},
		{"35 M, dctr and ubm, 1 MiB", noDBN, 26_250_000, mib, false},
		{"auto at 300,000: the sampler on the whole log", dflt, 300_000, 32 * mib, false},
		{"auto at 300,001, 67 MiB", dflt, 300_001, 67 * mib, true},
		{"auto at 300,001, 68 MiB", dflt, 300_001, 68 * mib, false},
		{"gibbs-subset, 23,831 at 32 MiB", subset, 23_831, 32 * mib, false},
		{"gibbs-subset, 23,832 at 32 MiB", subset, 23_832, 32 * mib, true},
		{"gibbs-subset, 35,746 at 48 MiB", subset, 35_746, 48 * mib, false},
		{"gibbs-subset, 35,747 at 48 MiB", subset, 35_747, 48 * mib, true},
		{"gibbs-subset, 47,662 at 64 MiB", subset, 47_662, 64 * mib, false},
		{"gibbs-subset, 47,663 at 64 MiB", subset, 47_663, 64 * mib, true},
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
	if se.SERPs != 20_000_000 || se.Need != 7_040_000_000 || se.Share != 256*mib || se.TrainSERPs != 26_250_000 {
		t.Errorf("20 M subset under 1 GiB: %+v, want 20,000,000 SERPs needing 7,040,000,000 bytes of a 256 MiB share", *se)
	}
	for _, w := range []string{"--gibbs-subset-serps 762600 or less", "--memory-limit 26.2GiB or more", "--memory-limit 1.0GiB"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestRunRefusesSubsetOverLimit: Run on gibbsLog's 3,000 SERPs (2,250
// training) with intervals from gibbs-subset, its default size taking
// the whole log: 2,250 x 352 = 792,000 bytes, more than the quarter of
// 3 MiB (786,432), is refused before any file is written, on the
// Parquet file and on 3 query shards; with --gibbs-subset-serps 2,234
// (786,368 bytes) it fits; under 4 MiB (a share of 1,048,576) the
// default fits; the smallest limit of the tests with the sampler, 64
// MiB, takes it too.
func TestRunRefusesSubsetOverLimit(t *testing.T) {
	_, parquet := gibbsLog(t)
	shardDir := gibbsShards(t, parquet)
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
		dir, err := run(3<<20, 0, p.set)
		var se *SubsetMemoryError
		if !errors.As(err, &se) || se.SERPs != 2250 || se.Need != 792_000 || se.Share != 786_432 ||
			!strings.Contains(err.Error(), "--gibbs-subset-serps 2234 or less") {
			t.Errorf("%s under 3 MiB: error %v, want a SubsetMemoryError of 2,250 SERPs needing 792,000 bytes of 786,432, naming 2234", p.name, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s under 3 MiB: the refused fit left %d entries in its directory", p.name, len(ents))
		}
		for _, ok := range []struct {
			limit  int64
			subset float64
		}{{3 << 20, 2234}, {4 << 20, 0}, {64 << 20, 0}} {
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

// TestRunRefusesSubsetByPairs: a log dense in pairs passes the check by
// training SERPs and is refused once its shards are prepared, before
// EM. 800 SERPs, SERP i of query i mod 200, each query's ten results its
// own documents, a click at rank 1: the first 600 train, three identical
// SERPs per query, so 200 records and 2,000 distinct pairs, all in the
// subset of the default size (50,000 >= 600). By SERPs 600 x 352 =
// 211,200 bytes, within the quarter of 1 MiB (262,144); by records and
// pairs 200 x 48 + 2,000 x 224 = 457,600, beyond it: refused, naming
// 600 x 262,144 / 457,600 = 343 SERPs and 4 x 457,600 bytes (1.7 MiB).
// Under 2 MiB (a share of 524,288) the fit runs.
func TestRunRefusesSubsetByPairs(t *testing.T) {
	var serps []sessions.SERP
	for i := 0; i < 800; i++ {
		q := i % 200
		s := sessions.SERP{SessionID: fmt.Sprint("s", i), Query: fmt.Sprint("q", q), Region: "0", Clicks: []sessions.Click{{Rank: 0}}}
		for r := 0; r < 10; r++ {
			s.Results = append(s.Results, fmt.Sprint("d", q, "-", r))
		}
		serps = append(serps, s)
	}
	yandex := writeYandex(t, serps)
	run := func(limit int64) (string, error) {
		cfg := DefaultConfig()
		cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
		cfg.Intervals, cfg.Workers, cfg.Iterations = clickmodels.IntervalsGibbsSubset, 1, 5
		cfg.Input, cfg.MemoryLimit, cfg.Dir, cfg.NoMetricsFile = yandex, limit, t.TempDir(), true
		_, err := Run(context.Background(), cfg)
		return cfg.Dir, err
	}
	dir, err := run(1 << 20)
	var se *SubsetMemoryError
	if !errors.As(err, &se) || se.TrainSERPs != 600 || se.SERPs != 600 || se.Need != 457_600 || se.Share != 262_144 ||
		!strings.Contains(err.Error(), "--gibbs-subset-serps 343 or less") || !strings.Contains(err.Error(), "--memory-limit 1.7MiB or more") ||
		!strings.Contains(err.Error(), "records and distinct pairs") {
		t.Fatalf("under 1 MiB: error %v, want a SubsetMemoryError of 600 SERPs needing 457,600 bytes by records and pairs of 262,144, naming 343 and 1.7MiB", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("under 1 MiB: the refused fit left %d entries in its directory", len(ents))
	}
	if dir, err := run(2 << 20); err != nil {
		t.Errorf("under 2 MiB: %v", err)
	} else if _, err := os.Stat(filepath.Join(dir, clickmodels.RelevanceFile("DBN"))); err != nil {
		t.Errorf("under 2 MiB: %v", err)
	}
}
