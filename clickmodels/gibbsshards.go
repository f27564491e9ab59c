package clickmodels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// GibbsShards is the Gibbs sampler (gibbs.go) of one model's fit over
// query shards, for outofcore.RunShards: every shard's chain (GibbsChain)
// on its own pairs, the cells' priors shared, refitted to the complete-data
// counts of all shards. The records' and pairs' streams are keyed by
// their names (gibbsKeys) and the cells' histograms are exact sums, so
// its relevance Betas are the same bits as the sampler's on the whole
// log in one piece (Fit), for any number of shards and workers.
type GibbsShards struct {
	s     gibbsSampler
	store GibbsStore
	level float64
}

// NewGibbsShards returns the sampler of a fit of kind with opt over n
// query shards whose chains store holds between passes (nil: in
// memory); nil if that fit runs none (Options.UsesGibbs, DBN and SDBN
// only). The measurement setting GibbsSetting.FromDraws is refused on
// more than one shard: its moments of the draws are float sums in pair
// order, which a split of the pairs would change.
func NewGibbsShards(kind Kind, opt Options, n int, store GibbsStore) (*GibbsShards, error) {
	if !opt.UsesGibbs() || (kind != DBN && kind != SDBN) {
		return nil, nil
	}
	g := opt.gibbsSetting()
	if g.FromDraws && n > 1 {
		return nil, fmt.Errorf("click models: the Gibbs sampler's cells fitted to the draws (GibbsSetting.FromDraws) are defined on one shard, not on %d", n)
	}
	return &GibbsShards{s: gibbsSampler{g: g, chains: make([]*GibbsChain, n)}, store: store, level: opt.IntervalLevel()}, nil
}

// Run runs the sampler on the fitted shards that each passes to fn, in
// shard order with their index (every pass yields every shard; a fit may
// be rebuilt between passes from the shard's training data, its
// dictionaries needed in the first pass only, and its pair values in the
// first pass only, as FitShards left them).
func (gs *GibbsShards) Run(ctx context.Context, each func(fn func(k int, s *ShardFit) error) error) error {
	return gs.s.run(ctx, func(fn func(int, *fitter) error) error {
		return each(func(k int, s *ShardFit) error { return fn(k, s.f) })
	}, func(_ int, f *fitter) *Evidence { return f.evidence(ctx, gs.level) }, gs.store)
}

// FinalModel is s.FinalModel for shard k after Run: the evidence pass's
// Evidence with the relevance Betas of shard k's chain.
func (gs *GibbsShards) FinalModel(ctx context.Context, s *ShardFit, k, iterations int, opt Options) (*Model, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	c := gs.s.chains[k]
	if gs.store != nil {
		var err error
		if c, err = gs.store.Get(k); err != nil {
			return nil, err
		}
	}
	if c == nil || c.relA == nil {
		return nil, fmt.Errorf("click models: shard %d has no finished Gibbs chain (GibbsShards.Run)", k)
	}
	m := s.f.model(iterations)
	ev := s.f.evidence(ctx, gs.level)
	if ev != nil {
		g := gs.s.g
		ev.Gibbs = &g
		c.result(ev)
	}
	m.Evidence = ev
	return m, ctx.Err()
}

// Size estimates the bytes c holds.
func (c *GibbsChain) Size() int64 {
	n := 2*len(c.cellA) + len(c.read) + 8*(len(c.pairKey)+len(c.recKey)+len(c.a)+len(c.s)+len(c.m1)+len(c.l1)+
		len(c.cnt.aK)+len(c.cnt.aN)+len(c.cnt.sK)+len(c.cnt.sN)+len(c.relA)+len(c.relB)+len(c.relMean))
	return int64(n)
}

// MarshalBinary encodes c: its byte arrays (cells, reads), its keys and
// its floats (little-endian), each after its length (uvarint); the
// complete-data counts only while a sweep's draws have not read them
// (the next sweep's walks recount them from 0).
func (c *GibbsChain) MarshalBinary() ([]byte, error) { return c.AppendBinary(nil) }

// AppendBinary is MarshalBinary appending to b (encoding.BinaryAppender).
func (c *GibbsChain) AppendBinary(b []byte) ([]byte, error) {
	b = slices.Grow(b, int(c.Size())+64)
	for _, v := range [][]uint8{c.cellA, c.cellS, c.read} {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	for _, v := range [][]uint64{c.pairKey, c.recKey} {
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
	}
	for i, v := range c.floats() {
		if !c.cntLive && isCount(i) {
			b = binary.AppendUvarint(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(*v)))
		for _, x := range *v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b, nil
}

// floats lists c's float arrays, in MarshalBinary's order: the counts
// are the ones isCount marks.
func (c *GibbsChain) floats() []*[]float64 {
	return []*[]float64{&c.a, &c.s, &c.cnt.aK, &c.cnt.aN, &c.cnt.sK, &c.cnt.sN, &c.m1, &c.l1, &c.relA, &c.relB, &c.relMean}
}

// isCount reports whether floats()[i] is one of the complete-data counts.
func isCount(i int) bool { return i >= 2 && i < 6 }

// UnmarshalGibbsChain decodes what MarshalBinary encoded.
func UnmarshalGibbsChain(b []byte) (*GibbsChain, error) {
	c := &GibbsChain{}
	return c, c.UnmarshalBinary(b)
}

// UnmarshalBinary decodes what MarshalBinary encoded into c, reusing its
// arrays where they are large enough (a chain of another shard, done
// with): every value is the encoded one, and counts left out are zeros.
func (c *GibbsChain) UnmarshalBinary(b []byte) error {
	size := len(b)
	bad := func() error { return fmt.Errorf("click models: a Gibbs chain of %d bytes is truncated", size) }
	length := func(w int) (int, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k)/uint64(w) {
			return 0, false
		}
		b = b[k:]
		return int(n), true
	}
	for _, v := range []*[]uint8{&c.cellA, &c.cellS, &c.read} {
		n, ok := length(1)
		if !ok {
			return bad()
		}
		*v = append((*v)[:0], b[:n]...)
		if n == 0 {
			*v = nil
		}
		b = b[n:]
	}
	for _, v := range []*[]uint64{&c.pairKey, &c.recKey} {
		n, ok := length(8)
		if !ok {
			return bad()
		}
		*v = resized(*v, n)
		for i := range *v {
			(*v)[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		b = b[8*n:]
	}
	np := len(c.cellA)
	live := false
	for i, v := range c.floats() {
		n, ok := length(8)
		if !ok {
			return bad()
		}
		*v = resized(*v, n)
		for j := range *v {
			(*v)[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
		}
		b = b[8*n:]
		if isCount(i) {
			live = live || n > 0
			if n == 0 && np > 0 {
				// Left out after the sweep's draws: zeros, which the
				// next walks write over.
				*v = resized(*v, np)
				clear(*v)
			}
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("click models: a Gibbs chain with %d bytes left over", len(b))
	}
	c.cntLive = live
	return nil
}

// resized is v with length n, its array reused if large enough (its
// values then not cleared); nil for n 0.
func resized[T any](v []T, n int) []T {
	if n == 0 {
		return nil
	}
	if cap(v) >= n {
		return v[:n]
	}
	return make([]T, n)
}
