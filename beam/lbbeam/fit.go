package lbbeam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamstate "github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/sessions/split"
)

func init() {
	register.Function3x0(initState)
	register.Function1x2(selfKeyed)
	register.DoFn5x1[context.Context, beamstate.Provider, int, int, func(int, []byte), error](&prepareFn{})
	register.DoFn8x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func([]byte), error](&stepFn{})
	register.DoFn6x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func([]byte), error](&llFn{})
	register.DoFn6x1[context.Context, beamstate.Provider, int, []byte, func(*[]byte) bool, func(ShardFinal), error](&finishFn{})
	register.Emitter1[ShardFinal]()
	register.Iter1[ShardFinal]()
	register.Iter1[[]byte]()
	register.DoFn6x1[context.Context, beamstate.Provider, int, int, func(*ShardFinal) bool, func([]byte), error](&writeModelFn{})
	register.DoFn5x1[context.Context, beamstate.Provider, int, int, func(*[]byte) bool, error](&writeMetricsFn{})
	register.Emitter1[[]byte]()
	register.Emitter2[int, []byte]()
}

// FitOptions configure the EM pipeline.
type FitOptions struct {
	// ShardDir is a shard directory (lovbench shard, or BuildShard). It,
	// OutDir and PrepDir are local paths or URLs of a registered Beam
	// file system (gs://, s3://).
	ShardDir string
	// Kinds are the models to fit: DCTR, UBM, DBN, SDBN, DCM, CCM and PSCM.
	Kinds []clickmodels.Kind
	// Iterations of EM (0: PyClick's 50); Exact selects DBN's exact
	// E-step (clickmodels.Options.Exact), PSCMAuthors PSCM as the
	// authors' code (clickmodels.Options.PSCMAuthors, lovbench fit
	// --pscm-authors).
	Iterations  int
	Exact       bool
	PSCMAuthors bool
	// EmpiricalPrior is clickmodels.Options.EmpiricalPrior (with Exact):
	// the empirical-Bayes prior of the attractiveness, whose per-rank
	// means ride with the globals.
	EmpiricalPrior bool
	// Tolerance > 0 stops EM once the training log-likelihood changes by
	// less than Tolerance between two iterations, as lovbench fit
	// --tolerance (clickmodels.Options.Tolerance): the iterations after
	// convergence pass the values through unchanged.
	Tolerance float64
	// Accelerate, with a Tolerance, accelerates EM by SQUAREM (accel.go),
	// as lovbench fit --accelerate (clickmodels.Options.Accelerate): the
	// same iterates, stopping rule and outputs.
	Accelerate bool
	// Level is the level of the relevance file's intervals, as lovbench
	// fit --interval (clickmodels.Options.Level: left 0, 90%), and
	// NoIntervals turns them off, as fit --no-intervals
	// (clickmodels.Options.NoIntervals); the intervals equal lovbench
	// fit's.
	Level       float64
	NoIntervals bool
	// Intervals is how DBN's and SDBN's intervals are computed, as
	// lovbench fit --intervals-from (clickmodels.Options.Intervals): with
	// IntervalsGibbs the Gibbs sampler runs after EM, one stage per pass
	// over the shards (gibbs.go), with IntervalsGibbsSubset on the subset
	// gathered from the shards (buildGibbsSubset), its rate resolved from
	// the manifest's training SERPs; the relevance files equal lovbench
	// fit's.
	Intervals clickmodels.IntervalMethod
	// SubsetSERPs is clickmodels.Options.SubsetSERPs: with Intervals
	// gibbs-subset, the training SERPs of the sampler's subset (0:
	// clickmodels.GibbsSubsetSERPs).
	SubsetSERPs float64
	// OutDir receives <MODEL>_relevance.tsv, the parameter file
	// (<MODEL>_params.json or .parquet) and metrics.json, as lovbench fit
	// writes them.
	OutDir string
	// PrepDir receives each shard prepared once, as a prepared-shard file
	// (outofcore.WritePreparedShardFile), which every EM iteration reads
	// back. It must be on a file system every worker sees (on a cluster,
	// a bucket); the caller removes it after the run (RemoveScratch;
	// lovbench-beam fit uses a new directory under OutDir).
	PrepDir string
	// ShardCache is the memory, in bytes, a worker process may keep
	// opened shards in between EM steps (cache.go): 0 means
	// DefaultShardCache, a negative value none (every step reads its
	// shard's file).
	ShardCache int64
}

// PreparedPath is the prepared-shard file of shard i in dir (a local
// path or a URL).
func PreparedPath(dir string, i int) string {
	return JoinPath(dir, fmt.Sprintf("shard-%05d.prep", i))
}

// writePrepared writes a prepared-shard file, local or a URL (writeFile),
// streamed by PreparedShard.WriteTo as lovbench writes it, and returns the
// file's SHA-256.
func writePrepared(ctx context.Context, path string, p *outofcore.PreparedShard) ([]byte, error) {
	h := sha256.New()
	err := writeFile(ctx, path, func(w io.Writer) error {
		_, err := p.WriteTo(io.MultiWriter(w, h))
		return err
	})
	return h.Sum(nil), err
}

// ReadPrepared reads a prepared-shard file, local or a URL, and checks it
// (outofcore.UnmarshalPreparedShard).
func ReadPrepared(ctx context.Context, path string) (*outofcore.PreparedShard, error) {
	if !IsRemote(path) {
		return outofcore.ReadPreparedShardFile(path)
	}
	b, err := readFile(ctx, path)
	if err != nil {
		return nil, err
	}
	p, err := outofcore.UnmarshalPreparedShard(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// BeamKinds are the models the Beam pipeline fits: the default models,
// PSCM, and SDBN, DCM and CCM, which the default estimator fits by EM with
// their exact E-steps (clickmodels.Kind.ExactEStep).
var BeamKinds = []clickmodels.Kind{clickmodels.DCTR, clickmodels.UBM, clickmodels.DBN, clickmodels.SDBN, clickmodels.DCM, clickmodels.CCM, clickmodels.PSCM}

// BuildFit adds the EM pipeline to scope s. First every shard is prepared
// once from its Parquet file into a prepared-shard file in o.PrepDir; then
// one stage per EM iteration fits every model at once:
//
//	(shard, state) --step, side input: every shard's message of the previous step--> (shard, new state) + message
//
// A shard's state is the digest of its prepared-shard file and, per
// model, the hash naming its pair values; a step's message is, per model, the EM state it ran
// with and the shard's global statistics. Each step first sums the
// previous step's statistics of all shards and computes each model's
// global values itself (the M-step, done by every shard alike), then runs
// each model's E-step and pair M-step. The M-step thus needs no stage of
// its own, and the models share their stages: a runner whose cost grows
// with the stages of the graph (Prism) does a fraction of the work. A
// model that has converged passes its values through the remaining steps
// unchanged; one that has run its iterations (DCTR: one counting pass) is
// finished from the state after its last step, and the steps after it
// carry nothing of it. With
// a tolerance, one more stage per iteration computes each shard's training
// log-likelihood under the values the step is about to use, and the step
// applies the tolerance test before its E-step.
//
// The iterations are unrolled into the pipeline graph. A step opens its
// shard from the prepared-shard file, through the worker's cache of opened
// shards (cache.go; o.ShardCache bytes, keyed by the file's SHA-256), so a
// worker that ran the shard's last step reuses the decoded shard, the
// models' factorised items and their pair values. The pair values do not
// travel through the pipeline (at 1 M SERPs, 12 MB per step): each step
// writes them to a values file named by the hash of their EM history, and
// the state names that hash; a worker whose cache does not hold the values
// after that history reads the file. The global statistics are exact sums
// (clickmodels.ExactSum), so their merge order, which Beam does not fix,
// cannot change a bit: every shard computes the same globals, and the
// outputs equal lovbench fit's on the same log.
func BuildFit(s beam.Scope, o FitOptions) error {
	m, err := ReadManifest(context.Background(), o.ShardDir)
	if err != nil {
		return err
	}
	if m.TrainSERPs == 0 {
		return fmt.Errorf("%s: no training SERPs", o.ShardDir)
	}
	if len(o.Kinds) == 0 {
		return errors.New("no model to fit")
	}
	for _, k := range o.Kinds {
		if !slices.Contains(BeamKinds, k) {
			return fmt.Errorf("the Beam pipeline fits DCTR, UBM, DBN, SDBN, DCM, CCM and PSCM, not %v (use lovbench fit)", k)
		}
	}
	if o.OutDir == "" {
		return errors.New("no output directory")
	}
	if o.PrepDir == "" {
		return errors.New("no directory for the prepared shards")
	}
	for _, d := range []string{o.OutDir, o.PrepDir} {
		if err := CheckPath(d); err != nil {
			return err
		}
	}
	iv := clickmodels.Options{Intervals: o.Intervals, Exact: o.Exact, NoIntervals: o.NoIntervals, SubsetSERPs: o.SubsetSERPs}
	if err := iv.CheckIntervals(); err != nil {
		return err
	}
	// IntervalsAuto, decided from the whole log's training SERPs as
	// lovbench fit decides it; the finish resolves the subset's rate
	// from the same (finishFn.options).
	iv = iv.ResolveIntervals(m.TrainSERPs)
	gibbs := iv.UsesGibbs()
	cache := o.ShardCache
	if cache == 0 {
		cache = DefaultShardCache
	}
	cache = max(cache, 0)
	R := max(clickmodels.DefaultRanks, m.MaxRanks)
	ids := make([]int, m.Shards)
	for i := range ids {
		ids[i] = i
	}
	kinds := make([]int, len(o.Kinds))
	steps := make([]int, len(o.Kinds)) // per model, the EM steps it runs
	iters := make([]int, len(o.Kinds)) // per model, its EM iterations
	accel := o.Accelerate && o.Tolerance > 0
	n, tol := 0, false
	for i, k := range o.Kinds {
		kinds[i], iters[i] = int(k), k.Iterations(o.Iterations, o.Exact)
		steps[i] = iters[i]
		if accel && k.EM(o.Exact) {
			// One pass a step, the log-likelihood's included.
			steps[i] = accelPasses(iters[i])
		} else {
			tol = tol || (o.Tolerance > 0 && k.EM(o.Exact))
		}
		n = max(n, steps[i])
	}
	s = s.Scope("lovbench.fit")
	one := beam.ParDo(s, selfKeyed, beam.Create(s, 0))
	// Every shard starts with no pair values (the initial ones), once its
	// prepared-shard file is written; the first step's message side input
	// is one empty message (the initial globals).
	prepared := beam.ParDo(s, &prepareFn{ShardDir: o.ShardDir, PrepDir: o.PrepDir, R: R, Cache: cache, Keyed: keyedState()},
		beam.ParDo(s, selfKeyed, beam.CreateList(s, ids)))
	state := beam.ParDo(s, initState, prepared)
	empty := beam.Create(s, []byte{})
	msgs := empty
	// after[i]: the states and messages after step i.
	afterState, afterMsgs := make([]beam.PCollection, n), make([]beam.PCollection, n)
	for it := 0; it < n; it++ {
		lls := empty // no tolerance test
		if tol {
			lls = beam.ParDo(s, &llFn{Dir: o.PrepDir, Kinds: kinds, Steps: steps, It: it, R: R, Exact: o.Exact, PSCMAuthors: o.PSCMAuthors, EmpiricalPrior: o.EmpiricalPrior,
				Cache: cache, Keyed: keyedState()}, state, beam.SideInput{Input: msgs})
		}
		state, msgs = beam.ParDo2(s, &stepFn{Dir: o.PrepDir, Kinds: kinds, Steps: steps, Iters: iters, Accel: accel, It: it, R: R, Exact: o.Exact, PSCMAuthors: o.PSCMAuthors, EmpiricalPrior: o.EmpiricalPrior,
			Tolerance: o.Tolerance, SERPs: m.TrainSERPs, Cache: cache, Keyed: keyedState()},
			state, beam.SideInput{Input: msgs}, beam.SideInput{Input: lls})
		afterState[it], afterMsgs[it] = state, msgs
	}
	var reports []beam.PCollection
	for i, k := range o.Kinds {
		ks := s.Scope(k.String())
		// A model's finish reads the state after its last step: the
		// steps after it carry no values of it.
		last := steps[i] - 1
		fin := &finishFn{Dir: o.PrepDir, Kinds: kinds, Model: i, R: R, Iters: iters[i], Accel: accel, SERPs: m.TrainSERPs, Tolerance: o.Tolerance, Exact: o.Exact, PSCMAuthors: o.PSCMAuthors, EmpiricalPrior: o.EmpiricalPrior, Level: o.Level, NoIntervals: o.NoIntervals, Cache: cache, Keyed: keyedState(),
			Gibbs: gibbs && (k == clickmodels.DBN || k == clickmodels.SDBN), Shards: m.Shards}
		if fin.Gibbs {
			fin.Intervals, fin.SubsetSERPs = iv.Intervals, o.SubsetSERPs
		}
		final := afterState[last]
		if fin.Gibbs {
			if final, err = buildGibbs(ks, fin, final, afterMsgs[last]); err != nil {
				return err
			}
		}
		finals := beam.ParDo(ks, fin, final, beam.SideInput{Input: afterMsgs[last]})
		reports = append(reports, beam.ParDo(ks, &writeModelFn{Dir: o.OutDir, Kind: int(k),
			Split: string(m.Split), TrainSERPs: m.TrainSERPs, Keyed: keyedState()}, one, beam.SideInput{Input: finals}))
	}
	all := beam.Flatten(s, reports...)
	names := make([]string, len(o.Kinds))
	for i, k := range o.Kinds {
		names[i] = k.String()
	}
	beam.ParDo0(s, &writeMetricsFn{Dir: o.OutDir, Order: names, Keyed: keyedState()}, one, beam.SideInput{Input: all})
	return nil
}

// initState starts every shard with the digest of its prepared-shard file
// and no pair values (the first E-step uses the initial ones).
func initState(shard int, digest []byte, emit func(int, []byte)) {
	emit(shard, joinSegs([][]byte{digest}))
}

// selfKeyed keys x by itself, the input a stateful DoFn needs.
func selfKeyed(x int) (int, int) { return x, x }

// keyedState is the per-key state the pipeline's long-running stages (the
// preparation, the EM steps, the finish and the writers) declare and never
// use. It makes them stateful DoFns, which Prism schedules differently: it
// polls an ordinary stage in a tight loop for as long as the stage has a
// bundle in progress (its scheduler always deems an ordinary stage still
// schedulable), which cost about one core for the whole EM, half of the
// pipeline's CPU at 1 M SERPs, while a stateful stage is polled again only
// when it has unprocessed input (the writers and the preparation, ordinary
// stages until 2026-11-26, still cost 1.9 CPU-s of polling at 1 M SERPs).
// On a cluster runner it means at most a keyed redistribution of a few
// small elements, or of the shards' pair values, which are keyed by shard
// already.
func keyedState() beamstate.Value[bool] { return beamstate.MakeValueState[bool]("keyed") }

// prepareFn prepares one shard from the shard directory and writes its
// prepared-shard file, emitting the shard's ID and the file's SHA-256 when
// the file is complete.
type prepareFn struct {
	ShardDir, PrepDir string
	R                 int
	Cache             int64                 // bytes of the worker's cache of opened shards
	Keyed             beamstate.Value[bool] // never used: see keyedState
}

func (f *prepareFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard, _ int, emit func(int, []byte)) error {
	src, cleanup, err := openShard(ctx, f.ShardDir, shard)
	if err != nil {
		return err
	}
	defer cleanup()
	p, err := outofcore.PrepareShard(ctx, src, shard, f.R)
	if err != nil {
		if IsRemote(f.ShardDir) { // the error names the local copy
			err = fmt.Errorf("shard %d of %s: %w", shard, f.ShardDir, err)
		}
		return err
	}
	if !IsRemote(f.PrepDir) {
		if err := os.MkdirAll(f.PrepDir, 0o755); err != nil {
			return err
		}
	}
	digest, err := writePrepared(ctx, PreparedPath(f.PrepDir, shard), p)
	if err != nil {
		return err
	}
	// The shard as prepared is what the file decodes to: the worker's
	// first step need not read it back.
	openShards.put(newOpened(p, digest), f.Cache)
	emit(shard, digest)
	return nil
}

// A shard's state and a step's message hold one segment per model (the
// state one more first: the prepared-shard file's digest), each
// uvarint(length) then its bytes. Missing trailing segments are empty: the
// empty message is every model's initial state.
func joinSegs(segs [][]byte) []byte {
	var b []byte
	for _, s := range segs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func splitSegs(b []byte, n int) ([][]byte, error) {
	segs := make([][]byte, n)
	for i := range segs {
		if len(b) == 0 {
			break
		}
		l, w := binary.Uvarint(b)
		if w <= 0 || l > uint64(len(b)-w) {
			return nil, fmt.Errorf("lbbeam: EM state segment of %d bytes", len(b))
		}
		segs[i], b = b[w:w+int(l)], b[w+int(l):]
	}
	if len(b) > 0 {
		return nil, fmt.Errorf("lbbeam: %d bytes after %d EM state segments", len(b), n)
	}
	return segs, nil
}

// modelSegs reads every message of a side input and returns, per model,
// that model's segment of each.
func modelSegs(msgs func(*[]byte) bool, n int) ([][][]byte, error) {
	per := make([][][]byte, n)
	var b []byte
	for msgs(&b) {
		segs, err := splitSegs(b, n)
		if err != nil {
			return nil, err
		}
		for m, s := range segs {
			per[m] = append(per[m], s)
		}
		b = nil // a fresh slice for the next message
	}
	return per, nil
}

// splitInputs splits a shard's state and the messages of the previous
// step (side input msgs) of nm models: the state's segments (the digest,
// then per model) and per model its segment of every message.
func splitInputs(state []byte, msgs func(*[]byte) bool, nm int) (segs [][]byte, perMsg [][][]byte, err error) {
	if segs, err = splitSegs(state, 1+nm); err != nil {
		return nil, nil, err
	}
	perMsg, err = modelSegs(msgs, nm)
	return segs, perMsg, err
}

// each iterates over bs as a side input iterates.
func each(bs [][]byte) func(*[]byte) bool {
	return func(b *[]byte) bool {
		if len(bs) == 0 {
			return false
		}
		*b, bs = bs[0], bs[1:]
		return true
	}
}

// A model's segment of a shard's state names the model's pair values on
// that shard: joinSegs of the hash of their EM history (valuesHash) and
// that of the step before, whose values file the next step removes; empty
// before the first step (the initial values). The values themselves do
// not travel through the pipeline: each step writes them to a values file
// in the prepared-shard directory (valuesPath), which a worker reads only
// if its cache of opened shards does not hold them already.

// valuesHash is the EM history, on the shard whose prepared-shard file
// has the given digest, after one more E-step of kind on the values after
// history prev (none: the initial values), with the global values global
// (none: the initial ones). The values after a history are a function of
// the shard's prepared bytes and that history alone, so a values file
// named by it can only hold them (even one left by an earlier run).
func valuesHash(prev, digest []byte, k clickmodels.Kind, v variant, global []float64) []byte {
	h := sha256.New()
	if len(prev) == 0 {
		h.Write(digest)
	} else {
		h.Write(prev)
	}
	x := byte(0)
	if v.Exact {
		x = 1
	}
	if v.PSCMAuthors {
		x |= 2
	}
	if v.EmpiricalPrior {
		x |= 4
	}
	h.Write([]byte{byte(k), x})
	h.Write(encodeFloats(global))
	return h.Sum(nil)
}

// valuesPath is the values file of shard i's model k after history h in
// dir.
func valuesPath(dir string, i int, k clickmodels.Kind, h []byte) string {
	return scratchPath(dir, "values", i, k, h)
}

// scratchPath is the file of what (values, chain) of shard i's model k
// named by the hash h in dir, a name RemoveScratch knows (scratchName).
func scratchPath(dir, what string, i int, k clickmodels.Kind, h []byte) string {
	return JoinPath(dir, fmt.Sprintf("%s-%05d-%s-%x", what, i, k, h[:16]))
}

// openFit opens shard i (its prepared-shard file in dir, of the given
// digest) through the worker's cache, or takes it from *opened if opened
// already, and returns its fit of kind k restored to the EM state: the
// pair values named by the model's state segment seg and the globals of
// em (none before the first iteration: the initial ones). It returns the
// current history hash too.
func openFit(ctx context.Context, opened **openedShard, dir string, i int, digest []byte, k clickmodels.Kind, v variant, seg []byte, em emState) (*clickmodels.ShardFit, []byte, []byte, error) {
	ref, err := splitSegs(seg, 2)
	if err != nil {
		return nil, nil, nil, err
	}
	cur, old := ref[0], ref[1]
	if len(cur) != 0 && len(cur) != sha256.Size {
		return nil, nil, nil, fmt.Errorf("lbbeam: shard %d: values hash of %d bytes", i, len(cur))
	}
	if *opened == nil {
		e, err := openShards.get(ctx, PreparedPath(dir, i), digest)
		if err != nil {
			return nil, nil, nil, err
		}
		*opened = e
	}
	path := ""
	if len(cur) > 0 {
		path = valuesPath(dir, i, k, cur)
	}
	f, err := (*opened).valuesAt(ctx, k, v, cur, path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("shard %d: %w", i, err)
	}
	if len(em.Global) > 0 {
		f.SetGlobal(em.Global)
	}
	return f, cur, old, nil
}

// shardStats opens the fit of model k on shard i (openFit), runs fn on it
// into new statistics and returns the fit, its history hashes (openFit)
// and the statistics' encoding.
func shardStats(ctx context.Context, opened **openedShard, dir string, i int, digest []byte, k clickmodels.Kind, v variant, seg []byte, em emState,
	fn func(*clickmodels.ShardFit, *clickmodels.Stats)) (sf *clickmodels.ShardFit, cur, old, stats []byte, err error) {
	if sf, cur, old, err = openFit(ctx, opened, dir, i, digest, k, v, seg, em); err != nil {
		return nil, nil, nil, nil, err
	}
	st := clickmodels.NewStatsFor(k, (*opened).p.Data.Ranks(), v.options())
	fn(sf, st)
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	stats, err = st.MarshalBinary()
	return sf, cur, old, stats, err
}

// A model's message is uvarint(len(state)), the EM state the step ran with
// (emState.encode), then the shard's global statistics
// (clickmodels.Stats.MarshalBinary), absent once EM has converged or the
// model has run its iterations; the state then carries the final globals.
// The empty message stands for the state before the first iteration.
func appendMsg(em emState, stats []byte) []byte {
	st := em.encode()
	b := binary.AppendUvarint(nil, uint64(len(st)))
	b = append(b, st...)
	return append(b, stats...)
}

// resolve sums the statistics of every shard's message of one step
// (exactly, so in any order) and returns the EM state after that step: the
// next global values (the M-step) and one more iteration done; a state
// without statistics (converged, or the model's iterations done) passes
// unchanged. Every shard computes the same state.
func resolve(k clickmodels.Kind, R int, msgs func(*[]byte) bool) (emState, error) {
	var (
		head  []byte
		total *clickmodels.Stats
		b     []byte
	)
	for msgs(&b) {
		if len(b) == 0 {
			continue // the initial state
		}
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return emState{}, fmt.Errorf("lbbeam: EM message of %d bytes", len(b))
		}
		h := b[w : w+int(n)]
		if head == nil {
			head = slices.Clone(h)
		} else if !bytes.Equal(head, h) {
			return emState{}, errors.New("lbbeam: the shards' EM states differ")
		}
		if rest := b[w+int(n):]; len(rest) > 0 {
			var st clickmodels.Stats
			if err := st.UnmarshalBinary(rest); err != nil {
				return emState{}, err
			}
			total = addStats(total, &st)
		}
	}
	em, err := decodeEM(head)
	if err != nil || em.Converged || total == nil {
		return em, err
	}
	em.Global = clickmodels.MStepGlobals(k, total)
	em.Done++
	return em, nil
}

// stepFn is EM iteration It on one shard, for every model: the M-step of
// the previous iteration from all shards' statistics, the tolerance test
// (if asked), then the E-step with the new globals, the shard's own pair
// M-step, and the shard's global statistics. Model m takes part in the
// first Steps[m] iterations and passes its values through the others.
type stepFn struct {
	Dir         string // prepared shards
	Kinds       []int
	Steps       []int
	Iters       []int // per model, its EM iterations
	Accel       bool  // EM models accelerated (accelStep)
	It, R       int
	Exact       bool
	PSCMAuthors bool
	Tolerance   float64               // > 0: apply the tolerance test to the lls side input
	SERPs       int64                 // training SERPs
	Cache       int64                 // bytes of the worker's cache of opened shards
	Keyed       beamstate.Value[bool] // never used: see keyedState

	// EmpiricalPrior is clickmodels.Options.EmpiricalPrior.
	EmpiricalPrior bool
}

func (f *stepFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, state []byte, msgs, lls func(*[]byte) bool, emitState func(int, []byte), emitMsg func([]byte)) error {
	nm := len(f.Kinds)
	segs, perMsg, err := splitInputs(state, msgs, nm)
	if err != nil {
		return err
	}
	perLL, err := modelSegs(lls, nm)
	if err != nil {
		return err
	}
	var opened *openedShard
	outState, outMsg := [][]byte{segs[0]}, make([][]byte, nm)
	for m, ki := range f.Kinds {
		k, pairs := clickmodels.Kind(ki), segs[1+m]
		if f.Accel && k.EM(f.Exact) {
			if f.It >= f.Steps[m] {
				// Its finish reads the state after its last step.
				outState = append(outState, nil)
				continue
			}
			st, msg, err := f.accelStep(ctx, &opened, shard, segs[0], m, pairs, perMsg[m])
			if err != nil {
				return err
			}
			outState, outMsg[m] = append(outState, st), msg
			continue
		}
		em, err := resolve(k, f.R, each(perMsg[m]))
		if err != nil {
			return err
		}
		if f.Tolerance > 0 && k.EM(f.Exact) && f.It < f.Steps[m] && !em.Converged {
			total, err := mergeStats(k, f.R, each(perLL[m]))
			if err != nil {
				return err
			}
			ll := total.LL.Float64() / float64(f.SERPs)
			if f.It > 0 && clickmodels.Converged(em.PrevLL, ll, f.Tolerance) {
				em.Converged = true
			}
			em.PrevLL = ll
		}
		if f.It >= f.Steps[m] {
			// The model's steps are done (DCTR's one counting pass): its
			// finish reads the state after its last step.
			outState = append(outState, nil)
			outMsg[m] = appendMsg(em, nil)
			continue
		}
		if em.Converged {
			// EM has stopped: the values stay.
			outState = append(outState, pairs)
			outMsg[m] = appendMsg(em, nil)
			continue
		}
		sf, cur, old, b, err := shardStats(ctx, &opened, f.Dir, shard, segs[0], k, variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}, pairs, em,
			func(sf *clickmodels.ShardFit, st *clickmodels.Stats) { sf.EStep(ctx, st) })
		if err != nil {
			return err
		}
		next := valuesHash(cur, segs[0], k, variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}, em.Global)
		if err := writeBytes(ctx, valuesPath(f.Dir, shard, k, next), sf.MarshalPairs()); err != nil {
			return err
		}
		opened.at[fitKey{k, variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}}] = next
		if len(old) > 0 {
			// The values before the last step's: no step reads them
			// again (a retried step reads cur).
			if err := removeIfExists(ctx, valuesPath(f.Dir, shard, k, old)); err != nil {
				return err
			}
		}
		em.Global = nil // the next step computes its own
		outMsg[m] = appendMsg(em, b)
		outState = append(outState, joinSegs([][]byte{next, cur}))
	}
	if opened != nil {
		openShards.put(opened, f.Cache)
	}
	emitMsg(joinSegs(outMsg))
	emitState(shard, joinSegs(outState))
	return nil
}

// addStats adds a shard's statistics st to total and returns it; a nil
// total is made sized as st (clickmodels.GlobalSlots: the empirical
// prior's means after the globals), which every shard's statistics of one
// step are.
func addStats(total, st *clickmodels.Stats) *clickmodels.Stats {
	if total == nil {
		total = &clickmodels.Stats{Num: make([]clickmodels.ExactSum, len(st.Num)), Den: make([]clickmodels.ExactSum, len(st.Den))}
	}
	total.Merge(st)
	return total
}

func mergeStats(k clickmodels.Kind, R int, stats func(*[]byte) bool) (*clickmodels.Stats, error) {
	total := clickmodels.NewStats(k, R)
	var b []byte
	for stats(&b) {
		if len(b) == 0 {
			continue // no tolerance test
		}
		var st clickmodels.Stats
		if err := st.UnmarshalBinary(b); err != nil {
			return nil, err
		}
		total.Merge(&st)
	}
	return total, nil
}

// llFn computes a shard's training log-likelihood under the values step It
// is about to use, per model under the tolerance test.
type llFn struct {
	Dir         string // prepared shards
	Kinds       []int
	Steps       []int
	It, R       int
	Exact       bool
	PSCMAuthors bool
	Cache       int64
	Keyed       beamstate.Value[bool] // never used: see keyedState

	// EmpiricalPrior is clickmodels.Options.EmpiricalPrior.
	EmpiricalPrior bool
}

func (f *llFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, state []byte, msgs func(*[]byte) bool, emit func([]byte)) error {
	nm := len(f.Kinds)
	segs, perMsg, err := splitInputs(state, msgs, nm)
	if err != nil {
		return err
	}
	var opened *openedShard
	out := make([][]byte, nm)
	for m, ki := range f.Kinds {
		k := clickmodels.Kind(ki)
		if !k.EM(f.Exact) || f.It >= f.Steps[m] {
			continue
		}
		em, err := resolve(k, f.R, each(perMsg[m]))
		if err != nil {
			return err
		}
		if em.Converged {
			continue
		}
		if _, _, _, out[m], err = shardStats(ctx, &opened, f.Dir, shard, segs[0], k, variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}, segs[1+m], em,
			func(sf *clickmodels.ShardFit, st *clickmodels.Stats) { sf.TrainLL(ctx, st) }); err != nil {
			return err
		}
	}
	if opened != nil {
		openShards.put(opened, f.Cache)
	}
	emit(joinSegs(out))
	return nil
}

// emState is what passes from one EM iteration to the next besides the
// shards' pair values: the global values (none: the initial ones), the
// iterations done, the last training log-likelihood and whether EM has
// converged (Tolerance). Encoded as done (uint64), the log-likelihood's
// bits (uint64), converged (1 byte), then the globals as float64s; the
// empty encoding is the state before the first iteration.
type emState struct {
	Global    []float64
	Done      int
	PrevLL    float64
	Converged bool
}

func (e emState) encode() []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(e.Done))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.PrevLL))
	c := byte(0)
	if e.Converged {
		c = 1
	}
	b = append(b, c)
	return append(b, encodeFloats(e.Global)...)
}

func decodeEM(b []byte) (emState, error) {
	if len(b) == 0 {
		return emState{}, nil
	}
	if len(b) < 17 || b[16] > 1 {
		return emState{}, fmt.Errorf("lbbeam: EM state of %d bytes", len(b))
	}
	g, err := decodeFloats(b[17:])
	return emState{Done: int(binary.LittleEndian.Uint64(b)), PrevLL: math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
		Converged: b[16] == 1, Global: g}, err
}

// ShardFinal is a shard's share of the outputs: its model (gob), the log
// position of each of its queries' first SERP, its evaluation sums and its
// distinct training records.
type ShardFinal struct {
	Shard      int
	Iterations int // EM iterations done
	Model      []byte
	QueryFirst []int64
	Eval       []byte
	Records    int
}

// finishFn evaluates a shard's final model of Kinds[Model] on its test
// SERPs and ships the model to the writer.
type finishFn struct {
	Dir         string // prepared shards
	Kinds       []int
	Model       int // index in Kinds
	R           int
	Iters       int     // its EM iterations
	Accel       bool    // EM models accelerated (accelFinal)
	SERPs       int64   // training SERPs
	Tolerance   float64 // of accelerated EM
	Exact       bool
	PSCMAuthors bool
	Level       float64 // of the intervals (clickmodels.Options.Level)
	// NoIntervals: no intervals (clickmodels.Options.NoIntervals)
	NoIntervals bool
	Cache       int64
	Keyed       beamstate.Value[bool] // never used: see keyedState

	// EmpiricalPrior is clickmodels.Options.EmpiricalPrior.
	EmpiricalPrior bool
	// Gibbs: the model's relevance intervals come from the Gibbs
	// sampler (gibbs.go), run over Shards shards, whose finished chain
	// the state's second segment names: that of Intervals
	// (clickmodels.IntervalsGibbs or IntervalsGibbsSubset, resolved),
	// with SubsetSERPs (clickmodels.Options.SubsetSERPs).
	Gibbs       bool
	Shards      int
	Intervals   clickmodels.IntervalMethod
	SubsetSERPs float64
}

// finalFit opens shard's fit of Kinds[Model] restored to the EM state
// after its last step (the shard's state then, and every shard's
// message of that step, msgs), as the finish and the Gibbs sampler's
// passes use it, and returns it with that EM state.
func (f *finishFn) finalFit(ctx context.Context, opened **openedShard, shard int, state []byte, allMsgs func(*[]byte) bool) (*clickmodels.ShardFit, emState, error) {
	segs, perMsg, err := splitInputs(state, allMsgs, len(f.Kinds))
	if err != nil {
		return nil, emState{}, err
	}
	msgs := perMsg[f.Model]
	k := clickmodels.Kind(f.Kinds[f.Model])
	v := variant{f.Exact, f.PSCMAuthors, f.EmpiricalPrior}
	seg := segs[1+f.Model]
	var em emState
	if f.Accel && k.EM(f.Exact) {
		st, h, err := accelFinal(k, f.R, v, f.SERPs, f.Iters, f.Tolerance, seg, msgs)
		if err != nil {
			return nil, em, err
		}
		em = emState{Global: st.Global, Done: st.Done}
		// The final values' hash in a segment as openFit reads it.
		seg = joinSegs([][]byte{h})
	} else {
		var err error
		if em, err = resolve(k, f.R, each(msgs)); err != nil {
			return nil, em, err
		}
	}
	sf, _, _, err := openFit(ctx, opened, f.Dir, shard, segs[0], k, v, seg, em)
	return sf, em, err
}

// options are the options of the model's final model: its intervals'
// level and method, with the sampler's subset's rate resolved from the
// whole log's training SERPs, as lovbench fit resolves it.
func (f *finishFn) options() clickmodels.Options {
	o := clickmodels.Options{Level: f.Level, NoIntervals: f.NoIntervals}
	if f.Gibbs {
		o.Intervals, o.Exact, o.SubsetSERPs = f.Intervals, f.Exact, f.SubsetSERPs
		o = o.ResolveIntervals(f.SERPs)
	}
	return o
}

// gibbsShards is the Gibbs sampler of the model over the pipeline's
// shards, its chains and rounds given by the pipeline.
func (f *finishFn) gibbsShards() (*clickmodels.GibbsShards, error) {
	gs, err := clickmodels.NewGibbsShards(clickmodels.Kind(f.Kinds[f.Model]), f.options(), f.Shards, nil)
	if err == nil && gs == nil {
		err = fmt.Errorf("lbbeam: %v runs no Gibbs sampler", clickmodels.Kind(f.Kinds[f.Model]))
	}
	return gs, err
}

func (f *finishFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, state []byte, msgs func(*[]byte) bool, emit func(ShardFinal)) error {
	var (
		cur, old []byte
		gs       *clickmodels.GibbsShards
		sub      *clickmodels.GibbsPartResult
	)
	if f.Gibbs {
		var err error
		if gs, err = f.gibbsShards(); err != nil {
			return err
		}
		if gs.Subset() {
			// The state is the model's EM state and the shard's result
			// of the sampler on the subset (gibbsAttachFn).
			segs, err := splitSegs(state, 2)
			if err != nil {
				return fmt.Errorf("shard %d: %w", shard, err)
			}
			state = segs[0]
			if sub, err = clickmodels.UnmarshalGibbsPartResult(segs[1]); err != nil {
				return fmt.Errorf("shard %d: %w", shard, err)
			}
		} else if state, cur, old, err = splitChainState(state); err != nil {
			// Else the model's EM state and the shard's chain's hashes
			// (gibbs.go).
			return fmt.Errorf("shard %d: %w", shard, err)
		}
	}
	var opened *openedShard
	sf, em, err := f.finalFit(ctx, &opened, shard, state, msgs)
	if err != nil {
		return err
	}
	var ev clickmodels.EvalSums
	if err := sf.Evaluate(&ev); err != nil {
		return err
	}
	var m *clickmodels.Model
	switch {
	case sub != nil:
		// The relevance's Betas from the shard's result of the sampler
		// on the subset.
		if err := gs.SetPartResult(shard, sub); err != nil {
			return err
		}
		m, err = gs.FinalModel(ctx, sf, shard, 0, f.options())
	case f.Gibbs:
		// The relevance's Betas from the shard's finished chain
		// (gibbsFn's last pass).
		key := f.key()
		c, err := opened.chainAt(ctx, key, cur, chainPath(f.Dir, shard, key.kind, cur))
		if err != nil {
			return fmt.Errorf("shard %d: %w", shard, err)
		}
		if err := gs.SetChain(shard, c); err != nil {
			return err
		}
		if m, err = gs.FinalModel(ctx, sf, shard, 0, f.options()); err != nil {
			return err
		}
		// No stage reads the chain again (a retried finish reads cur's
		// file, which stays until the prepared files are removed).
		opened.dropChain(key)
		if len(old) > 0 {
			if err := removeIfExists(ctx, chainPath(f.Dir, shard, key.kind, old)); err != nil {
				return err
			}
		}
	default:
		m, err = sf.FinalModel(ctx, 0, f.options())
	}
	if err != nil {
		return err
	}
	var mb bytes.Buffer
	if err := gob.NewEncoder(&mb).Encode(m); err != nil {
		return err
	}
	p := opened.p
	final := ShardFinal{Shard: shard, Iterations: em.Done, Model: mb.Bytes(), QueryFirst: slices.Clone(p.QueryFirst),
		Eval: encodeEval(&ev), Records: p.Data.Records()}
	openShards.put(opened, f.Cache)
	emit(final)
	return nil
}

// writeModelFn merges the shards' models into <MODEL>_relevance.tsv and
// <MODEL>_params.json and emits the model's metrics.json entry (JSON).
type writeModelFn struct {
	Dir        string
	Kind       int
	Split      string
	TrainSERPs int64
	Keyed      beamstate.Value[bool] // never used: see keyedState
}

func (f *writeModelFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _, _ int, finals func(*ShardFinal) bool, emit func([]byte)) error {
	k := clickmodels.Kind(f.Kind)
	var all []ShardFinal
	var sf ShardFinal
	for finals(&sf) {
		all = append(all, sf)
	}
	slices.SortFunc(all, func(a, b ShardFinal) int { return a.Shard - b.Shard })
	var (
		parts   []clickmodels.ShardModel
		ev      clickmodels.EvalSums
		records int
	)
	for _, x := range all {
		var m clickmodels.Model
		if err := gob.NewDecoder(bytes.NewReader(x.Model)).Decode(&m); err != nil {
			return fmt.Errorf("shard %d model: %w", x.Shard, err)
		}
		m.Iterations = x.Iterations
		parts = append(parts, clickmodels.ShardModel{Model: &m, QueryFirst: x.QueryFirst})
		e, err := decodeEval(x.Eval)
		if err != nil {
			return fmt.Errorf("shard %d evaluation: %w", x.Shard, err)
		}
		ev.Merge(e)
		records += x.Records
	}
	var unc *clickmodels.UncertaintyReport
	err := stageDir(ctx, f.Dir, func(dir string) (err error) {
		unc, err = clickmodels.WriteModelFilesReport(dir, parts, clickmodels.ParamsAuto)
		return err
	})
	if err != nil {
		return err
	}
	met, err := ev.Metrics(k)
	if err != nil {
		return err
	}
	iterations := 0
	if len(all) > 0 {
		iterations = all[0].Iterations
	}
	rep := clickmodels.Report{Model: k.String(), Split: split.Kind(f.Split), TrainSessions: int(f.TrainSERPs), TrainRecords: records,
		Metrics: met, Iterations: iterations, Exact: len(parts) > 0 && parts[0].Model.Exact,
		PSCMAuthors: len(parts) > 0 && parts[0].Model.PSCMAuthors, EmpiricalPrior: len(parts) > 0 && parts[0].Model.EmpiricalPrior, Uncertainty: unc}
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// writeMetricsFn writes metrics.json with the models in the order asked.
type writeMetricsFn struct {
	Dir   string
	Order []string
	Keyed beamstate.Value[bool] // never used: see keyedState
}

func (f *writeMetricsFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _, _ int, reps func(*[]byte) bool) error {
	byName := map[string]clickmodels.Report{}
	var b []byte
	for reps(&b) {
		var r clickmodels.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		byName[r.Model] = r
	}
	out := make([]clickmodels.Report, 0, len(f.Order))
	for _, name := range f.Order {
		r, ok := byName[name]
		if !ok {
			return fmt.Errorf("no report for %s", name)
		}
		out = append(out, r)
	}
	clickmodels.FinishReports(out)
	err := stageDir(ctx, f.Dir, func(dir string) error { return clickmodels.WriteMetrics(dir, out) })
	return err
}

func encodeFloats(v []float64) []byte {
	out := make([]byte, 0, 8*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

func decodeFloats(b []byte) ([]float64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("lbbeam: %d bytes of float64s", len(b))
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}

// encodeEval encodes evaluation sums: N, LL, then per rank the count and
// the sum (each ExactSum length-prefixed).
func encodeEval(e *clickmodels.EvalSums) []byte {
	out := binary.AppendVarint(nil, e.N)
	sum := func(s *clickmodels.ExactSum) {
		b, _ := s.MarshalBinary()
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	sum(&e.LL)
	out = binary.AppendUvarint(out, uint64(len(e.LogSum)))
	for r := range e.LogSum {
		out = binary.AppendVarint(out, e.Count[r])
		sum(&e.LogSum[r])
	}
	return out
}

func decodeEval(b []byte) (*clickmodels.EvalSums, error) {
	d := &decoder{b: b}
	e := &clickmodels.EvalSums{N: d.varint()}
	sum := func(s *clickmodels.ExactSum) {
		n := d.uvarint()
		if d.err != nil || n > uint64(len(d.b)) {
			d.err = errCodec
			return
		}
		if err := s.UnmarshalBinary(d.b[:n]); err != nil {
			d.err = err
		}
		d.b = d.b[n:]
	}
	sum(&e.LL)
	nr := d.uvarint()
	if d.err == nil && nr <= uint64(len(d.b)) {
		e.LogSum = make([]clickmodels.ExactSum, nr)
		e.Count = make([]int64, nr)
		for r := range e.LogSum {
			e.Count[r] = d.varint()
			sum(&e.LogSum[r])
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCodec
	}
	return e, d.err
}
