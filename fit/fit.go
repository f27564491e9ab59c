// Package fit is the click-model stage (docs/method.md section 3): it fits
// the click models of package clickmodels on a click log and writes their
// files, picking how the log is read and fitted (in memory, or cut into
// query shards and fitted out of core by clickmodels/outofcore under a
// memory limit). `lovbench fit` and the pipeline's fit stage both only
// fill a Config and call Run. The package sits above clickmodels,
// clickmodels/outofcore and shards, which do not reach each other.
package fit

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// FileSummary is the fit stage's summary of a run (Summary): every
// model's test scores, without timings, and the model picked. It is not
// the metrics.json of lovbench fit (an array of clickmodels.Report),
// which the stage's directory does not hold. A release names it
// click_models.json.
const FileSummary = "fit_summary.json"

// SummaryModel is one model's line of Summary.
type SummaryModel struct {
	Model            string    `json:"model"`
	TrainSessions    int       `json:"train_sessions"`
	TestSessions     int       `json:"test_sessions"`
	Iterations       int       `json:"iterations"`
	LogLikelihood    float64   `json:"test_loglikelihood"`
	Perplexity       float64   `json:"test_perplexity"`
	PerplexityAtRank []float64 `json:"test_perplexity_at_rank"`
	RelevanceFile    string    `json:"relevance_file"`
	// Uncertainty says how the relevance file's intervals were obtained,
	// with the fitted priors (clickmodels.Report.Uncertainty); nil without
	// intervals.
	Uncertainty *clickmodels.UncertaintyReport `json:"uncertainty,omitempty"`
}

// Summary is the fit stage's FileSummary, which the pipeline's fit stage
// writes: every model's test scores and
// the model whose relevance the labels use. It has no timing fields, so it
// is byte-identical across reruns.
type Summary struct {
	TrainFraction float64        `json:"train_fraction"`
	Models        []SummaryModel `json:"models"`
	Selected      string         `json:"selected"`
	SelectedBy    string         `json:"selected_by"`
}

// SelectBest is the selection of Summarize that picks the model with the
// best test log-likelihood (run's click_models.select: best).
const SelectBest = "best"

// Summarize returns the Summary of a fit's reports: every model's test
// scores and the model selected by sel, SelectBest (the best test
// log-likelihood, the first on ties) or a model's name (any case).
// SelectBest passes PSCM over when another model was fitted: its
// log-likelihood is told the test SERPs' click sequences
// (docs/clickmodels.md, "PSCM"), so it is not comparable; naming pscm
// selects it.
func Summarize(reps Report, trainFraction float64, sel string) (Summary, error) {
	sum := Summary{TrainFraction: trainFraction}
	best := -1
	for i, r := range reps {
		sum.Models = append(sum.Models, SummaryModel{Model: r.Model, TrainSessions: r.TrainSessions, TestSessions: r.Sessions,
			Iterations: r.Iterations, LogLikelihood: r.LogLikelihood, Perplexity: r.Perplexity,
			PerplexityAtRank: r.PerplexityAtRank, RelevanceFile: clickmodels.RelevanceFile(r.Model), Uncertainty: r.Uncertainty})
		switch {
		case sel == SelectBest:
			if strings.EqualFold(r.Model, clickmodels.PSCM.String()) && len(reps) > 1 {
				continue
			}
			if best < 0 || r.LogLikelihood > reps[best].LogLikelihood {
				best = i
			}
		case strings.EqualFold(sel, r.Model):
			best = i
		}
	}
	if best < 0 {
		return Summary{}, fmt.Errorf("fit: select %q: no such model among the %d fitted", sel, len(reps))
	}
	sum.Selected = sum.Models[best].Model
	sum.SelectedBy = "best test log-likelihood"
	if sel != SelectBest {
		sum.SelectedBy = "configuration"
	}
	return sum, nil
}

// Config is one fit: the click log, the directory of the outputs and the
// fit itself (clickmodels.RunConfig: models, split, EM options, memory
// limit).
type Config struct {
	// Input is a Yandex log, a sessions.parquet file or an ingest output
	// directory holding one; ShardDir, instead, a query-shard directory
	// of lovbench shard.
	Input, ShardDir string
	// ShardSplit keeps the split the shards of ShardDir were cut with
	// (RunConfig.Split is not checked against it).
	ShardSplit bool
	// Dir is the existing directory the files go to; the caller
	// publishes it (atomicfile.CreateDir, or the pipeline's stage
	// directory).
	Dir string
	clickmodels.RunConfig
}

// DefaultConfig returns the defaults of lovbench fit: the models of
// clickmodels.DefaultModels, the default estimator's EM options, DBN's
// and SDBN's intervals from clickmodels.IntervalsAuto, the spec split at
// split.DefaultTrainFraction.
func DefaultConfig() Config {
	kinds, err := clickmodels.ParseKinds(clickmodels.DefaultModels)
	if err != nil {
		panic(err) // a constant of clickmodels
	}
	opt := clickmodels.DefaultEstimator.Options()
	opt.Intervals = clickmodels.IntervalsAuto
	return Config{RunConfig: clickmodels.RunConfig{Kinds: kinds, TrainFraction: split.DefaultTrainFraction, Split: split.Spec,
		Seed: split.DefaultSeed, Options: opt}}
}

// Report is the fit's report: one clickmodels.Report per model, as
// clickmodels.MetricsFile holds them.
type Report []clickmodels.Report

// Check refuses what Run cannot fit as asked: the options clickmodels
// refuses (Options.CheckIntervals), and the Gibbs sampler's intervals
// (clickmodels.IntervalsGibbs) or the size of its subset
// (Options.SubsetSERPs) with RunConfig.LoadDir, which fits nothing. The sampler runs on every other path, bit-identical across
// them: in memory, on query shards and under a memory limit
// (outofcore.RunShards, clickmodels.GibbsShards). Run calls it first; the
// pipeline checks its configuration with it before any stage runs.
func Check(cfg Config) error {
	if err := cfg.Options.CheckIntervals(); err != nil {
		return fmt.Errorf("fit: %w", err)
	}
	if cfg.UsesGibbs() && cfg.LoadDir != "" {
		return fmt.Errorf("fit: intervals from gibbs (--intervals-from gibbs) are drawn by a fit, and --load fits nothing (a loaded model's relevance file has no intervals): drop one of them")
	}
	if cfg.SubsetSERPs != 0 && cfg.LoadDir != "" {
		return fmt.Errorf("fit: the sampler's subset size (--gibbs-subset-serps) is for a fit, and --load fits nothing: drop one of them")
	}
	return nil
}

// Run fits the click models of cfg on the log of cfg.Input or
// cfg.ShardDir and writes their files (clickmodels.RelevanceFile, the
// parameter files, clickmodels.MetricsFile unless NoMetricsFile) into
// cfg.Dir. It is the one place that picks how a log is fitted:
//
//   - a shard directory: shard by shard (outofcore.RunShards);
//   - a sessions Parquet file: streamed into query shards that fit in
//     the budget of cfg.MemoryLimit (membudget.ForFit, shards.ForMemory;
//     one shard without a limit),
//     never held whole, then RunShards; the temporary shards go under
//     cfg.Dir/.shards and are removed;
//   - a Yandex log: loaded and fitted in memory (clickmodels.RunInto); under
//     cfg.MemoryLimit streamed into a temporary sessions.parquet under
//     cfg.Dir/.shards first (sessions.YandexToParquet) and fitted as one.
//
// A memory limit too small for the log's shards is a
// *shards.LimitTooSmallError, and one too small for the Gibbs sampler's
// subset of queries a *SubsetMemoryError: by the subset's training
// SERPs before any shard is prepared (checkSubsetMemory), by its pairs
// and records once they are (outofcore.RunShards), before EM.
func Run(ctx context.Context, in Config) (Report, error) {
	if err := Check(in); err != nil {
		return nil, err
	}
	cfg, dir := in.RunConfig, in.Dir
	// The one budget of the limit: what preparing a shard and holding
	// prepared shards may take (Go's soft limit is the command's).
	b := membudget.ForFit(cfg.MemoryLimit)
	cfg.PreparedBudget, cfg.GibbsSubsetBudget = b.PreparedHeld, b.GibbsSubset
	if in.ShardDir != "" {
		d, err := shards.Open(in.ShardDir)
		if err != nil {
			return nil, err
		}
		if in.ShardSplit {
			cfg.Split = ""
		}
		if err := checkSubsetMemory(cfg, b, d); err != nil {
			return nil, err
		}
		return outofcore.RunShards(ctx, d, cfg, dir)
	}
	pq, isPq, err := sessions.ParquetPath(in.Input)
	tmp := filepath.Join(dir, ".shards")
	if err == nil && !isPq && cfg.MemoryLimit > 0 {
		// Under a memory limit a Yandex log is not loaded: it is
		// streamed into a temporary sessions.parquet, which is then
		// sharded for the limit like any other.
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		defer os.Remove(tmp) // after conv below is removed
		conv, err := os.MkdirTemp(tmp, "log-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(conv)
		pq = filepath.Join(conv, sessions.ParquetName)
		st, err := sessions.YandexToParquet(in.Input, pq)
		if err != nil {
			return nil, err
		}
		if st.Queries == 0 {
			return nil, fmt.Errorf("fit: %s: no SERP to fit the click models on", in.Input)
		}
		if cfg.Log != nil {
			cfg.Log.Info("click log streamed to Parquet for the memory limit", "path", in.Input, "serps", st.Queries)
		}
		isPq = true
	}
	if err != nil || !isPq {
		// Without a limit the log is held in memory; only the time split
		// needs its user sessions and no split its string indexes.
		load := sessions.LoadForFit
		if cfg.Split == split.Time {
			load = sessions.Load
		}
		log, err := load(in.Input)
		if err != nil {
			return nil, err
		}
		if log.Len() == 0 {
			// Nothing to fit: an error even with --allow-empty.
			return nil, fmt.Errorf("fit: %s: no SERP to fit the click models on", in.Input)
		}
		if cfg.Log != nil {
			cfg.Log.Info("click log loaded", "path", in.Input, "serps", log.Len(), "queries", log.Queries.Len(), "docs", log.Docs.Len())
		}
		return clickmodels.RunInto(ctx, log, cfg, dir)
	}
	src, cleanup, err := shards.ForMemory(ctx, pq, shards.SplitConfig{Split: cfg.Split, TrainFraction: cfg.TrainFraction, Seed: cfg.Seed}, b, tmp)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	defer cleanup()
	if err := checkSubsetMemory(cfg, b, src); err != nil {
		return nil, err
	}
	if cfg.Log != nil {
		cfg.Log.Info("fitting", "path", pq, "shards", src.NumShards(), "memory_limit", cfg.MemoryLimit)
	}
	return outofcore.RunShards(ctx, src, cfg, dir)
}

// SubsetMemoryError is Run's error for a fit whose Gibbs sampler's
// subset of queries would not fit in its share of the memory limit:
// outofcore.SubsetMemoryError, which RunShards returns too.
type SubsetMemoryError = outofcore.SubsetMemoryError

// checkSubsetMemory refuses, under a memory limit (b), a fit of src
// whose sampler's subset of queries (cfg.GibbsSubsetTrainSERPs of src's
// training SERPs, at clickmodels.GibbsSubsetBytesPerSERP) would take more
// than its share, b.GibbsSubset: the subset is gathered and sampled in
// memory after EM, where nothing else would bound it.
func checkSubsetMemory(cfg clickmodels.RunConfig, b membudget.Fit, src split.Source) error {
	if b.Limit <= 0 {
		return nil
	}
	_, train, _, _ := src.Info()
	n := cfg.GibbsSubsetTrainSERPs(train)
	need := int64(math.Ceil(n * clickmodels.GibbsSubsetBytesPerSERP))
	if need <= b.GibbsSubset {
		return nil
	}
	return &SubsetMemoryError{Limit: b.Limit, Share: b.GibbsSubset, SERPs: n, TrainSERPs: train, Need: need, By: "its training SERPs"}
}
