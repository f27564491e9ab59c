package clickmodels

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// PreparedShard is one query shard ready for fitting: its training SERPs
// prepared (Data), its test SERPs (those whose query trains) compactly, and
// the log position of the first SERP of each of its queries, which orders
// the queries of all shards as in the whole log.
type PreparedShard struct {
	Data       *Data
	Test       *sessions.Log // user sessions dropped
	QueryFirst []int64       // by query ID of Data's dictionaries
}

// PrepareShard reads shard i of src and prepares it with R ranks (the
// largest of DefaultRanks and the longest SERP of the whole log).
func PrepareShard(ctx context.Context, src split.Source, i, R int) (*PreparedShard, error) {
	// The training SERPs go straight into the aggregator (only distinct
	// SERPs are kept), the test SERPs into a compact test log; both share
	// one query and one document dictionary. No copy of the shard, no
	// user sessions.
	var qd, dd sessions.Dict
	var agg aggregator
	test := &sessions.Log{Offsets: []int64{0}}
	var first []int64
	var docs []int32
	err := src.Scan(ctx, i, func(pos int64, tr bool, s *sessions.SERP) error {
		if len(s.Results) > sessions.MaxRanks {
			return fmt.Errorf("shard %d, log position %d: %d results, at most %d supported", i, pos, len(s.Results), sessions.MaxRanks)
		}
		var mask uint64
		for _, c := range s.Clicks {
			if c.Rank < 0 || c.Rank >= len(s.Results) {
				return fmt.Errorf("shard %d, log position %d: click rank %d outside SERP of %d results", i, pos, c.Rank, len(s.Results))
			}
			mask |= 1 << uint(c.Rank)
		}
		nq := qd.Len()
		q := qd.ID(s.Query)
		if qd.Len() > nq {
			first = append(first, pos)
		}
		docs = docs[:0]
		for _, r := range s.Results {
			docs = append(docs, dd.ID(r))
		}
		if tr {
			agg.add(q, docs, mask)
			return nil
		}
		test.Query = append(test.Query, q)
		test.DocIDs = append(test.DocIDs, docs...)
		test.Offsets = append(test.Offsets, int64(len(test.DocIDs)))
		test.Clicks = append(test.Clicks, mask)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Keep the test SERPs whose query trains, in place (a filtered copy
	// would hold the shard's test SERPs twice).
	trains := make([]bool, qd.Len())
	for _, q := range agg.recQuery {
		trains[q] = true
	}
	test.Queries, test.Docs = qd, dd
	n, nd := 0, int64(0)
	for j, q := range test.Query {
		if !trains[q] {
			continue
		}
		lo, hi := test.Offsets[j], test.Offsets[j+1]
		test.Query[n], test.Clicks[n] = q, test.Clicks[j]
		nd += int64(copy(test.DocIDs[nd:], test.DocIDs[lo:hi]))
		test.Offsets[n+1] = nd
		n++
	}
	test.Query, test.Clicks = slices.Clip(test.Query[:n]), slices.Clip(test.Clicks[:n])
	test.Offsets, test.DocIDs = slices.Clip(test.Offsets[:n+1]), slices.Clip(test.DocIDs[:nd])
	d, err := agg.data(qd, dd, R)
	if err != nil {
		return nil, err
	}
	// From here on IDs only turn back into names: drop the string indexes
	// (the largest part of a shard's dictionaries) from every copy.
	for _, dc := range []*sessions.Dict{&d.log.Queries, &d.log.Docs, &test.Queries, &test.Docs} {
		dc.DropIndex()
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
func RunShards(ctx context.Context, src split.Source, cfg RunConfig, outDir string) ([]Report, error) {
	serps, trainSERPs, maxRanks, kind := src.Info()
	if cfg.Split != "" && cfg.Split != kind {
		return nil, fmt.Errorf("the shards were split with %q, not %q: reshard with --split %s", kind, cfg.Split, cfg.Split)
	}
	if trainSERPs == 0 {
		return nil, fmt.Errorf("no training sessions (log has %d)", serps)
	}
	R := max(DefaultRanks, maxRanks)
	n := src.NumShards()
	logMemAt := func(level slog.Level, msg string, args ...any) {
		if cfg.Log == nil {
			return
		}
		args = append(args, "memory_in_use", bytesize.Format(memInUse()))
		if cfg.MemoryLimit > 0 {
			args = append(args, "memory_limit", bytesize.Format(cfg.MemoryLimit))
		}
		cfg.Log.Log(ctx, level, msg, args...)
	}
	logMem := func(msg string, args ...any) { logMemAt(slog.LevelInfo, msg, args...) }
	logEvery := max(1, n/10)
	if on := cfg.OnIteration; cfg.Log != nil {
		cfg.OnIteration = func(it int, ll float64) {
			if on != nil {
				on(it, ll)
			}
			if it%10 == 0 {
				logMemAt(slog.LevelDebug, "EM iteration", "iteration", it) // a detail: shown with -v
			}
		}
	}
	// Under a budget (PreparedBudget), prepared shards are held in memory
	// while their estimated size (PreparedShard.size) stays within it;
	// the others go to prepared-shard files in a temporary
	// directory under outDir and are read back for every pass over them,
	// so that one of them at a time is in memory. The pair values of all
	// shards stay in memory (docs/scale.md, "Out of core").
	var spillDir string
	ps := make([]*PreparedShard, n) // nil: spilled
	shardPath := func(i int) string { return filepath.Join(spillDir, fmt.Sprintf("shard-%05d.prep", i)) }
	// shard returns prepared shard i, from memory or from its file.
	shard := func(i int) (*PreparedShard, error) {
		if ps[i] != nil {
			return ps[i], nil
		}
		return ReadPreparedShardFile(shardPath(i))
	}
	var prepSec float64
	var testN, records, spilled int
	var heldBytes int64
	budget := cfg.PreparedBudget
	t0 := time.Now()
	for i := range n {
		p, err := PrepareShard(ctx, src, i, R)
		if err != nil {
			return nil, err
		}
		testN += p.Test.Len()
		records += p.Data.Records()
		if sz := p.size(); budget <= 0 || heldBytes+sz <= budget {
			ps[i], heldBytes = p, heldBytes+sz
		} else {
			if spillDir == "" {
				if err := os.MkdirAll(outDir, 0o755); err != nil {
					return nil, err
				}
				dir, err := os.MkdirTemp(outDir, ".prepared-")
				if err != nil {
					return nil, err
				}
				defer os.RemoveAll(dir)
				spillDir = dir
			}
			if err := WritePreparedShardFile(shardPath(i), p); err != nil {
				return nil, err
			}
			spilled++
		}
		if cfg.OnShard != nil {
			cfg.OnShard(i+1, n)
		}
		if (i+1)%logEvery == 0 || i+1 == n {
			logMem("shard prepared", "shard", i+1, "of", n, "records", p.Data.Records())
		}
	}
	prepSec = time.Since(t0).Seconds()
	if spilled > 0 {
		logMem("prepared shards spilled to files", "spilled", spilled, "held", n-spilled, "held_bytes", heldBytes)
	}
	if testN == 0 {
		return nil, fmt.Errorf("no test sessions whose query occurs in training (log has %d sessions)", serps)
	}
	reports := make([]Report, 0, len(cfg.Kinds))
	type fitted struct {
		kind   Kind
		models []ShardModel // per shard (nil with LoadDir or when spilling)
		loaded *Model
		// first is shard 0's model (the header of the files); pairFiles
		// hold the shards' pairs when spilling; pairs counts them.
		first     *Model
		pairFiles []string
		pairs     int
	}
	for _, k := range cfg.Kinds {
		if cfg.OnModel != nil {
			cfg.OnModel(k)
		}
		rep := Report{Model: k.String(), Split: kind, TrainSessions: int(trainSERPs)}
		ft := fitted{kind: k}
		var acc EvalSums
		if cfg.LoadDir != "" {
			path := ParamsPath(cfg.LoadDir, k)
			m, err := LoadModel(path)
			if err != nil {
				return nil, err
			}
			if m.Kind != k {
				return nil, fmt.Errorf("%s: holds a %v model", path, m.Kind)
			}
			for i := range n {
				p, err := shard(i)
				if err != nil {
					return nil, err
				}
				if err := acc.Add(m, p.Test); err != nil {
					return nil, err
				}
			}
			rep.Loaded, rep.Iterations, rep.Exact = true, m.Iterations, m.Exact
			ft.loaded = m
		} else {
			t0 := time.Now()
			iters := cfg.Iterations
			if iters <= 0 {
				iters = DefaultIterations
			}
			if !k.EM() {
				iters = 1
			}
			global := filled(k.GlobalParams(R), Unseen)
			// A held shard keeps its fitter; a spilled shard's fitter is
			// built from its file for every pass and dropped after it,
			// keeping only its pair values, the state one iteration
			// passes to the next.
			fs := make([]*fitter, n)
			vals := &pairValues{dir: spillDir, budget: budget, has: make([]bool, n), onDisk: make([]bool, n),
				attr: make([][]float64, n), sat: make([][]float64, n)}
			for i, p := range ps {
				if p != nil {
					fs[i] = newFitter(ctx, p.Data, k, cfg.Options, global, true)
				}
			}
			var scratch *Data // arrays of the last spilled shard read
			each := func(fn func(*fitter)) error {
				for i := range n {
					if f := fs[i]; f != nil {
						fn(f)
						continue
					}
					// The E-step needs the training data only; the
					// shard is decoded into the arrays of the one
					// before, whose fitter is gone.
					p, err := readPreparedShardFile(shardPath(i), false, scratch)
					if err != nil {
						return err
					}
					scratch = p.Data
					f := newFitter(ctx, p.Data, k, cfg.Options, global, true)
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
			done, err := fitLoop(ctx, each, R, k, cfg.Options, global, iters, int(trainSERPs))
			if err != nil {
				return nil, fmt.Errorf("fit %v: %w", k, err)
			}
			for i := range n {
				f, p := fs[i], ps[i]
				if f == nil {
					if p, err = shard(i); err != nil {
						return nil, err
					}
					f = newFitter(ctx, p.Data, k, cfg.Options, global, false)
					if err := vals.load(i, f); err != nil {
						return nil, err
					}
					vals.drop(i)
				}
				m := f.model(done)
				m.Evidence = f.evidence(ctx, cfg.level())
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				sm := ShardModel{Model: m, QueryFirst: p.QueryFirst}
				if ft.first == nil {
					ft.first = m
				}
				if spillDir == "" {
					ft.models = append(ft.models, sm)
				} else {
					// Spilling: the model's pairs wait in a pair file,
					// not in memory, to be merged into the outputs.
					path := filepath.Join(spillDir, fmt.Sprintf("pairs-%05d", i))
					if err := writePairFile(path, sm); err != nil {
						return nil, err
					}
					ft.pairFiles = append(ft.pairFiles, path)
				}
				ft.pairs += len(m.PairQuery)
				if err := acc.addShard(m, p.Data, p.Test); err != nil {
					return nil, err
				}
				fs[i] = nil
			}
			rep.FitSeconds = time.Since(t0).Seconds()
			rep.PrepareSeconds = prepSec
			rep.TrainRecords = records
			rep.Iterations, rep.Exact = done, ft.first.Exact
		}
		logMem("model fitted", "model", k.String())
		met, err := acc.Metrics(k)
		if err != nil {
			return nil, err
		}
		rep.Metrics = met
		reports = append(reports, rep)
		// Written now, so that the model's pair values need not be held
		// while the next model fits.
		var unc *UncertaintyReport
		switch {
		case ft.loaded != nil:
			unc, err = ft.loaded.writeFiles(outDir, cfg.ParamsFormat)
		case ft.pairFiles != nil:
			unc, err = writeModelFiles(outDir, func() *pairWriter { return spilledPairs(ft.first, ft.pairFiles) }, ft.pairs, cfg.ParamsFormat)
			for _, path := range ft.pairFiles {
				if rerr := os.Remove(path); err == nil {
					err = rerr
				}
			}
		default:
			unc, err = WriteModelFilesReport(outDir, ft.models, cfg.ParamsFormat)
		}
		if err != nil {
			return nil, err
		}
		reports[len(reports)-1].Uncertainty = unc
	}
	FinishReports(reports)
	return reports, WriteMetrics(outDir, reports)
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
func (v *pairValues) load(i int, f *fitter) error {
	if !v.has[i] {
		return nil
	}
	if !v.onDisk[i] {
		f.attr, f.sat = v.attr[i], v.sat[i]
		return nil
	}
	b, err := os.ReadFile(v.path(i))
	if err != nil {
		return err
	}
	if len(b) != 8*(len(f.attr)+len(f.sat)) {
		return fmt.Errorf("%s: %d bytes for %d pair values", v.path(i), len(b), len(f.attr)+len(f.sat))
	}
	for _, x := range [][]float64{f.attr, f.sat} {
		for j := range x {
			x[j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
	}
	return nil
}

// keep stores f's values as shard i's: in memory if they are there
// already or fit in what is left of the budget, else in its file.
func (v *pairValues) keep(i int, f *fitter) error {
	if !v.has[i] {
		v.has[i] = true
		sz := 8 * int64(len(f.attr)+len(f.sat))
		if v.budget > 0 && v.held+sz > v.budget {
			v.onDisk[i] = true
		} else {
			v.held += sz
		}
	}
	if !v.onDisk[i] {
		v.attr[i], v.sat[i] = f.attr, f.sat
		return nil
	}
	b := make([]byte, 0, 8*(len(f.attr)+len(f.sat)))
	for _, x := range [][]float64{f.attr, f.sat} {
		for _, y := range x {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(y))
		}
	}
	return os.WriteFile(v.path(i), b, 0o644)
}

// drop forgets shard i's values.
func (v *pairValues) drop(i int) {
	if v.onDisk[i] {
		os.Remove(v.path(i))
	}
	v.attr[i], v.sat[i] = nil, nil
}

// firstPositions orders a single model's queries as they are.
func firstPositions(m *Model) []int64 {
	q := make([]int64, len(m.QueryNames))
	for i := range q {
		q[i] = int64(i)
	}
	return q
}

// mergedPairs yields the pairs of the per-shard models in the order of the
// whole log's fit: queries by the log position of their first SERP, each
// query's pairs in its shard's order.
func mergedPairs(parts []ShardModel) *pairWriter {
	pw := shardPairWriter(parts[0].Model)
	pw.pairs = func(yield func(q, d string, v *pairVal) bool) {
		cs := make([]pairCursor, len(parts))
		for i, pt := range parts {
			cs[i] = &modelCursor{sm: pt}
		}
		mergePairs(cs, yield)
	}
	return pw
}

// shardPairWriter is a pairWriter with the header of m0, one of the
// shard models of a fit, and no pairs yet.
func shardPairWriter(m0 *Model) *pairWriter {
	pw := &pairWriter{
		kind: m0.Kind, ranks: m0.Ranks, iterations: m0.Iterations, exact: m0.Exact, global: m0.Global,
		hasAttr: m0.Attr != nil, hasSat: m0.Sat != nil,
	}
	if m0.Evidence != nil {
		pw.hasEv, pw.level = true, m0.Evidence.Level
	}
	return pw
}

// spilledPairs is mergedPairs over pair files (writePairFile); a read
// error stops the pairs and is returned by the writer.
func spilledPairs(m0 *Model, paths []string) *pairWriter {
	pw := shardPairWriter(m0)
	var readErr error
	pw.err = func() error { return readErr }
	pw.pairs = func(yield func(q, d string, v *pairVal) bool) {
		readErr = nil // each pass reads the files afresh
		cs := make([]pairCursor, 0, len(paths))
		for _, path := range paths {
			c, f, err := openPairFile(path, pw.hasAttr, pw.hasSat, pw.hasEv, &readErr)
			if err != nil {
				readErr = err
				return
			}
			defer f.Close()
			cs = append(cs, c)
		}
		if readErr == nil {
			mergePairs(cs, yield)
		}
	}
	return pw
}

// memInUse is the memory the Go runtime holds from the OS (all classes,
// minus heap returned to the OS): close to the resident set size.
func memInUse() int64 {
	ss := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ss)
	return int64(ss[0].Value.Uint64()) - int64(ss[1].Value.Uint64())
}

// size estimates the bytes p holds: its arrays and its names.
func (p *PreparedShard) size() int64 {
	d, t := p.Data, p.Test
	n := 8*len(d.recOff) + 4*len(d.recPair) + 16*len(d.recClicks) + 8*len(d.pairQuery) + 32*len(d.chunks) +
		16*len(t.Query) + 8*len(t.Offsets) + 4*len(t.DocIDs) + 8*len(p.QueryFirst)
	for _, names := range [][]string{d.log.Queries.Names, d.log.Docs.Names} {
		for _, s := range names {
			n += 16 + len(s)
		}
	}
	return int64(n)
}
