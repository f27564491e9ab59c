package lbbeam

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamstate "github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

func init() {
	register.DoFn8x1[context.Context, beamstate.Provider, int, func(*[]byte) bool, func(*PartResult) bool, []byte, func(*[]byte) bool, func(ShardSummary), error](&writeShardFn{})
	register.DoFn4x1[int, int, func(*PartResult) bool, func([]byte), error](&trainBitsFn{})
	register.DoFn4x1[int, []byte, func(*PartResult) bool, func([]byte), error](&startedFn{})
	register.Iter1[[]byte]()
	register.Iter1[PartResult]()
	register.Iter1[ShardSummary]()
	register.Emitter1[ShardSummary]()
	register.DoFn6x1[context.Context, beamstate.Provider, int, int, func(*PartResult) bool, func(*PartLines) bool, error](&writeReportFn{})
	register.DoFn6x1[context.Context, beamstate.Provider, int, int, func(*ShardSummary) bool, func(*PartResult) bool, error](&writeManifestFn{})
}

// ShardOptions configure the ingest-and-shard pipeline.
type ShardOptions struct {
	// Logs are the Yandex log files, plain or gzip, in log order; like
	// OutDir, local paths or URLs of a registered Beam file system.
	Logs []string
	// Shards is the number of query shards; OutDir receives the shard
	// files, report.json and quarantine.jsonl.
	Shards int
	OutDir string
	// PartSize is the size in bytes of the parts plain files are cut
	// into (at session boundaries); 0 selects DefaultPartSize.
	PartSize int64
	// Blacklist, FullSERP and MaxLine are ingest's options.
	Blacklist []string
	FullSERP  int
	MaxLine   int
	// Split gives every SERP its train flag, as lovbench shard does
	// (spec, random or time).
	Split shards.SplitConfig
	// PIISalt keys the session-ID pseudonymisation, as ingest --pii-salt.
	// Every worker needs the same key: when it is empty (and
	// KeepSessionIDs is false) BuildShard draws 32 random bytes for the
	// run. The key travels inside the pipeline's serialised steps (the
	// runner sees it) and is written in no output.
	PIISalt        []byte
	KeepSessionIDs bool
	// DropClickless drops the sessions without a click, as lovbench
	// ingest --drop-clickless (ingest.Config.DropClickless); by default
	// they are kept as evidence for the click models.
	DropClickless bool
	// AsRead reads the log as lovbench fit --log does (PyClick's reading,
	// sessions.ScanYandex: every Q line a SERP, a malformed line an
	// error) instead of cleaning it as lovbench ingest does; nothing is
	// dropped or pseudonymised, and no report.json or quarantine.jsonl is
	// written. lovbench-beam fit --log shards this way, so that it fits
	// what lovbench fit --log fits.
	AsRead bool
}

// DefaultPartSize is the default size of a part of a plain log file.
const DefaultPartSize = 64 << 20

// BuildShard adds the ingest-and-shard pipeline to scope s:
//
//	parts -> count lines -> clean (lines as side input) -> SERPs keyed by shard
//	      -> group by shard -> write one shard file each
//	      -> part results (reports, quarantine) -> one report.json, quarantine.jsonl
//
// The parts are planned here, at construction time, by reading a few lines
// around each cut point of each file.
func BuildShard(s beam.Scope, o ShardOptions) error {
	if o.Shards < 1 {
		return fmt.Errorf("shards must be at least 1, got %d", o.Shards)
	}
	if len(o.Logs) == 0 {
		return errors.New("no input log")
	}
	if o.OutDir == "" {
		return errors.New("no output directory")
	}
	if err := CheckPath(o.OutDir); err != nil {
		return err
	}
	var err error
	if o.Split.Split, err = split.Parse(string(o.Split.Split)); err != nil {
		return err
	}
	if o.Split.TrainFraction, err = split.TrainFraction(o.Split.TrainFraction); err != nil {
		return err
	}
	if o.PartSize <= 0 {
		o.PartSize = DefaultPartSize
	}
	if !o.KeepSessionIDs && !o.AsRead && len(o.PIISalt) == 0 {
		o.PIISalt = make([]byte, 32)
		if _, err := rand.Read(o.PIISalt); err != nil {
			return err
		}
	}
	parts, err := PlanParts(o.Logs, o.PartSize, o.MaxLine)
	if err != nil {
		return err
	}
	s = s.Scope("lovbench.shard")
	pc := beam.ParDo(s, keyPart, beam.CreateList(s, parts))
	lines := beam.ParDo(s, &countLinesFn{Keyed: keyedState()}, pc)
	serps, results := beam.ParDo2(s, &cleanFn{Shards: o.Shards, Blacklist: o.Blacklist, FullSERP: o.FullSERP, MaxLine: o.MaxLine,
		PIISalt: o.PIISalt, KeepSessionIDs: o.KeepSessionIDs, DropClickless: o.DropClickless, AsRead: o.AsRead, Keyed: keyedState()},
		pc, beam.SideInput{Input: lines})
	grouped := beam.GroupByKey(s, serps)
	one := beam.ParDo(s, selfKeyed, beam.Create(s, 0)) // keyed for the stateful writers
	bits := beam.ParDo(s, &trainBitsFn{Split: o.Split}, one, beam.SideInput{Input: results})
	// The time split: a SERP after the cut trains iff its user session
	// started before it, which the shard writers learn from the keys of
	// the sessions with a SERP before the cut (any shard's).
	var started beam.PCollection
	if o.Split.Split == split.Time {
		started = beam.ParDo(s, &startedFn{TrainFraction: o.Split.TrainFraction}, serps, beam.SideInput{Input: results})
	} else {
		started = beam.CreateList(s, [][]byte{})
	}
	sums := beam.ParDo(s, &writeShardFn{Dir: o.OutDir, Shards: o.Shards, Time: o.Split.Split == split.Time, TrainFraction: o.Split.TrainFraction, Keyed: keyedState()}, grouped,
		beam.SideInput{Input: results}, beam.SideInput{Input: bits}, beam.SideInput{Input: started})
	if !o.AsRead {
		beam.ParDo0(s, &writeReportFn{Dir: o.OutDir, Logs: o.Logs, Keyed: keyedState()}, one, beam.SideInput{Input: results}, beam.SideInput{Input: lines})
	}
	beam.ParDo0(s, &writeManifestFn{Dir: o.OutDir, Shards: o.Shards, Split: o.Split, Source: baseName(o.Logs[0]), Keyed: keyedState()},
		one, beam.SideInput{Input: sums}, beam.SideInput{Input: results})
	return nil
}

// writeReportFn merges the parts' reports and quarantine lines, in part
// order, into report.json and quarantine.jsonl.
type writeReportFn struct {
	Dir   string
	Logs  []string
	Keyed beamstate.Value[bool] // never used: see keyedState
}

func (f *writeReportFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _, _ int, results func(*PartResult) bool, lines func(*PartLines) bool) error {
	var all []PartResult
	var r PartResult
	for results(&r) {
		all = append(all, r)
	}
	perFile := make([]int, len(f.Logs))
	var pl PartLines
	for lines(&pl) {
		perFile[pl.FileIndex] += pl.Lines
	}
	inputs := make([]ingest.InputFile, len(f.Logs))
	for i, l := range f.Logs {
		inputs[i] = ingest.InputFile{Role: "log", Path: l, Lines: perFile[i]}
	}
	rep, quar, err := mergeResults(all, inputs)
	if err != nil {
		return err
	}
	if err := writeBytes(ctx, JoinPath(f.Dir, ingest.QuarantineFile), quar); err != nil {
		return err
	}
	return writeFile(ctx, JoinPath(f.Dir, ingest.ReportFile), rep.WriteJSON)
}

// ShardSummary is what writing one shard file reports.
type ShardSummary struct {
	Shard      int
	SERPs      int64
	TrainSERPs int64
}

// placement turns the parts' results into the global position of each
// part's first SERP and the log's totals.
type placement struct {
	offset   []int64 // by part index
	total    int64
	maxRanks int
}

func place(results func(*PartResult) bool) placement {
	var all []PartResult
	var r PartResult
	for results(&r) {
		all = append(all, PartResult{Index: r.Index, Kept: r.Kept, MaxRanks: r.MaxRanks})
	}
	slices.SortFunc(all, func(a, b PartResult) int { return a.Index - b.Index })
	pl := placement{offset: make([]int64, len(all))}
	for i, r := range all {
		pl.offset[i] = pl.total
		pl.total += int64(r.Kept)
		pl.maxRanks = max(pl.maxRanks, r.MaxRanks)
	}
	return pl
}

// trainBitsFn computes the train flag of every position of the log once
// (shards.TrainFlags: for the random split a permutation of the whole log)
// and hands it to every shard writer as a bitmap side input. The time
// split's flags come from the user sessions instead (startedFn): its
// bitmap is empty.
type trainBitsFn struct {
	Split shards.SplitConfig
}

func (f *trainBitsFn) ProcessElement(_, _ int, results func(*PartResult) bool, emit func([]byte)) error {
	pl := place(results)
	if f.Split.Split == split.Time {
		emit(nil)
		return nil
	}
	train, err := shards.TrainFlags(f.Split, pl.total)
	if err != nil {
		return err
	}
	bits := make([]byte, (pl.total+7)/8)
	for pos := range pl.total {
		if train(pos) {
			bits[pos/8] |= 1 << (pos % 8)
		}
	}
	emit(bits)
	return nil
}

// startedFn emits the session key (shards.SessionKey, 16 bytes) of every
// SERP before the time split's cut. The parts' placement is computed once
// per DoFn instance.
type startedFn struct {
	TrainFraction float64
	pl            *placement
	ts            *split.TimeSplit[[2]uint64] // for its cut
}

func (f *startedFn) ProcessElement(_ int, b []byte, results func(*PartResult) bool, emit func([]byte)) error {
	if f.ts == nil {
		pl := place(results)
		f.pl, f.ts = &pl, split.NewTimeSplit[[2]uint64](pl.total, f.TrainFraction)
	}
	return eachSERP(b, func(part, ord int, s *sessions.SERP) error {
		if part >= len(f.pl.offset) {
			return fmt.Errorf("lbbeam: SERP of unknown part %d", part)
		}
		if f.ts.Before(f.pl.offset[part] + int64(ord)) {
			k := shards.SessionKey(s.SessionID)
			out := binary.LittleEndian.AppendUint64(nil, k[0])
			emit(binary.LittleEndian.AppendUint64(out, k[1]))
		}
		return nil
	})
}

// writeShardFn writes one shard file: the shard's SERPs in log order, each
// with its position in the whole log and its train flag.
type writeShardFn struct {
	Dir    string
	Shards int
	// Time: the time split, whose train flags come from the sessions
	// begun before the cut (started) instead of the bitmap.
	Time          bool
	TrainFraction float64
	Keyed         beamstate.Value[bool] // never used: see keyedState
}

func (f *writeShardFn) ProcessElement(ctx context.Context, _ beamstate.Provider, shard int, recs func(*[]byte) bool, results func(*PartResult) bool, bits []byte, started func(*[]byte) bool, emit func(ShardSummary)) error {
	pl := place(results)
	var ts *split.TimeSplit[[2]uint64]
	if f.Time {
		ts = split.NewTimeSplit[[2]uint64](pl.total, f.TrainFraction)
		var k []byte
		for started(&k) {
			if len(k) != 16 {
				return fmt.Errorf("lbbeam: session key of %d bytes", len(k))
			}
			ts.Start([2]uint64{binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[8:])})
		}
	}
	type rec struct {
		pos  int64
		serp sessions.SERP
	}
	var rs []rec
	var b []byte
	for recs(&b) {
		err := eachSERP(b, func(part, ord int, s *sessions.SERP) error {
			if part >= len(pl.offset) {
				return fmt.Errorf("lbbeam: SERP of unknown part %d", part)
			}
			rs = append(rs, rec{pos: pl.offset[part] + int64(ord), serp: *s})
			return nil
		})
		if err != nil {
			return err
		}
	}
	slices.SortFunc(rs, func(a, b rec) int { return cmp.Compare(a.pos, b.pos) })
	sum := ShardSummary{Shard: shard, SERPs: int64(len(rs))}
	err := writeFile(ctx, JoinPath(f.Dir, shards.FileName(shard, f.Shards)), func(out io.Writer) error {
		w := shards.NewWriter(out)
		var row shards.Row
		for i := range rs {
			if err := ctx.Err(); err != nil {
				return err
			}
			rowFromSERP(&row, rs[i].pos, &rs[i].serp)
			if ts != nil {
				row.Train = ts.Train(row.Pos, shards.SessionKey(row.SessionID))
			} else {
				row.Train = bits[row.Pos/8]&(1<<(row.Pos%8)) != 0
			}
			if row.Train {
				sum.TrainSERPs++
			}
			if err := w.Write(&row); err != nil {
				return err
			}
		}
		return w.Close()
	})
	if err != nil {
		return err
	}
	emit(sum)
	return nil
}

// writeManifestFn writes the files of shards that received no SERP (a
// shard file always exists, possibly with no rows), then the manifest.
type writeManifestFn struct {
	Dir    string
	Shards int
	Split  shards.SplitConfig
	Source string
	Keyed  beamstate.Value[bool] // never used: see keyedState
}

func (f *writeManifestFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _, _ int, sums func(*ShardSummary) bool, results func(*PartResult) bool) error {
	pl := place(results)
	seen := make([]bool, f.Shards)
	m := shards.Manifest{Format: shards.Format, Shards: f.Shards, Hash: "fnv1a64", SERPs: pl.total,
		MaxRanks: pl.maxRanks, Split: f.Split.Split, TrainFraction: f.Split.TrainFraction, Source: f.Source}
	if m.Split == split.Random {
		m.Seed = f.Split.Seed
	}
	var s ShardSummary
	for sums(&s) {
		seen[s.Shard] = true
		m.TrainSERPs += s.TrainSERPs
	}
	for i, ok := range seen {
		if ok {
			continue
		}
		err := writeFile(ctx, JoinPath(f.Dir, shards.FileName(i, f.Shards)), func(out io.Writer) error {
			return shards.NewWriter(out).Close()
		})
		if err != nil {
			return err
		}
	}
	err := stageDir(ctx, f.Dir, func(dir string) error { return shards.WriteManifest(dir, m) })
	return err
}

// rowFromSERP fills a shard row from a kept SERP, as shards.Write does.
func rowFromSERP(row *shards.Row, pos int64, s *sessions.SERP) {
	row.Pos, row.SessionID, row.SERPIndex, row.Query, row.Results = pos, s.SessionID, int32(s.Index), s.Query, s.Results
	row.ClickRanks = shards.RowClicks(row.ClickRanks[:0], s.Clicks)
}
