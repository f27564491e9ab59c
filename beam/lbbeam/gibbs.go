package lbbeam

import (
	"bytes"
	"context"
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
}

// buildGibbs adds the Gibbs sampler of fin's model (lovbench fit
// --intervals-from gibbs; clickmodels.GibbsShards) to scope s after its
// EM: one stage per pass of the sampler over the shards (its start, one
// per sweep, its finish: 132 with clickmodels.GibbsIntervals), as the EM
// iterations are stages, each but the last followed by a stage of one
// element that ends the pass,
//
//	(shard, EM state + chain) --pass p, side inputs: the EM messages, the round of pass p--> (shard, EM state + chain) + message
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
// (clickmodels.GibbsChain's encoding) travels with the state; the logic
// is clickmodels', which outofcore.RunShards runs the same way, so the
// relevance's Betas are lovbench fit's bits.
func buildGibbs(s beam.Scope, fin *finishFn, state, msgs beam.PCollection) (beam.PCollection, error) {
	gs, err := fin.gibbsShards()
	if err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("gibbs")
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
	emState, chain := state, []byte(nil)
	if f.Pass > 0 {
		// The EM state, then the chain.
		parts, err := splitSegs(state, 2)
		if err != nil {
			return err
		}
		emState, chain = parts[0], parts[1]
		var round []byte
		if !rounds(&round) {
			return fmt.Errorf("lbbeam: no round for Gibbs pass %d", f.Pass)
		}
		if err := gs.UnmarshalRound(round); err != nil {
			return err
		}
	}
	var opened *openedShard
	sf, _, err := fin.finalFit(ctx, &opened, shard, emState, msgs)
	if err != nil {
		return err
	}
	var c *clickmodels.GibbsChain
	if f.Pass > 0 {
		if c, err = clickmodels.UnmarshalGibbsChain(chain); err != nil {
			return fmt.Errorf("shard %d: %w", shard, err)
		}
	}
	c, h, err := gs.Pass(ctx, f.Pass, sf, c)
	if err != nil {
		return err
	}
	round, err := gs.MarshalRound()
	if err != nil {
		return err
	}
	var hb []byte
	if h != nil {
		if hb, err = h.MarshalBinary(); err != nil {
			return err
		}
	}
	cb, err := c.MarshalBinary()
	if err != nil {
		return err
	}
	// The fit's values are the EM's, unchanged by the sampler: the next
	// pass finds them in the cache.
	openShards.put(opened, fin.Cache)
	emitMsg(joinSegs([][]byte{round, hb}))
	emitState(shard, joinSegs([][]byte{emState, cb}))
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
