package clickmodels

import (
	"context"
	"encoding/binary"
	"errors"
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
	// On a subset of the queries (Subset; gibbssubset.go): the model,
	// the workers of the sampler on the gathered subset, and each
	// shard's result of it.
	kind    Kind
	workers int
	results []*GibbsPartResult
}

// NewGibbsShards returns the sampler of a fit of kind with opt over n
// query shards whose chains store holds between passes (nil: in
// memory); nil if that fit runs none (Options.UsesGibbs, DBN and SDBN
// only). The measurement setting GibbsSetting.FromDraws is refused on
// more than one shard: its moments of the draws are float sums in pair
// order, which a split of the pairs would change.
func NewGibbsShards(kind Kind, opt Options, n int, store GibbsStore) (*GibbsShards, error) {
	if opt.Intervals == IntervalsAuto {
		return nil, opt.check()
	}
	if !opt.UsesGibbs() || (kind != DBN && kind != SDBN) {
		return nil, nil
	}
	g := opt.gibbsSetting()
	if g.FromDraws && n > 1 {
		return nil, fmt.Errorf("click models: the Gibbs sampler's cells fitted to the draws (GibbsSetting.FromDraws) are defined on one shard, not on %d", n)
	}
	if g.Subset > 0 && g.SubsetRate == 0 && n > 1 {
		return nil, fmt.Errorf("click models: the Gibbs sampler's subset over %d shards needs its rate resolved from the whole log's training SERPs (Options.ResolveIntervals)", n)
	}
	if store == nil {
		store = make(memChains, n)
	}
	return &GibbsShards{s: gibbsSampler{g: g}, store: store, level: opt.IntervalLevel(), kind: kind, workers: opt.workers(), results: make([]*GibbsPartResult, n)}, nil
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
// Evidence with the relevance Betas of shard k's chain; on a subset
// (Subset), after RunParts or SetPartResult, those of shard k's result.
func (gs *GibbsShards) FinalModel(ctx context.Context, s *ShardFit, k, iterations int, opt Options) (*Model, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	// set gives an Evidence shard k's relevance Betas.
	var set func(ev *Evidence) error
	if gs.Subset() {
		if k < 0 || k >= len(gs.results) || gs.results[k] == nil {
			return nil, fmt.Errorf("click models: shard %d has no result of the Gibbs sampler on the subset (GibbsShards.RunParts)", k)
		}
		r := gs.results[k]
		set = func(ev *Evidence) error { return gs.subsetResult(s, r, ev) }
	} else {
		c, err := gs.store.Get(k)
		if err != nil {
			return nil, err
		}
		if c == nil || c.relA == nil {
			return nil, fmt.Errorf("click models: shard %d has no finished Gibbs chain (GibbsShards.Run)", k)
		}
		set = func(ev *Evidence) error { c.result(ev); return nil }
	}
	m := s.f.model(iterations)
	ev := s.f.evidence(ctx, gs.level)
	if ev != nil {
		g := gs.s.g
		ev.Gibbs = &g
		if err := set(ev); err != nil {
			return nil, err
		}
	}
	m.Evidence = ev
	return m, ctx.Err()
}

// A sampler run by stages (a pipeline's, lbbeam's): Passes passes, in
// each of which every shard runs its share (Pass) independently of the
// others and emits its histograms; the histograms of all shards, summed
// (GibbsHists.Merge, exact: in any order), end the pass (Reduce), which
// every shard may do alike from the same round (MarshalRound). Run is
// the same passes on one machine.

// Passes is the number of passes over the shards a run makes: the start,
// one per sweep and the finish.
func (gs *GibbsShards) Passes() int { return gs.s.passes() }

// GibbsHists are one pass's histograms of the cells' complete-data
// counts, of one shard or summed over shards (nil: the pass collects
// none).
type GibbsHists struct{ h *gibbsHists }

// Pass runs pass p on shard s with its chain c (nil in pass 0, which
// starts it from s's fitted values and intervals' evidence) under the
// round the previous pass's Reduce left, and returns the chain and the
// shard's histograms (nil where the pass collects none). The
// measurement setting GibbsSetting.FromDraws is Run's only.
func (gs *GibbsShards) Pass(ctx context.Context, p int, s *ShardFit, c *GibbsChain) (*GibbsChain, *GibbsHists, error) {
	if gs.s.g.FromDraws {
		return nil, nil, errors.New("click models: the Gibbs sampler's cells fitted to the draws (GibbsSetting.FromDraws) run in memory only (GibbsShards.Run)")
	}
	if p < 0 || p >= gs.Passes() || (p > 0) != (c != nil) {
		return nil, nil, fmt.Errorf("click models: Gibbs pass %d of %d with a chain: %t", p, gs.Passes(), c != nil)
	}
	var ev *Evidence
	if p == 0 {
		if ev = s.f.evidence(ctx, gs.level); ev == nil {
			return nil, nil, noEvidence(ctx, s.f.kind)
		}
	}
	var h *gibbsHists
	if gs.s.collects(p) {
		h = newGibbsHists()
	}
	c = gs.s.pass(ctx, p, s.f, c, ev, h)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if h == nil {
		return c, nil, nil
	}
	return c, &GibbsHists{h}, nil
}

// Reduce ends pass p with h, the histograms of every shard's Pass p
// merged (nil where the pass collects none): the cells' priors of the
// next pass.
func (gs *GibbsShards) Reduce(p int, h *GibbsHists) error {
	if gs.s.collects(p) != (h != nil) {
		return fmt.Errorf("click models: Gibbs pass %d reduced with histograms: %t", p, h != nil)
	}
	var x *gibbsHists
	if h != nil {
		x = h.h
	}
	gs.s.reduce(p, x)
	return nil
}

// Merge adds o's histograms to h's (whole and fixed-point sums, and
// which cells hold pairs: the same in any order).
func (h *GibbsHists) Merge(o *GibbsHists) {
	for _, x := range []struct {
		to, from         [][exposureClasses]priorHist
		usedTo, usedFrom [][exposureClasses]bool
	}{{h.h.a, o.h.a, h.h.usedA, o.h.usedA}, {h.h.s, o.h.s, h.h.usedS, o.h.usedS}} {
		for b := range x.to {
			for e := range x.to[b] {
				if x.from[b][e].pairs != 0 { // else all its bins are 0
					x.to[b][e].merge(&x.from[b][e])
				}
				x.usedTo[b][e] = x.usedTo[b][e] || x.usedFrom[b][e]
			}
		}
	}
}

// MarshalBinary encodes h: per table (attractiveness, satisfaction) and
// cell holding pairs or marked used, the cell's index, its mark and its
// pair count, then its histogram's non-empty bins (index, pairs, and the
// fixed-point sums of K and N), all varints.
func (h *GibbsHists) MarshalBinary() ([]byte, error) {
	var b []byte
	for _, t := range []struct {
		by   [][exposureClasses]priorHist
		used [][exposureClasses]bool
	}{{h.h.a, h.h.usedA}, {h.h.s, h.h.usedS}} {
		var cells []int
		for i := range rankBuckets * exposureClasses {
			r, e := i/exposureClasses, i%exposureClasses
			if t.used[r][e] || t.by[r][e].pairs != 0 {
				cells = append(cells, i)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(cells)))
		for _, i := range cells {
			r, e := i/exposureClasses, i%exposureClasses
			x := &t.by[r][e]
			used := uint64(0)
			if t.used[r][e] {
				used = 1
			}
			b = binary.AppendUvarint(b, uint64(i)<<1|used)
			b = binary.AppendVarint(b, x.pairs)
			n := 0
			for j := range histN * histM {
				if x.cells[j/histM][j%histM] != 0 || x.sumK[j/histM][j%histM] != 0 || x.sumN[j/histM][j%histM] != 0 {
					n++
				}
			}
			b = binary.AppendUvarint(b, uint64(n))
			for j := range histN * histM {
				u, v := j/histM, j%histM
				if x.cells[u][v] != 0 || x.sumK[u][v] != 0 || x.sumN[u][v] != 0 {
					b = binary.AppendUvarint(b, uint64(j))
					b = binary.AppendVarint(b, x.cells[u][v])
					b = binary.AppendVarint(b, x.sumK[u][v])
					b = binary.AppendVarint(b, x.sumN[u][v])
				}
			}
		}
	}
	return b, nil
}

// UnmarshalGibbsHists decodes what GibbsHists.MarshalBinary encoded.
func UnmarshalGibbsHists(b []byte) (*GibbsHists, error) {
	h := &GibbsHists{newGibbsHists()}
	return h, h.MergeBinary(b)
}

// MergeBinary adds the histograms b encodes (MarshalBinary) to h's, as
// Merge does, without decoding them into histograms of their own (a
// table of every cell's is 6 MB, the encoding of the cells holding pairs
// a few KB).
func (h *GibbsHists) MergeBinary(b []byte) error {
	size := len(b)
	bad := fmt.Errorf("click models: Gibbs histograms of %d bytes are malformed", size)
	uv := func() (uint64, bool) {
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return x, true
	}
	sv := func() (int64, bool) { // binary.Varint's zig-zag decoding
		ux, ok := uv()
		return int64(ux>>1) ^ -int64(ux&1), ok
	}
	for _, t := range []struct {
		by   [][exposureClasses]priorHist
		used [][exposureClasses]bool
	}{{h.h.a, h.h.usedA}, {h.h.s, h.h.usedS}} {
		nc, ok := uv()
		if !ok || nc > rankBuckets*exposureClasses {
			return bad
		}
		for range nc {
			iu, ok1 := uv()
			pairs, ok2 := sv()
			nb, ok3 := uv()
			i := int(iu >> 1)
			if !ok1 || !ok2 || !ok3 || iu>>1 >= rankBuckets*exposureClasses || nb > histN*histM {
				return bad
			}
			r, e := i/exposureClasses, i%exposureClasses
			t.used[r][e] = t.used[r][e] || iu&1 == 1
			x := &t.by[r][e]
			x.pairs += pairs
			for range nb {
				j, ok1 := uv()
				c, ok2 := sv()
				k, ok3 := sv()
				n, ok4 := sv()
				if !ok1 || !ok2 || !ok3 || !ok4 || j >= histN*histM {
					return bad
				}
				u, v := j/histM, j%histM
				x.cells[u][v] += c
				x.sumK[u][v] += k
				x.sumN[u][v] += n
			}
		}
	}
	if len(b) != 0 {
		return bad
	}
	return nil
}

// MarshalRound encodes what the shards share between two passes, which
// Reduce sets: the cells' priors (attractiveness, satisfaction), where
// their last fits ended, and whether the last sweep's draws wait for its
// priors. UnmarshalRound restores it into a GibbsShards of the same
// fit, which then runs the next pass as the one that encoded it would.
func (gs *GibbsShards) MarshalRound() ([]byte, error) {
	r := &gs.s.gibbsRound
	if gs.s.g.FromDraws {
		return nil, errors.New("click models: the Gibbs sampler's cells fitted to the draws (GibbsSetting.FromDraws) run in memory only (GibbsShards.Run)")
	}
	b := []byte{0}
	if r.pending {
		b[0] = 1
	}
	f := func(x float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x)) }
	for _, t := range [][][exposureClasses]BetaPrior{r.pa, r.ps} {
		b = binary.AppendUvarint(b, uint64(len(t)))
		for _, row := range t {
			for _, q := range row {
				f(q.Alpha)
				f(q.Beta)
				b = binary.AppendVarint(b, q.Pairs)
			}
		}
	}
	for _, w := range []*priorWarm{&r.warmA, &r.warmS} {
		for _, st := range w.starts() {
			ok := byte(0)
			if st.ok {
				ok = 1
			}
			b = append(b, ok)
			f(st.mu)
			f(st.t)
		}
	}
	return b, nil
}

// UnmarshalRound restores what MarshalRound encoded.
func (gs *GibbsShards) UnmarshalRound(b []byte) error {
	size := len(b)
	bad := fmt.Errorf("click models: a Gibbs round of %d bytes is malformed", size)
	if len(b) < 1 || b[0] > 1 {
		return bad
	}
	var r gibbsRound
	r.pending, b = b[0] == 1, b[1:]
	fl := func() (float64, bool) {
		if len(b) < 8 {
			return 0, false
		}
		x := math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
		return x, true
	}
	for _, t := range []*[][exposureClasses]BetaPrior{&r.pa, &r.ps} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > rankBuckets {
			return bad
		}
		b = b[k:]
		if n > 0 {
			*t = make([][exposureClasses]BetaPrior, n)
		}
		for i := range *t {
			for e := range (*t)[i] {
				a, ok1 := fl()
				be, ok2 := fl()
				p, k := binary.Varint(b)
				if !ok1 || !ok2 || k <= 0 {
					return bad
				}
				b = b[k:]
				(*t)[i][e] = BetaPrior{Alpha: a, Beta: be, Pairs: p}
			}
		}
	}
	for _, w := range []*priorWarm{&r.warmA, &r.warmS} {
		for _, st := range w.starts() {
			if len(b) < 1 || b[0] > 1 {
				return bad
			}
			st.ok, b = b[0] == 1, b[1:]
			var ok1, ok2 bool
			st.mu, ok1 = fl()
			st.t, ok2 = fl()
			if !ok1 || !ok2 {
				return bad
			}
		}
	}
	if len(b) != 0 {
		return bad
	}
	gs.s.gibbsRound = r
	return nil
}

// SetChain gives gs shard k's chain, finished by a run elsewhere (the
// last pass of Pass), for FinalModel.
func (gs *GibbsShards) SetChain(k int, c *GibbsChain) error {
	m, ok := gs.store.(memChains)
	if !ok || k < 0 || k >= len(m) {
		return fmt.Errorf("click models: no in-memory Gibbs chain %d of %d", k, len(m))
	}
	m[k] = c
	return nil
}

// Size estimates the bytes c holds.
func (c *GibbsChain) Size() int64 {
	n := 2*len(c.cellA) + len(c.read) + len(c.recOn) + len(c.heldHist) + 8*(len(c.pairKey)+len(c.recKey)+len(c.a)+len(c.s)+len(c.m1)+len(c.l1)+
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
	for _, v := range [][]uint8{c.cellA, c.cellS, c.read, c.recOn, c.heldHist} {
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
	c.act = nil // derived from what is decoded (activeOf)
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
	for _, v := range []*[]uint8{&c.cellA, &c.cellS, &c.read, &c.recOn, &c.heldHist} {
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
