package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/labels"
)

// Provenance collects, for the dataset card and manifest (export.Provenance),
// what the ingest report (ingestReport, report.json of lovbench ingest), the
// fit summary (fitMetrics, FitSummaryFile of the fit stage; "" if none) and the
// label report (labelReport, label_report.json) say, and the settings of cfg
// (nil: none). Reasons that counted nothing are left out.
func Provenance(ingestReport, fitMetrics, labelReport string, cfg *Config) (*export.Provenance, error) {
	pv := &export.Provenance{}
	add := func(list *[]export.Fact, name string, format string, args ...any) {
		*list = append(*list, export.Fact{Name: name, Value: fmt.Sprintf(format, args...)})
	}
	if ingestReport != "" {
		var ing ingest.Report
		if err := readJSON(ingestReport, &ing); err != nil {
			return nil, err
		}
		c := &pv.Collection
		add(c, "log format", "%s", ing.Format)
		add(c, "input lines", "%d", ing.InputLines)
		add(c, "input events", "%d (%d queries and %d clicks well-formed)", ing.InputEvents, ing.RawQueries, ing.RawClicks)
		quarantined := 0
		for _, n := range ing.Quarantined {
			quarantined += n
		}
		add(c, "quarantined (malformed)", "%d", quarantined)
		for _, k := range sortedKeys(ing.Dropped) {
			if n := ing.Dropped[k]; n > 0 {
				add(c, "dropped: "+k, "%d", n)
			}
		}
		add(c, "kept SERPs", "%d", ing.KeptQueries)
		add(c, "kept clicks", "%d", ing.KeptClicks)
		add(c, "sessions kept", "%d of %d", ing.Sessions.Kept, ing.Sessions.Seen)
	}
	l := &pv.Labelling
	if fitMetrics != "" {
		var sum FitSummary
		if err := readJSON(fitMetrics, &sum); err != nil {
			return nil, err
		}
		var names []string
		for _, m := range sum.Models {
			names = append(names, fmt.Sprintf("%s (test log-likelihood %.4f, perplexity %.4f)", m.Model, m.LogLikelihood, m.Perplexity))
		}
		add(l, "click models fitted", "%s, trained on the first %s of the SERPs", strings.Join(names, "; "), strconv.FormatFloat(100*sum.TrainFraction, 'g', -1, 64)+"%")
		add(l, "labels from", "%s (selected by %s)", sum.Selected, sum.SelectedBy)
	}
	if labelReport != "" {
		var lab labels.RunReport
		if err := readJSON(labelReport, &lab); err != nil {
			return nil, err
		}
		add(l, "thresholds (junk, 0, 1, 2, 3, 4)", "%s", lab.Thresholds)
		add(l, "SERP labelled per query", "%s, %d results", lab.FirstSERP, lab.SERPSize)
		add(l, "queries", "%d in the log, %d labelled", lab.LogQueries, lab.LabelledQueries)
		for _, k := range sortedKeys(lab.QuerySkips.Counts) {
			if n := lab.QuerySkips.Counts[k]; n > 0 {
				add(l, "queries left out: "+k, "%d", n)
			}
		}
		add(l, "labels", "%d", lab.Labels)
	}
	if cfg != nil {
		s := &pv.Configuration
		if sc := cfg.Simulate; sc != nil {
			add(s, "simulated log", "%s", simulationSummary(sc))
		}
		if opt, err := cfg.ClickModels.FitOptions(); err == nil && opt.Tolerance > 0 {
			add(s, "click models", "%s, %s estimator, EM to tolerance %g (at most %d iterations)", strings.Join(cfg.ClickModels.Models, ", "), opt.Estimator(), opt.Tolerance, opt.Iterations)
		} else {
			add(s, "click models", "%s, %s estimator, %d EM iterations", strings.Join(cfg.ClickModels.Models, ", "), opt.Estimator(), opt.Iterations)
		}
		add(s, "sampling", "%g rows per query, seed %d", cfg.Sampling.PerQuery, cfg.Sampling.Seed)
		add(s, "features", "%s, %s semantics", cfg.Features.List, cfg.Features.Semantics)
		add(s, "folds", "%d, seed %d, junk kept %v", cfg.Export.Folds, cfg.Export.Seed, cfg.Export.KeepJunk)
	}
	return pv, nil
}

// simulationSummary describes a simulated log, for the card's
// configuration table and its Motivation and Collection sections.
func simulationSummary(sc *SimulateConfig) string {
	return sim.Summary(sc.Sessions, sc.Queries, sc.Model, sc.ZipfS, sc.Seed)
}

// DemoCorpusLicense is the licence the card states for the embedded demo
// corpus (features/democorpus/NOTICE).
const DemoCorpusLicense = "MIT for the zazuko rdf-vocabularies collection the demo corpus copies; each vocabulary keeps its publisher's terms"

// publication is what the card, LICENSE.md and croissant.json say of the
// run's inputs and publication: the configured licences (the demo
// corpus' own when no corpus is configured), whether the log was
// simulated, and the publication facts of export.
func (c *Config) publication() *export.Publication {
	ec := c.Export
	p := &export.Publication{LogLicense: ec.LogLicense, CorpusLicense: ec.CorpusLicense, URL: ec.URL, Creator: ec.Creator, DatePublished: ec.DatePublished, Version: ec.DatasetVersion}
	if p.CorpusLicense == "" && len(c.Corpus.Paths) == 0 {
		p.CorpusLicense = DemoCorpusLicense
	}
	if c.Simulate != nil {
		p.SimulatedLog, p.Simulation = true, simulationSummary(c.Simulate)
	}
	return p
}
