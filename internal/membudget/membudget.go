// Package membudget is the one place that divides a memory limit (the
// --memory-limit flag of fit and label, the run configuration's
// memory_limit) among the parts of a stage, and the one place
// that sets Go's soft memory limit for the process. The stages never
// divide the limit themselves: the fit's orchestration (fit.Run,
// for the fit command and the run's fit stage) computes their budget here
// and hands it to them as plain byte counts (docs/scale.md, "Out of core: what
// `--memory-limit` does").
//
// What each part of a fit under a limit L gets:
//
//	part                                         share   who uses it
//	Go's soft limit (debug.SetMemoryLimit)       L-L/16  the command, once
//	preparing one query shard                    L/4     shards.ForMemory
//	prepared shards held in memory between       L/8     outofcore.RunShards
//	  passes (the rest go to prepared-shard              (RunConfig.PreparedBudget)
//	  files, read back every pass)
//	spilled shards' pair values held in memory   L/8     the same budget again
//	pair values of all shards, E-step work,      the rest
//	  output buffers
//	the Gibbs sampler's subset of queries,       L/4     fit.Run and outofcore.RunShards
//	  gathered after EM (its records, pairs              refuse a fit whose subset would
//	  and values, joined into one Data, and              not fit, by its training SERPs
//	  the sampler's chain on it): the share              and by its prepared records and
//	  of preparing a shard, done by then                 pairs (RunConfig.GibbsSubsetBudget)
//
// A Yandex log is converted to a sessions Parquet file first under any
// limit (fit.Run), so that it is streamed, never loaded whole.
// The soft limit is a sixteenth below L for what the Go runtime does not
// count (the program's code, about 15 MiB) and for its overshoot while a
// collection runs (up to 75 MiB at 1 GiB, measured). Labelling only sets
// the soft limit: its memory is the first SERPs of the log and the
// relevance table, which it holds whole.
package membudget

import (
	"runtime/debug"
	"runtime/metrics"
)

// InUse is the memory the Go runtime holds from the OS (all its classes,
// less the heap returned to the OS): close to the process's resident set
// size, and what a memory limit bounds. The program's code, the runtime
// and its buffers hold several MiB before any work, so a limit below
// InUse plus what the work needs cannot be kept (the fit command refuses
// it).
func InUse() int64 {
	ss := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ss)
	return int64(ss[0].Value.Uint64()) - int64(ss[1].Value.Uint64())
}

// Fit is how a fit divides a memory limit. The zero value (no limit)
// bounds nothing.
type Fit struct {
	Limit int64 // the limit the budget was computed from; 0: none
	// ShardPrepare is the most one query shard's preparation may take:
	// shards.ForMemory cuts the log into as many shards as that needs.
	ShardPrepare int64
	// PreparedHeld bounds the prepared shards that outofcore.RunShards
	// holds in memory (clickmodels.RunConfig.PreparedBudget).
	PreparedHeld int64
	// GibbsSubset is the most the sampler on a subset of the queries
	// (--intervals-from gibbs-subset) may hold: its subset gathered from
	// the shards after EM and its chain on it. The shards are all
	// prepared by then, so it is ShardPrepare's quarter again; fit.Run
	// refuses a fit whose subset would not fit in it.
	GibbsSubset int64
}

// shareDivisor: preparing one shard gets a quarter of the limit.
const shareDivisor = 4

// heldDivisor: the prepared shards held between passes get an eighth of
// the limit. A held shard also keeps its fitter's state (factorised items,
// about 0.7 times the prepared size for UBM), which the budget does not
// count; an eighth leaves the collector room under the soft limit.
const heldDivisor = 8

// ForFit returns the budget of a fit under a limit of limit bytes (0: no
// limit, the zero Fit).
func ForFit(limit int64) Fit {
	if limit <= 0 {
		return Fit{}
	}
	q := max(limit/shareDivisor, 1)
	return Fit{Limit: limit, ShardPrepare: q, PreparedHeld: max(limit/heldDivisor, 1), GibbsSubset: q}
}

// MinFitLimit is the smallest limit whose ShardPrepare (and GibbsSubset,
// the same quarter) is at least share bytes: the inverse of ForFit for
// shards.MinMemoryLimit and for the sampler's subset (fit.Run).
func MinFitLimit(share int64) int64 {
	return max(shareDivisor*share, 1)
}

// SoftLimit is Go's soft memory limit for a process under a limit of
// limit bytes: a sixteenth below it (see the package doc).
func SoftLimit(limit int64) int64 { return limit - limit/16 }

// SetSoftLimit sets Go's soft memory limit for a limit of limit bytes
// (nothing if limit <= 0) and returns the function that restores the
// previous one. Only commands call it, once: the collector then works
// harder near the limit instead of letting the heap double.
func SetSoftLimit(limit int64) (restore func()) {
	if limit <= 0 {
		return func() {}
	}
	old := debug.SetMemoryLimit(SoftLimit(limit))
	return func() { debug.SetMemoryLimit(old) }
}
