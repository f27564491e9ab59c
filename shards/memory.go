package shards

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/sessions"
)

// Source is what clickmodels.RunShards reads (clickmodels.ShardSource):
// Dir and Stream implement it.
type Source interface {
	NumShards() int
	Info() (serps, trainSERPs int64, maxRanks int, split string)
	Scan(ctx context.Context, i int, fn func(pos int64, train bool, s *sessions.SERP) error) error
}

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
// within a quarter of the limit, and no limit is below bytesize.MinLimit,
// the rule of every memory limit. (The fixed costs of a process, the Go
// runtime and its buffers, come on top of any limit: docs/scale.md.)
func MinMemoryLimit(serps int64) int64 {
	perShard := (serps*PrepareBytesPerSERP + MaxMemoryShards - 1) / MaxMemoryShards
	return max(4*perShard, bytesize.MinLimit)
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
// sessions.parquet file or a Yandex log) with a memory limit of limit
// bytes: the log streamed as one shard when preparing it whole takes at
// most a quarter of the limit, else query shards written to a new
// directory under tmp (removed by cleanup), as many as needed for one
// shard's preparation to take at most a quarter of the limit. The outputs
// of the fit do not depend on the choice. A limit below MinMemoryLimit is
// a *LimitTooSmallError, before anything is written.
func ForMemory(ctx context.Context, src string, sp SplitConfig, limit int64, tmp string) (s Source, cleanup func(), err error) {
	st, err := NewStream(ctx, src, sp)
	if err != nil {
		return nil, nil, err
	}
	need := st.m.SERPs * PrepareBytesPerSERP
	budget := max(limit/4, 1)
	if limit <= 0 {
		return st, func() {}, nil
	}
	if min := MinMemoryLimit(st.m.SERPs); limit < min {
		return nil, nil, &LimitTooSmallError{Limit: limit, Min: min, SERPs: st.m.SERPs}
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
