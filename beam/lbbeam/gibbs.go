package lbbeam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamstate "github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lovbench/lovbench/clickmodels"
)

func init() {
	register.DoFn8x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func([]byte), error](&gibbsFn{})
	register.DoFn4x1[context.Context, []byte, func(*[]byte) bool, func([]byte), error](&gibbsReduceFn{})
	register.DoFn6x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func([]byte), error](&gibbsGatherFn{})
	register.DoFn4x1[context.Context, []byte, func(*[]byte) bool, func([]byte), error](&gibbsSubsetFn{})
	register.DoFn6x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func(int, []byte), error](&gibbsAttachFn{})
}

// buildGibbs adds the Gibbs sampler of fin's model (lovbench fit
// --intervals-from gibbs; clickmodels.GibbsShards) to scope s after its
// EM: one stage per pass of the sampler over the shards (its start, one
// per sweep, its finish: 132 with clickmodels.GibbsIntervals), as the EM
// iterations are stages, each but the last followed by a stage of one
// element that ends the pass,
//
//	(shard, EM state + chain ref) --pass p, side inputs: the EM messages, the round of pass p--> (shard, EM state + chain ref) + message
//	impulse --end of pass p, side input: every shard's message of pass p--> the round of pass p+1
//
// from the shards' states after the model's last EM step (state) and
// that step's messages (msgs), and returns the states after the last
// pass, whose chains are finished (the relevance's Betas), for fin. A
// shard's message is the sampler's round it ran with (the cells' priors,
// GibbsShards.MarshalRound, the same on every shard) and its histograms
// of the cells' complete-data counts (GibbsHists; none where the pass
// collects none). The end of a pass sums the histograms of all shards,
// which are whole and fixed-point sums, so in any order, ends the pass
// (GibbsShards.Reduce: the cells' priors) once, and hands the round that
// leaves to every shard's next pass, which runs its own share of it
// (GibbsShards.Pass). (Until 2026-11-29 every shard ended the previous
// pass itself: the same round, but the priors fitted once per shard,
// which with 16 shards was most of the sampler's CPU.) The chain
// (clickmodels.GibbsChain) does not travel with the state, as the EM pair
// values do not: the state names it by the hash of the passes it is
// after (chainHash), the worker keeps it decoded in its cache entry of
// the shard (cache.go), and each pass writes it to a chain file in the
// prepared-shard directory (chainPath), which a worker reads only if its
// cache does not hold the chain the state names. (Until 2026-11-29 the
// chain's encoding travelled in the element, 30-60 MB a pass at 1 M
// SERPs, encoded, moved and decoded by the runner every pass.) The
// logic is clickmodels', which outofcore.RunShards runs the same way,
// so the relevance's Betas are lovbench fit's bits.
func buildGibbs(s beam.Scope, fin *finishFn, state, msgs beam.PCollection) (beam.PCollection, error) {
	gs, err := fin.gibbsShards()
	if err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("gibbs")
	if gs.Subset() {
		return buildGibbsSubset(s, fin, state, msgs), nil
	}
	round := beam.Create(s, []byte{})
	for p := range gs.Passes() {
		var m beam.PCollection
		state, m = beam.ParDo2(s, &gibbsFn{Fin: *fin, Pass: p, Keyed: keyedState()}, state,
			beam.SideInput{Input: msgs}, beam.SideInput{Input: round})
		if p+1 < gs.Passes() {
			round = beam.ParDo(s, &gibbsReduceFn{Fin: *fin, Pass: p}, beam.Impulse(s), beam.SideInput{Input: m})
		}
	}
	return state, nil
}

// gibbsFn is pass Pass of the Gibbs sampler of Fin's model on one shard.
type gibbsFn struct {
	Fin   finishFn // the model, the shards, how its final fit is opened
	Pass  int
	Keyed beamstate.Value[bool] // never used: see keyedState
}

func (f *gibbsFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, state []byte, msgs, rounds func(*[]byte) bool, emitState func(int, []byte), emitMsg func([]byte)) error {
	fin := &f.Fin
	gs, err := fin.gibbsShards()
	if err != nil {
		return err
	}
	emState, round := state, []byte(nil)
	var cur, old []byte // the chain's hashes (splitChainState)
	if f.Pass > 0 {
		if emState, cur, old, err = splitChainState(state); err != nil {
			return fmt.Errorf("shard %d: %w", shard, err)
		}
		if !rounds(&round) {
			return fmt.Errorf("lbbeam: no round for Gibbs pass %d", f.Pass)
		}
		if err := gs.UnmarshalRound(round); err != nil {
			return err
		}
	}
	var opened *openedShard
	sf, em, err := fin.finalFit(ctx, &opened, shard, emState, msgs)
	if err != nil {
		return err
	}
	key := fin.key()
	var c *clickmodels.GibbsChain
	if f.Pass > 0 {
		if c, err = opened.chainAt(ctx, key, cur, chainPath(fin.Dir, shard, key.kind, cur)); err != nil {
			return fmt.Errorf("shard %d: %w", shard, err)
		}
	} else {
		cur = fin.chainStart(emState, em)
	}
	c, h, err := gs.Pass(ctx, f.Pass, sf, c)
	if err != nil {
		return err
	}
	next := chainHash(cur, f.Pass, round)
	if err := opened.keepChain(ctx, key, next, chainPath(fin.Dir, shard, key.kind, next), c); err != nil {
		return err
	}
	if len(old) > 0 {
		// The chain before the last pass's: no pass reads it again (a
		// retried pass reads cur).
		if err := removeIfExists(ctx, chainPath(fin.Dir, shard, key.kind, old)); err != nil {
			return err
		}
	}
	if f.Pass == 0 {
		cur = nil // the start has no chain file
	}
	nextRound, err := gs.MarshalRound()
	if err != nil {
		return err
	}
	var hb []byte
	if h != nil {
		if hb, err = h.MarshalBinary(); err != nil {
			return err
		}
	}
	// The fit's values are the EM's, unchanged by the sampler: the next
	// pass finds them in the cache, with the chain.
	openShards.put(opened, fin.Cache)
	emitMsg(joinSegs([][]byte{nextRound, hb}))
	emitState(shard, joinSegs([][]byte{emState, joinSegs([][]byte{next, cur})}))
	return nil
}

// Between the sampler's passes a shard's state is joinSegs of the
// model's EM state (as after its last EM step) and the chain's
// reference: joinSegs of the hash naming the chain after the last pass
// (chainHash) and that of the chain before it, whose chain file the next
// pass removes (none after pass 0).

// splitChainState splits a shard's state between two passes into its EM
// state and its chain's hashes.
func splitChainState(state []byte) (em, cur, old []byte, err error) {
	parts, err := splitSegs(state, 2)
	if err != nil {
		return nil, nil, nil, err
	}
	ref, err := splitSegs(parts[1], 2)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(ref[0]) != sha256.Size || (len(ref[1]) != 0 && len(ref[1]) != sha256.Size) {
		return nil, nil, nil, fmt.Errorf("lbbeam: a Gibbs chain named by hashes of %d and %d bytes", len(ref[0]), len(ref[1]))
	}
	return parts[0], ref[0], ref[1], nil
}

// chainStart names what the sampler starts from on a shard: its state
// after the model's last EM step (the prepared shard's digest and the
// hashes of every model's pair values), the final EM globals em.Global
// (which pass 0 reads beside the pair values), the model, the options
// of its intervals and the whole log's training SERPs (with the
// subset's SERPs, they fix IntervalsGibbsSubset's rate). The
// chain after pass 0 is a function of these and of the sampler's
// setting, which they fix (clickmodels.GibbsIntervals for Intervals
// gibbs, GibbsSubsetIntervals for gibbs-subset).
func (f *finishFn) chainStart(state []byte, em emState) []byte {
	h := sha256.New()
	h.Write([]byte("gibbs"))
	h.Write(binary.AppendUvarint(nil, uint64(len(state))))
	h.Write(state)
	o := f.options()
	h.Write([]byte{byte(f.Kinds[f.Model])})
	h.Write(encodeFloats([]float64{o.Level}))
	h.Write([]byte(o.Intervals))
	h.Write(encodeFloats(em.Global))
	h.Write(binary.AppendVarint(nil, f.SERPs))
	h.Write(encodeFloats([]float64{o.SubsetSERPs}))
	return h.Sum(nil)
}

// chainHash names the chain after pass p run on the chain named prev
// (pass 0: the start, chainStart) under round, the round the pass ran
// with (GibbsShards.MarshalRound; empty in pass 0): a function of these
// alone, so a chain file named by it can only hold that chain.
func chainHash(prev []byte, p int, round []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(binary.AppendUvarint(nil, uint64(p)))
	h.Write(round)
	return h.Sum(nil)
}

// chainPath is the chain file of shard i's model k named h in dir.
func chainPath(dir string, i int, k clickmodels.Kind, h []byte) string {
	return scratchPath(dir, "chain", i, k, h)
}

// keptChain is a Gibbs chain in a cache entry: the chain named at and
// the buffer its last encoding went through (reused by the next).
type keptChain struct {
	at   []byte
	c    *clickmodels.GibbsChain
	buf  []byte
	size int64 // what the entry's size counts of it
}

// key is the cache key of the model's fit (fitKey).
func (f *finishFn) key() fitKey {
	return fitKey{clickmodels.Kind(f.Kinds[f.Model]), variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}}
}

// chainAt returns the chain of model key named h on e's shard: the one
// e keeps if it is that one, else the one decoded from the chain file at
// path, which the pass that ran it wrote. The chain is e's no longer
// until keepChain gives it back (a pass changes it in place).
func (e *openedShard) chainAt(ctx context.Context, key fitKey, h []byte, path string) (*clickmodels.GibbsChain, error) {
	kc := e.keptChain(key)
	if bytes.Equal(kc.at, h) {
		kc.at = nil
		return kc.c, nil
	}
	kc.at = nil
	if kc.c == nil {
		kc.c = &clickmodels.GibbsChain{}
	}
	b, err := readFile(ctx, path)
	if err != nil {
		return nil, err
	}
	// Into the kept chain's arrays: it is not the one asked for.
	if err := kc.c.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return kc.c, nil
}

// keepChain writes the chain c of model key, named h, to its chain file
// at path and keeps it in e for chainAt.
func (e *openedShard) keepChain(ctx context.Context, key fitKey, h []byte, path string, c *clickmodels.GibbsChain) error {
	kc := e.keptChain(key)
	kc.at = nil
	b, err := c.AppendBinary(kc.buf[:0])
	if err != nil {
		return err
	}
	kc.buf = b
	if err := writeScratch(ctx, path, b); err != nil {
		return err
	}
	e.size -= kc.size
	kc.at, kc.c, kc.size = h, c, c.Size()+int64(cap(b))
	e.size += kc.size
	return nil
}

// gibbsReduceFn ends pass Pass of the Gibbs sampler of Fin's model with
// every shard's message of it and emits the round of the next pass.
type gibbsReduceFn struct {
	Fin  finishFn
	Pass int
}

func (f *gibbsReduceFn) ProcessElement(_ context.Context, _ []byte, msgs func(*[]byte) bool, emit func([]byte)) error {
	gs, err := f.Fin.gibbsShards()
	if err != nil {
		return err
	}
	if err := reduceGibbs(gs, f.Pass, msgs); err != nil {
		return err
	}
	round, err := gs.MarshalRound()
	if err != nil {
		return err
	}
	emit(round)
	return nil
}

// reduceGibbs ends pass p of gs with every shard's message of it
// (rounds): the round they ran with, which must be one, and their
// histograms summed (GibbsHists.MergeBinary: exact, in any order).
func reduceGibbs(gs *clickmodels.GibbsShards, p int, rounds func(*[]byte) bool) error {
	var (
		head  []byte
		total *clickmodels.GibbsHists
		b     []byte
		n     int
	)
	for rounds(&b) {
		parts, err := splitSegs(b, 2)
		if err != nil {
			return err
		}
		if n == 0 {
			head = bytes.Clone(parts[0])
		} else if !bytes.Equal(head, parts[0]) {
			return errors.New("lbbeam: the shards' Gibbs rounds differ")
		}
		n++
		if len(parts[1]) > 0 {
			var err error
			if total == nil {
				total, err = clickmodels.UnmarshalGibbsHists(parts[1])
			} else {
				err = total.MergeBinary(parts[1])
			}
			if err != nil {
				return err
			}
		}
		b = nil // a fresh slice for the next message
	}
	if n == 0 {
		return fmt.Errorf("lbbeam: no shard's message of Gibbs pass %d", p)
	}
	if err := gs.UnmarshalRound(head); err != nil {
		return err
	}
	return gs.Reduce(p, total)
}

// keptChain returns e's kept chain of model key, made empty if e has
// none.
func (e *openedShard) keptChain(key fitKey) *keptChain {
	kc := e.chains[key]
	if kc == nil {
		kc = &keptChain{}
		if e.chains == nil {
			e.chains = map[fitKey]*keptChain{}
		}
		e.chains[key] = kc
	}
	return kc
}

// dropChain drops e's kept chain of model key (the finish has read it).
func (e *openedShard) dropChain(key fitKey) {
	if kc := e.chains[key]; kc != nil {
		e.size -= kc.size
		delete(e.chains, key)
	}
}

// buildGibbsSubset adds the Gibbs sampler of fin's model on a subset of
// the queries (lovbench fit --intervals-from gibbs-subset;
// clickmodels.GibbsShards.Subset) to scope s after its EM, in three
// stages instead of one per pass over the shards:
//
//	(shard, EM state) --gather, side input: the EM messages--> the shard's part of the subset
//	impulse --the sampler, side input: every shard's part--> every shard's result
//	(shard, EM state) --attach, side input: the results--> (shard, EM state + its result)
//
// Each shard hands over its subset's records, pairs and fitted values
// once (GibbsShards.Gather), the sampler runs on them all in one element
// (GibbsShards.RunParts: its chains hold the subset alone, in memory, and
// no chain file is written), and each shard's finish takes its pairs'
// Betas from its result. The logic is clickmodels', which
// outofcore.RunShards runs the same way, so the relevance's Betas are
// lovbench fit's bits.
func buildGibbsSubset(s beam.Scope, fin *finishFn, state, msgs beam.PCollection) beam.PCollection {
	parts := beam.ParDo(s, &gibbsGatherFn{Fin: *fin, Keyed: keyedState()}, state, beam.SideInput{Input: msgs})
	results := beam.ParDo(s, &gibbsSubsetFn{Fin: *fin}, beam.Impulse(s), beam.SideInput{Input: parts})
	return beam.ParDo(s, &gibbsAttachFn{Shards: fin.Shards, Keyed: keyedState()}, state, beam.SideInput{Input: results})
}

// gibbsGatherFn emits one shard's part of the sampler's subset of Fin's
// model: the shard's index (uvarint) and its clickmodels.GibbsPart.
type gibbsGatherFn struct {
	Fin   finishFn
	Keyed beamstate.Value[bool] // never used: see keyedState
}

func (f *gibbsGatherFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, state []byte, msgs func(*[]byte) bool, emit func([]byte)) error {
	fin := &f.Fin
	gs, err := fin.gibbsShards()
	if err != nil {
		return err
	}
	var opened *openedShard
	sf, _, err := fin.finalFit(ctx, &opened, shard, state, msgs)
	if err != nil {
		return err
	}
	part, err := gs.Gather(sf)
	if err != nil {
		return fmt.Errorf("shard %d: %w", shard, err)
	}
	b, err := part.MarshalBinary()
	if err != nil {
		return err
	}
	openShards.put(opened, fin.Cache)
	emit(joinSegs([][]byte{binary.AppendUvarint(nil, uint64(shard)), b}))
	return nil
}

// gibbsSubsetFn runs the sampler on every shard's part of the subset
// (gibbsGatherFn) and emits the shards' results (GibbsPartResult), in
// shard order, as one element (joinSegs).
type gibbsSubsetFn struct{ Fin finishFn }

func (f *gibbsSubsetFn) ProcessElement(ctx context.Context, _ []byte, parts func(*[]byte) bool, emit func([]byte)) error {
	gs, err := f.Fin.gibbsShards()
	if err != nil {
		return err
	}
	n := f.Fin.Shards
	all := make([]*clickmodels.GibbsPart, n)
	var b []byte
	for parts(&b) {
		segs, err := splitSegs(b, 2)
		if err != nil {
			return err
		}
		k, w := binary.Uvarint(segs[0])
		if w != len(segs[0]) || k >= uint64(n) || all[k] != nil {
			return fmt.Errorf("lbbeam: a Gibbs subset's part of shard %d of %d, or twice", k, n)
		}
		if all[k], err = clickmodels.UnmarshalGibbsPart(segs[1]); err != nil {
			return fmt.Errorf("shard %d: %w", k, err)
		}
		b = nil // a fresh slice for the next part
	}
	for k, p := range all {
		if p == nil {
			return fmt.Errorf("lbbeam: no Gibbs subset's part of shard %d", k)
		}
	}
	res, err := gs.RunParts(ctx, all)
	if err != nil {
		return err
	}
	out := make([][]byte, n)
	for k, r := range res {
		if out[k], err = r.MarshalBinary(); err != nil {
			return err
		}
	}
	emit(joinSegs(out))
	return nil
}

// gibbsAttachFn appends to a shard's EM state its result of the sampler
// on the subset (gibbsSubsetFn's element), for the finish.
type gibbsAttachFn struct {
	Shards int
	Keyed  beamstate.Value[bool] // never used: see keyedState
}

func (f *gibbsAttachFn) ProcessElement(_ context.Context, _ beamstate.Provider, shard int, state []byte, results func(*[]byte) bool, emit func(int, []byte)) error {
	var b []byte
	if !results(&b) {
		return errors.New("lbbeam: no result of the Gibbs sampler on the subset")
	}
	segs, err := splitSegs(b, f.Shards)
	if err != nil {
		return err
	}
	if shard < 0 || shard >= f.Shards {
		return fmt.Errorf("lbbeam: shard %d of %d", shard, f.Shards)
	}
	emit(shard, joinSegs([][]byte{state, segs[shard]}))
	return nil
}
