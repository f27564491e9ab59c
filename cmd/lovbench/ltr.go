package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/ltr/measures"
)

func newLTRCmd(a *app) *cobra.Command {
	var (
		dataDir, algs, configs, metric, outDir, norm string
		modelFormat                                  string
		ties                                         string
		correction                                   string
		seed                                         uint64
		workers, permutations, baseline              int
		noModels                                     bool
		featureSets                                  []string
		params                                       = ltr.DefaultOptions()
	)
	cmd := &cobra.Command{
		Use:   "ltr",
		Short: "Train and evaluate rankers on every Table 5 configuration over the folds",
		Long: `ltr runs the LOVBench learning-to-rank experiment: for every algorithm and
every feature configuration of Table 5 it trains on each fold's train.txt,
selects the model on vali.txt and evaluates on test.txt, against the
unlearned baseline (feature 34 alone). It writes <Ranker>_Results.csv in the
layout of LOVBench's RankNet_Results.csv, results.json, and the models under
OUT/models/ (OUT is built beside itself and replaced whole), and prints a
summary: per ranker and configuration the test NDCG@10 and MAP averaged over
the folds and the training time, then every configuration against the
baseline on NDCG@10 and MAP (all measures in results.json): the mean
difference over the pooled test queries with its 95% paired t interval, the
randomisation p-value, that p-value corrected for the number of comparisons
(--correction, Holm by default), Cohen's d_z and the queries won, tied and
lost. It names a best learned ranker only when one is significantly better
than the baseline after correction. The number of folds is the parameters.folds
of DIR/manifest.json when there is one. See docs/ltr.md.`,
		Example: `  lovbench ltr --data folds --algorithms ranknet,adarank --configs all --out results
  lovbench ltr --data folds --algorithms lambdamart --configs full,light --metric NDCG@10 --workers 2 --out results
  lovbench ltr --data folds --algorithms ca --features 1,3,5-9 --out results`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dataDir == "" || outDir == "" {
				return usagef("ltr: --data and --out are required")
			}
			if err := checkOutputs(paths{}.add("--data", dataDir), paths{}.add("--out", outDir)); err != nil {
				return err
			}
			var algorithms []ltr.Algorithm
			for _, s := range strings.Split(algs, ",") {
				al, err := ltr.ParseAlgorithm(s)
				if err != nil {
					return usagef("ltr: --algorithms: %v", err)
				}
				algorithms = append(algorithms, al)
			}
			var cfgs []ltr.FeatureSet
			if len(featureSets) == 0 || cmd.Flags().Changed("configs") {
				c, err := ltr.SelectConfigs(configs)
				if err != nil {
					return usagef("ltr: --configs: %v", err)
				}
				cfgs = c
			}
			for _, spec := range featureSets {
				c, err := ltr.NewFeatureSet(spec)
				if err != nil {
					return usagef("ltr: --features: %v", err)
				}
				for _, o := range cfgs {
					if o.Name == c.Name {
						return usagef("ltr: --features %s given twice", spec)
					}
				}
				cfgs = append(cfgs, c)
			}
			m, err := ltr.ParseMetric(metric)
			if err != nil {
				return usagef("ltr: --metric: %v", err)
			}
			nm, err := ltr.ParseNormalization(norm)
			if err != nil {
				return usagef("ltr: --norm: %v", err)
			}
			formats, err := ltr.ParseModelFileFormats(modelFormat)
			if err != nil {
				return usagef("ltr: --model-format: %v", err)
			}
			tr, err := measures.ParseTies(ties)
			if err != nil {
				return usagef("ltr: --ties: %v", err)
			}
			corr, err := measures.ParseCorrection(correction)
			if err != nil {
				return usagef("ltr: --correction: %v", err)
			}
			cfg := ltr.DefaultConfig()
			opt := ltr.ExperimentOptions{
				Algorithms:      algorithms,
				Configs:         cfgs,
				BaselineFeature: baseline,
				Train:           params,
				Workers:         workers,
				Permutations:    permutations,
				Ties:            tr,
				Correction:      corr,
				Progress:        a.progress(),
				Log:             a.log,
			}
			opt.Train.Metric, opt.Train.Normalization, opt.Train.Seed = m, nm, seed
			// Built beside --out and published whole (no models or tables
			// of an earlier run survive).
			out, err := atomicfile.CreateDir(outDir, ltr.FileResults, ltr.OutputNames...)
			if err != nil {
				return fmt.Errorf("ltr: %w", err)
			}
			defer out.Abort()
			opt.ModelFormats = formats
			cfg.Data, cfg.Dir, cfg.Models, cfg.Experiment = dataDir, out.Path(), !noModels, opt
			res, err := ltr.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if err := out.Commit(); err != nil {
				return fmt.Errorf("ltr: %w", err)
			}
			a.log.Info("ltr done", "out", outDir)
			if !a.quiet {
				if err := res.WriteSummary(a.stdout); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "outputs in %s (results.json, <Ranker>_Results.csv, models/)\n", outDir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "fold directory: DIR/Fold1..Fold5/{train,vali,test}.txt")
	f.StringVar(&algs, "algorithms", "ranknet,adarank,lambdamart,ca", "comma-separated: ranknet, adarank, lambdamart, ca")
	f.StringVar(&configs, "configs", "all", "all, or comma-separated Table 5 names (full, light, LOVSimple, AKTiveRank, DWRank, CBRBench)")
	f.StringArrayVar(&featureSets, "features", nil, "train on this feature subset too, e.g. 1,3,5-9 (RankLib's -feature; repeatable; named Features_1_3_5-9; without --configs only these sets run)")
	f.StringVar(&metric, "metric", "NDCG@10", "metric optimised and used for validation model selection (NDCG@k, ERR@k, MAP)")
	f.StringVar(&norm, "norm", "zscore", "per-query feature normalisation: none, sum, zscore, linear")
	f.StringVar(&outDir, "out", "", "output directory")
	uint64Var(f, &seed, "seed", 1, "random seed")
	f.StringVar(&ties, "ties", "docid", "order of test documents with equal scores for the reported measures: docid (trec_eval: docid descending), optimistic, pessimistic, average (exact expected value); training and model selection always use docid")
	f.StringVar(&modelFormat, "model-format", "json", "model files under OUT/models: json (.json), ranklib (RankLib's text format, .ranklib.txt) or json,ranklib")
	intVar(f, &workers, "workers", 1, atLeast(1), "parallel training jobs (results do not depend on it)")
	f.StringVar(&correction, "correction", "holm", "correction of the p-values for the number of comparisons (per measure, every configuration against the baseline): holm, bonferroni or none")
	intVar(f, &permutations, "permutations", ltr.DefaultPermutations, atLeast(1), "random sign assignments of the randomisation test")
	intVar(f, &baseline, "baseline-feature", ltr.BaselineFeature, atLeast(1), "feature ranked unlearned as the baseline")
	f.BoolVar(&noModels, "no-models", false, "do not save the trained models under OUT/models")
	intVar(f, &params.RankNet.Epochs, "ranknet-epochs", params.RankNet.Epochs, atLeast(1), "RankNet epochs")
	intVar(f, &params.RankNet.Hidden, "ranknet-hidden", params.RankNet.Hidden, atLeast(1), "RankNet hidden units")
	floatVar(f, &params.RankNet.LearningRate, "ranknet-lr", params.RankNet.LearningRate, above(0), "RankNet learning rate")
	intVar(f, &params.AdaRank.Rounds, "adarank-rounds", params.AdaRank.Rounds, atLeast(1), "AdaRank maximum rounds")
	floatVar(f, &params.AdaRank.Tolerance, "adarank-tolerance", params.AdaRank.Tolerance, atLeast(0), "AdaRank tolerance")
	intVar(f, &params.LambdaMART.Trees, "lambdamart-trees", params.LambdaMART.Trees, atLeast(1), "LambdaMART maximum trees")
	intVar(f, &params.LambdaMART.Leaves, "lambdamart-leaves", params.LambdaMART.Leaves, atLeast(2), "LambdaMART leaves per tree")
	floatVar(f, &params.LambdaMART.Shrinkage, "lambdamart-shrinkage", params.LambdaMART.Shrinkage, above(0), "LambdaMART learning rate")
	intVar(f, &params.LambdaMART.EarlyStop, "lambdamart-early-stop", params.LambdaMART.EarlyStop, atLeast(0), "LambdaMART: stop after this many trees without validation gain (0: never)")
	intVar(f, &params.CA.Restarts, "ca-restarts", params.CA.Restarts, atLeast(1), "Coordinate Ascent restarts")
	intVar(f, &params.CA.MaxIter, "ca-iterations", params.CA.MaxIter, atLeast(1), "Coordinate Ascent steps tried per direction")
	return cmd
}
