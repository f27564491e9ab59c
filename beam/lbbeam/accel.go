package lbbeam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lovbench/lovbench/clickmodels"
)

// EM accelerated by SQUAREM (FitOptions.Accelerate, lovbench fit
// --accelerate; clickmodels' fitLoopAccel is the reference, and this is
// the same loop cut into pipeline steps): every step makes one pass over
// each shard's records, the E-step and pair M-step from some values and
// the training log-likelihood of those values (ShardFit.EStepLL), and the
// next step, once it has summed every shard's statistics, decides what
// the pass means (clickmodels.SquaremNext): the tolerance's stop, the safeguard's
// undoing of an extrapolation, one more EM iteration, or, after the
// second plain step of a cycle, SQUAREM's extrapolation from the cycle's
// three iterates x0, x1 = M(x0), x2 = M(x1). Its step length needs the
// norms of r and v over every value of every shard: each shard sends its
// pairs' share of them as exact sums (clickmodels.SquaremSums) with its
// statistics, and every shard adds the globals' share alike, so every
// shard computes the same length, and the lengths, the iterates and the
// outputs are lovbench fit --accelerate's bits.
//
// A model's message is joinSegs of the clickmodels.SquaremState the step ran with (encodeAccel), the
// shard's statistics (none once EM has stopped), and the shard's pair
// shares of the norms' squares (after a cycle's second pass). A model's
// segment of a shard's state is joinSegs of the hashes naming the values
// now on the shard and the cycle's iterates x0, x1 and x2 (accelRefs),
// and of the hashes the step before named (whose files the next step
// removes unless they are named still).

// encodeAccel encodes the state a step ran with (clickmodels.SquaremState)
// for its message.
func encodeAccel(s clickmodels.SquaremState) []byte {
	b := binary.AppendUvarint(nil, uint64(s.Done))
	b = binary.AppendUvarint(b, uint64(s.Phase))
	if s.Stop {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, x := range []float64{s.PrevLL, s.RefLL, s.LL0} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return joinSegs([][]byte{b, encodeFloats(s.Global), encodeFloats(s.G[0]), encodeFloats(s.G[1]), encodeFloats(s.G[2])})
}

func decodeAccel(b []byte) (clickmodels.SquaremState, error) {
	var s clickmodels.SquaremState
	segs, err := splitSegs(b, 5)
	if err != nil {
		return s, err
	}
	h := segs[0]
	done, w1 := binary.Uvarint(h)
	if w1 <= 0 {
		return s, fmt.Errorf("lbbeam: accelerated EM state of %d bytes", len(b))
	}
	phase, w2 := binary.Uvarint(h[w1:])
	if w2 <= 0 || len(h) != w1+w2+1+24 || phase > 1 || h[w1+w2] > 1 {
		return s, fmt.Errorf("lbbeam: accelerated EM state of %d bytes", len(b))
	}
	h = h[w1+w2:]
	s.Done, s.Phase, s.Stop = int(done), int(phase), h[0] == 1
	s.PrevLL = math.Float64frombits(binary.LittleEndian.Uint64(h[1:]))
	s.RefLL = math.Float64frombits(binary.LittleEndian.Uint64(h[9:]))
	s.LL0 = math.Float64frombits(binary.LittleEndian.Uint64(h[17:]))
	if s.Global, err = decodeFloats(segs[1]); err != nil {
		return s, err
	}
	for j := range s.G {
		if s.G[j], err = decodeFloats(segs[2+j]); err != nil {
			return s, err
		}
	}
	return s, nil
}

// accelPasses is the most passes accelerated EM makes for at most iters
// iterations: every pass is kept (at most iters), undone by the safeguard
// (at most one per extrapolation, which follows a cycle's two kept
// passes: iters/2), or the one that finds convergence.
func accelPasses(iters int) int { return iters + iters/2 + 1 }

// accelResolve reads one model's segment of every shard's message of the
// previous step: the state it ran with (nil before the first step) and
// its pass summed over the shards.
func accelResolve(k clickmodels.Kind, R int, serps int64, msgs [][]byte) (*clickmodels.SquaremState, *clickmodels.SquaremPass, error) {
	var (
		head  []byte
		total *clickmodels.Stats
		res   clickmodels.SquaremPass
	)
	for _, b := range msgs {
		if len(b) == 0 {
			continue // the initial state
		}
		segs, err := splitSegs(b, 4)
		if err != nil {
			return nil, nil, err
		}
		if head == nil {
			head = slices.Clone(segs[0])
		} else if !bytes.Equal(head, segs[0]) {
			return nil, nil, errors.New("lbbeam: the shards' EM states differ")
		}
		if len(segs[1]) > 0 {
			var st clickmodels.Stats
			if err := st.UnmarshalBinary(segs[1]); err != nil {
				return nil, nil, err
			}
			total = addStats(total, &st)
		}
		for i, s := range []*clickmodels.ExactSum{&res.RR, &res.VV} {
			if len(segs[2+i]) == 0 {
				continue
			}
			var x clickmodels.ExactSum
			if err := x.UnmarshalBinary(segs[2+i]); err != nil {
				return nil, nil, err
			}
			s.Merge(&x)
		}
	}
	if head == nil {
		return nil, nil, nil
	}
	st, err := decodeAccel(head)
	if err != nil {
		return nil, nil, err
	}
	if !st.Stop {
		if total == nil {
			return nil, nil, errors.New("lbbeam: an accelerated EM step without statistics")
		}
		res.LL = total.LL.Float64() / float64(serps)
		res.Global = clickmodels.MStepGlobals(k, total)
	}
	return &st, &res, nil
}

// accelRefs are the hashes a model's segment of a shard's state names (an
// empty one: the initial values): the values the last pass left (Stop:
// the final ones), x0, x1, x2.
type accelRefs [4][]byte

// decodeRefs reads a model's segment of a shard's state after a step that
// ran with st: the hashes it names and those the step before named. After
// a cycle's second pass the values it left are x2.
func decodeRefs(seg []byte, st *clickmodels.SquaremState) (refs accelRefs, prev accelRefs, err error) {
	segs, err := splitSegs(seg, 5)
	if err != nil {
		return refs, prev, err
	}
	copy(refs[:], segs[:4])
	ps, err := splitSegs(segs[4], 4)
	if err != nil {
		return refs, prev, err
	}
	copy(prev[:], ps)
	if !st.Stop && st.Phase == 1 {
		refs[3] = refs[0]
	}
	for _, h := range append(refs[:], prev[:]...) {
		if len(h) != 0 && len(h) != sha256.Size {
			return refs, prev, fmt.Errorf("lbbeam: values hash of %d bytes", len(h))
		}
	}
	return refs, prev, nil
}

func encodeRefs(refs, prev accelRefs) []byte {
	return joinSegs(append(refs[:], joinSegs(prev[:])))
}

// extraHash names SQUAREM's extrapolation with step length a from the
// values x0, x1, x2 named h0, h1, h2 (a function of them and a alone).
func extraHash(h0, h1, h2 []byte, a float64) []byte {
	h := sha256.New()
	h.Write([]byte("squarem"))
	for _, x := range [][]byte{h0, h1, h2} {
		h.Write(binary.AppendUvarint(nil, uint64(len(x))))
		h.Write(x)
	}
	h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(a)))
	return h.Sum(nil)
}

// accelStep is step It of accelerated EM for model k on one shard: it
// decides what the previous step's pass means (clickmodels.SquaremNext) and, unless EM
// has stopped, makes the next pass. It returns the model's segments of
// the shard's new state and of its message.
func (f *stepFn) accelStep(ctx context.Context, opened **openedShard, shard int, digest []byte, m int, seg []byte, msgs [][]byte) ([]byte, []byte, error) {
	k := clickmodels.Kind(f.Kinds[m])
	prev, res, err := accelResolve(k, f.R, f.SERPs, msgs)
	if err != nil {
		return nil, nil, err
	}
	var refs, old accelRefs
	if prev != nil {
		if refs, old, err = decodeRefs(seg, prev); err != nil {
			return nil, nil, err
		}
	}
	act := clickmodels.SquaremNext(prev, res, clickmodels.InitialGlobals(k, f.R, variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}.options()), f.Iters[m], f.Tolerance)
	if act.State.Stop {
		// No pass: the final values are named first.
		out := accelRefs{refs[act.From]}
		if act.From == clickmodels.FromCur {
			out = refs
		}
		if err := f.removeUnnamed(ctx, shard, k, old, refs, out); err != nil {
			return nil, nil, err
		}
		return encodeRefs(out, refs), joinSegs([][]byte{encodeAccel(act.State)}), nil
	}
	v := variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}
	if *opened == nil {
		e, err := openShards.get(ctx, PreparedPath(f.Dir, shard), digest)
		if err != nil {
			return nil, nil, err
		}
		*opened = e
	}
	e := *opened
	path := func(h []byte) string {
		if len(h) == 0 {
			return ""
		}
		return valuesPath(f.Dir, shard, k, h)
	}
	// The values the pass starts from, and what names them.
	out := refs
	var from []byte
	switch act.From {
	case clickmodels.FromX0: // the first pass
		out = accelRefs{}
	case clickmodels.FromCur: // a cycle's second pass, from x1 = M(x0)
		from = refs[0]
		out[2], out[3] = from, nil
	case clickmodels.FromX2: // a plain EM step from x2
		from = refs[3]
		out = accelRefs{nil, from}
	case clickmodels.FromExtrapolation:
		x := make([][]float64, 3)
		for j := range x {
			b, err := e.pairsAt(ctx, k, v, refs[1+j], path(refs[1+j]))
			if err != nil {
				return nil, nil, fmt.Errorf("shard %d: %w", shard, err)
			}
			x[j] = floatsOf(b)
		}
		xe := make([]float64, len(x[0]))
		clickmodels.Extrapolate(xe, x[0], x[1], x[2], act.Step)
		from = extraHash(refs[1], refs[2], refs[3], act.Step)
		if err := e.storeValues(ctx, k, v, from, valuesPath(f.Dir, shard, k, from), encodeFloats(xe)); err != nil {
			return nil, nil, err
		}
		out = accelRefs{nil, from, nil, refs[3]} // x2 for the safeguard
	}
	if act.From != clickmodels.FromCur {
		out[1] = from
	}
	sf, err := e.valuesAt(ctx, k, v, from, path(from))
	if err != nil {
		return nil, nil, fmt.Errorf("shard %d: %w", shard, err)
	}
	sf.SetGlobal(act.State.Global)
	var x0, x1 []float64
	if act.State.Phase == 1 {
		b, err := e.pairsAt(ctx, k, v, out[1], path(out[1]))
		if err != nil {
			return nil, nil, fmt.Errorf("shard %d: %w", shard, err)
		}
		x0, x1 = floatsOf(b), floatsOf(sf.MarshalPairs())
	}
	st := clickmodels.NewStatsFor(k, e.p.Data.Ranks(), v.options())
	sf.EStepLL(ctx, st)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	stats, err := st.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	next := valuesHash(from, digest, k, v, act.State.Global)
	vals := sf.MarshalPairs()
	if err := e.storeValues(ctx, k, v, next, valuesPath(f.Dir, shard, k, next), vals); err != nil {
		return nil, nil, err
	}
	e.at[fitKey{k, v}] = next
	out[0] = next
	msg := [][]byte{encodeAccel(act.State), stats}
	if act.State.Phase == 1 {
		// The pairs' shares of the cycle's norms (x2 = the values now).
		var rr, vv clickmodels.ExactSum
		clickmodels.SquaremSums(&rr, &vv, x0, x1, floatsOf(vals))
		rb, err := rr.MarshalBinary()
		if err != nil {
			return nil, nil, err
		}
		vb, err := vv.MarshalBinary()
		if err != nil {
			return nil, nil, err
		}
		msg = append(msg, rb, vb)
	}
	e.keepValues(k, v, out)
	if err := f.removeUnnamed(ctx, shard, k, old, refs, out); err != nil {
		return nil, nil, err
	}
	return encodeRefs(out, refs), joinSegs(msg), nil
}

// removeUnnamed removes the values files the step before named (old) that
// neither that step's state (in) nor this one's (out) names: no step reads
// them again (a retried step reads in's).
func (f *stepFn) removeUnnamed(ctx context.Context, shard int, k clickmodels.Kind, old, in, out accelRefs) error {
	for _, h := range old {
		if len(h) == 0 || slices.ContainsFunc(append(in[:], out[:]...), func(x []byte) bool { return bytes.Equal(x, h) }) {
			continue
		}
		if err := removeIfExists(ctx, valuesPath(f.Dir, shard, k, h)); err != nil {
			return err
		}
	}
	return nil
}

// accelFinal is the finish of an accelerated model: the final state (from
// the last step's messages) and the hash of the final values on the shard.
func accelFinal(k clickmodels.Kind, R int, v variant, serps int64, iters int, tol float64, seg []byte, msgs [][]byte) (clickmodels.SquaremState, []byte, error) {
	prev, res, err := accelResolve(k, R, serps, msgs)
	if err != nil {
		return clickmodels.SquaremState{}, nil, err
	}
	if prev == nil {
		return clickmodels.SquaremState{}, nil, errors.New("lbbeam: accelerated EM finished before its first step")
	}
	refs, _, err := decodeRefs(seg, prev)
	if err != nil {
		return clickmodels.SquaremState{}, nil, err
	}
	act := clickmodels.SquaremNext(prev, res, clickmodels.InitialGlobals(k, R, v.options()), iters, tol)
	if !act.State.Stop {
		return clickmodels.SquaremState{}, nil, fmt.Errorf("lbbeam: accelerated EM of %v has not stopped after %d passes", k, accelPasses(iters))
	}
	return act.State, refs[act.From], nil
}

// floatsOf decodes little-endian float64s (MarshalPairs' encoding).
func floatsOf(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// pairsAt returns the encoded pair values (ShardFit.MarshalPairs) of kind
// after the EM history h on e's shard: kept by this worker (storeValues),
// the initial ones (h empty), or read from the values file at path.
func (e *openedShard) pairsAt(ctx context.Context, k clickmodels.Kind, v variant, h []byte, path string) ([]byte, error) {
	key := fitKey{k, v}
	if b, ok := e.vals[key][string(h)]; ok {
		return b, nil
	}
	if len(h) == 0 {
		attr, sat := e.fit(ctx, k, v).PairValues()
		b := make([]byte, 0, 8*(len(attr)+len(sat)))
		for range len(attr) + len(sat) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(clickmodels.Unseen))
		}
		return b, nil
	}
	return readFile(ctx, path)
}

// storeValues writes the encoded pair values b after history h to their
// values file at path and keeps them for pairsAt.
func (e *openedShard) storeValues(ctx context.Context, k clickmodels.Kind, v variant, h []byte, path string, b []byte) error {
	if err := writeBytes(ctx, path, b); err != nil {
		return err
	}
	key := fitKey{k, v}
	if e.vals == nil {
		e.vals = map[fitKey]map[string][]byte{}
	}
	if e.vals[key] == nil {
		e.vals[key] = map[string][]byte{}
	}
	if _, ok := e.vals[key][string(h)]; !ok {
		e.vals[key][string(h)] = b
		e.size += int64(len(b))
	}
	return nil
}

// keepValues drops the values pairsAt keeps for kind but refs does not
// name.
func (e *openedShard) keepValues(k clickmodels.Kind, v variant, refs accelRefs) {
	m := e.vals[fitKey{k, v}]
	for h, b := range m {
		if !slices.ContainsFunc(refs[:], func(x []byte) bool { return string(x) == h }) {
			delete(m, h)
			e.size -= int64(len(b))
		}
	}
}
