package fit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// gibbsLog writes a log of 3,000 SERPs over 40 queries, each query's
// results a rotation of its pool of 14 documents, clicks by a fixed rule
// (some SERPs without one), as a Yandex log and as a sessions Parquet
// file, and returns both paths.
func gibbsLog(t *testing.T) (yandex, parquet string) {
	t.Helper()
	var serps []sessions.SERP
	for i := 0; i < 3000; i++ {
		q := (i * 7) % 40
		s := sessions.SERP{SessionID: fmt.Sprint("s", i), Query: fmt.Sprint("q", q), Region: "0"}
		for r := 0; r < 10; r++ {
			s.Results = append(s.Results, fmt.Sprint("d", q, "-", (r+i%3)%14))
		}
		switch i % 5 {
		case 0: // no click
		case 1, 2:
			s.Clicks = []sessions.Click{{Rank: (i / 5) % 4}}
		case 3:
			s.Clicks = []sessions.Click{{Rank: 0}, {Rank: 2 + (i/5)%6}}
		case 4:
			s.Clicks = []sessions.Click{{Rank: (q + i/5) % 10}}
		}
		serps = append(serps, s)
	}
	yandex = writeYandex(t, serps)
	parquet = filepath.Join(filepath.Dir(yandex), sessions.ParquetName)
	if _, err := sessions.YandexToParquet(yandex, parquet); err != nil {
		t.Fatal(err)
	}
	return yandex, parquet
}

// gibbsShards cuts gibbsLog's Parquet file into 3 query shards with the
// fit's default split and returns their directory.
func gibbsShards(t *testing.T, parquet string) string {
	t.Helper()
	sp := shards.SplitConfig{Split: split.Spec, TrainFraction: split.DefaultTrainFraction, Seed: split.DefaultSeed}
	shardDir := t.TempDir()
	if _, err := shards.Write(context.Background(), filepath.Dir(parquet), 3, sp, shardDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return shardDir
}

// TestRunGibbsPaths: with the Gibbs sampler's intervals
// (clickmodels.IntervalsGibbs), every path of Run writes the relevance
// file of the Yandex log fitted in memory, byte for byte: the log as a
// sessions Parquet file (one query shard), either under a memory limit
// (cut into query shards, the Yandex log streamed to Parquet first), and
// a directory of 3 query shards; with 2 workers too. Check refuses
// --load with an error that names it.
func TestRunGibbsPaths(t *testing.T) {
	yandex, parquet := gibbsLog(t)
	shardDir := gibbsShards(t, parquet)
	run := func(what string, set func(*Config)) []byte {
		t.Helper()
		cfg := DefaultConfig()
		cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
		cfg.Intervals, cfg.Workers = clickmodels.IntervalsGibbs, 1
		cfg.Dir, cfg.NoMetricsFile = t.TempDir(), true
		set(&cfg)
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := os.ReadFile(filepath.Join(cfg.Dir, clickmodels.RelevanceFile("DBN")))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := run("yandex in memory", func(c *Config) { c.Input = yandex })
	if len(want) < 1000 {
		t.Fatalf("DBN relevance: %d bytes", len(want))
	}
	for _, c := range []struct {
		name string
		set  func(*Config)
	}{
		{"parquet, one shard", func(c *Config) { c.Input = parquet }},
		{"parquet under a memory limit", func(c *Config) { c.Input, c.MemoryLimit = parquet, 64<<20 }},
		{"yandex under a memory limit, 2 workers", func(c *Config) { c.Input, c.MemoryLimit, c.Workers = yandex, 64<<20, 2 }},
		{"3 query shards", func(c *Config) { c.ShardDir, c.ShardSplit = shardDir, true }},
	} {
		if got := run(c.name, c.set); !bytes.Equal(got, want) {
			t.Errorf("DBN relevance: %s (%d bytes) differs from the Yandex log in memory (%d bytes)", c.name, len(got), len(want))
		}
	}
	cfg := DefaultConfig()
	cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
	cfg.Intervals = clickmodels.IntervalsGibbs
	cfg.Input, cfg.Dir, cfg.LoadDir = parquet, t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--load fits nothing") || !strings.Contains(err.Error(), "intervals from gibbs") {
		t.Errorf("--load: error %v, want one naming intervals from gibbs and --load", err)
	}
}
