package lbbeam

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
)

// TestShardCache: the worker's cache of opened shards returns a shard only
// for the digest of its bytes, hands an entry to one user at a time, keeps
// within its budget (least recently used out first), and a fit taken from
// it computes what a fit on a freshly decoded shard computes.
func TestShardCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, shardDir := cleanShards(t, dir, 3000, 2)
	var paths [2]string
	var digests [2][]byte
	var fresh [2]*outofcore.PreparedShard
	for i := range paths {
		src, cleanup, err := openShard(ctx, shardDir, i)
		if err != nil {
			t.Fatal(err)
		}
		p, err := outofcore.PrepareShard(ctx, src, i, clickmodels.DefaultRanks)
		cleanup()
		if err != nil {
			t.Fatal(err)
		}
		fresh[i] = p
		paths[i] = filepath.Join(dir, PreparedPath("prep", i))
		os.MkdirAll(filepath.Dir(paths[i]), 0o755)
		if digests[i], err = writePrepared(ctx, paths[i], p); err != nil {
			t.Fatal(err)
		}
	}
	// Two E-steps from the initial values: pair values and statistics.
	run := func(k clickmodels.Kind, f *clickmodels.ShardFit) (pairs, stats []byte) {
		t.Helper()
		var st *clickmodels.Stats
		for range 2 {
			st = clickmodels.NewStats(k, clickmodels.DefaultRanks)
			f.EStep(ctx, st)
		}
		stats, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return f.MarshalPairs(), stats
	}
	// UBM's factorised E-step and DBN's, which keeps its denominators
	// from the first iteration.
	kinds := []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN}
	var wantPairs, wantStats [2][]byte
	for i, k := range kinds {
		wantPairs[i], wantStats[i] = run(k, clickmodels.NewShardFit(ctx, fresh[0].Data, fresh[0].Test, k, clickmodels.Options{Workers: 1}))
	}

	c := &shardCache{entries: map[string]*openedShard{}}
	if _, err := c.get(ctx, paths[0], digests[1]); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("shard 0 under shard 1's digest: %v, want an error", err)
	}
	e, err := c.get(ctx, paths[0], digests[0])
	if err != nil {
		t.Fatal(err)
	}
	var fits [2]*clickmodels.ShardFit
	for i, k := range kinds {
		if fits[i], err = e.valuesAt(ctx, k, variant{}, nil, ""); err != nil {
			t.Fatal(err)
		}
		if p, s := run(k, fits[i]); !bytes.Equal(p, wantPairs[i]) || !bytes.Equal(s, wantStats[i]) {
			t.Fatalf("%v: a fit on a cached shard differs from one on a fresh shard", k)
		}
	}
	c.put(e, 1<<30)

	// A hit needs no file, and returns the same fit, reset: the same
	// E-steps give the same values again.
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	e2, err := c.get(ctx, paths[0], digests[0])
	if err != nil || e2 != e {
		t.Fatalf("cached shard not returned: %v", err)
	}
	for i, k := range kinds {
		f, err := e2.valuesAt(ctx, k, variant{}, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if f != fits[i] {
			t.Fatalf("the shard's %v fit was built again", k)
		}
		if p, s := run(k, f); !bytes.Equal(p, wantPairs[i]) || !bytes.Equal(s, wantStats[i]) {
			t.Fatalf("%v: a reused fit does not start from the initial values", k)
		}
	}
	// Values after an EM history: a fit that holds them is returned as
	// it is, with no file read; other values come from the file named.
	ubm := fitKey{clickmodels.UBM, variant{}}
	h := valuesHash(nil, digests[0], clickmodels.UBM, variant{}, nil)
	e2.at[ubm] = h
	if f, err := e2.valuesAt(ctx, clickmodels.UBM, variant{}, h, filepath.Join(dir, "absent")); err != nil || f != fits[0] {
		t.Fatalf("values held by the fit: %v", err)
	}
	fits[0].Reset()
	next := valuesHash(h, digests[0], clickmodels.UBM, variant{}, []float64{0.25})
	if _, err := e2.valuesAt(ctx, clickmodels.UBM, variant{}, next, filepath.Join(dir, "absent")); err == nil {
		t.Fatal("values of another history without their file")
	}
	vpath := filepath.Join(dir, "values")
	if err := os.WriteFile(vpath, wantPairs[0], 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := e2.valuesAt(ctx, clickmodels.UBM, variant{}, next, vpath); err != nil || !bytes.Equal(f.MarshalPairs(), wantPairs[0]) || !bytes.Equal(e2.at[ubm], next) {
		t.Fatalf("values read from their file: %v", err)
	}

	// Taken out while in use: a second get must read the (removed) file.
	if _, err := c.get(ctx, paths[0], digests[0]); err == nil {
		t.Fatal("an entry in use was handed out twice")
	}

	// The budget: an entry larger than it is not kept; with room for one
	// entry, the least recently used goes.
	c.put(e2, e2.size-1)
	if len(c.entries) != 0 || c.total != 0 {
		t.Fatalf("entry over budget kept: %d entries, %d bytes", len(c.entries), c.total)
	}
	e1, err := c.get(ctx, paths[1], digests[1])
	if err != nil {
		t.Fatal(err)
	}
	budget := max(e1.size, e2.size) + min(e1.size, e2.size)/2
	c.put(e2, budget)
	c.put(e1, budget)
	if len(c.entries) != 1 || c.entries[string(digests[1])] != e1 || c.total != e1.size {
		t.Fatalf("after two puts within room for one: %d entries, %d bytes, want shard 1's %d", len(c.entries), c.total, e1.size)
	}
	if e1, err = c.get(ctx, paths[1], digests[1]); err != nil {
		t.Fatal(err)
	}
	c.put(e1, 0) // budget 0: nothing kept
	if len(c.entries) != 0 {
		t.Fatal("budget 0 kept an entry")
	}
}

// TestKeptChain: a shard's cache entry keeps the Gibbs chain a pass left
// (keepChain) and hands it to the next pass named by its hash without
// reading a file; a pass that names another chain (a retried pass, whose
// chain this worker has run on since) gets the one in that chain's file,
// and runs what the first run of that pass ran; a chain named without
// its file is an error. The reference is the sampler run on the chains
// directly (GibbsShards.Pass). The finish's dropChain gives the entry's
// size back.
func TestKeptChain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, shardDir := cleanShards(t, dir, 3000, 1)
	src, cleanup, err := openShard(ctx, shardDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := outofcore.PrepareShard(ctx, src, 0, clickmodels.DefaultRanks)
	cleanup()
	if err != nil {
		t.Fatal(err)
	}
	e := newOpened(p, []byte("digest"))
	key := fitKey{clickmodels.DBN, variant{}}
	sf := e.fit(ctx, clickmodels.DBN, variant{})
	for range 3 {
		st := clickmodels.NewStats(clickmodels.DBN, clickmodels.DefaultRanks)
		sf.EStep(ctx, st)
		sf.SetGlobal(clickmodels.MStepGlobals(clickmodels.DBN, st))
	}
	opt := clickmodels.Options{Intervals: clickmodels.IntervalsGibbs}
	gs, err := clickmodels.NewGibbsShards(clickmodels.DBN, opt, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	c0, h, err := gs.Pass(ctx, 0, sf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := gs.Reduce(0, h); err != nil {
		t.Fatal(err)
	}
	round, err := gs.MarshalRound()
	if err != nil {
		t.Fatal(err)
	}
	want0, err := c0.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	base := e.size
	h0 := chainHash([]byte("start"), 0, nil)
	path0 := chainPath(dir, 0, clickmodels.DBN, h0)
	if err := e.keepChain(ctx, key, h0, path0, c0); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path0); err != nil || !bytes.Equal(b, want0) {
		t.Fatalf("chain file of pass 0: %v, or not the chain's encoding", err)
	}
	if e.size <= base+c0.Size() {
		t.Errorf("entry of %d bytes with a chain of %d, was %d", e.size, c0.Size(), base)
	}
	// The next pass: the kept chain itself, no file read.
	c, err := e.chainAt(ctx, key, h0, filepath.Join(dir, "absent"))
	if err != nil || c != c0 {
		t.Fatalf("kept chain not returned: %v", err)
	}
	c1, _, err := gs.Pass(ctx, 1, sf, c)
	if err != nil {
		t.Fatal(err)
	}
	want1, err := c1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(want1, want0) {
		t.Fatal("pass 1 left the chain as it was")
	}
	h1 := chainHash(h0, 1, round)
	if err := e.keepChain(ctx, key, h1, chainPath(dir, 0, clickmodels.DBN, h1), c1); err != nil {
		t.Fatal(err)
	}
	// Pass 1 again (retried): the chain after pass 0 from its file, and
	// the same chain after it.
	if _, err := e.chainAt(ctx, key, chainHash(h0, 1, []byte("other")), filepath.Join(dir, "absent")); err == nil {
		t.Fatal("a chain not kept, without its file")
	}
	c, err = e.chainAt(ctx, key, h0, path0)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := c.MarshalBinary(); !bytes.Equal(b, want0) {
		t.Fatal("the chain read back is not the chain after pass 0")
	}
	if err := gs.UnmarshalRound(round); err != nil {
		t.Fatal(err)
	}
	c, _, err = gs.Pass(ctx, 1, sf, c)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := c.MarshalBinary(); !bytes.Equal(b, want1) {
		t.Fatal("pass 1 retried from the file differs from its first run")
	}
	e.dropChain(key)
	if e.size != base || len(e.chains) != 0 {
		t.Errorf("entry of %d bytes after dropping its chain, want %d", e.size, base)
	}
}
