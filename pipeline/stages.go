package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/report"
	"github.com/lovbench/lovbench/sampling"
)

// Stage names, in pipeline order.
const (
	StageSimulate = "simulate"
	StageIngest   = "ingest"
	StageFit      = "fit"
	StageLabel    = "label"
	StageSample   = "sample"
	StageFeatures = "features"
	StageExport   = "export"
	StageLTR      = "ltr"
	StageReport   = "report"
)

// File names inside stage outputs that the pipeline itself defines.
const (
	// FitSummaryFile (fit stage) holds FitSummary (fit.FileSummary).
	FitSummaryFile = fit.FileSummary
	// LabelsFile (label stage) is the labels CSV of package labels.
	LabelsFile = labels.FileLabels
	// TruthFile (simulate stage) is the hidden true relevance of every
	// (query, term) pair shown in the simulated log: query<TAB>term<TAB>relevance.
	TruthFile = "truth.tsv"
	// SimLogFile (simulate stage) is the simulated Yandex-format log.
	SimLogFile = "log.yandex.tsv"
	// ReportFile (report stage) is the HTML report.
	ReportFile = report.FileHTML
)

// runner builds the stages of one run from a configuration. It loads the
// corpus at most once.
type runner struct {
	cfg         *Config
	corpusPaths []string
	progress    progress.Options
	piiSalt     []byte // key of the session-ID pseudonymisation (see PIISaltFile); nil: simulated log, IDs kept
	// allowDegenerate lets a dataset below DefaultMinimums through.
	allowDegenerate bool
	remedy          string // RunOptions.Remedy

	// corpusSkipped are the files of the corpus directories not read
	// (expandCorpus), reported by the features stage.
	corpusSkipped []features.SkippedFile
	log           *slog.Logger // nil: no logging

	corpusOnce sync.Once
	corpus     *features.Corpus
	corpusErr  error
}

// loadCorpus loads the corpus once per run.
func (r *runner) loadCorpus(ctx context.Context) (*features.Corpus, error) {
	r.corpusOnce.Do(func() {
		r.corpus, r.corpusErr = features.Load(ctx, r.corpusPaths, features.LoadOptions{Lenient: r.cfg.Corpus.Lenient, Prefixes: r.cfg.Corpus.Prefixes, Semantics: features.Semantics(r.cfg.Features.Semantics), Log: r.log})
		if r.corpusErr != nil {
			r.corpusErr = fmt.Errorf("corpus: %w", r.corpusErr)
		}
	})
	return r.corpus, r.corpusErr
}

// corpusInputs returns the corpus files as fingerprint inputs.
func (r *runner) corpusInputs() map[string]string {
	m := map[string]string{}
	for i, p := range r.corpusPaths {
		m["corpus/"+strconv.Itoa(i)+"/"+filepath.Base(p)] = p
	}
	if r.cfg.Corpus.Prefixes != "" {
		m["prefixes"] = r.cfg.Corpus.Prefixes
	}
	return m
}

// expandCorpus lists the files under the configured corpus paths that the
// corpus reader reads (files as given, directories as rdf.Scan walks them,
// in sorted order; features.ScanCorpus) and the files of the directories it does not read, each
// named in a warning (and in the features stage's report).
func expandCorpus(paths []string, log *slog.Logger) (files []string, skipped []features.SkippedFile, err error) {
	files, skipped, err = features.ScanCorpus(paths)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range skipped {
		log.Warn("corpus file not read", "file", f.Path, "why", f.Reason)
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("corpus: no RDF files (*.nq, *.nt, *.ttl, optionally .gz) under %v; %d other files not read", paths, len(skipped))
	}
	return files, skipped, nil
}

// FitModel is one model's line of FitSummary (fit.SummaryModel).
type FitModel = fit.SummaryModel

// FitSummary is the fit stage's FitSummaryFile (fit.Summary, the report
// stage reads it too).
type FitSummary = fit.Summary

// fitStage fits the configured click models on the first TrainFraction of
// the sessions (docs/method.md section 3 split) with fit.Run, as `lovbench
// fit` does (in memory bounds by the run's memory_limit, docs/scale.md),
// and picks the model. Unlike `lovbench fit`'s metrics.json, which it
// does not write (clickmodels.RunConfig.NoMetricsFile), FitSummary
// (FitSummaryFile) has no timing fields.
func (r *runner) fitStage(sessionsDep, sessionsFile string) Stage {
	cm := r.cfg.ClickModels
	return Stage{
		Name: StageFit, Deps: []string{sessionsDep},
		Params: cm,
		Run: func(ctx context.Context, env *StageEnv) error {
			limit, err := r.cfg.MemoryLimitBytes() // the run's limit (memory_limit)
			if err != nil {
				return err
			}
			rc, err := cm.RunConfig()
			if err != nil {
				return err
			}
			rc.MemoryLimit, rc.Log = limit, env.Log
			rc.IdentificationInfo = true // the report says it (identificationNotes)
			// The stage's report is FitSummaryFile; the command's
			// metrics file holds timings, which would make the stage's
			// outputs differ from run to run, so it is not written.
			rc.NoMetricsFile = true
			reps, err := fit.Run(ctx, fit.Config{Input: env.Dep(sessionsDep, sessionsFile), Dir: env.Dir, RunConfig: rc})
			if err != nil {
				return err
			}
			sum, err := fit.Summarize(reps, cm.TrainFraction, cm.Select)
			if err != nil {
				return err
			}
			env.Log.Info("click model selected", "model", sum.Selected, "by", sum.SelectedBy)
			return writeJSON(filepath.Join(env.Dir, FitSummaryFile), sum)
		},
	}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

// labelStage turns the selected model's relevance into labels (package
// labels; docs/method.md section 4).
func (r *runner) labelStage(sessionsDep, sessionsFile string) Stage {
	lc := r.cfg.Labels
	inputs := map[string]string{}
	if lc.Expert != "" {
		inputs["expert"] = lc.Expert
		for k, v := range r.corpusInputs() {
			inputs[k] = v
		}
	}
	return Stage{
		Name: StageLabel, Deps: []string{sessionsDep, StageFit}, Inputs: inputs,
		// Parameters without the expert file's path (its content counts).
		Params: struct {
			Thresholds []float64 `json:"thresholds"`
			SERPSize   int       `json:"serp_size"`
		}{lc.Thresholds, lc.SERPSize},
		Run: func(ctx context.Context, env *StageEnv) error {
			var sum FitSummary
			if err := textio.ReadJSON(env.Dep(StageFit, FitSummaryFile), &sum); err != nil {
				return err
			}
			cfg := labels.DefaultConfig()
			copy(cfg.Options.Thresholds[:], lc.Thresholds)
			cfg.Options.SERPSize = lc.SERPSize
			cfg.Relevance = env.Dep(StageFit, clickmodels.RelevanceFile(sum.Selected))
			cfg.Sessions = env.Dep(sessionsDep, sessionsFile)
			cfg.Out, cfg.Report = filepath.Join(env.Dir, labels.FileLabels), filepath.Join(env.Dir, labels.FileReport)
			cfg.Expert = lc.Expert
			if lc.Expert != "" {
				c, err := r.loadCorpus(ctx)
				if err != nil {
					return err
				}
				cfg.Resolver = c
			}
			rep, err := labels.Run(ctx, cfg)
			if err != nil {
				return err
			}
			env.Log.Info("labelled", "queries", rep.LabelledQueries, "labels", rep.Labels)
			if lc.Expert == "" {
				return nil
			}
			ag, err := expertAgreement(sum, env.Deps[StageFit], lc.Expert, cfg.Resolver)
			if err != nil {
				return err
			}
			return writeJSON(filepath.Join(env.Dir, ExpertAgreementFile), ag)
		},
	}
}

// sampleStage draws the LETOR sample (package sampling; docs/method.md section 5).
func (r *runner) sampleStage() Stage {
	sc := r.cfg.Sampling
	return Stage{
		Name: StageSample, Deps: []string{StageLabel}, Params: sc, Inputs: r.corpusInputs(),
		Run: func(ctx context.Context, env *StageEnv) error {
			c, err := r.loadCorpus(ctx)
			if err != nil {
				return err
			}
			cfg := sampling.DefaultConfig()
			cfg.Labels, cfg.Candidates = env.Dep(StageLabel, labels.FileLabels), c
			cfg.Out, cfg.Report = filepath.Join(env.Dir, sampling.FileGroundTruth), filepath.Join(env.Dir, sampling.FileReport)
			cfg.Options.Seed, cfg.Options.PerQuery = uint64(sc.Seed), sc.PerQuery
			rep, err := sampling.Run(ctx, cfg)
			if err != nil {
				return err
			}
			env.Log.Info("sampled", "queries", rep.Queries, "rows", rep.Rows)
			return nil
		},
	}
}

// ExpertAgreementFile (label stage, with labels.expert) holds every
// fitted model's ModelAgreement (labels.FileExpertAgreement).
const ExpertAgreementFile = labels.FileExpertAgreement

// ModelAgreement is one model's pooled agreement with the experts
// (labels.ModelAgreement).
type ModelAgreement = labels.ModelAgreement

// expertAgreement compares every model's relevance with the expert file.
func expertAgreement(sum FitSummary, fitDir, expertPath string, res labels.Resolver) ([]ModelAgreement, error) {
	ef, err := textio.Open(expertPath)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	expert, _, err := labels.ReadExpert(ef, expertPath)
	if err != nil {
		return nil, err
	}
	var out []ModelAgreement
	for _, m := range sum.Models {
		p := filepath.Join(fitDir, m.RelevanceFile)
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		pred, _, err := labels.ReadRelevance(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		a := labels.CompareExperts(pred, expert, res)
		out = append(out, ModelAgreement{Model: m.Model, Pairs: a.Pooled.Pairs, Pearson: a.Pooled.Pearson, Kendall: a.Pooled.Kendall})
	}
	return out, nil
}
