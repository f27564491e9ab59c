package lbbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

	beamstate "github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/shards"
)

func init() {
	register.DoFn5x1[context.Context, beamstate.Provider, int, Part, func(PartLines), error](&countLinesFn{})
	register.Function1x2(keyPart)
	register.Emitter1[PartLines]()
	register.DoFn7x1[context.Context, beamstate.Provider, int, Part, func(*PartLines) bool, func(int, []byte), func(PartResult), error](&cleanFn{})
	register.Emitter2[int, []byte]()
	register.Emitter1[PartResult]()
	register.Iter1[PartLines]()
}

// keyPart keys a part by its index, the input the stateful countLinesFn
// and cleanFn need (keyedState).
func keyPart(p Part) (int, Part) { return p.Index, p }

// PartLines is the number of lines of a part.
type PartLines struct {
	Index     int
	FileIndex int
	Lines     int
}

// countLinesFn counts the lines of each part, so that the cleaning step can
// give every quarantined line its line number in the file.
type countLinesFn struct {
	Keyed beamstate.Value[bool] // never used: see keyedState
}

func (*countLinesFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _ int, p Part, emit func(PartLines)) error {
	r, err := partReader(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := ingest.CountLines(r)
	if err != nil {
		return fmt.Errorf("%s: %w", p.File, err)
	}
	emit(PartLines{Index: p.Index, FileIndex: p.FileIndex, Lines: n})
	return nil
}

// PartResult is what cleaning one part gives besides its SERPs: the part's
// report (JSON), its quarantine lines and the number of SERPs it kept.
type PartResult struct {
	Index      int
	Report     []byte
	Quarantine []byte
	Kept       int
	// MaxRanks is the longest kept SERP of the part.
	MaxRanks int
}

// cleanFn cleans a part with ingest's cleaner and emits its kept SERPs,
// encoded with their places in the log, in batches keyed by query shard
// (batcher).
type cleanFn struct {
	Keyed     beamstate.Value[bool] // never used: see keyedState
	Shards    int
	Blacklist []string
	FullSERP  int
	MaxLine   int
	// PIISalt and KeepSessionIDs: ingest's session-ID pseudonymisation.
	PIISalt        []byte
	KeepSessionIDs bool
	DropClickless  bool // ingest.PartOptions.DropClickless
	// AsRead: read the part as lovbench fit --log does (readPart).
	AsRead bool
}

func (f *cleanFn) ProcessElement(ctx context.Context, _ beamstate.Provider, _ int, p Part, lines func(*PartLines) bool, emit func(int, []byte), result func(PartResult)) error {
	first := 1
	var pl PartLines
	for lines(&pl) {
		if pl.FileIndex == p.FileIndex && pl.Index < p.Index {
			first += pl.Lines
		}
	}
	r, err := partReader(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	if f.AsRead {
		return f.readPart(ctx, p, r, emit, result)
	}
	var (
		quar bytes.Buffer
		ord  int
		maxR int
		bt   = newBatcher(f.Shards, emit)
	)
	rep, err := ingest.CleanYandexPart(ctx, r, ingest.PartOptions{
		File: p.File, FirstLine: first, Blacklist: f.Blacklist, FullSERP: f.FullSERP, MaxLine: f.MaxLine,
		PIISalt: f.PIISalt, KeepSessionIDs: f.KeepSessionIDs, DropClickless: f.DropClickless,
	}, &quar, func(serps []sessions.SERP) error {
		for i := range serps {
			bt.add(shards.Of(serps[i].Query, f.Shards), p.Index, ord, &serps[i])
			maxR = max(maxR, len(serps[i].Results))
			ord++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s (bytes %d-%d): %w", p.File, p.Start, p.End, err)
	}
	bt.flush()
	var rb bytes.Buffer
	if err := rep.WriteJSON(&rb); err != nil {
		return err
	}
	result(PartResult{Index: p.Index, Report: rb.Bytes(), Quarantine: quar.Bytes(), Kept: ord, MaxRanks: maxR})
	return nil
}

// readPart is ProcessElement under AsRead: the part read as lovbench fit
// --log reads a log (sessions.ScanYandexClicks, strict), every SERP
// emitted as it is, its clicks with their times (the click order). A part is a run of whole sessions, so a click line finds the
// same latest SERP as in the whole log. The part's result has no report
// and no quarantine.
func (f *cleanFn) readPart(ctx context.Context, p Part, r io.Reader, emit func(int, []byte), result func(PartResult)) error {
	var (
		ord  int
		maxR int
		s    sessions.SERP
		idx  = map[string]int{}
		bt   = newBatcher(f.Shards, emit)
	)
	_, err := sessions.ScanYandexClicks(r, p.File, true, func(session, query string, results []string, clicks []sessions.Click) error {
		if ord%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.SessionID, s.Index, s.Query, s.Results = session, idx[session], query, results
		idx[session]++
		s.Clicks = append(s.Clicks[:0], clicks...)
		bt.add(shards.Of(query, f.Shards), p.Index, ord, &s)
		maxR = max(maxR, len(results))
		ord++
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s (bytes %d-%d): %w", p.File, p.Start, p.End, err)
	}
	bt.flush()
	result(PartResult{Index: p.Index, Kept: ord, MaxRanks: maxR})
	return nil
}

// mergeResults merges the part reports in part order into ingest's report
// and concatenates the quarantine lines in the same order.
func mergeResults(results []PartResult, inputs []ingest.InputFile) (*ingest.Report, []byte, error) {
	sort.Slice(results, func(i, j int) bool { return results[i].Index < results[j].Index })
	reps := make([]*ingest.Report, len(results))
	var quar bytes.Buffer
	for i, r := range results {
		if r.Index != i {
			return nil, nil, fmt.Errorf("lbbeam: part %d missing from the results", i)
		}
		rep, err := ingest.DecodeReport(bytes.NewReader(r.Report), fmt.Sprintf("part %d report", i))
		if err != nil {
			return nil, nil, err
		}
		reps[i] = rep
		quar.Write(r.Quarantine)
	}
	rep, err := ingest.MergeReports(reps, inputs)
	return rep, quar.Bytes(), err
}
