// Package ingest turns raw search logs into clean search sessions: it reads
// LOV raw event logs (a query file and a click file, JSON lines) or Yandex
// relevance-prediction logs, plain or gzip, streams them, applies the
// LOVBench cleaning rules in order (SPEC.md section 2; LOVBench paper,
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
	"time"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/sessions"
)

// Output file names inside the output directory.
const (
	SessionsFile   = sessions.ParquetName
	YandexFile     = "clean.yandex.tsv"
	ReportFile     = "report.json"
	QuarantineFile = "quarantine.jsonl"
)

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
	DefaultSessionIdle = 30 * time.Minute // LOV: a session ends after this long without events
	DefaultMaxLine     = 1 << 20          // longer lines are quarantined as line_too_long
	FullSERPTerm       = 10               // rule 3: a full term SERP
	FullSERPVocab      = 15               // rule 3: a full vocabulary SERP
)

// Options configure one ingest run.
type Options struct {
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

	Progress progress.Options
	Logger   *slog.Logger // nil: no logging
}

// Run ingests the input described by o and writes the outputs to o.OutDir.
// All outputs are written atomically; on error none is published. The
// returned report is also written to report.json.
func Run(ctx context.Context, o Options) (*Report, error) {
	rep := newReport()
	rep.Format = o.Format
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	c := &cleaner{rep: rep, det: pii.New(o.Blacklist, NormalizeQuery), piiCache: map[string]pii.Kind{}}
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
			c.full, c.needColon = FullSERPTerm, true
		case KindVocab:
			c.full = FullSERPVocab
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

	out, err := newOutputs(o.OutDir, o.RowGroupRows)
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
		qf, err := sessions.Open(o.Queries)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		defer qf.Close()
		cf, err := sessions.Open(o.Clicks)
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
		f, err := sessions.Open(o.Log)
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
	if o.Logger != nil {
		el := time.Since(start).Seconds()
		o.Logger.Info("ingest done", "events", rep.InputEvents, "kept_sessions", rep.Sessions.Kept,
			"kept_queries", rep.KeptQueries, "kept_clicks", rep.KeptClicks, "seconds", el, "out", o.OutDir)
	}
	return rep, nil
}

// outputs holds the atomically written output files.
type outputs struct {
	dir  string
	pqF  *atomicfile.File
	pq   *sessions.ParquetWriter
	tsv  *atomicfile.File
	quar *atomicfile.File
	buf  []byte
}

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
	return o, nil
}

// emit writes one kept session to sessions.parquet and clean.yandex.tsv.
func (o *outputs) emit(serps []sessions.SERP) error {
	b := o.buf[:0]
	for i := range serps {
		if err := o.pq.Write(&serps[i]); err != nil {
			return fmt.Errorf("write %s: %w", SessionsFile, err)
		}
		b = sessions.AppendYandexBytes(b, &serps[i])
	}
	o.buf = b
	if _, err := o.tsv.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", YandexFile, err)
	}
	return nil
}

func (o *outputs) commit(rep *Report) error {
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
