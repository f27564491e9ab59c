package outofcore_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// orderedSERPs are n SERPs of 10 results over 200 queries with random
// clicks at random times (many multi-click SERPs clicked out of rank
// order, some clicks repeated), one user session per 3 SERPs.
func orderedSERPs(n int) []sessions.SERP {
	rng := rand.New(rand.NewPCG(5, 9))
	serps := make([]sessions.SERP, n)
	for i := range serps {
		s := &serps[i]
		s.SessionID, s.Index, s.Query, s.Region = fmt.Sprint("s", i/3), i%3, fmt.Sprint("q", rng.IntN(200)), "0"
		perm := rng.Perm(14)
		for r := range 10 {
			s.Results = append(s.Results, fmt.Sprint("d", perm[r]))
		}
		for r := range 10 {
			if rng.Float64() < 0.6/float64(r+1) {
				for range 1 + rng.IntN(2) {
					s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: int64(rng.IntN(30))})
				}
			}
		}
	}
	return serps
}

// TestPSCMShardInvariance: PSCM (and UBM beside it) on a log with click
// orders gives the same files in memory (Run), on 3 and 8 query shards
// held in memory, and spilled to prepared-shard files, with 1 and 3
// workers; and the shards and the prepared-shard files carry the order
// (without it PSCM's files differ).
func TestPSCMShardInvariance(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	writeSERPs(t, src, orderedSERPs(5_000))
	log, err := sessions.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if !log.HasOrder() {
		t.Fatal("no SERP clicked out of rank order")
	}
	cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.PSCM, clickmodels.UBM}, Split: split.Spec, TrainFraction: 0.7,
		Options: clickmodels.Options{Iterations: 4, Workers: 1}}
	ref := t.TempDir()
	if _, err := clickmodels.Run(ctx, log, cfg, ref); err != nil {
		t.Fatal(err)
	}
	want := outputs(t, ref)
	flat := log.Slice(0, log.Len())
	flat.OrderSERP, flat.OrderOff, flat.OrderRanks = nil, nil, nil
	noOrder := t.TempDir()
	if _, err := clickmodels.Run(ctx, flat, cfg, noOrder); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(outputs(t, noOrder)["PSCM_params.json"], want["PSCM_params.json"]) {
		t.Fatal("PSCM's parameters do not depend on the click order")
	}
	sp := shards.SplitConfig{Split: split.Spec, TrainFraction: 0.7}
	shardFitsEqual(t, src, sp, cfg, want, [][2]int{{3, 3}, {8, 1}}, nil)
	// A prepared shard with orders reads back equal, and a click order
	// that is not an order of its record's clicks is refused.
	st, err := shards.NewStream(ctx, src, sp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := outofcore.PrepareShard(ctx, st, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	parts := p.Data.Parts()
	if len(parts.VarWeight) == 0 || len(p.Test.OrderSERP) == 0 {
		t.Fatal("the prepared shard holds no click orders")
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := outofcore.UnmarshalPreparedShard(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Error("a prepared shard with click orders differs after a round trip")
	}
	parts.VarOrd[0] = 63 // a rank no record shows
	bad, _ := p.MarshalBinary()
	if _, err := outofcore.UnmarshalPreparedShard(bad); err == nil {
		t.Error("a prepared shard with a click order not of its record's clicks was accepted")
	}
}
