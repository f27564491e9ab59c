package report

import (
	"context"
	"encoding/json"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/labels"
)

// The files the report stage writes.
const (
	// FileHTML is the self-contained HTML report (Render).
	FileHTML = "report.html"
	// FileJSON is the report's data (Data) as JSON.
	FileJSON = "report.json"
)

// DefaultTitle is the report's title unless the run's configuration
// names another.
const DefaultTitle = "lovbench benchmark report"

// Report is the report stage's report: the data the HTML shows, which
// the stage also writes as FileJSON.
type Report = Data

// LTRSettings are the learning-to-rank settings the experiment used, as
// the ltr stage's parameters record them; the report states them because
// iterations and permutations change the scores.
type LTRSettings struct {
	Algorithms []string
	Configs    []string
	// Iterations per ranker; 0 is each ranker's default.
	Iterations   int
	Seed         uint64
	Permutations int
}

// Config is one report: where the stage outputs it reads are, what it
// says besides them, and where it goes. An empty directory or path leaves
// out the sections it feeds.
type Config struct {
	Title string
	// Notes are shown under the title.
	Notes []string
	// Stages lists the stage fingerprints shown in the report.
	Stages []Stage
	// Thresholds are the label cut points (for the recovery confusion);
	// the default ones unless there are five.
	Thresholds []float64
	// Output directories of the stages: ingest (its cleaning report),
	// fit (fit.FileSummary and the relevance files), label
	// (labels.FileLabels, labels.FileReport, labels.FileExpertAgreement),
	// sample (the ground truth), export (the dataset) and ltr
	// (ltr.FileResults).
	Ingest, Fit, Label, Sample, Export, LTR string
	// Sessions is the click log whose analysis the report shows (a
	// sessions Parquet file or a Yandex log).
	Sessions string
	// Truth is the hidden true relevance of a simulated log (query, term,
	// relevance, tab-separated, with a header); "" for a real log.
	Truth string
	// Inputs are the input files of the stages with their SHA-256, as
	// their stamps record them.
	Inputs map[string]string
	// LTRSettings are the learning-to-rank experiment's settings; nil
	// when there was none.
	LTRSettings *LTRSettings
	// HTML and JSON are the files Run writes (FileHTML and FileJSON in
	// the pipeline's stage directory); "" writes none.
	HTML, JSON string
}

// DefaultConfig returns the report's defaults: DefaultTitle and the
// default label thresholds.
func DefaultConfig() Config {
	th := labels.DefaultThresholds()
	return Config{Title: DefaultTitle, Thresholds: th[:]}
}

// Run gathers the report's data from the stage outputs of cfg (Build) and
// writes it, atomically, as JSON to cfg.JSON and rendered to cfg.HTML.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	d, err := Build(cfg)
	if err != nil {
		return Report{}, err
	}
	if cfg.JSON != "" {
		b, err := json.MarshalIndent(&d, "", "  ")
		if err != nil {
			return Report{}, err
		}
		if err := atomicfile.WriteBytes(cfg.JSON, append(b, '\n')); err != nil {
			return Report{}, err
		}
	}
	if cfg.HTML != "" {
		f, err := atomicfile.Create(cfg.HTML)
		if err != nil {
			return Report{}, err
		}
		defer f.Abort()
		if err := Render(f, &d); err != nil {
			return Report{}, err
		}
		if err := f.Commit(); err != nil {
			return Report{}, err
		}
	}
	return d, nil
}
