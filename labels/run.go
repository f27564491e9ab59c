package labels

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// The label stage's files and defaults, the one home of each (the
// command `lovbench label` and the pipeline's label stage both take them
// from here).
// FileExpertAgreement (the pipeline's label stage, with labels.expert) holds the pooled
// agreement of every fitted model's relevance with the expert judgments.
const FileExpertAgreement = "expert_agreement.json"

// ModelAgreement is one model's pooled agreement with the experts (LOVBench
// section 4.2.3; Pearson and Kendall tau-b as package labels computes them).
type ModelAgreement struct {
	Model   string   `json:"model"`
	Pairs   int      `json:"pairs"`
	Pearson *float64 `json:"pearson"`
	Kendall *float64 `json:"kendall_tau_b"`
}

const (
	// FileLabels is the labels CSV the pipeline's label stage writes
	// (LabelsHeader); the order files sit beside it (QueryOrderPath,
	// PairOrderPath).
	FileLabels = "labels.csv"
	// FileReport holds the stage's RunReport as JSON.
	FileReport = "label_report.json"
	// DefaultSERPSize is the size of a full first SERP of a term search
	// (sessions.FullSERPTerm): the page labels are assigned on.
	DefaultSERPSize = sessions.FullSERPTerm
)

// DefaultConfig returns the stage's defaults: DefaultThresholds, a full
// first SERP of DefaultSERPSize results, the most frequent SERP of a
// query as its first.
func DefaultConfig() Config {
	return Config{Options: Options{Thresholds: DefaultThresholds(), SERPSize: DefaultSERPSize, Choice: MostFrequent}}
}

// Config is what the label stage (`lovbench label`, the pipeline's label
// stage) runs on.
type Config struct {
	Relevance string // relevance TSV of `lovbench fit`
	Sessions  string // sessions: ingest directory, sessions.parquet or Yandex log (sessions.Load)
	Out       string // labels CSV to write
	// Quarantine is the TSV of bad relevance rows (unparsable, out of
	// range, conflicting duplicates, unknown queries); "" means
	// Out + ".quarantine.tsv".
	Quarantine string
	Expert     string // optional expert judgments (CBRBench format)
	Options    Options
	// Resolver maps log result IDs to term URIs for the expert comparison;
	// nil compares them as they are.
	Resolver Resolver
	// AllowEmpty accepts a relevance file without a usable row and sessions
	// without a SERP; otherwise Run returns a *textio.EmptyError.
	AllowEmpty bool
	// Report, when set, is where Run writes its RunReport as JSON; a
	// quarantine file in the report's directory is named there without
	// its directory, so the file is the same wherever the directory is.
	Report string
}

// RunReport is the report of Run: the labelling report, and the expert
// agreement when an expert file was given.
type RunReport struct {
	Report
	QuarantineFile string `json:"quarantine_file"`
	Quarantined    int    `json:"quarantined"` // bad relevance rows written to QuarantineFile
	// Order sums up the order confidence files written beside the
	// labels (QueryOrderPath, PairOrderPath).
	Order       *OrderSummary `json:"order_confidence,omitempty"`
	ExpertFile  string        `json:"expert_file,omitempty"`
	ExpertSkips *Skips        `json:"expert_skips,omitempty"`
	Agreement   *Agreement    `json:"agreement,omitempty"`
}

// Run reads the relevance file and the sessions, labels the first SERPs
// (Assign) chosen among the SERPs of sessions with a click (LOVBench's
// rule 1: a query shown only in sessions without a click gets no label,
// counted as only_sessions_without_click), writes cfg.Out atomically and, with cfg.Expert, compares the
// predictions of the expert queries with the expert labels (CompareExperts;
// all relevance rows take part, not only the labelled ones).
func Run(ctx context.Context, cfg Config) (RunReport, error) {
	var rr RunReport
	f, err := textio.Open(cfg.Relevance)
	if err != nil {
		return rr, err
	}
	// Without the expert comparison (Assign) the log needs no document
	// dictionary.
	log, docName, noClick, err := loadFirstSERPsNamed(ctx, cfg.Sessions, cfg.Options, cfg.Expert == "")
	if err != nil {
		f.Close()
		return rr, fmt.Errorf("sessions: %w", err)
	}
	if log.Len() == 0 && !cfg.AllowEmpty {
		f.Close()
		what := "SERP"
		if slices.Contains(noClick, true) {
			what = "SERP of a session with a click" // LOVBench's rule 1
		}
		return rr, &textio.EmptyError{File: cfg.Sessions, What: what}
	}
	var rel []Relevance
	var readSkips Skips
	var ls []Label
	var rep Report
	var out *atomicfile.File // the labels written as they come
	// The order files, written as the labels come (streamed) or from them.
	qOut, err := atomicfile.Create(QueryOrderPath(cfg.Out))
	if err != nil {
		f.Close()
		return rr, err
	}
	defer qOut.Abort()
	pOut, err := atomicfile.Create(PairOrderPath(cfg.Out))
	if err != nil {
		f.Close()
		return rr, err
	}
	defer pOut.Abort()
	ow, err := newOrderWriter(qOut, pOut)
	if err != nil {
		f.Close()
		return rr, err
	}
	if cfg.Expert == "" {
		// Streamed: the relevance rows are never all held, nor the labels
		// (docs/scale.md). Documents are only turned back into names from
		// here on.
		log.Docs.DropIndex()
		f.Close()
		if out, err = atomicfile.Create(cfg.Out); err != nil {
			return rr, err
		}
		defer out.Abort()
		lw, err := newLabelWriter(out)
		if err != nil {
			return rr, err
		}
		open := func() (io.ReadCloser, error) { return textio.Open(cfg.Relevance) }
		emit := func(l Label) error {
			if err := lw.write(l); err != nil {
				return err
			}
			return ow.add(l)
		}
		rep, readSkips, err = assignRowsTo(ctx, log, docName, noClick, fileRows(open, cfg.Relevance), cfg.Relevance, cfg.Options, emit)
		if err == nil {
			err = lw.flush()
		}
		if err != nil {
			return rr, err
		}
	} else {
		// The expert comparison reads every row of the expert queries.
		rel, readSkips, err = ReadRelevance(f, cfg.Relevance)
		f.Close()
		if err != nil {
			return rr, err
		}
		if ls, rep, err = assign(ctx, log, noClick, rel, cfg.Relevance, cfg.Options); err != nil {
			return rr, err
		}
		for _, l := range ls {
			if err := ow.add(l); err != nil {
				return rr, err
			}
		}
	}
	osum, err := ow.finish()
	if err != nil {
		return rr, err
	}
	// Named without their directory: they sit beside the labels.
	osum.QueryFile, osum.PairFile = filepath.Base(QueryOrderPath(cfg.Out)), filepath.Base(PairOrderPath(cfg.Out))
	rr.Order = &osum
	if rep.RelevanceRows == 0 && !cfg.AllowEmpty {
		return rr, &textio.EmptyError{File: cfg.Relevance, What: "usable relevance row", Counts: readSkips.Summary()}
	}
	// Rows skipped while reading come first in the report, then the rows
	// that were read but got no label; RelevanceRows counts both.
	rep.RowSkips.Examples = append(readSkips.Examples, rep.RowSkips.Examples...)
	rep.RowSkips.Records = append(readSkips.Records, rep.RowSkips.Records...)
	for k, n := range readSkips.Counts {
		rep.RowSkips.Count(k, n)
	}
	rep.RelevanceRows += readSkips.Total()
	rr.Report = rep
	for _, o := range []*atomicfile.File{qOut, pOut} {
		if err := o.Commit(); err != nil {
			return rr, err
		}
	}
	if out != nil {
		if err := out.Commit(); err != nil {
			return rr, err
		}
	} else if err := atomicfile.WriteFile(cfg.Out, func(w io.Writer) error { return WriteLabels(w, ls) }); err != nil {
		return rr, err
	}
	q := cfg.Quarantine
	if q == "" {
		q = cfg.Out + ".quarantine.tsv"
	}
	rr.QuarantineFile, rr.Quarantined = q, len(rep.RowSkips.Records)
	if err := atomicfile.WriteFile(q, func(w io.Writer) error { return WriteQuarantine(w, rep.RowSkips.Records) }); err != nil {
		return rr, err
	}
	if cfg.Expert != "" {
		ef, err := textio.Open(cfg.Expert)
		if err != nil {
			return rr, err
		}
		js, es, err := ReadExpert(ef, filepath.Base(cfg.Expert))
		ef.Close()
		if err != nil {
			return rr, err
		}
		a := CompareExperts(rel, js, cfg.Resolver)
		rr.ExpertFile, rr.ExpertSkips, rr.Agreement = cfg.Expert, &es, &a
	}
	if cfg.Report != "" {
		fr := rr
		if filepath.Dir(fr.QuarantineFile) == filepath.Dir(cfg.Report) {
			fr.QuarantineFile = filepath.Base(fr.QuarantineFile)
		}
		b, err := json.MarshalIndent(fr, "", "  ")
		if err != nil {
			return rr, err
		}
		if err := atomicfile.WriteBytes(cfg.Report, append(b, '\n')); err != nil {
			return rr, err
		}
	}
	return rr, nil
}
