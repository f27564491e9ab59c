package shards

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions/split"
)

// PrepareBytesPerSERP is the live heap that preparing one shard for fitting
// takes per SERP of the shard at its peak (its training and test SERPs as
// compact columns, the dictionaries and Prepare's work arrays), measured
// on a simulated 3-million-SERP log (docs/scale.md).
const PrepareBytesPerSERP = 220

// MaxMemoryShards is the most query shards ForMemory cuts a log into: the
// shard writer keeps every shard file open at once, so the count is
// bounded well below the usual limits on open files.
const MaxMemoryShards = 512

// MinMemoryLimit is the smallest memory limit ForMemory accepts for a log
// of serps SERPs: each of at most MaxMemoryShards shards must prepare
// within the limit's share for one shard (membudget.Fit.ShardPrepare),
// and no limit is below bytesize.MinLimit, the rule of every memory limit.
// (The fixed costs of a process, the Go runtime and its buffers, come on
// top of any limit: docs/scale.md.)
func MinMemoryLimit(serps int64) int64 {
	return max(membudget.MinFitLimit(minShardPrepare(serps)), bytesize.MinLimit)
}

// minShardPrepare is the smallest budget for one shard's preparation with
// which a log of serps SERPs needs at most MaxMemoryShards shards.
func minShardPrepare(serps int64) int64 {
	return (serps*PrepareBytesPerSERP + MaxMemoryShards - 1) / MaxMemoryShards
}

// LimitTooSmallError is ForMemory's error for a limit below MinMemoryLimit.
type LimitTooSmallError struct {
	Limit, Min int64
	SERPs      int64
}

func (e *LimitTooSmallError) Error() string {
	return fmt.Sprintf("a memory limit of %s is too small for this log of %d SERPs: the smallest that can work is %s", bytesize.Format(e.Limit), e.SERPs, bytesize.Format(e.Min))
}

// ForMemory returns a source to fit src (an ingest directory, a
// sessions.parquet file or a Yandex log) within the budget b of a memory
// limit (membudget.ForFit): the log streamed as one shard when preparing it
// whole takes at most b.ShardPrepare, else query shards written to a new
// directory under tmp (removed by cleanup), as many as needed for one
// shard's preparation to take at most b.ShardPrepare. The zero budget (no
// limit) streams the log as one shard. The outputs of the fit do not
// depend on the choice. A limit below MinMemoryLimit is a
// *LimitTooSmallError, before anything is written.
func ForMemory(ctx context.Context, src string, sp SplitConfig, b membudget.Fit, tmp string) (s split.Source, cleanup func(), err error) {
	st, err := NewStream(ctx, src, sp)
	if err != nil {
		return nil, nil, err
	}
	need := st.m.SERPs * PrepareBytesPerSERP
	budget := b.ShardPrepare
	if b.Limit <= 0 {
		return st, func() {}, nil
	}
	if min := MinMemoryLimit(st.m.SERPs); b.Limit < min {
		return nil, nil, &LimitTooSmallError{Limit: b.Limit, Min: min, SERPs: st.m.SERPs}
	}
	if need <= budget {
		return st, func() {}, nil
	}
	n := int((need + budget - 1) / budget)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(tmp, "lovbench-shards-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	m := st.m
	m.Shards, m.Source = n, filepath.Base(src)
	scan, _, err := openSource(src)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if _, err := writeShards(ctx, scan, m, st.train, dir, WriteOptions{}); err != nil {
		cleanup()
		return nil, nil, err
	}
	d, err := Open(dir)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return d, cleanup, nil
}
