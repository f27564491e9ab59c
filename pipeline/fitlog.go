package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// FitInput says which click log FitLog reads: Path (a Yandex log, a
// sessions.parquet file or an ingest output directory holding one) or
// ShardDir (a query-shard directory of lovbench shard).
type FitInput struct {
	Path, ShardDir string
	// ShardSplit keeps the split the shards of ShardDir were cut with
	// (cfg.Split is not checked against it).
	ShardSplit bool
}

// FitLog fits the click models of cfg on the log of in and writes their
// files (<MODEL>_relevance.tsv, <MODEL>_params.*, metrics.json) into the
// existing directory dir, which the caller publishes. It is the one place
// that picks how a log is fitted:
//
//   - a shard directory: shard by shard (outofcore.RunShards);
//   - a sessions Parquet file: streamed into query shards that fit in
//     the budget of cfg.MemoryLimit (membudget.ForFit, shards.ForMemory;
//     one shard without a limit),
//     never held whole, then RunShards; the temporary shards go under
//     dir/.shards and are removed;
//   - a Yandex log: loaded and fitted in memory (clickmodels.RunInto); under
//     cfg.MemoryLimit streamed into a temporary sessions.parquet under
//     dir/.shards first (sessions.YandexToParquet) and fitted as one.
//
// A memory limit too small for the log's shards is a
// *shards.LimitTooSmallError.
func FitLog(ctx context.Context, in FitInput, cfg clickmodels.RunConfig, dir string) ([]clickmodels.Report, error) {
	// The one budget of the limit: what preparing a shard and holding
	// prepared shards may take (Go's soft limit is the command's).
	b := membudget.ForFit(cfg.MemoryLimit)
	cfg.PreparedBudget = b.PreparedHeld
	if in.ShardDir != "" {
		d, err := shards.Open(in.ShardDir)
		if err != nil {
			return nil, err
		}
		if in.ShardSplit {
			cfg.Split = ""
		}
		return outofcore.RunShards(ctx, d, cfg, dir)
	}
	pq, isPq, err := sessions.ParquetPath(in.Path)
	tmp := filepath.Join(dir, ".shards")
	if err == nil && !isPq && cfg.MemoryLimit > 0 {
		// Under a memory limit a Yandex log is not loaded: it is
		// streamed into a temporary sessions.parquet, which is then
		// sharded for the limit like any other.
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		defer os.Remove(tmp) // after conv below is removed
		conv, err := os.MkdirTemp(tmp, "log-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(conv)
		pq = filepath.Join(conv, sessions.ParquetName)
		st, err := sessions.YandexToParquet(in.Path, pq)
		if err != nil {
			return nil, err
		}
		if st.Queries == 0 {
			return nil, fmt.Errorf("fit: %s: no SERP to fit the click models on", in.Path)
		}
		if cfg.Log != nil {
			cfg.Log.Info("click log streamed to Parquet for the memory limit", "path", in.Path, "serps", st.Queries)
		}
		isPq = true
	}
	if err != nil || !isPq {
		// Without a limit the log is held in memory; only the time split
		// needs its user sessions and no split its string indexes.
		load := sessions.LoadForFit
		if cfg.Split == split.Time {
			load = sessions.Load
		}
		log, err := load(in.Path)
		if err != nil {
			return nil, err
		}
		if log.Len() == 0 {
			// Nothing to fit: an error even with --allow-empty.
			return nil, fmt.Errorf("fit: %s: no SERP to fit the click models on", in.Path)
		}
		if cfg.Log != nil {
			cfg.Log.Info("click log loaded", "path", in.Path, "serps", log.Len(), "queries", log.Queries.Len(), "docs", log.Docs.Len())
		}
		return clickmodels.RunInto(ctx, log, cfg, dir)
	}
	src, cleanup, err := shards.ForMemory(ctx, pq, shards.SplitConfig{Split: cfg.Split, TrainFraction: cfg.TrainFraction, Seed: cfg.Seed}, b, tmp)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	defer cleanup()
	if cfg.Log != nil {
		cfg.Log.Info("fitting", "path", pq, "shards", src.NumShards(), "memory_limit", cfg.MemoryLimit)
	}
	return outofcore.RunShards(ctx, src, cfg, dir)
}
