package clickmodels

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/atomicfile"
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

// MarshalBinary encodes the statistics (count of globals, then each
// ExactSum's encoding: Num, Den, then LL).
func (s *Stats) MarshalBinary() ([]byte, error) {
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(s.Num)))
	add := func(e *ExactSum) {
		b, _ := e.MarshalBinary()
		out = append(out, b...)
	}
	for j := range s.Num {
		add(&s.Num[j])
		add(&s.Den[j])
	}
	add(&s.LL)
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *Stats) UnmarshalBinary(b []byte) error {
	const sz = exactSumBytes
	if len(b) < 4 {
		return fmt.Errorf("click models: stats of %d bytes", len(b))
	}
	ng := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	if len(b) != (2*ng+1)*sz {
		return fmt.Errorf("click models: stats of %d globals need %d bytes, have %d", ng, (2*ng+1)*sz, len(b))
	}
	s.Num, s.Den = make([]ExactSum, ng), make([]ExactSum, ng)
	for j := 0; j < ng; j++ {
		if err := s.Num[j].UnmarshalBinary(b[(2*j)*sz : (2*j+1)*sz]); err != nil {
			return err
		}
		if err := s.Den[j].UnmarshalBinary(b[(2*j+1)*sz : (2*j+2)*sz]); err != nil {
			return err
		}
	}
	return s.LL.UnmarshalBinary(b[2*ng*sz:])
}

// ShardModel is a shard's fitted model with the log position of the first
// SERP of each of its queries (PreparedShard.QueryFirst), which orders the
// queries of all shards as in the whole log.
type ShardModel struct {
	Model      *Model
	QueryFirst []int64
}

// WriteModelFiles writes <MODEL>_relevance.tsv and the parameter file
// (ParamsAuto) to outDir for the shards' models merged in log order (the
// files Run writes for the same fit). All parts must be of one kind and
// fit.
func WriteModelFiles(outDir string, parts []ShardModel) error {
	return WriteModelFilesAs(outDir, parts, ParamsAuto)
}

// FinishReports fills every report's PerplexityGain over the others.
func FinishReports(reports []Report) {
	for i := range reports {
		reports[i].PerplexityGain = map[string]float64{}
		for j := range reports {
			if i != j {
				reports[i].PerplexityGain[reports[j].Model] = Gain(reports[i].Perplexity, reports[j].Perplexity)
			}
		}
	}
}

// WriteMetrics writes outDir/metrics.json as Run does.
func WriteMetrics(outDir string, reports []Report) error {
	return atomicfile.WriteFile(filepath.Join(outDir, "metrics.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(reports)
	})
}
