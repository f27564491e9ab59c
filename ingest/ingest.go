// Package ingest turns raw search logs into clean search sessions: it reads
// LOV raw event logs (a query file and a click file, JSON lines) or Yandex
// relevance-prediction logs, plain or gzip, streams them, applies the
// LOVBench cleaning rules in order (docs/method.md section 2; LOVBench paper,
// section 4.1: drop sessions without clicks, queries with personal
// information and queries beyond the first SERP), and writes
// sessions.parquet, clean.yandex.tsv, report.json and quarantine.jsonl.
//
// Every input line is accounted for exactly once in the report: as a blank
// line, a quarantined record (unparseable or bad field, with its reason), an
// event dropped by a numbered cleaning rule, or a kept query or click.
// Personal data found by ingest/pii is dropped and counted by detector; its
// text never reaches an output, a log line or an error message.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// Output file names inside the output directory.
const (
	SessionsFile   = sessions.ParquetName
	YandexFile     = "clean.yandex.tsv"
	ReportFile     = "report.json"
	QuarantineFile = "quarantine.jsonl"
)

// OutputNames are the name patterns of an ingest output directory's files
// besides its report (atomicfile.CreateDir's names): what its index may
// list. By shape rather than one by one, so that a file ingest comes to
// write is not refused on a rerun.
var OutputNames = []string{"*.parquet", "*.tsv", "*.jsonl", "*.json"}

// Input formats.
const (
	FormatLOV    = "lov"
	FormatYandex = "yandex"
)

// Search kinds of LOV logs.
const (
	KindTerm  = "term"
	KindVocab = "vocab"
)

// Defaults.
const (
	DefaultSessionIdle = 30 * time.Minute       // LOV: a session ends after this long without events
	DefaultMaxLine     = sessions.MaxYandexLine // longer lines are quarantined as line_too_long; fit --log uses the same limit
)

// DefaultConfig returns the ingest stage's defaults: LOV's event logs
// (FormatLOV) of term searches (KindTerm), DefaultSessionIdle,
// DefaultMaxLine, and LOVBench's cleaning rules as written (click-less
// sessions dropped).
func DefaultConfig() Config {
	return Config{Format: FormatLOV, Kind: KindTerm, SessionIdle: DefaultSessionIdle, MaxLine: DefaultMaxLine}
}

// Config is one run of the ingest stage (`lovbench ingest`, the
// pipeline's ingest stage); Run's outputs are the files YandexFile,
// ReportFile, QuarantineFile and sessions.ParquetName of OutDir.
type Config struct {
	Format  string // FormatLOV or FormatYandex
	Queries string // LOV query event file
	Clicks  string // LOV click event file
	Log     string // Yandex log file
	Kind    string // LOV: KindTerm (default) or KindVocab
	OutDir  string

	// Blacklist holds queries to drop as personal data (rule 3), matched
	// exactly after normalisation.
	Blacklist []string
	// FullSERP is the rule 3 threshold on nbResults; 0 selects the default:
	// 10 for term logs, 15 for vocabulary logs, and no threshold for Yandex
	// logs (which have no nbResults; the number of URLs is used if set).
	FullSERP int
	// SessionIdle ends a LOV session after this long without an event;
	// 0 selects DefaultSessionIdle.
	SessionIdle time.Duration
	// MaxLine is the longest accepted line in bytes; 0 selects
	// DefaultMaxLine.
	MaxLine int
	// RowGroupRows is the Parquet row group size; 0 selects the default.
	RowGroupRows int
	// PIISalt is the key of the session-ID pseudonymisation: session IDs
	// are written as hex(HMAC-SHA256(PIISalt, ID)[:12]). Empty means 32
	// random bytes, recorded nowhere: the pseudonyms are then stable within
	// the run only, so byte-identical reruns need a salt.
	PIISalt []byte
	// KeepSessionIDs writes session IDs as read, without pseudonymisation
	// (for logs whose IDs are already pseudonymous, or for tests).
	KeepSessionIDs bool
	// DropClickless drops the sessions without a click (LOVBench's rule
	// 1 as written) from the sessions, so the click models never see
	// them. By default they are kept as evidence for the click models (a
	// SERP nobody clicked says its results were seen and did not
	// attract; docs/ingest.md, rule 1) while the benchmark's labels are
	// still drawn only from sessions with a click (package labels); the
	// report counts both (KeptQueries, SERPsWithoutClickSession,
	// SERPsWithClickSession).
	DropClickless bool
	// AllowEmpty accepts an input of which no SERP is kept (empty, or every
	// event quarantined or dropped). Without it Run still writes the outputs
	// (report.json and quarantine.jsonl say why) and then returns the report
	// with a *textio.EmptyError naming the input files and the counts.
	AllowEmpty bool

	Progress progress.Options
	Logger   *slog.Logger // nil: no logging
}

// Run ingests the input described by o and writes the outputs to o.OutDir,
// which is built beside it and published whole (atomicfile.CreateDir: o.OutDir
// must be missing, empty or an earlier ingest output); on error nothing is
// published and o.OutDir is left as it was, except for an input of which
// nothing is kept (see Config.AllowEmpty), whose report and quarantine are
// published so that the user can see why. The
// returned report is also written to report.json. Like every stage's
// Run it returns its report by value (docs/architecture.md, "The stage
// contract"); with an error the report is the zero Report, or the one
// published for an input of which nothing is kept.
func Run(ctx context.Context, o Config) (Report, error) {
	rep, err := run(ctx, o)
	if rep == nil {
		return Report{}, err
	}
	return *rep, err
}

// run is Run, with the report it builds as it goes.
func run(ctx context.Context, o Config) (*Report, error) {
	rep := newReport()
	rep.Format = o.Format
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	c := &cleaner{rep: rep, det: pii.New(o.Blacklist, NormalizeQuery), dropClickless: o.DropClickless}
	if !o.KeepSessionIDs {
		var err error
		if c.pseudo, err = newPseudonymiser(o.PIISalt); err != nil {
			return nil, fmt.Errorf("ingest: session-ID key: %w", err)
		}
	}
	rep.Blacklisted = c.det.BlacklistLen()
	switch o.Format {
	case FormatLOV:
		if o.Queries == "" || o.Clicks == "" {
			return nil, errors.New("ingest: LOV format needs a queries file and a clicks file")
		}
		if o.Kind == "" {
			o.Kind = KindTerm
		}
		switch o.Kind {
		case KindTerm:
			c.full, c.needColon = sessions.FullSERPTerm, true
		case KindVocab:
			c.full = sessions.FullSERPVocab
		default:
			return nil, fmt.Errorf("ingest: unknown kind %q (want %s or %s)", o.Kind, KindTerm, KindVocab)
		}
		rep.Kind = o.Kind
		rep.SessionIdle = o.SessionIdle.String()
	case FormatYandex:
		if o.Log == "" {
			return nil, errors.New("ingest: Yandex format needs a log file")
		}
	default:
		return nil, fmt.Errorf("ingest: unknown format %q (want %s or %s)", o.Format, FormatLOV, FormatYandex)
	}
	if o.FullSERP > 0 {
		c.full = o.FullSERP
	}
	rep.FullSERP = c.full
	if o.OutDir == "" {
		return nil, errors.New("ingest: no output directory")
	}

	// The outputs are built beside o.OutDir and published whole at the
	// end: a failed or killed run leaves neither an empty --out nor
	// temporary files in it.
	dir, err := atomicfile.CreateDir(o.OutDir, ReportFile, OutputNames...)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer dir.Abort()
	out, err := newOutputs(dir.Path(), o.RowGroupRows)
	if err != nil {
		return nil, err
	}
	defer out.abort()
	c.q = &quarantine{w: out.quar, rep: rep, names: map[string][]byte{}}
	c.emit = out.emit

	bar := progress.New(o.Progress, -1, "ingest: lines")
	tick := func(n int) { bar.Add(n) }
	start := time.Now()
	switch o.Format {
	case FormatLOV:
		qf, err := textio.Open(o.Queries)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		defer qf.Close()
		cf, err := textio.Open(o.Clicks)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		defer cf.Close()
		qs := &lovSource{c: c, lr: newLineReader(qf, o.MaxLine), file: o.Queries, vocab: o.Kind == KindVocab, tick: tick}
		cs := &lovSource{c: c, lr: newLineReader(cf, o.MaxLine), file: o.Clicks, clicks: true, vocab: o.Kind == KindVocab, tick: tick}
		err = c.ingestLOV(ctx, qs, cs, o.SessionIdle)
		rep.Inputs = []InputFile{{Role: "queries", Path: o.Queries, Lines: qs.lr.lineNo}, {Role: "clicks", Path: o.Clicks, Lines: cs.lr.lineNo}}
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	case FormatYandex:
		f, err := textio.Open(o.Log)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		defer f.Close()
		lr := newLineReader(f, o.MaxLine)
		err = c.ingestYandex(ctx, lr, o.Log, tick)
		rep.Inputs = []InputFile{{Role: "log", Path: o.Log, Lines: lr.lineNo}}
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	bar.Finish()
	if c.q.err != nil {
		return nil, fmt.Errorf("ingest: write %s: %w", QuarantineFile, c.q.err)
	}
	if err := rep.Check(); err != nil {
		return nil, fmt.Errorf("ingest: internal accounting error: %w", err)
	}
	if err := out.commit(rep); err != nil {
		return nil, err
	}
	if err := carryProvenance(o, dir.Path()); err != nil {
		return nil, err
	}
	if err := dir.Commit(); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if o.Logger != nil {
		el := time.Since(start).Seconds()
		o.Logger.Info("ingest done", "events", rep.InputEvents, "kept_sessions", rep.Sessions.Kept,
			"kept_queries", rep.KeptQueries, "kept_clicks", rep.KeptClicks, "seconds", el, "out", o.OutDir)
	}
	if !o.AllowEmpty {
		if err := NothingKept(rep, o.OutDir); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// NothingKept returns the error of an ingest that kept no SERP (an empty
// log, a binary file, every event quarantined or dropped): a
// *textio.EmptyError naming the input files of rep and its counts, and
// pointing at report.json and quarantine.jsonl in outDir; nil when rep
// kept a SERP. lovbench ingest and lovbench-beam shard both call it.
func NothingKept(rep *Report, outDir string) error {
	if rep.KeptQueries > 0 {
		return nil
	}
	files := make([]string, len(rep.Inputs))
	for i, in := range rep.Inputs {
		files[i] = in.Path
	}
	return &textio.EmptyError{File: strings.Join(files, ", "), What: "SERP kept",
		Counts: fmt.Sprintf("%d lines, %d events, %d quarantined, %d dropped by the cleaning rules; see %s and %s in %s",
			rep.InputLines, rep.InputEvents, sum(rep.Quarantined), sum(rep.Dropped), ReportFile, QuarantineFile, outDir)}
}

// outputs holds the atomically written output files. Kept sessions are
// copied into batches that two writer goroutines encode, one to Parquet and
// one to TSV, while the caller goes on parsing: the work is spread over the
// cores in a pipeline. Each writer handles the batches in order, so the
// output does not depend on scheduling.
type outputs struct {
	dir  string
	pqF  *atomicfile.File
	pq   *sessions.ParquetWriter
	tsv  *atomicfile.File
	quar *atomicfile.File

	cur     *batch
	pqWork  chan *batch
	tsvWork chan *batch
	free    chan *batch
	wg      sync.WaitGroup
	failed  atomic.Bool
	pqErr   error // set by the Parquet writer before wg is done
	tsvErr  error // set by the TSV writer before wg is done
	stopped bool
}

// batch is a run of kept SERPs on its way to the writers; refs counts the
// writers still using it.
type batch struct {
	serps []sessions.SERP
	refs  atomic.Int32
}

const (
	batchSERPs = 4096
	numBatches = 4
)

func newOutputs(dir string, rowGroup int) (*outputs, error) {
	o := &outputs{dir: dir}
	var err error
	if o.pqF, err = atomicfile.Create(filepath.Join(dir, SessionsFile)); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if o.tsv, err = atomicfile.Create(filepath.Join(dir, YandexFile)); err != nil {
		o.abort()
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if o.quar, err = atomicfile.Create(filepath.Join(dir, QuarantineFile)); err != nil {
		o.abort()
		return nil, fmt.Errorf("ingest: %w", err)
	}
	o.pq = sessions.NewParquetWriter(o.pqF, rowGroup)
	o.pqWork = make(chan *batch, numBatches)
	o.tsvWork = make(chan *batch, numBatches)
	o.free = make(chan *batch, numBatches)
	for i := 0; i < numBatches; i++ {
		o.free <- &batch{serps: make([]sessions.SERP, 0, batchSERPs)}
	}
	o.cur = <-o.free
	o.wg.Add(2)
	go o.writeParquet()
	go o.writeTSV()
	return o, nil
}

// release returns a batch to the free list once both writers are done.
func (o *outputs) release(b *batch) {
	if b.refs.Add(-1) == 0 {
		b.serps = b.serps[:0]
		o.free <- b
	}
}

func (o *outputs) writeParquet() {
	defer o.wg.Done()
	for b := range o.pqWork {
		if o.pqErr == nil {
			for i := range b.serps {
				if err := o.pq.Write(&b.serps[i]); err != nil {
					o.pqErr = fmt.Errorf("write %s: %w", SessionsFile, err)
					o.failed.Store(true)
					break
				}
			}
		}
		o.release(b)
	}
}

func (o *outputs) writeTSV() {
	defer o.wg.Done()
	var buf []byte
	for b := range o.tsvWork {
		if o.tsvErr == nil {
			buf = buf[:0]
			for i := range b.serps {
				buf = sessions.AppendYandexBytes(buf, &b.serps[i])
			}
			if _, err := o.tsv.Write(buf); err != nil {
				o.tsvErr = fmt.Errorf("write %s: %w", YandexFile, err)
				o.failed.Store(true)
			}
		}
		o.release(b)
	}
}

// send hands the current batch to both writers and takes a free one.
func (o *outputs) send() {
	o.cur.refs.Store(2)
	o.pqWork <- o.cur
	o.tsvWork <- o.cur
	o.cur = <-o.free
}

// emit queues one kept session for sessions.parquet and clean.yandex.tsv.
// The SERPs are copied, so the caller may reuse them.
func (o *outputs) emit(serps []sessions.SERP) error {
	if o.failed.Load() {
		return errors.New("output writer failed")
	}
	for i := range serps {
		b := o.cur
		n := len(b.serps)
		if n < cap(b.serps) {
			b.serps = b.serps[:n+1]
		} else {
			b.serps = append(b.serps, sessions.SERP{})
		}
		d, s := &b.serps[n], &serps[i]
		results, clicks := d.Results, d.Clicks
		*d = *s
		d.Results = append(results[:0], s.Results...)
		d.Clicks = append(clicks[:0], s.Clicks...)
	}
	if len(o.cur.serps) >= batchSERPs {
		o.send()
	}
	return nil
}

// stop flushes the last batch and waits for the writers.
func (o *outputs) stop() error {
	if !o.stopped {
		o.stopped = true
		if len(o.cur.serps) > 0 {
			o.send()
		}
		close(o.pqWork)
		close(o.tsvWork)
		o.wg.Wait()
	}
	if o.pqErr != nil {
		return o.pqErr
	}
	return o.tsvErr
}

func (o *outputs) commit(rep *Report) error {
	if err := o.stop(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if err := o.pq.Close(); err != nil {
		return fmt.Errorf("ingest: write %s: %w", SessionsFile, err)
	}
	for _, f := range []*atomicfile.File{o.pqF, o.tsv, o.quar} {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
	}
	return atomicfile.WriteFile(filepath.Join(o.dir, ReportFile), rep.WriteJSON)
}

func (o *outputs) abort() {
	if o.pqWork != nil {
		o.stop()
	}
	for _, f := range []*atomicfile.File{o.pqF, o.tsv, o.quar} {
		if f != nil {
			f.Abort()
		}
	}
}

// ReadReport reads a report.json.
func ReadReport(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeReport(f, path)
}

func decodeReport(r io.Reader, name string) (*Report, error) {
	rep := &Report{}
	if err := jsonDecode(r, rep); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rep, nil
}

// sum adds the counts of a report map.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// carryProvenance gives the sessions and the clean log written into dir
// the provenance of the input log (sessions.Provenance: whether it was
// simulated), when its sidecar says so. A sidecar that no longer
// describes the log is not carried, with a warning.
func carryProvenance(o Config, dir string) error {
	from := o.Log
	if o.Format == FormatLOV {
		from = o.Queries
	}
	for _, f := range []string{SessionsFile, YandexFile} {
		p, err := sessions.CarryProvenance(from, filepath.Join(dir, f))
		if errors.Is(err, sessions.ErrStaleProvenance) {
			if o.Logger != nil && f == SessionsFile {
				o.Logger.Warn("the log's provenance is not carried", "reason", err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("ingest: provenance of %s: %w", from, err)
		}
		if p != nil && p.Simulated && o.Logger != nil && f == SessionsFile {
			o.Logger.Info("the log was simulated; its outputs say so", "provenance", sessions.ProvenanceFile(from))
		}
	}
	return nil
}
