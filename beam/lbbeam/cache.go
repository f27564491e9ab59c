package lbbeam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
)

// DefaultShardCache is the memory a worker process keeps opened shards in
// between EM steps unless told otherwise (FitOptions.ShardCache).
const DefaultShardCache = 1 << 30

// openShards is the worker process's cache of opened shards: the one
// piece of process-level state of the package, an exception to the
// project's rule of no global state, for this reason. A Beam DoFn lives
// no longer than a bundle, and every EM step is a bundle of its own, so
// without it every step of every shard read its prepared-shard file back,
// decoded it and rebuilt each model's factorised E-step items: at 1 M
// SERPs and 50 iterations more CPU than the E-steps themselves
// (docs/scale.md). The cache is safe because:
//
//   - it is keyed by content: the SHA-256 of the prepared-shard file, which
//     prepareFn computes as it writes the file and which then travels with
//     the shard's EM state through the pipeline. A file read on a miss is
//     checked against it, so an entry can only ever stand for the bytes
//     the pipeline asked for, never a stale or changed file;
//   - it holds only what is a function of those bytes and of the
//     history the pipeline names: the decoded shard, each model's
//     ShardFit with its items and denominators, and the pair values the
//     fit holds, tagged with the hash of the EM history they are the
//     values after (valuesHash: the global values of every E-step so far,
//     which with the shard's bytes determine the pair values). A step
//     uses the fit's values only if the history its state names is that
//     one, else it reads them from the values file of that history; the
//     global values always come from the step's side input. The Gibbs
//     sampler's chains (gibbs.go) are kept the same way, each tagged with
//     the hash of the passes it is after (chainHash), and read from the
//     chain file of the passes a pass names when the tag is another. So
//     a retried bundle, a worker that missed a step or a second pipeline
//     on the same shard computes what a fresh worker would;
//   - an entry is taken out while a step uses it (two bundles never share
//     one) and put back only when the step succeeded;
//   - it is bounded: it holds at most the budget the pipeline gives
//     (FitOptions.ShardCache, estimated with PreparedShard.Size,
//     ShardFit.Size and GibbsChain.Size), evicting the least recently used entries; a budget
//     of 0 keeps nothing.
var openShards = &shardCache{entries: map[string]*openedShard{}}

// shardCache is a bounded, content-keyed set of opened shards.
type shardCache struct {
	mu      sync.Mutex
	entries map[string]*openedShard // by digest
	total   int64                   // bytes of the entries
	tick    uint64
}

// openedShard is a decoded prepared shard and the fits built on it.
type openedShard struct {
	digest string
	p      *outofcore.PreparedShard
	fits   map[fitKey]*clickmodels.ShardFit
	at     map[fitKey][]byte // the history of the values each fit holds (valuesAt); none: initial
	// vals are encoded pair values by history, which accelerated EM keeps
	// (storeValues, pairsAt): a cycle's iterates.
	vals map[fitKey]map[string][]byte
	// chains are the Gibbs sampler's chains (gibbs.go), by model, as the
	// last pass that ran here left them.
	chains map[fitKey]*keptChain
	size   int64
	used   uint64 // the cache's tick when last put back
}

type fitKey struct {
	kind clickmodels.Kind
	v    variant
}

// variant is what besides the kind decides a model's E-step:
// clickmodels.Options' Exact (the exact E-steps, Kind.ExactEStep) and PSCMAuthors (PSCM
// as the authors' code).
type variant struct{ Exact, PSCMAuthors, EmpiricalPrior bool }

// options are the fitting options of v (clickmodels.Options' Exact,
// PSCMAuthors and EmpiricalPrior).
func (v variant) options() clickmodels.Options {
	return clickmodels.Options{Exact: v.Exact, PSCMAuthors: v.PSCMAuthors, EmpiricalPrior: v.EmpiricalPrior}
}

// get takes the shard of the given digest out of the cache, or reads it
// from path (checking its digest) if the cache has none.
func (c *shardCache) get(ctx context.Context, path string, digest []byte) (*openedShard, error) {
	c.mu.Lock()
	e := c.entries[string(digest)]
	if e != nil {
		delete(c.entries, e.digest)
		c.total -= e.size
	}
	c.mu.Unlock()
	if e != nil {
		return e, nil
	}
	p, err := readPreparedDigest(ctx, path, digest)
	if err != nil {
		return nil, err
	}
	return newOpened(p, digest), nil
}

// newOpened is the cache entry of p, a prepared shard of the given digest.
func newOpened(p *outofcore.PreparedShard, digest []byte) *openedShard {
	return &openedShard{digest: string(digest), p: p, fits: map[fitKey]*clickmodels.ShardFit{}, at: map[fitKey][]byte{}, size: p.Size()}
}

// put returns e to the cache, which then holds at most budget bytes; a
// step that failed must not call it.
func (c *shardCache) put(e *openedShard, budget int64) {
	if e.size > budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.entries[e.digest]; old != nil { // another step opened the same bytes meanwhile
		c.total -= old.size
	}
	c.tick++
	e.used = c.tick
	c.entries[e.digest] = e
	c.total += e.size
	for c.total > budget {
		var lru *openedShard
		for _, x := range c.entries {
			if lru == nil || x.used < lru.used {
				lru = x
			}
		}
		delete(c.entries, lru.digest)
		c.total -= lru.size
	}
}

// fit returns e's fit of kind (built on first use, with the initial
// values) as it is.
func (e *openedShard) fit(ctx context.Context, k clickmodels.Kind, v variant) *clickmodels.ShardFit {
	key := fitKey{k, v}
	f := e.fits[key]
	if f == nil {
		opt := v.options()
		opt.Workers = 1
		f = clickmodels.NewShardFit(ctx, e.p.Data, e.p.Test, k, opt)
		e.fits[key] = f
		e.size += f.Size()
	}
	return f
}

// valuesAt returns e's fit of kind holding the pair values after the EM
// history h (valuesHash; none: the initial values). A fit that holds them
// already is returned as it is; otherwise the values are read from the
// values file at path, which the step that computed them wrote.
func (e *openedShard) valuesAt(ctx context.Context, k clickmodels.Kind, v variant, h []byte, path string) (*clickmodels.ShardFit, error) {
	key := fitKey{k, v}
	f := e.fit(ctx, k, v)
	switch {
	case len(h) == 0:
		f.Reset()
	case bytes.Equal(e.at[key], h):
		return f, nil
	default:
		delete(e.at, key) // until the values are in
		b, ok := e.vals[key][string(h)]
		if !ok {
			var err error
			if b, err = readFile(ctx, path); err != nil {
				return nil, err
			}
		}
		if err := f.UnmarshalPairs(b); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	e.at[key] = h
	return f, nil
}

// readPreparedDigest reads the prepared-shard file at path (local or a
// URL), checks that its SHA-256 is digest and decodes it.
func readPreparedDigest(ctx context.Context, path string, digest []byte) (*outofcore.PreparedShard, error) {
	b, err := readFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); !bytes.Equal(sum[:], digest) {
		return nil, fmt.Errorf("%s: prepared shard changed since it was written (SHA-256 %x, want %x)", path, sum, digest)
	}
	p, err := outofcore.UnmarshalPreparedShard(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
