package clickmodels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// ShardFit is one model being fitted on one prepared query shard: the
// building block of RunShards, exported for engines that run shards
// elsewhere (the Apache Beam module). Per EM iteration: SetGlobal with the
// current global values, EStep into a Stats, merge all shards' Stats,
// MStepGlobals.
type ShardFit struct {
	f *fitter
	p *PreparedShard
}

// NewShardFit starts fitting kind on p with every pair parameter at its
// initial value (Unseen) and the global values global (copied by
// SetGlobal before each E-step).
func NewShardFit(ctx context.Context, p *PreparedShard, kind Kind, opt Options) *ShardFit {
	global := filled(kind.GlobalParams(p.Data.ranks), Unseen)
	return &ShardFit{f: newFitter(ctx, p.Data, kind, opt, global, true), p: p}
}

// SetGlobal sets the global parameter values the next E-step uses.
func (s *ShardFit) SetGlobal(g []float64) { copy(s.f.global, g) }

// EStep runs one E-step over the shard's records, updates the shard's pair
// parameters (their M-step needs no other shard) and adds the global counts
// to st.
func (s *ShardFit) EStep(ctx context.Context, st *Stats) { s.f.estep(ctx, st) }

// TrainLL adds to st.LL the log-likelihood of the shard's training SERPs
// under its current values (weighted by SERP, summed exactly). Summed over
// all shards and divided by the training SERPs it is the quantity that
// Options.Tolerance watches between iterations.
func (s *ShardFit) TrainLL(ctx context.Context, st *Stats) { s.f.trainLL(ctx, st) }

// Model returns the shard's model after iterations iterations (the
// pair parameters are shared with s, not copied).
func (s *ShardFit) Model(iterations int) *Model { return s.f.model(iterations) }

// FinalModel is Model after the last iteration, with the pairs' Evidence
// for intervals at level (0: DefaultLevel; negative: none), computed by
// one more pass over the shard's records. RunShards and the Beam pipeline
// call it once per shard, so their relevance files get the same intervals
// as Run's.
func (s *ShardFit) FinalModel(ctx context.Context, iterations int, level float64) (*Model, error) {
	m := s.f.model(iterations)
	m.Evidence = s.f.evidence(ctx, Options{Level: level}.level())
	return m, ctx.Err()
}

// Evaluate adds the shard's test SERPs, scored by the shard's current
// model, to ev.
func (s *ShardFit) Evaluate(ev *EvalSums) error {
	return ev.addShard(s.f.model(0), s.p.Data, s.p.Test)
}

// MarshalPairs encodes the shard's pair parameter values (attractiveness,
// then satisfaction; little-endian float64s), the only state an EM
// iteration passes to the next besides the globals.
func (s *ShardFit) MarshalPairs() []byte {
	out := make([]byte, 0, 8*(len(s.f.attr)+len(s.f.sat)))
	for _, v := range s.f.attr {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	for _, v := range s.f.sat {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// UnmarshalPairs restores what MarshalPairs encoded, into a ShardFit of
// the same shard and kind.
func (s *ShardFit) UnmarshalPairs(b []byte) error {
	na, ns := len(s.f.attr), len(s.f.sat)
	if len(b) != 8*(na+ns) {
		return fmt.Errorf("click models: %d bytes of pair values, want %d", len(b), 8*(na+ns))
	}
	for i := range s.f.attr {
		s.f.attr[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	for i := range s.f.sat {
		s.f.sat[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*(na+i):]))
	}
	return nil
}
