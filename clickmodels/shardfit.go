package clickmodels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/lovbench/lovbench/sessions"
)

// ShardFit is one model being fitted on one prepared query shard: the
// building block of outofcore.RunShards, exported for engines that run shards
// elsewhere (the Apache Beam module). Per EM iteration: SetGlobal with the
// current global values, EStep into a Stats, merge all shards' Stats,
// MStepGlobals.
type ShardFit struct {
	f    *fitter
	d    *Data
	test *sessions.Log
}

// NewShardFit starts fitting kind on p with every pair parameter at its
// initial value (Unseen) and the global values global (copied by
// SetGlobal before each E-step).
func NewShardFit(ctx context.Context, d *Data, test *sessions.Log, kind Kind, opt Options) *ShardFit {
	global := InitialGlobals(kind, d.ranks, opt)
	return NewShardFitShared(ctx, d, test, kind, opt, global, true)
}

// NewShardFitShared is NewShardFit on the global parameters global,
// which the fit shares with every shard's (FitShards updates them in
// place); factorize false skips the factorised E-step's tables (a fit
// only built for its final model).
func NewShardFitShared(ctx context.Context, d *Data, test *sessions.Log, kind Kind, opt Options, global []float64, factorize bool) *ShardFit {
	return &ShardFit{f: newFitter(ctx, d, kind, opt, global, factorize), d: d, test: test}
}

// FitShards runs EM with the shards' fits each passes to fn (in shard
// order, on the shared global parameters global) for at most iters
// iterations, serps being the training SERPs of all shards, and returns
// the iterations done. store keeps the iterates of accelerated EM
// (Options.Accelerate), the k-th shard's as fitter k (nil: in memory).
func FitShards(ctx context.Context, each func(fn func(*ShardFit)) error, R int, kind Kind, opt Options, global []float64, iters, serps int, store IterateStore) (int, error) {
	return fitLoop(ctx, func(fn func(*fitter)) error {
		return each(func(s *ShardFit) { fn(s.f) })
	}, R, kind, opt, global, iters, serps, nil, store)
}

// PairValues returns the fit's pair values themselves (attractiveness,
// satisfaction), the state one EM iteration passes to the next.
func (s *ShardFit) PairValues() (attr, sat []float64) { return s.f.attr, s.f.sat }

// Reset sets every pair value and global value back to the initial ones
// (Unseen), as NewShardFit starts: a fit kept between EM iterations (the
// Beam pipeline's workers) starts a new EM run. What the fit computed
// from its shard alone (the factorised E-step's items, the pair
// denominators) stays: it depends on the shard's records only.
func (s *ShardFit) Reset() {
	for _, v := range [][]float64{s.f.attr, s.f.sat, s.f.global} {
		for i := range v {
			v[i] = Unseen
		}
	}
}

// Size estimates the bytes the fit holds besides its shard's data: its
// pair values and counts, the factorised E-step's items (and the
// log-likelihood's) and the workers' buffers.
func (s *ShardFit) Size() int64 {
	f := s.f
	n := 8 * (len(f.attr) + len(f.sat) + len(f.aNum) + len(f.aDen) + len(f.sNum) + len(f.sDen) + len(f.global) + len(f.pA) + len(f.nImp))
	if fz := f.fz; fz != nil {
		n += int(unsafe.Sizeof(item{}))*len(fz.items) + 8*(len(fz.itemOff)+len(fz.aNum0)+len(fz.aDen)) +
			int(unsafe.Sizeof(ExactSum{}))*(len(fz.gNum0)+len(fz.gDen))
		if f.kind == PBM || f.kind == UBM {
			// The log-likelihood's items (itemll.go), built or not: at
			// most one a rank of the records; their lengths' masks, at
			// most one a record.
			n += int(unsafe.Sizeof(llItem{}))*len(f.d.recPair) + 8*len(f.d.recClicks)
		}
		if f.kind == PSCM {
			// The log-likelihood's items (pscmll.go), built or not: at
			// most one a rank of the records and one a (step, rank) of
			// the other click orders (at most R ranks and one step more
			// than clicks each), a compound's gammas no more.
			n += int(unsafe.Sizeof(llItem{})) * (len(f.d.recPair) + f.R*(len(f.d.varOrd)+len(f.d.varWeight)))
		}
	}
	for _, sc := range f.scr {
		n += int(unsafe.Sizeof(*sc)) + 8*(cap(sc.pairBuf)+len(sc.gn)+len(sc.gd)) + 16*cap(sc.items) + 4*cap(sc.index) +
			int(unsafe.Sizeof(llItem{}))*cap(sc.llItems) + 4*(cap(sc.llNext)+cap(sc.llIndex))
	}
	return int64(n)
}

// SetGlobal sets the global parameter values the next E-step uses.
func (s *ShardFit) SetGlobal(g []float64) { copy(s.f.global, g) }

// EStep runs one E-step over the shard's records, updates the shard's pair
// parameters (their M-step needs no other shard) and adds the global counts
// to st.
func (s *ShardFit) EStep(ctx context.Context, st *Stats) { s.f.estep(ctx, st) }

// EStepLL is EStep that also adds to st.LL the training log-likelihood
// of the values it reads (the sum TrainLL adds), in the same pass where
// the E-step visits the records: the pass of EM accelerated by SQUAREM
// (Options.Accelerate).
func (s *ShardFit) EStepLL(ctx context.Context, st *Stats) { s.f.estepLL(ctx, st) }

// TrainLL adds to st.LL the log-likelihood of the shard's training SERPs
// under its current values (weighted by SERP, summed exactly). Summed over
// all shards and divided by the training SERPs it is the quantity that
// Options.Tolerance watches between iterations.
func (s *ShardFit) TrainLL(ctx context.Context, st *Stats) { s.f.trainLL(ctx, st) }

// Model returns the shard's model after iterations iterations (the
// pair parameters are shared with s, not copied).
func (s *ShardFit) Model(iterations int) *Model { return s.f.model(iterations) }

// FinalModel is Model after the last iteration, with the pairs' Evidence
// for the intervals of opt (its Level and NoIntervals; its other fields
// are not read), computed by one more pass over the shard's records.
// outofcore.RunShards and the Beam pipeline call it once per shard, so
// their relevance files get the same intervals as Run's.
func (s *ShardFit) FinalModel(ctx context.Context, iterations int, opt Options) (*Model, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	m := s.f.model(iterations)
	m.Evidence = opt.evidence(ctx, s.f)
	return m, ctx.Err()
}

// Evaluate adds the shard's test SERPs, scored by the shard's current
// model, to ev.
func (s *ShardFit) Evaluate(ev *EvalSums) error {
	return ev.AddPrepared(s.f.model(0), s.d, s.test)
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

// SetPairValues makes attr and sat (not copies) the fit's pair values, as
// PairValues returned them from a fit of the same shard.
func (s *ShardFit) SetPairValues(attr, sat []float64) { s.f.attr, s.f.sat = attr, sat }
