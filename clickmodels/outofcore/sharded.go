package outofcore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// PreparedShard is one query shard ready for fitting: its training SERPs
// prepared (Data), its test SERPs (those whose query trains) compactly, and
// the log position of the first SERP of each of its queries, which orders
// the queries of all shards as in the whole log.
type PreparedShard struct {
	Data       *clickmodels.Data
	Test       *sessions.Log // user sessions dropped
	QueryFirst []int64       // by query ID of clickmodels.Data's dictionaries
}

// PrepareShard reads shard i of src and prepares it with R ranks (the
// largest of DefaultRanks and the longest SERP of the whole log):
// clickmodels.PrepareSource.
func PrepareShard(ctx context.Context, src split.Source, i, R int) (*PreparedShard, error) {
	d, test, first, err := clickmodels.PrepareSource(ctx, src, i, R)
	if err != nil {
		return nil, err
	}
	return &PreparedShard{Data: d, Test: test, QueryFirst: first}, nil
}

// RunShards is Run on a sharded log: it prepares every shard, fits every
// model of cfg on all shards together (per EM iteration every shard's
// E-step, then the global M-step from the exact sums of all shards) and
// writes the same files as Run. The outputs are bit-identical to Run's on
// the whole log with the same split, for any number of shards and
// workers. The prepared shards are held in memory (compact flat arrays);
// the raw log never is.
func RunShards(ctx context.Context, src split.Source, cfg clickmodels.RunConfig, outDir string) ([]clickmodels.Report, error) {
	r, err := newShardRun(ctx, src, cfg, outDir)
	if err != nil {
		return nil, err
	}
	defer r.removeSpill()
	if err := r.prepare(); err != nil {
		return nil, err
	}
	reports := make([]clickmodels.Report, 0, len(r.cfg.Kinds))
	for _, k := range r.cfg.Kinds {
		if r.cfg.OnModel != nil {
			r.cfg.OnModel(k)
		}
		rep, ft, err := r.model(k)
		if err != nil {
			return nil, err
		}
		reports = append(reports, rep)
		// Written now, so that the model's pair values need not be held
		// while the next model fits.
		unc, err := r.writeModel(ft)
		if err != nil {
			return nil, err
		}
		reports[len(reports)-1].Uncertainty = unc
	}
	clickmodels.FinishReports(reports)
	clickmodels.LogIdentification(r.cfg.Log, r.cfg.IdentificationInfo, reports)
	return reports, r.cfg.WriteMetrics(outDir, reports)
}

// shardRun is the state of one RunShards call that its phases share: the
// source's counts, the prepared shards (held or spilled) and what
// preparing them measured.
type shardRun struct {
	ctx    context.Context
	src    split.Source
	cfg    clickmodels.RunConfig
	outDir string

	serps, trainSERPs int64
	split             split.Kind
	R, n              int
	logEvery          int

	// Under a budget (PreparedBudget), prepared shards are held in memory
	// while their estimated size (PreparedShard.size) stays within it;
	// the others go to prepared-shard files in a temporary directory
	// spillDir under outDir and are read back for every pass over them,
	// so that one of them at a time is in memory. The pair values of all
	// shards stay in memory (docs/scale.md, "Out of core").
	spillDir string
	ps       []*PreparedShard // nil: spilled

	prepSec                 float64
	testN, records, spilled int
	heldBytes               int64
}

// newShardRun checks the source against cfg (the split it was cut with,
// training sessions present) and sets up the run's logging.
func newShardRun(ctx context.Context, src split.Source, cfg clickmodels.RunConfig, outDir string) (*shardRun, error) {
	serps, trainSERPs, maxRanks, kind := src.Info()
	if cfg.Split != "" && cfg.Split != kind {
		return nil, fmt.Errorf("the shards were split with %q, not %q: reshard with --split %s", kind, cfg.Split, cfg.Split)
	}
	if trainSERPs == 0 {
		return nil, fmt.Errorf("no training sessions (log has %d)", serps)
	}
	n := src.NumShards()
	cfg.Options = cfg.Options.ResolveIntervals(trainSERPs)
	r := &shardRun{ctx: ctx, src: src, cfg: cfg, outDir: outDir, serps: serps, trainSERPs: trainSERPs,
		split: kind, R: max(clickmodels.DefaultRanks, maxRanks), n: n, logEvery: max(1, n/10), ps: make([]*PreparedShard, n)}
	if on := cfg.OnIteration; cfg.Log != nil {
		r.cfg.OnIteration = func(it int, ll float64) {
			if on != nil {
				on(it, ll)
			}
			if it%10 == 0 {
				r.logMemAt(slog.LevelDebug, "EM iteration", "iteration", it) // a detail: shown with -v
			}
		}
	}
	return r, nil
}

// logMemAt logs msg with the memory in use (and the limit, if any).
func (r *shardRun) logMemAt(level slog.Level, msg string, args ...any) {
	if r.cfg.Log == nil {
		return
	}
	args = append(args, "memory_in_use", bytesize.Format(membudget.InUse()))
	if r.cfg.MemoryLimit > 0 {
		args = append(args, "memory_limit", bytesize.Format(r.cfg.MemoryLimit))
	}
	r.cfg.Log.Log(r.ctx, level, msg, args...)
}

func (r *shardRun) logMem(msg string, args ...any) { r.logMemAt(slog.LevelInfo, msg, args...) }

// shardPath is the file of spilled prepared shard i.
func (r *shardRun) shardPath(i int) string {
	return filepath.Join(r.spillDir, fmt.Sprintf("shard-%05d.prep", i))
}

// shard returns prepared shard i, from memory or from its file.
func (r *shardRun) shard(i int) (*PreparedShard, error) {
	if r.ps[i] != nil {
		return r.ps[i], nil
	}
	return ReadPreparedShardFile(r.shardPath(i))
}

// removeSpill removes the directory of spilled shards, if one was made.
func (r *shardRun) removeSpill() {
	if r.spillDir != "" {
		os.RemoveAll(r.spillDir)
	}
}

// prepare is the first phase: it prepares every shard, holding it in
// memory within the budget and spilling it to a file beyond, and
// refuses a fit whose sampler's subset of queries would hold more than
// RunConfig.GibbsSubsetBudget (a *SubsetMemoryError).
func (r *shardRun) prepare() error {
	budget := r.cfg.PreparedBudget
	var subsetBytes int64 // the sampler's subset's (GibbsSubsetBytes)
	t0 := time.Now()
	for i := range r.n {
		p, err := PrepareShard(r.ctx, r.src, i, r.R)
		if err != nil {
			return err
		}
		r.testN += p.Test.Len()
		r.records += p.Data.Records()
		if r.cfg.GibbsSubsetBudget > 0 {
			subsetBytes += r.cfg.GibbsSubsetBytes(p.Data, r.trainSERPs)
		}
		if sz := p.Size(); budget <= 0 || r.heldBytes+sz <= budget {
			r.ps[i], r.heldBytes = p, r.heldBytes+sz
		} else if err := r.spill(i, p); err != nil {
			return err
		}
		if r.cfg.OnShard != nil {
			r.cfg.OnShard(i+1, r.n)
		}
		if (i+1)%r.logEvery == 0 || i+1 == r.n {
			r.logMem("shard prepared", "shard", i+1, "of", r.n, "records", p.Data.Records())
		}
	}
	r.prepSec = time.Since(t0).Seconds()
	if b := r.cfg.GibbsSubsetBudget; b > 0 && subsetBytes > b {
		return &SubsetMemoryError{Limit: r.cfg.MemoryLimit, Share: b, SERPs: r.cfg.GibbsSubsetTrainSERPs(r.trainSERPs), TrainSERPs: r.trainSERPs,
			Need: subsetBytes, By: "its records and distinct pairs"}
	}
	if r.spilled > 0 {
		r.logMem("prepared shards spilled to files", "spilled", r.spilled, "held", r.n-r.spilled, "held_bytes", r.heldBytes)
	}
	if r.testN == 0 {
		return fmt.Errorf("no test sessions whose query occurs in training (log has %d sessions)", r.serps)
	}
	return nil
}

// makeSpillDir makes the temporary directory for spilled shards and
// values, once, and returns it.
func (r *shardRun) makeSpillDir() (string, error) {
	if r.spillDir == "" {
		if err := os.MkdirAll(r.outDir, 0o755); err != nil {
			return "", err
		}
		dir, err := os.MkdirTemp(r.outDir, ".prepared-")
		if err != nil {
			return "", err
		}
		r.spillDir = dir
	}
	return r.spillDir, nil
}

// spill writes prepared shard i to its file, making the temporary
// directory for spilled shards on first use.
func (r *shardRun) spill(i int, p *PreparedShard) error {
	if _, err := r.makeSpillDir(); err != nil {
		return err
	}
	if err := WritePreparedShardFile(r.shardPath(i), p); err != nil {
		return err
	}
	r.spilled++
	return nil
}

// fitted is one model of a RunShards call, ready to be written.
type fitted struct {
	kind   clickmodels.Kind
	models []clickmodels.ShardModel // per shard (nil with LoadDir or when spilling)
	loaded *clickmodels.Model
	// first is shard 0's model (the header of the files); pairFiles
	// hold the shards' pairs when spilling; pairs counts them.
	first     *clickmodels.Model
	pairFiles []string
	pairs     int
}

// model is the second phase, for one model: it loads (LoadDir) or fits
// the model of kind k on all shards and evaluates it on their test
// sessions.
func (r *shardRun) model(k clickmodels.Kind) (clickmodels.Report, fitted, error) {
	rep := clickmodels.Report{Model: k.String(), Split: r.split, TrainSessions: int(r.trainSERPs)}
	ft := fitted{kind: k}
	var acc clickmodels.EvalSums
	if r.cfg.LoadDir != "" {
		m, err := r.load(k, &acc)
		if err != nil {
			return rep, ft, err
		}
		rep.Loaded, rep.Iterations, rep.Exact, rep.EmpiricalPrior = true, m.Iterations, m.Exact, m.EmpiricalPrior
		ft.loaded = m
	} else {
		t0 := time.Now()
		done, err := r.fit(k, &ft, &acc)
		if err != nil {
			return rep, ft, err
		}
		rep.FitSeconds = time.Since(t0).Seconds()
		rep.PrepareSeconds = r.prepSec
		rep.TrainRecords = r.records
		rep.Iterations, rep.Exact, rep.EmpiricalPrior = done, ft.first.Exact, ft.first.EmpiricalPrior
	}
	r.logMem("model fitted", "model", k.String())
	met, err := acc.Metrics(k)
	if err != nil {
		return rep, ft, err
	}
	rep.Metrics = met
	return rep, ft, nil
}

// load reads the model of kind k from LoadDir and evaluates it on every
// shard's test sessions into acc.
func (r *shardRun) load(k clickmodels.Kind, acc *clickmodels.EvalSums) (*clickmodels.Model, error) {
	path := clickmodels.ParamsPath(r.cfg.LoadDir, k)
	m, err := clickmodels.LoadModel(path)
	if err != nil {
		return nil, err
	}
	if m.Kind != k {
		return nil, fmt.Errorf("%s: holds a %v model", path, m.Kind)
	}
	for i := range r.n {
		p, err := r.shard(i)
		if err != nil {
			return nil, err
		}
		if err := acc.Add(m, p.Test); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// fit runs EM for kind k over all shards (fitLoop), then builds every
// shard's model (finish) and evaluates it into acc. It returns the
// iterations done.
func (r *shardRun) fit(k clickmodels.Kind, ft *fitted, acc *clickmodels.EvalSums) (int, error) {
	iters := k.Iterations(r.cfg.Iterations, r.cfg.Exact)
	global := clickmodels.InitialGlobals(k, r.R, r.cfg.Options)
	// A held shard keeps its fitter; a spilled shard's fitter is built
	// from its file for every pass and dropped after it, keeping only its
	// pair values, the state one iteration passes to the next.
	fs := make([]*clickmodels.ShardFit, r.n)
	vals := &pairValues{dir: r.spillDir, budget: r.cfg.PreparedBudget, has: make([]bool, r.n), onDisk: make([]bool, r.n),
		attr: make([][]float64, r.n), sat: make([][]float64, r.n)}
	for i, p := range r.ps {
		if p != nil {
			fs[i] = clickmodels.NewShardFitShared(r.ctx, p.Data, p.Test, k, r.cfg.Options, global, true)
		}
	}
	var scratch *clickmodels.Data // arrays of the last spilled shard read
	each := func(fn func(*clickmodels.ShardFit)) error {
		for i := range r.n {
			if f := fs[i]; f != nil {
				fn(f)
				continue
			}
			// The E-step needs the training data only; the shard is
			// decoded into the arrays of the one before, whose fitter is
			// gone.
			p, err := readPreparedShardFile(r.shardPath(i), false, scratch)
			if err != nil {
				return err
			}
			scratch = p.Data
			f := clickmodels.NewShardFitShared(r.ctx, p.Data, p.Test, k, r.cfg.Options, global, true)
			if err := vals.load(i, f); err != nil {
				return err
			}
			fn(f)
			if err := vals.keep(i, f); err != nil {
				return err
			}
		}
		return nil
	}
	// Accelerated EM's iterates (three copies of the pair values) share
	// the pair values' budget: beyond it they wait in files too.
	its := &iterates{vals: vals, dir: r.makeSpillDir}
	defer its.remove()
	done, err := clickmodels.FitShards(r.ctx, each, r.R, k, r.cfg.Options, global, iters, int(r.trainSERPs), its)
	if err != nil {
		return 0, fmt.Errorf("fit %v: %w", k, err)
	}
	chains := &gibbsChains{vals: vals, dir: r.makeSpillDir, held: map[int]*clickmodels.GibbsChain{}}
	defer chains.remove()
	gs, err := r.gibbs(k, fs, vals, global, chains)
	if err != nil {
		return 0, fmt.Errorf("fit %v: %w", k, err)
	}
	for i := range r.n {
		if err := r.finish(i, k, fs, vals, global, done, ft, acc, gs); err != nil {
			return 0, err
		}
	}
	return done, nil
}

// gibbs runs the Gibbs sampler of kind's intervals (clickmodels.GibbsShards;
// nil when the fit has none) over the fitted shards: a held shard's fit
// as it is, a spilled shard's rebuilt from its file for every pass (its
// dictionaries and pair values read in the first pass only), the chains
// held in memory within what is left of the pair values' budget and in
// a file each beyond (store).
func (r *shardRun) gibbs(k clickmodels.Kind, fs []*clickmodels.ShardFit, vals *pairValues, global []float64, store *gibbsChains) (*clickmodels.GibbsShards, error) {
	gs, err := clickmodels.NewGibbsShards(k, r.cfg.Options, r.n, store)
	if gs == nil || err != nil {
		return nil, err
	}
	r.logMem("Gibbs sampler started", "model", k.String())
	if gs.Subset() {
		return gs, r.gibbsSubset(k, gs, fs, vals, global)
	}
	var scratch *clickmodels.Data // arrays of the last spilled shard read
	first := true
	err = gs.Run(r.ctx, func(fn func(int, *clickmodels.ShardFit) error) error {
		for i := range r.n {
			if f := fs[i]; f != nil {
				if err := fn(i, f); err != nil {
					return err
				}
				continue
			}
			var p *PreparedShard
			var err error
			if first {
				p, err = r.shard(i)
			} else {
				if p, err = readPreparedShardFile(r.shardPath(i), false, scratch); err == nil {
					scratch = p.Data
				}
			}
			if err != nil {
				return err
			}
			f := clickmodels.NewShardFitShared(r.ctx, p.Data, p.Test, k, r.cfg.Options, global, false)
			if first {
				if err := vals.load(i, f); err != nil {
					return err
				}
			}
			if err := fn(i, f); err != nil {
				return err
			}
		}
		first = false
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.logMem("Gibbs sampler done", "model", k.String())
	return gs, nil
}

// gibbsSubset runs the sampler of gs on a subset of the queries
// (clickmodels.GibbsShards.Subset): one pass over the fitted shards
// gathers the subset's records, pairs and values (a spilled shard read
// from its file, its pair values from theirs), and the sampler runs on
// them in memory (RunParts), its chains holding the subset alone; each
// shard's final model (finish) takes its pairs' Betas from the result.
func (r *shardRun) gibbsSubset(k clickmodels.Kind, gs *clickmodels.GibbsShards, fs []*clickmodels.ShardFit, vals *pairValues, global []float64) error {
	parts := make([]*clickmodels.GibbsPart, r.n)
	for i := range r.n {
		f := fs[i]
		if f == nil {
			p, err := r.shard(i)
			if err != nil {
				return err
			}
			f = clickmodels.NewShardFitShared(r.ctx, p.Data, p.Test, k, r.cfg.Options, global, false)
			if err := vals.load(i, f); err != nil {
				return err
			}
		}
		var err error
		if parts[i], err = gs.Gather(f); err != nil {
			return fmt.Errorf("shard %d: %w", i, err)
		}
	}
	if _, err := gs.RunParts(r.ctx, parts); err != nil {
		return err
	}
	r.logMem("Gibbs sampler done", "model", k.String())
	return nil
}

// finish builds shard i's final model after done iterations (its
// intervals' evidence included, with gs's relevance Betas if not nil), keeps it in ft (in memory, or in a pair
// file when spilling) and evaluates it into acc.
func (r *shardRun) finish(i int, k clickmodels.Kind, fs []*clickmodels.ShardFit, vals *pairValues, global []float64, done int, ft *fitted, acc *clickmodels.EvalSums, gs *clickmodels.GibbsShards) error {
	f, p := fs[i], r.ps[i]
	if f == nil {
		var err error
		if p, err = r.shard(i); err != nil {
			return err
		}
		f = clickmodels.NewShardFitShared(r.ctx, p.Data, p.Test, k, r.cfg.Options, global, false)
		if err := vals.load(i, f); err != nil {
			return err
		}
		vals.drop(i)
	}
	var m *clickmodels.Model
	var err error
	if gs != nil {
		m, err = gs.FinalModel(r.ctx, f, i, done, r.cfg.Options)
	} else {
		m, err = f.FinalModel(r.ctx, done, r.cfg.Options)
	}
	if err != nil {
		return err
	}
	sm := clickmodels.ShardModel{Model: m, QueryFirst: p.QueryFirst}
	if ft.first == nil {
		ft.first = m
	}
	if r.spillDir == "" {
		ft.models = append(ft.models, sm)
	} else {
		// Spilling: the model's pairs wait in a pair file, not in memory,
		// to be merged into the outputs.
		path := filepath.Join(r.spillDir, fmt.Sprintf("pairs-%05d", i))
		if err := clickmodels.WritePairFile(path, sm); err != nil {
			return err
		}
		ft.pairFiles = append(ft.pairFiles, path)
	}
	ft.pairs += len(m.PairQuery)
	if err := acc.AddPrepared(m, p.Data, p.Test); err != nil {
		return err
	}
	fs[i] = nil
	return nil
}

// writeModel is the last phase, for one model: it writes its parameter
// and relevance files (merging the shards' pairs) and removes its pair
// files.
func (r *shardRun) writeModel(ft fitted) (*clickmodels.UncertaintyReport, error) {
	switch {
	case ft.loaded != nil:
		return ft.loaded.WriteFilesReport(r.outDir, r.cfg.ParamsFormat)
	case ft.pairFiles != nil:
		unc, err := clickmodels.WriteModelFilesFromPairs(r.outDir, ft.first, ft.pairFiles, ft.pairs, r.cfg.ParamsFormat)
		for _, path := range ft.pairFiles {
			if rerr := os.Remove(path); err == nil {
				err = rerr
			}
		}
		return unc, err
	default:
		return clickmodels.WriteModelFilesReport(r.outDir, ft.models, r.cfg.ParamsFormat)
	}
}

// pairValues keeps the pair values of spilled shards from one pass over
// them to the next (the state an EM iteration passes on): in memory while
// their size stays within budget bytes, the other shards' in a file each
// in dir, rewritten after every pass, so that under a memory limit no
// per-pair state of all shards is ever in memory together.
type pairValues struct {
	dir          string
	budget, held int64
	has, onDisk  []bool // shard i has values; they are in its file
	attr, sat    [][]float64
}

func (v *pairValues) path(i int) string { return filepath.Join(v.dir, fmt.Sprintf("values-%05d", i)) }

// load gives f shard i's values, if a pass has kept any.
func (v *pairValues) load(i int, f *clickmodels.ShardFit) error {
	if !v.has[i] {
		return nil
	}
	if !v.onDisk[i] {
		f.SetPairValues(v.attr[i], v.sat[i])
		return nil
	}
	b, err := os.ReadFile(v.path(i))
	if err != nil {
		return err
	}
	if err := f.UnmarshalPairs(b); err != nil {
		return fmt.Errorf("%s: %w", v.path(i), err)
	}
	return nil
}

// keep stores f's values as shard i's: in memory if they are there
// already or fit in what is left of the budget, else in its file.
func (v *pairValues) keep(i int, f *clickmodels.ShardFit) error {
	attr, sat := f.PairValues()
	if !v.has[i] {
		v.has[i] = true
		sz := 8 * int64(len(attr)+len(sat))
		if v.budget > 0 && v.held+sz > v.budget {
			v.onDisk[i] = true
		} else {
			v.held += sz
		}
	}
	if !v.onDisk[i] {
		v.attr[i], v.sat[i] = attr, sat
		return nil
	}
	return os.WriteFile(v.path(i), f.MarshalPairs(), 0o644)
}

// iterates is the store of accelerated EM's iterates
// (clickmodels.IterateStore) under a memory limit: a shard's three copies
// of its pair values are held in memory while they fit in what is left of
// the pair values' budget (pairValues: the two share it), the others in
// a file per shard and iterate in the pair values' directory; without a
// limit, all in memory.
type iterates struct {
	vals      *pairValues
	dir       func() (string, error) // the directory of the files, made on first use
	dirName   string
	onDisk    map[[2]int]bool // (shard, iterate) in its file
	attr, sat map[[2]int][]float64
}

func (it *iterates) path(k, j int) string {
	return filepath.Join(it.dirName, fmt.Sprintf("iterate%d-%05d", j, k))
}

func (it *iterates) Save(k, j int, attr, sat []float64) error {
	if it.attr == nil {
		it.onDisk, it.attr, it.sat = map[[2]int]bool{}, map[[2]int][]float64{}, map[[2]int][]float64{}
	}
	key := [2]int{k, j}
	if _, held := it.attr[key]; !held && !it.onDisk[key] {
		v := it.vals
		sz := 8 * int64(len(attr)+len(sat))
		if v.budget > 0 && v.held+sz > v.budget {
			dir, err := it.dir()
			if err != nil {
				return err
			}
			it.dirName, it.onDisk[key] = dir, true
		} else {
			v.held += sz
		}
	}
	if it.onDisk[key] {
		return os.WriteFile(it.path(k, j), marshalFloats(attr, sat), 0o644)
	}
	it.attr[key] = append(it.attr[key][:0], attr...)
	it.sat[key] = append(it.sat[key][:0], sat...)
	return nil
}

func (it *iterates) Load(k, j int) ([]float64, []float64, error) {
	key := [2]int{k, j}
	if !it.onDisk[key] {
		return it.attr[key], it.sat[key], nil
	}
	b, err := os.ReadFile(it.path(k, j))
	if err != nil {
		return nil, nil, err
	}
	return unmarshalFloats(b)
}

// remove deletes the iterates' files and gives their memory back to the
// budget.
func (it *iterates) remove() {
	for key, a := range it.attr {
		it.vals.held -= 8 * int64(len(a)+len(it.sat[key]))
	}
	for key := range it.onDisk {
		os.Remove(it.path(key[0], key[1]))
	}
	it.attr, it.sat, it.onDisk = nil, nil, nil
}

// marshalFloats encodes attr and sat as uvarint(len(attr)), then both as
// little-endian float64s.
func marshalFloats(attr, sat []float64) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 10+8*(len(attr)+len(sat))), uint64(len(attr)))
	for _, v := range [][]float64{attr, sat} {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

func unmarshalFloats(b []byte) ([]float64, []float64, error) {
	na, w := binary.Uvarint(b)
	if w <= 0 || (len(b)-w)%8 != 0 || na > uint64((len(b)-w)/8) {
		return nil, nil, fmt.Errorf("outofcore: iterate file of %d bytes", len(b))
	}
	b = b[w:]
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v[:na], v[na:], nil
}

// drop forgets shard i's values.
func (v *pairValues) drop(i int) {
	if v.onDisk[i] {
		os.Remove(v.path(i))
	}
	v.attr[i], v.sat[i] = nil, nil
}

// Size estimates the bytes p holds in memory: its arrays and its names.
func (p *PreparedShard) Size() int64 {
	d, t := p.Data.Parts(), p.Test
	n := 8*len(d.RecOff) + 4*len(d.RecPair) + 16*len(d.RecClicks) + 8*len(d.PairQuery) + 32*len(d.Chunks) +
		16*len(t.Query) + 8*len(t.Offsets) + 4*len(t.DocIDs) + 8*len(p.QueryFirst) +
		4*len(d.RecVar) + 16*len(d.VarWeight) + len(d.VarOrd) + 12*len(t.OrderSERP) + len(t.OrderRanks)
	for _, names := range [][]string{d.Log.Queries.Names, d.Log.Docs.Names} {
		for _, s := range names {
			n += 16 + len(s)
		}
	}
	return int64(n)
}

// gibbsChains holds the Gibbs sampler's chains (clickmodels.GibbsStore)
// under a memory limit as iterates does accelerated EM's: a shard's chain
// in memory while it fits in what is left of the pair values' budget
// (the two share it), the others in a file per shard in the pair values'
// directory, rewritten after every pass; without a limit, all in memory.
type gibbsChains struct {
	vals    *pairValues
	dir     func() (string, error) // the directory of the files, made on first use
	dirName string
	held    map[int]*clickmodels.GibbsChain
	size    map[int]int64 // the bytes a held chain was counted at
	onDisk  map[int]bool
	// The buffers of the chains in files, reused from one to the next:
	// the encoding, the file's bytes and a chain written and done with
	// (spare: given out again by the next Get, whose values it takes).
	wbuf, rbuf []byte
	spare      *clickmodels.GibbsChain
}

func (g *gibbsChains) path(k int) string {
	return filepath.Join(g.dirName, fmt.Sprintf("gibbs-%05d", k))
}

func (g *gibbsChains) Keep(k int, c *clickmodels.GibbsChain) error {
	if g.onDisk == nil {
		g.onDisk, g.size = map[int]bool{}, map[int]int64{}
	}
	v := g.vals
	if _, held := g.held[k]; held {
		// A chain shrinks when it finishes: its budget follows.
		sz := c.Size()
		v.held += sz - g.size[k]
		g.held[k], g.size[k] = c, sz
		return nil
	}
	if !g.onDisk[k] {
		if sz := c.Size(); v.budget <= 0 || v.held+sz <= v.budget {
			v.held += sz
			g.held[k], g.size[k] = c, sz
			return nil
		}
		dir, err := g.dir()
		if err != nil {
			return err
		}
		g.dirName, g.onDisk[k] = dir, true
	}
	b, err := c.AppendBinary(g.wbuf[:0])
	if err != nil {
		return err
	}
	g.wbuf, g.spare = b, c
	return os.WriteFile(g.path(k), b, 0o644)
}

func (g *gibbsChains) Get(k int) (*clickmodels.GibbsChain, error) {
	if !g.onDisk[k] {
		return g.held[k], nil
	}
	f, err := os.Open(g.path(k))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(g.rbuf[:0]) // the last file's bytes, grown as needed
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("%s: %w", g.path(k), err)
	}
	g.rbuf = buf.Bytes()
	c := g.spare
	g.spare = nil
	if c == nil {
		c = &clickmodels.GibbsChain{}
	}
	if err := c.UnmarshalBinary(g.rbuf); err != nil {
		return nil, fmt.Errorf("%s: %w", g.path(k), err)
	}
	return c, nil
}

// remove deletes the chains' files and gives their memory back to the
// budget.
func (g *gibbsChains) remove() {
	for k := range g.held {
		g.vals.held -= g.size[k]
	}
	for k := range g.onDisk {
		os.Remove(g.path(k))
	}
	g.held, g.size, g.onDisk = nil, nil, nil
}

// SubsetMemoryError is the error of a fit whose Gibbs sampler's subset
// of queries (--intervals-from gibbs-subset, or auto where it picks it)
// would not fit in its share of the memory limit
// (membudget.Fit.GibbsSubset, RunConfig.GibbsSubsetBudget): fit.Run's
// by the subset's training SERPs before the shards are prepared,
// RunShards's by their records and pairs once they are, before EM.
type SubsetMemoryError struct {
	Limit, Share int64   // the memory limit and the subset's share of it
	SERPs        float64 // the subset's training SERPs, about
	TrainSERPs   int64   // the log's
	Need         int64   // what the subset would hold, about
	By           string  // what Need was counted from
}

func (e *SubsetMemoryError) Error() string {
	fits := int64(e.SERPs * float64(e.Share) / float64(e.Need))
	return fmt.Sprintf("fit: the Gibbs sampler's subset of queries (--intervals-from gibbs-subset, or auto above %d training SERPs; its size --gibbs-subset-serps, %d if left out), "+
		"about %.0f of the log's %d training SERPs, needs about %s by %s, more than its share of --memory-limit %s (a quarter, %s): "+
		"give --gibbs-subset-serps %d or less, or --memory-limit %s or more",
		clickmodels.AutoGibbsTrainSERPs, clickmodels.GibbsSubsetSERPs, e.SERPs, e.TrainSERPs, bytesize.Format(e.Need), e.By,
		bytesize.Format(e.Limit), bytesize.Format(e.Share), fits, bytesize.Format(membudget.MinFitLimit(e.Need)))
}
