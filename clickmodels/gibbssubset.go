package clickmodels

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// The sampler on a subset of the queries (GibbsSetting.Subset,
// IntervalsGibbsSubset) over query shards, gathered: the subset is whole
// queries, so after EM each shard hands over its subset's records, pairs
// and fitted values (Gather: a GibbsPart, once), the parts of every
// shard are put together into one Data (RunParts), the restricted
// sampler of one shard in memory (fitter.gibbs) runs there, and each
// shard's final model takes the Betas of its subset's pairs back
// (FinalModel). The chains hold the subset's pairs and records alone,
// and no pass of the sampler visits a shard, so out of core
// (outofcore.RunShards) and in lovbench-beam the sampler costs what its
// subset costs, where the passes over the shards (GibbsShards.Pass)
// read and rewrote every shard's chain, which holds every pair of its
// shard, 132 times (docs/clickmodels.md, "The sampler on a subset of
// queries").
//
// The bits are those of the sampler on the whole log with the other
// queries held (GibbsChain.hold's readOut), which Fit runs in memory:
// a pair's evidence, satisfaction counts, walks and draws depend on its
// own records alone, in their order, which gathering keeps (a query's
// records and pairs stay in the order of its shard, and a query lies in
// one shard); its streams are keyed by names and contents (gibbsKeys),
// not indexes; the cells' histograms are exact sums. On the gathered
// Data every pair is in the subset, so the sampler runs there with
// GibbsSetting.Subset 0: the pairs held are those held by their
// impressions, as in the subset of the whole log, and no other pair
// enters a fit, as none outside the subset does there.

// GibbsSubsetBytesPerSERP is the memory the sampler on a subset of the
// queries holds per training SERP of its subset at its peak: the parts
// gathered from the shards (GibbsPart: records, pairs, names, fitted
// values), the one Data RunParts joins them into (emptying the parts as
// it goes) and the sampler's evidence and chain there. Measured with
// the heap's objects sampled every 0.2 ms around Gather and RunParts
// (the collector at 5 percent) on simulated DBN logs of 400,000 SERPs,
// the subset from about 80,000 SERPs to the whole log: 339 bytes per
// SERP more over 400,000 queries (1.7 of the subset's pairs per SERP),
// 182 over 40,000 queries (0.9); the first rounded up (docs/scale.md,
// "The gathered subset under --memory-limit"). It grows with the
// subset's pairs (some 213 bytes each) and records (42): a log with more
// than about 1.5 distinct pairs per training SERP costs more. The
// sampler's fixed cost, its cells' histograms (6.5 MB each pass,
// whatever the log's size), is not in it: the sampler on the whole log
// (IntervalsGibbs) has it too.
const GibbsSubsetBytesPerSERP = 352

// GibbsSubsetBytesPerPair and GibbsSubsetBytesPerRecord split the same
// peak over the subset's distinct pairs and its records (weighted
// SERPs): fitted to the two logs' increments of GibbsSubsetBytesPerSERP
// (476,668 pairs and 145,490 records took 107.7 MB more, 248,460 and
// 131,910 took 58.5 MB), 213 and 42 bytes, rounded up. GibbsSubsetBytes
// counts a prepared shard's share of the subset at them.
const (
	GibbsSubsetBytesPerPair   = 224
	GibbsSubsetBytesPerRecord = 48
)

// gibbsSubsetRate is the rate of the sampler's subset of queries in
// c's fit of a log of trainSERPs training SERPs (Options.ResolveIntervals),
// 0 when the fit runs no sampler on a subset (no DBN or SDBN, intervals
// other than gibbs-subset, a loaded model).
func (c RunConfig) gibbsSubsetRate(trainSERPs int64) float64 {
	if c.LoadDir != "" || !slices.ContainsFunc(c.Kinds, func(k Kind) bool { return k == DBN || k == SDBN }) {
		return 0
	}
	o := c.Options.ResolveIntervals(trainSERPs)
	g := o.gibbsSetting()
	if o.NoIntervals || g.Sweeps == 0 || g.Subset <= 0 {
		return 0
	}
	return g.SubsetRate
}

// GibbsSubsetTrainSERPs returns about how many training SERPs the
// sampler's subset of queries holds in c's fit of a log of trainSERPs
// training SERPs (its size resolved as Options.ResolveIntervals does,
// at most the log's): 0 when the fit runs no sampler on a subset.
func (c RunConfig) GibbsSubsetTrainSERPs(trainSERPs int64) float64 {
	return c.gibbsSubsetRate(trainSERPs) * float64(trainSERPs)
}

// GibbsSubsetBytes returns about what the sampler on the subset of
// queries of c's fit (of a log of trainSERPs training SERPs) holds for
// the prepared shard d at its peak: d's records and distinct pairs of
// the subset's queries, at GibbsSubsetBytesPerRecord and
// GibbsSubsetBytesPerPair; 0 when the fit runs no sampler on a subset.
// Summed over the shards once they are prepared, before EM, it sizes
// the subset by what it holds, where GibbsSubsetTrainSERPs sizes it by
// its SERPs alone.
func (c RunConfig) GibbsSubsetBytes(d *Data, trainSERPs int64) int64 {
	r := c.gibbsSubsetRate(trainSERPs)
	if r == 0 {
		return 0
	}
	out := d.outsideSubset(r)
	pairs := int64(len(out) - countTrue(out))
	var recs int64
	for i := range d.recClicks {
		if d.recInSubset(i, out) {
			recs++
		}
	}
	return pairs*GibbsSubsetBytesPerPair + recs*GibbsSubsetBytesPerRecord
}

// recInSubset reports whether record i of d is in the subset whose
// pairs outside it out marks (Data.outsideSubset): a query is in the
// subset whole, so a record is when its first pair is; a record that
// shows no pair is not.
func (d *Data) recInSubset(i int, out []bool) bool {
	lo, hi := d.recOff[i], d.recOff[i+1]
	return hi > lo && !out[d.recPair[lo]]
}

// GibbsPart is one shard's share of the sampler's subset (Gather): the
// records of its queries in the subset, in shard order, with their
// pairs (in shard order), names and fitted values, the EM's global
// values and the shard's chunks restricted to them.
type GibbsPart struct {
	ranks              int
	exact              bool
	global             []float64
	queries, docs      []string
	pairQuery, pairDoc []int32 // indexes into queries and docs
	attr, sat          []float64
	recOff             []int64
	recPair            []int32
	recClicks          []uint64
	recWeight          []float64
	chunks             [][4]int // records [0, 1), pairs [2, 3) of the part
}

// Pairs is the number of the part's pairs (its queries' in the subset).
func (p *GibbsPart) Pairs() int { return len(p.pairQuery) }

// Records is the number of the part's records.
func (p *GibbsPart) Records() int { return len(p.recClicks) }

// Subset reports whether gs runs on a subset of the queries
// (GibbsSetting.Subset): then the engines gather it (Gather, RunParts)
// instead of running the passes over the shards.
func (gs *GibbsShards) Subset() bool { return gs.s.g.Subset > 0 }

// subsetSetting is the sampler's setting on the gathered subset, where
// every pair is in it: gs's without the subset.
func (gs *GibbsShards) subsetSetting() GibbsSetting {
	g := gs.s.g
	g.Subset, g.SubsetRate = 0, 0
	return g
}

// Gather returns the share of the sampler's subset of shard s after EM
// (its fitted values): the records and pairs of its queries in the
// subset, their names and values.
func (gs *GibbsShards) Gather(s *ShardFit) (*GibbsPart, error) {
	if !gs.Subset() {
		return nil, errors.New("click models: Gibbs sampler without a subset to gather (GibbsSetting.Subset)")
	}
	f := s.f
	if f.kind != gs.kind {
		return nil, fmt.Errorf("click models: a %v fit gathered for the %v sampler", f.kind, gs.kind)
	}
	d := f.d
	out := f.outsideSubset(gs.s.g)
	np := d.Pairs()
	// newIdx[p]: pair p's index in the part, -1 outside the subset.
	newIdx := make([]int32, np)
	part := &GibbsPart{ranks: d.ranks, exact: f.exact, global: slices.Clone(f.global), recOff: []int64{0}}
	qIdx := map[int32]int32{}
	dIdx := map[int32]int32{}
	qs, ds := d.log.Queries.Names, d.log.Docs.Names
	for p := range np {
		if out[p] {
			newIdx[p] = -1
			continue
		}
		newIdx[p] = int32(len(part.pairQuery))
		q, ok := qIdx[d.pairQuery[p]]
		if !ok {
			q = int32(len(part.queries))
			qIdx[d.pairQuery[p]] = q
			part.queries = append(part.queries, qs[d.pairQuery[p]])
		}
		doc, ok := dIdx[d.pairDoc[p]]
		if !ok {
			doc = int32(len(part.docs))
			dIdx[d.pairDoc[p]] = doc
			part.docs = append(part.docs, ds[d.pairDoc[p]])
		}
		part.pairQuery, part.pairDoc = append(part.pairQuery, q), append(part.pairDoc, doc)
		part.attr, part.sat = append(part.attr, f.attr[p]), append(part.sat, f.sat[p])
	}
	// The shard's chunks tile its records and pairs (Prepare); a
	// chunk's records in the subset show its pairs in the subset only
	// (a query is in it whole), which are a run of the part's pairs.
	phi := 0 // the part's pairs of the chunks before
	for _, ch := range d.chunks {
		lo, plo := len(part.recClicks), phi
		for i := ch.recLo; i < ch.recHi; i++ {
			if !d.recInSubset(i, out) {
				continue
			}
			for _, p := range d.recPair[d.recOff[i]:d.recOff[i+1]] {
				part.recPair = append(part.recPair, newIdx[p])
			}
			part.recOff = append(part.recOff, int64(len(part.recPair)))
			part.recClicks = append(part.recClicks, d.recClicks[i])
			part.recWeight = append(part.recWeight, d.recWeight[i])
		}
		for p := ch.pairLo; p < ch.pairHi; p++ {
			if newIdx[p] >= 0 {
				if int(newIdx[p]) != phi {
					return nil, fmt.Errorf("click models: the shard's chunks do not tile its pairs (pair %d in chunk [%d, %d))", p, ch.pairLo, ch.pairHi)
				}
				phi++
			}
		}
		if len(part.recClicks) > lo || phi > plo {
			part.chunks = append(part.chunks, [4]int{lo, len(part.recClicks), plo, phi})
		}
	}
	if n := len(part.chunks); (n == 0 && part.Pairs() > 0) || (n > 0 && part.chunks[n-1][3] != part.Pairs()) {
		return nil, errors.New("click models: the shard's chunks do not cover its pairs")
	}
	return part, nil
}

// gathered puts the parts (every shard's, in shard order) together into
// one Data, a chunk closed at the next boundary of a shard's chunk once
// it holds chunkRanks ranks (the chunks only share out the work), and
// returns the fitter of gs's model on it, with the pairs' values, and
// the pairs each part gave (part k's are [firstPair[k],
// firstPair[k+1])). It empties each part once it is copied, so that the
// subset is not held twice while the sampler runs
// (GibbsSubsetBytesPerSERP); a failure leaves the parts as they were.
func (gs *GibbsShards) gathered(parts []*GibbsPart) (f *fitter, firstPair []int, err error) {
	if len(parts) == 0 {
		return nil, nil, errors.New("click models: no shard's part of the Gibbs subset")
	}
	p0 := parts[0]
	for k, p := range parts {
		if p.ranks != p0.ranks || p.exact != p0.exact || !slices.Equal(p.global, p0.global) {
			return nil, nil, fmt.Errorf("click models: the Gibbs subset's part %d is of another fit than part 0", k)
		}
	}
	// The arrays at their final sizes: appending would hold up to twice
	// them while they grow.
	var nq, nd, np, nr, nrp int
	for _, p := range parts {
		nq, nd, np, nr, nrp = nq+len(p.queries), nd+len(p.docs), np+p.Pairs(), nr+p.Records(), nrp+len(p.recPair)
	}
	log := &sessions.Log{}
	log.Queries.Names, log.Docs.Names = make([]string, 0, nq), make([]string, 0, nd)
	d := &Data{log: log, ranks: p0.ranks, recOff: make([]int64, 1, nr+1), pairQuery: make([]int32, 0, np), pairDoc: make([]int32, 0, np),
		recPair: make([]int32, 0, nrp), recClicks: make([]uint64, 0, nr), recWeight: make([]float64, 0, nr)}
	attr, sat := make([]float64, 0, np), make([]float64, 0, np)
	global := p0.global
	cur := chunk{}
	ranks := 0
	firstPair = make([]int, len(parts)+1)
	for k, p := range parts {
		q0, doc0, pair0, rec0 := int32(len(log.Queries.Names)), int32(len(log.Docs.Names)), int32(d.Pairs()), len(d.recClicks)
		firstPair[k] = int(pair0)
		log.Queries.Names = append(log.Queries.Names, p.queries...)
		log.Docs.Names = append(log.Docs.Names, p.docs...)
		for i := range p.pairQuery {
			d.pairQuery = append(d.pairQuery, q0+p.pairQuery[i])
			d.pairDoc = append(d.pairDoc, doc0+p.pairDoc[i])
		}
		attr, sat = append(attr, p.attr...), append(sat, p.sat...)
		base := d.recOff[len(d.recOff)-1]
		for _, o := range p.recOff[1:] {
			d.recOff = append(d.recOff, base+o)
		}
		for _, x := range p.recPair {
			d.recPair = append(d.recPair, pair0+x)
		}
		d.recClicks = append(d.recClicks, p.recClicks...)
		d.recWeight = append(d.recWeight, p.recWeight...)
		for _, ch := range p.chunks {
			if ranks >= chunkRanks {
				cur.recHi, cur.pairHi = rec0+ch[0], int(pair0)+ch[2]
				d.chunks = append(d.chunks, cur)
				cur = chunk{recLo: cur.recHi, pairLo: cur.pairHi}
				ranks = 0
			}
			ranks += int(p.recOff[ch[1]] - p.recOff[ch[0]])
		}
		*p = GibbsPart{ranks: p.ranks, exact: p.exact, global: p.global}
	}
	firstPair[len(parts)] = d.Pairs()
	if cur.recHi, cur.pairHi = len(d.recClicks), d.Pairs(); cur.recHi > cur.recLo || cur.pairHi > cur.pairLo {
		d.chunks = append(d.chunks, cur)
	}
	for _, w := range d.recWeight {
		d.serps += int(w)
	}
	f = &fitter{d: d, kind: gs.kind, R: d.ranks, exact: p0.exact, global: global, attr: attr, sat: sat,
		ng: len(global), ngModel: gs.kind.GlobalParams(d.ranks), workers: gs.workers}
	return f, firstPair, nil
}

// GibbsPartResult is what the sampler on the gathered subset gives one
// shard: the relevance's Betas (and with GibbsSetting.Mean its means) of
// its part's pairs, in their order (0: held by its impressions).
type GibbsPartResult struct {
	relA, relB, relMean []float64
}

// RunParts runs the sampler on the subset that parts (every shard's
// Gather, in shard order) hold, in memory, and keeps each shard's
// result for FinalModel; it returns them, in the order of parts. It
// empties the parts (gathered): their records and pairs are then the
// sampler's.
func (gs *GibbsShards) RunParts(ctx context.Context, parts []*GibbsPart) ([]*GibbsPartResult, error) {
	if !gs.Subset() || len(parts) != len(gs.results) {
		return nil, fmt.Errorf("click models: %d parts of the Gibbs subset for %d shards (subset: %t)", len(parts), len(gs.results), gs.Subset())
	}
	f, first, err := gs.gathered(parts)
	if err != nil {
		return nil, err
	}
	ev := f.evidence(ctx, gs.level)
	if ev == nil {
		return nil, noEvidence(ctx, gs.kind)
	}
	f.gibbs(ctx, ev, gs.subsetSetting())
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := make([]*GibbsPartResult, len(parts))
	for k := range parts {
		lo, hi := first[k], first[k+1]
		r := &GibbsPartResult{relA: ev.RelAlpha[lo:hi], relB: ev.RelBeta[lo:hi]}
		if ev.RelMean != nil {
			r.relMean = ev.RelMean[lo:hi]
		}
		res[k], gs.results[k] = r, r
	}
	return res, nil
}

// gibbsGathered is fitter.gibbs on the subset of setting g gathered out
// of f (Gather, RunParts), f's pairs in it then taking their Betas from
// the result (subsetResult): the in-memory fit's path, the one the
// engines over query shards take with one shard. A failure other than
// ctx's is a broken invariant of f's Data (Prepare's chunks).
func (f *fitter) gibbsGathered(ctx context.Context, ev *Evidence, g GibbsSetting) {
	gs := &GibbsShards{s: gibbsSampler{g: g}, level: ev.Level, kind: f.kind, workers: f.workers, results: make([]*GibbsPartResult, 1)}
	sf := &ShardFit{f: f, d: f.d}
	part, err := gs.Gather(sf)
	if err == nil {
		_, err = gs.RunParts(ctx, []*GibbsPart{part})
	}
	if err == nil {
		err = gs.subsetResult(sf, gs.results[0], ev)
	}
	if err != nil {
		if ctx.Err() != nil {
			return // the caller reports it
		}
		panic(err)
	}
	ev.Gibbs = &g
}

// SetPartResult gives gs shard k's result of the sampler on the gathered
// subset, run elsewhere (RunParts), for FinalModel.
func (gs *GibbsShards) SetPartResult(k int, r *GibbsPartResult) error {
	if k < 0 || k >= len(gs.results) {
		return fmt.Errorf("click models: no Gibbs subset's shard %d of %d", k, len(gs.results))
	}
	gs.results[k] = r
	return nil
}

// subsetResult sets ev's relevance Betas (and means) from shard s's
// result r: its pairs in the subset take r's in their order, the others
// none (their Betas are the counts' corrected by the transfer maps,
// gibbstransfer.go).
func (gs *GibbsShards) subsetResult(s *ShardFit, r *GibbsPartResult, ev *Evidence) error {
	out := s.f.outsideSubset(gs.s.g)
	np := len(out)
	ev.RelAlpha, ev.RelBeta = make([]float64, np), make([]float64, np)
	if gs.s.g.Mean {
		ev.RelMean = make([]float64, np)
	}
	j := 0
	for p := range out {
		if out[p] {
			continue
		}
		if j >= len(r.relA) {
			break
		}
		ev.RelAlpha[p], ev.RelBeta[p] = r.relA[j], r.relB[j]
		if ev.RelMean != nil && r.relMean != nil {
			ev.RelMean[p] = r.relMean[j]
		}
		j++
	}
	if n := np - countTrue(out); n != len(r.relA) {
		return fmt.Errorf("click models: the shard has %d pairs in the Gibbs subset, its result %d", n, len(r.relA))
	}
	return nil
}

func countTrue(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// partEnc appends a GibbsPart's or a result's fields: lengths as
// uvarints, numbers little-endian, names as a uvarint length and bytes.
type partEnc struct{ b []byte }

func (e *partEnc) uv(x uint64) { e.b = binary.AppendUvarint(e.b, x) }

func (e *partEnc) floats(v []float64) {
	e.uv(uint64(len(v)))
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
	}
}

func (e *partEnc) u64s(v []uint64) {
	e.uv(uint64(len(v)))
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint64(e.b, x)
	}
}

func (e *partEnc) i32s(v []int32) {
	e.uv(uint64(len(v)))
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(x))
	}
}

func (e *partEnc) names(v []string) {
	e.uv(uint64(len(v)))
	for _, s := range v {
		e.uv(uint64(len(s)))
		e.b = append(e.b, s...)
	}
}

// partDec reads what partEnc wrote; its first error sticks.
type partDec struct {
	b   []byte
	err error
}

func (d *partDec) uv() uint64 {
	x, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return x
}

func (d *partDec) fail() {
	if d.err == nil {
		d.err = errors.New("click models: a Gibbs subset's part or result is truncated")
	}
	d.b = nil
}

// n reads a length of items of w bytes each, at most what is left.
func (d *partDec) n(w int) int {
	n := d.uv()
	if n > uint64(len(d.b)/w) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *partDec) floats() []float64 {
	v := make([]float64, d.n(8))
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(d.b[8*i:]))
	}
	d.b = d.b[8*len(v):]
	return v
}

func (d *partDec) u64s() []uint64 {
	v := make([]uint64, d.n(8))
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(d.b[8*i:])
	}
	d.b = d.b[8*len(v):]
	return v
}

func (d *partDec) i32s() []int32 {
	v := make([]int32, d.n(4))
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*len(v):]
	return v
}

func (d *partDec) names() []string {
	v := make([]string, d.n(1))
	for i := range v {
		l := d.n(1)
		v[i] = string(d.b[:l])
		d.b = d.b[l:]
	}
	return v
}

// MarshalBinary encodes p: its ranks and estimator, the global values,
// the names, the pairs and their values, the records and the chunks.
func (p *GibbsPart) MarshalBinary() ([]byte, error) {
	e := &partEnc{}
	e.uv(uint64(p.ranks))
	if p.exact {
		e.uv(1)
	} else {
		e.uv(0)
	}
	e.floats(p.global)
	e.names(p.queries)
	e.names(p.docs)
	e.i32s(p.pairQuery)
	e.i32s(p.pairDoc)
	e.floats(p.attr)
	e.floats(p.sat)
	off := make([]uint64, len(p.recOff))
	for i, o := range p.recOff {
		off[i] = uint64(o)
	}
	e.u64s(off)
	e.i32s(p.recPair)
	e.u64s(p.recClicks)
	e.floats(p.recWeight)
	ch := make([]uint64, 0, 4*len(p.chunks))
	for _, c := range p.chunks {
		for _, x := range c {
			ch = append(ch, uint64(x))
		}
	}
	e.u64s(ch)
	return e.b, nil
}

// UnmarshalGibbsPart decodes what GibbsPart.MarshalBinary encoded,
// checking every index against the lengths.
func UnmarshalGibbsPart(b []byte) (*GibbsPart, error) {
	d := &partDec{b: b}
	p := &GibbsPart{ranks: int(d.uv()), exact: d.uv() == 1}
	p.global = d.floats()
	p.queries, p.docs = d.names(), d.names()
	p.pairQuery, p.pairDoc = d.i32s(), d.i32s()
	p.attr, p.sat = d.floats(), d.floats()
	off := d.u64s()
	p.recPair, p.recClicks, p.recWeight = d.i32s(), d.u64s(), d.floats()
	ch := d.u64s()
	if d.err != nil {
		return nil, d.err
	}
	bad := errors.New("click models: a Gibbs subset's part is malformed")
	np := len(p.pairQuery)
	if len(d.b) != 0 || p.ranks <= 0 || p.ranks > MaxSERP || len(p.pairDoc) != np || len(p.attr) != np || len(p.sat) != np ||
		len(off) != len(p.recClicks)+1 || len(p.recWeight) != len(p.recClicks) || len(ch)%4 != 0 {
		return nil, bad
	}
	p.recOff = make([]int64, len(off))
	for i, o := range off {
		if o > uint64(len(p.recPair)) || (i > 0 && (o < off[i-1] || o-off[i-1] > uint64(p.ranks))) || (i == 0 && o != 0) {
			return nil, bad
		}
		p.recOff[i] = int64(o)
	}
	if off[len(off)-1] != uint64(len(p.recPair)) {
		return nil, bad
	}
	for i := range np {
		if p.pairQuery[i] < 0 || int(p.pairQuery[i]) >= len(p.queries) || p.pairDoc[i] < 0 || int(p.pairDoc[i]) >= len(p.docs) {
			return nil, bad
		}
	}
	for _, x := range p.recPair {
		if x < 0 || int(x) >= np {
			return nil, bad
		}
	}
	rec, pair := 0, 0
	for i := 0; i < len(ch); i += 4 {
		c := [4]int{int(ch[i]), int(ch[i+1]), int(ch[i+2]), int(ch[i+3])}
		if c[0] != rec || c[1] < c[0] || c[1] > len(p.recClicks) || c[2] != pair || c[3] < c[2] || c[3] > np {
			return nil, bad
		}
		for _, x := range p.recPair[p.recOff[c[0]]:p.recOff[c[1]]] {
			if int(x) < c[2] || int(x) >= c[3] {
				return nil, bad
			}
		}
		rec, pair = c[1], c[3]
		p.chunks = append(p.chunks, c)
	}
	if rec != len(p.recClicks) || pair != np {
		return nil, bad
	}
	return p, nil
}

// MarshalBinary encodes r: its Betas and means, each a length and
// little-endian floats.
func (r *GibbsPartResult) MarshalBinary() ([]byte, error) {
	e := &partEnc{}
	e.floats(r.relA)
	e.floats(r.relB)
	e.floats(r.relMean)
	return e.b, nil
}

// UnmarshalGibbsPartResult decodes what GibbsPartResult.MarshalBinary
// encoded.
func UnmarshalGibbsPartResult(b []byte) (*GibbsPartResult, error) {
	d := &partDec{b: b}
	r := &GibbsPartResult{relA: d.floats(), relB: d.floats(), relMean: d.floats()}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 || len(r.relB) != len(r.relA) || (len(r.relMean) != 0 && len(r.relMean) != len(r.relA)) {
		return nil, errors.New("click models: a Gibbs subset's result is malformed")
	}
	if len(r.relMean) == 0 {
		r.relMean = nil
	}
	return r, nil
}
