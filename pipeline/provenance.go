package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/internal/textio"
)

// Provenance collects, for the dataset card and manifest (export.Provenance),
// what the ingest and label reports say (export.ReportsProvenance), what
// the fit summary says (fitMetrics, FitSummaryFile of the fit stage; "" if
// none) and the settings of cfg (nil: none).
func Provenance(ingestReport, fitMetrics, labelReport string, cfg *Config) (*export.Provenance, error) {
	pv, err := export.ReportsProvenance(ingestReport, labelReport)
	if err != nil {
		return nil, err
	}
	add := export.AddFact
	if fitMetrics != "" {
		var sum FitSummary
		if err := textio.ReadJSON(fitMetrics, &sum); err != nil {
			return nil, err
		}
		var names []string
		for _, m := range sum.Models {
			names = append(names, fmt.Sprintf("%s (test log-likelihood %.4f, perplexity %.4f)", m.Model, m.LogLikelihood, m.Perplexity))
		}
		// The click models come first among the labelling facts: the
		// labels come from them.
		var fit []export.Fact
		add(&fit, "click models fitted", "%s, trained on the first %s of the SERPs", strings.Join(names, "; "), strconv.FormatFloat(100*sum.TrainFraction, 'g', -1, 64)+"%")
		add(&fit, "labels from", "%s (selected by %s)", sum.Selected, sum.SelectedBy)
		pv.Labelling = append(fit, pv.Labelling...)
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
