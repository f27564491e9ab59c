package ltr

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/internal/par"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/ltr/measures"
)

// ReportMeasures are the measures of LOVBench's result tables, in column
// order (RankNet_Results.csv).
var ReportMeasures = []Metric{
	{Kind: MetricMAP},
	{Kind: MetricNDCG, K: 3}, {Kind: MetricNDCG, K: 5}, {Kind: MetricNDCG, K: 10},
	{Kind: MetricERR, K: 3}, {Kind: MetricERR, K: 5}, {Kind: MetricERR, K: 10},
}

// DefaultPermutations is the number of random sign assignments of the
// paired randomisation test, RankLib's Analyzer default (lovbench ltr
// --permutations, the run's ltr.permutations).
const DefaultPermutations = measures.DefaultTrials

// ExperimentOptions configure RunExperiment.
type ExperimentOptions struct {
	Algorithms []Algorithm
	Configs    []FeatureSet
	// BaselineFeature is ranked by its raw value, unlearned (default 34).
	BaselineFeature int
	// Train holds the metric, normalisation, seed and ranker parameters.
	Train Options
	// Workers is the number of jobs run at once (default 1). Results do
	// not depend on it.
	Workers int
	// Permutations is the number of random sign assignments of the paired
	// randomisation test (default DefaultPermutations).
	Permutations int
	// ModelDir, when set, receives every trained model as
	// <algorithm>_<configuration>_<fold> plus the extension of each of
	// ModelFormats.
	ModelDir string
	// ModelFormats are the file formats of the saved models (default:
	// JSON only).
	ModelFormats []ModelFileFormat

	// Correction corrects the pooled p-values for the number of
	// comparisons (default measures.CorrectionHolm); the family is one
	// measure's comparisons of every (algorithm, configuration) with the
	// baseline.
	Correction measures.Correction

	// Ties orders test documents of equal score for the ReportMeasures
	// (default measures.TiesDocID, trec_eval's docid rule). Training and
	// validation model selection always use the docid rule, which cannot
	// see the labels.
	Ties     measures.Ties
	Progress progress.Options
	Log      *slog.Logger
}

// PerQuery holds one system's per-query test values of the ReportMeasures
// on one fold, in test-file query order.
type PerQuery struct {
	QueryIDs []string
	Values   [][]float64 // [measure][query], under ExperimentOptions.Ties
	// TiedTop and Top count, per query, the ranks among the first
	// TieRateCutoff that hold a document tied with another (TieCount), and
	// the ranks looked at.
	TiedTop, Top []int
	// Optimistic and Pessimistic are NDCG@10 per query with ties ordered
	// by grade descending and ascending: the range tie-breaking spans.
	Optimistic, Pessimistic []float64
}

// TieRateCutoff is the number of top ranks the tie rate looks at.
const TieRateCutoff = 10

// FoldRun is the outcome of one (algorithm, configuration, fold) job.
type FoldRun struct {
	Algorithm     Algorithm
	Configuration string
	Fold          string
	Model         *Model
	Test          PerQuery
	// PValues are the randomisation-test p-values against the baseline on
	// the same fold, per measure.
	PValues []float64
	// TrainSeconds is the wall-clock time of training (Train), for the
	// summary that `lovbench ltr` prints; it is written to no file, so the
	// result files stay byte-identical across reruns.
	TrainSeconds float64
}

// ExperimentResult is everything RunExperiment computed.
type ExperimentResult struct {
	Options  ExperimentOptions
	Folds    []string
	Baseline []PerQuery // per fold
	Runs     []FoldRun  // algorithm-major, then configuration, then fold
	// PooledPValues[alg][config][measure]: the randomisation test over the
	// test queries of all folds pooled (each query is tested exactly once
	// in 5-fold cross-validation); reported on the MEAN rows.
	PooledPValues map[Algorithm]map[string][]float64
	// Significance[alg][config][measure] compares the configuration with
	// the baseline over the pooled test queries: mean difference, its
	// confidence interval, effect size, wins/ties/losses, the pooled
	// p-value (PooledPValues) and that p-value corrected with
	// Options.Correction.
	Significance map[Algorithm]map[string][]measures.Significance
}

// jobSeed derives a job's seed from the experiment seed and the job's
// identity, so that it does not depend on scheduling.
func jobSeed(seed uint64, parts ...string) uint64 {
	h := hashes.FNV1a(strconv.FormatUint(seed, 10))
	for _, p := range parts {
		h = hashes.FNV1aString(hashes.FNV1aByte(h, 0), p)
	}
	return h
}

func evalPerQuery(ds *Dataset, m *Model, ties measures.Ties) PerQuery {
	nq := len(ds.Queries)
	pq := PerQuery{QueryIDs: make([]string, nq), Values: make([][]float64, len(ReportMeasures)),
		TiedTop: make([]int, nq), Top: make([]int, nq), Optimistic: make([]float64, nq), Pessimistic: make([]float64, nq)}
	for mi := range ReportMeasures {
		pq.Values[mi] = make([]float64, nq)
	}
	ndcg10 := Metric{Kind: MetricNDCG, K: 10}
	var labels []float64
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		pq.QueryIDs[qi] = q.ID
		scores := m.Scores(q)
		labels = labels[:0]
		for di := range q.Docs {
			labels = append(labels, q.Docs[di].Label)
		}
		// One ranking per query serves every measure and tie rule.
		ranked, groups := rankedTied(labels, scores, docIDs(q))
		for mi, met := range ReportMeasures {
			pq.Values[mi][qi] = met.scoreRanked(ranked, groups, ties)
		}
		pq.TiedTop[qi], pq.Top[qi] = TieCount(scores, TieRateCutoff)
		pq.Optimistic[qi] = ndcg10.scoreRanked(ranked, groups, measures.TiesOptimistic)
		pq.Pessimistic[qi] = ndcg10.scoreRanked(ranked, groups, measures.TiesPessimistic)
	}
	return pq
}

// RunExperiment trains every algorithm on every configuration over the
// folds, evaluates each model and the baseline on the test files with the
// ReportMeasures, and computes improvements and p-values (see docs/ltr.md).
func RunExperiment(ctx context.Context, folds []Fold, opt ExperimentOptions) (*ExperimentResult, error) {
	if len(folds) == 0 {
		return nil, fmt.Errorf("ltr: no folds")
	}
	if opt.BaselineFeature == 0 {
		opt.BaselineFeature = BaselineFeature
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	if opt.Permutations < 1 {
		opt.Permutations = DefaultPermutations
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Ties == "" {
		opt.Ties = measures.TiesDocID
	}
	if opt.Correction == "" {
		opt.Correction = measures.CorrectionHolm
	}
	if _, err := measures.ParseCorrection(string(opt.Correction)); err != nil {
		return nil, err
	}
	if _, err := measures.ParseTies(string(opt.Ties)); err != nil {
		return nil, err
	}
	for _, f := range folds {
		for _, ds := range []*Dataset{f.Train, f.Vali, f.Test} {
			if ds.NumFeatures < opt.BaselineFeature {
				return nil, fmt.Errorf("%s: baseline feature %d not present (largest feature id %d); choose the baseline feature with --baseline-feature", ds.Name, opt.BaselineFeature, ds.NumFeatures)
			}
		}
	}
	for _, c := range opt.Configs {
		for _, fid := range c.Features {
			if fid > folds[0].Train.NumFeatures {
				return nil, fmt.Errorf("configuration %s uses feature %d but %s has features up to %d", c.Name, fid, folds[0].Train.Name, folds[0].Train.NumFeatures)
			}
		}
	}
	res := &ExperimentResult{Options: opt, PooledPValues: map[Algorithm]map[string][]float64{}}
	base := BaselineModel(opt.BaselineFeature)
	for _, f := range folds {
		res.Folds = append(res.Folds, f.Name)
		res.Baseline = append(res.Baseline, evalPerQuery(f.Test, base, opt.Ties))
	}
	for _, a := range opt.Algorithms {
		for _, c := range opt.Configs {
			for _, f := range folds {
				res.Runs = append(res.Runs, FoldRun{Algorithm: a, Configuration: c.Name, Fold: f.Name})
			}
		}
	}
	bar := progress.New(opt.Progress, int64(len(res.Runs)), "ltr")
	defer bar.Finish()
	cfg := map[string]FeatureSet{}
	for _, c := range opt.Configs {
		cfg[c.Name] = c
	}
	// One job per (algorithm, configuration, fold); a failure cancels the
	// jobs still running (par.Each).
	if err := par.Each(ctx, len(res.Runs), opt.Workers, func(ctx context.Context, i int) error {
		r := &res.Runs[i]
		fi := i % len(folds)
		f := folds[fi]
		to := opt.Train
		to.Seed = jobSeed(opt.Train.Seed, string(r.Algorithm), r.Configuration, r.Fold)
		start := time.Now()
		m, err := Train(ctx, r.Algorithm, f.Train, f.Vali, cfg[r.Configuration].Features, to)
		r.TrainSeconds = time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("%s %s %s: %w", r.Algorithm, r.Configuration, r.Fold, err)
		}
		r.Model = m
		r.Test = evalPerQuery(f.Test, m, opt.Ties)
		r.PValues = make([]float64, len(ReportMeasures))
		for mi := range ReportMeasures {
			r.PValues[mi] = measures.RandomisationTest(res.Baseline[fi].Values[mi], r.Test.Values[mi], opt.Permutations,
				jobSeed(opt.Train.Seed, "pvalue", string(r.Algorithm), r.Configuration, r.Fold, ReportMeasures[mi].String()))
		}
		if opt.ModelDir != "" {
			if err := saveModelFiles(opt, filepath.Join(opt.ModelDir, fmt.Sprintf("%s_%s_%s", r.Algorithm, r.Configuration, r.Fold)), m); err != nil {
				return err
			}
		}
		opt.Log.Debug("ltr job done", "algorithm", r.Algorithm, "configuration", r.Configuration, "fold", r.Fold,
			"train", m.TrainScore, "validation", m.ValidationScore, "iterations", m.Iterations)
		bar.Add(1)
		return nil
	}); err != nil {
		return nil, err
	}
	// Pooled p-values for the MEAN rows.
	var baseAll [][]float64
	for mi := range ReportMeasures {
		var v []float64
		for fi := range folds {
			v = append(v, res.Baseline[fi].Values[mi]...)
		}
		baseAll = append(baseAll, v)
	}
	groups := len(res.Runs) / len(folds)
	pooled := make([][]float64, groups)
	sig := make([][]measures.Significance, groups)
	err := par.Each(ctx, groups, opt.Workers, func(_ context.Context, g int) error {
		i := g * len(folds)
		r := res.Runs[i]
		pv := make([]float64, len(ReportMeasures))
		sig[g] = make([]measures.Significance, len(ReportMeasures))
		for mi := range ReportMeasures {
			var v []float64
			for fi := range folds {
				v = append(v, res.Runs[i+fi].Test.Values[mi]...)
			}
			pv[mi] = measures.RandomisationTest(baseAll[mi], v, opt.Permutations,
				jobSeed(opt.Train.Seed, "pvalue", string(r.Algorithm), r.Configuration, FoldMean, ReportMeasures[mi].String()))
			sig[g][mi] = measures.Significance{PairedStats: measures.Paired(baseAll[mi], v), P: pv[mi]}
		}
		pooled[g] = pv
		return nil
	})
	if err != nil {
		return nil, err
	}
	// One family per measure: every (algorithm, configuration) against
	// the baseline.
	for mi := range ReportMeasures {
		fam := make([]*measures.Significance, groups)
		for g := range sig {
			fam[g] = &sig[g][mi]
		}
		measures.AdjustFamily(fam, opt.Correction)
	}
	res.Significance = map[Algorithm]map[string][]measures.Significance{}
	for g, pv := range pooled {
		r := res.Runs[g*len(folds)]
		if res.PooledPValues[r.Algorithm] == nil {
			res.PooledPValues[r.Algorithm] = map[string][]float64{}
			res.Significance[r.Algorithm] = map[string][]measures.Significance{}
		}
		res.PooledPValues[r.Algorithm][r.Configuration] = pv
		res.Significance[r.Algorithm][r.Configuration] = sig[g]
	}
	return res, nil
}
