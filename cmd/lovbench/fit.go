package main

import (
	"sync/atomic"

	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

func newFitCmd(a *app) *cobra.Command {
	var (
		logFile, format, sessDir, models, out, load, splitName string
		shardDir, memLimit, paramsFormat                       string
		cfg                                                    clickmodels.RunConfig
		asJSON, exact, noIntervals                             bool
		interval                                               float64
		subsetSERPs                                            int
		estimator, intervalsFrom                               string
	)
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit click models by EM and evaluate them",
		Long: `fit splits a click log into training and test SERPs (docs/method.md section 3: the
first --train-fraction of SERPs in file order train, the rest test, keeping
only SERPs whose query occurs in training), fits each click model of --models
on the training part (--estimator exact, the default: the exact E-steps of DBN,
SDBN, DCM and CCM and EM run to convergence; --estimator pyclick: PyClick's estimator, equal to
PyClick), evaluates it on the test part and writes to --out:

  metrics.json              per model: train/test sessions, test log-likelihood,
                            perplexity (overall and per rank), perplexity gain
                            over the other models, iterations, fit_seconds
  <MODEL>_relevance.tsv     query, doc, relevance for every pair seen in training,
                            with lower, upper (the --interval interval) and
                            alpha, beta (the Beta distribution of the relevance)
  <MODEL>_params.json       the fitted parameters, loadable with --load: JSON up to
                            100,000 pairs, else <MODEL>_params.parquet (--params-format)

Models: GCTR, RCTR, DCTR, PBM, CM, UBM, DCM, CCM, DBN, SDBN, PSCM, or "all".
Everything but the timings in metrics.json is identical across reruns and
for any --workers. See docs/clickmodels.md.`,
		Example: `  lovbench fit --log golden_ubm6k.tsv --format yandex --models all --out /tmp/cm
  lovbench fit --sessions /tmp/lov-clean --models dctr,ubm,dbn --out /tmp/cm --workers 2
  lovbench fit --sessions /tmp/lov-clean --models ubm --load /tmp/cm --out /tmp/cm-again`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var path string
			switch {
			case shardDir != "" && (logFile != "" || sessDir != ""):
				return usagef("fit: give one of --log, --sessions and --shards")
			case shardDir != "":
			case logFile != "" && sessDir != "":
				return usagef("fit: give --log or --sessions, not both")
			case logFile != "":
				if format != "yandex" {
					return usagef("fit: --format must be yandex, not %q", format)
				}
				path = logFile
			case sessDir != "":
				path = sessDir
			default:
				return usagef("fit: --log FILE --format yandex, --sessions DIR or --shards DIR is required")
			}
			if out == "" {
				return usagef("fit: --out is required")
			}
			// --load may name --out: its parameters are read before the
			// directory is replaced, and written into the new one.
			ins := paths{}.add("--log", logFile).add("--sessions", sessDir).add("--shards", shardDir)
			if err := checkOutputs(ins, paths{}.add("--out", out)); err != nil {
				return err
			}
			kinds, err := clickmodels.ParseKinds(models)
			if err != nil {
				return usagef("fit: --models: %v", err)
			}
			if cfg.Split, err = split.Parse(splitName); err != nil {
				return usagef("fit: --split: %v", err)
			}
			if cfg.ParamsFormat, err = clickmodels.ParseParamsFileFormat(paramsFormat); err != nil {
				return usagef("fit: --params-format: %v", err)
			}
			if memLimit != "" {
				if cfg.MemoryLimit, err = bytesize.ParseLimit(memLimit); err != nil {
					return usagef("fit: --memory-limit: %v", err)
				}
				if err := checkProcessLimit(cfg.MemoryLimit); err != nil {
					return usagef("fit: --memory-limit: %v", err)
				}
				defer setSoftLimit(a, cfg.MemoryLimit)()
			}
			switch intervalSet := cmd.Flags().Changed("interval"); {
			case intervalSet && noIntervals:
				return usagef("fit: give --interval or --no-intervals, not both")
			case noIntervals:
				cfg.NoIntervals = true
			case intervalSet && interval == 0:
				// The old spelling of --no-intervals, kept working, said aloud.
				a.log.Warn("fit: --interval 0 is the old spelling of --no-intervals, and does the same: the relevance files get no intervals and labels made from them no confidence (export --min-confidence refuses them); write --no-intervals")
				cfg.NoIntervals = true
			default:
				if err := clickmodels.CheckLevel(interval); err != nil {
					return usagef("fit: --interval: %v; --no-intervals fits without intervals", err)
				}
				cfg.Level = interval
			}
			if err := applyEstimator(cmd, estimator, exact, &cfg.Options); err != nil {
				return err
			}
			if cfg.Intervals, err = clickmodels.ParseIntervalMethod(intervalsFrom); err != nil {
				return usagef("fit: --intervals-from: %v", err)
			}
			if cmd.Flags().Changed("gibbs-subset-serps") {
				if err := clickmodels.CheckSubsetSERPs(float64(subsetSERPs)); err != nil {
					return usagef("fit: --gibbs-subset-serps: %v", err)
				}
				cfg.SubsetSERPs = float64(subsetSERPs)
			}
			if err := cfg.Options.Estimator().CheckEmpiricalPrior(cfg.EmpiricalPrior); err != nil {
				return usagef("fit: --empirical-prior %v", err)
			}
			cfg.Kinds, cfg.LoadDir = kinds, load
			var bar progress.Bar = nopBar{}
			// The memory in use, sampled when a model starts, after
			// every EM iteration and every shard: its peak is checked
			// against --memory-limit at the end.
			var peak atomic.Int64
			sample := func() {
				for in := membudget.InUse(); ; {
					p := peak.Load()
					if in <= p || peak.CompareAndSwap(p, in) {
						return
					}
				}
			}
			cfg.OnModel = func(k clickmodels.Kind) {
				sample()
				bar.Finish()
				a.log.Info("fitting click model", "model", k.String())
				n := int64(1) // --load: no fit
				if load == "" {
					n = int64(k.Iterations(cfg.Iterations, cfg.Exact)) // the cap when a tolerance may stop EM earlier
				}
				bar = progress.New(a.progress(), n, "fit "+k.String())
			}
			cfg.OnIteration = func(int, float64) { sample(); bar.Add(1) }
			cfg.OnShard = func(done, total int) {
				sample()
				if done == 1 {
					bar.Finish()
					bar = progress.New(a.progress(), int64(total), "prepare shards")
				}
				bar.Add(1)
			}
			cfg.Log = a.log
			reps, err := runFit(cmd, path, shardDir, cfg, out)
			bar.Finish()
			if err != nil {
				return err
			}
			sample()
			if p := peak.Load(); cfg.MemoryLimit > 0 && p > cfg.MemoryLimit {
				// The limit was not kept: say so and exit 1, though the
				// outputs are complete (docs/scale.md).
				return fmt.Errorf("fit: the memory in use reached %s, above --memory-limit %s: the outputs in %s are complete, but the limit was not kept (the program and the Go runtime alone hold several MiB); give a larger limit", bytesize.Format(p), bytesize.Format(cfg.MemoryLimit), out)
			}
			if asJSON {
				return printJSON(a.stdout, reps)
			}
			if !a.quiet {
				fmt.Fprintf(a.stdout, "%-5s %6s %6s %14s %11s %5s %9s\n", "model", "train", "test", "loglikelihood", "perplexity", "iter", "fit_s")
				for _, r := range reps {
					fmt.Fprintf(a.stdout, "%-5s %6d %6d %14.6f %11.6f %5d %9.3f\n", r.Model, r.TrainSessions, r.Sessions, r.LogLikelihood, r.Perplexity, r.Iterations, r.FitSeconds)
				}
				fmt.Fprintf(a.stdout, "outputs in %s (%s, %s, ...)\n", out, clickmodels.MetricsFile, clickmodels.RelevanceFile(strings.ToUpper(reps[0].Model)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the metrics of every model as JSON (as metrics.json)")
	f.StringVar(&logFile, "log", "", "click log `FILE` (plain or gzip)")
	f.StringVar(&format, "format", "yandex", "format of --log: yandex (relevance-prediction format, read as PyClick does)")
	f.StringVar(&sessDir, "sessions", "", "ingest output `DIR` (its sessions.parquet), a sessions.parquet file or a Yandex log")
	f.StringVar(&models, "models", clickmodels.DefaultModels, "comma-separated click models, or all")
	f.StringVar(&out, "out", "", "output `DIR`")
	f.StringVar(&estimator, "estimator", string(clickmodels.DefaultEstimator), "EM estimator: exact (the exact E-steps of DBN, SDBN, DCM and CCM, every EM model run to convergence) or pyclick (PyClick's E-steps, 50 iterations: equal to PyClick); see docs/method.md section 3")
	intVar(f, &cfg.Iterations, "iterations", clickmodels.DefaultMaxIterations, atLeast(1), "EM iterations: at most this many with --estimator exact; exactly this many with --estimator pyclick (then 50 unless given)")
	floatVar(f, &cfg.TrainFraction, "train-fraction", split.DefaultTrainFraction, between(0, 1), "share of SERPs that train")
	f.StringVar(&splitName, "split", string(split.Spec), "train/test split: spec (file order), random (seeded) or time (whole user sessions)")
	uint64Var(f, &cfg.Seed, "seed", split.DefaultSeed, "seed of --split random")
	intVar(f, &cfg.Workers, "workers", 0, atLeast(0), "parallel workers (0: all CPUs); results do not depend on it")
	floatVar(f, &cfg.Tolerance, "tolerance", clickmodels.DefaultTolerance, atLeast(0), "stop EM once the training log-likelihood per SERP changes less than this (0: run all --iterations; 0 with --estimator pyclick unless given, like PyClick)")
	f.BoolVar(&cfg.Accelerate, "accelerate", true, "with a --tolerance (--estimator exact): accelerate EM (SQUAREM, monotone), the same stopping rule and limit in fewer iterations; --accelerate=false runs plain EM (docs/clickmodels.md, \"Accelerated EM\")")
	f.Float64Var(&interval, "interval", clickmodels.DefaultLevel, "level of the interval written next to each relevance, in (0, 1) (see docs/clickmodels.md, \"Uncertainty\")")
	f.StringVar(&intervalsFrom, "intervals-from", string(clickmodels.IntervalsAuto), "how DBN's and SDBN's intervals (and so the labels' confidence) are computed: auto (the default, with the exact estimator: gibbs for a log of at most 300,000 training SERPs, gibbs-subset above; counts under --estimator pyclick or --no-intervals), counts (the E-step's expected counts) or gibbs (a Gibbs sampler of the hierarchical model, closer to the stated coverage, several times the DBN fit's CPU where most pairs are seen seldom (about 4x at 100 k SERPs over 20,000 queries), less where they are seen often (pairs shown in 512 SERPs or more keep the counts' intervals and are not sampled: 1.7x at 1 M over 300 queries); the same bits with --shards and --memory-limit and in lovbench-beam) or gibbs-subset (the sampler on a subset of the queries of about 50,000 training SERPs chosen by a hash of their names, its posterior carried to the other pairs by prior cell; the same bits with --shards and --memory-limit and in lovbench-beam; see docs/clickmodels.md, \"The sampler on a subset of queries\"); not with --load, --no-intervals or --estimator pyclick, where auto takes the counts); the other models keep theirs; metrics.json names the method each model's intervals came from; see docs/clickmodels.md, \"The default: the sampler where it is affordable\"")
	f.IntVar(&subsetSERPs, "gibbs-subset-serps", clickmodels.GibbsSubsetSERPs, "training SERPs (a positive number) of the subset of queries --intervals-from gibbs-subset runs the sampler on (more: closer to the sampler on the whole log, at more CPU; at or above the log's training SERPs every query is in it); with auto it applies where auto picks gibbs-subset (above 300,000 training SERPs) and is unused below; refused with counts or gibbs, --no-intervals, --estimator pyclick and --load; metrics.json records it (uncertainty.gibbs.subset_serps); see docs/clickmodels.md, \"The sampler on a subset of queries\"")
	f.BoolVar(&noIntervals, "no-intervals", false, "write no intervals (and skip the pass that computes them): labels made from the fit have no confidence")
	f.BoolVar(&exact, "exact", false, "the same as --estimator exact, the default (kept for earlier scripts)")
	f.BoolVar(&cfg.EmpiricalPrior, "empirical-prior", false, "with --estimator exact: the empirical-Bayes prior of the attractiveness of DBN, SDBN, DCM and CCM (per-rank means estimated from the log instead of 0.5; off by default: docs/method.md section 4, \"An empirical-Bayes prior for the exact estimator\")")
	f.BoolVar(&cfg.PSCMAuthors, "pscm-authors", false, "PSCM: as the authors' code (THUIR/PSCMModel), which reproduces their published perplexities: a return observes ranks n+1..m, gamma after the last click stays 0.5 (docs/clickmodels.md, \"PSCM\")")
	f.StringVar(&shardDir, "shards", "", "query-shard `DIR` written by lovbench shard (fits shard by shard; same outputs)")
	f.StringVar(&memLimit, "memory-limit", "", "bound the fit's memory, e.g. 4GiB: 0 (no limit) or at least 1MiB (see docs/scale.md)")
	f.StringVar(&load, "load", "", "load <MODEL>_params.parquet or <MODEL>_params.json from `DIR` instead of fitting, then evaluate")
	f.StringVar(&paramsFormat, "params-format", "auto", "parameter files: auto (JSON up to 100,000 pairs, else Parquet), json or parquet")
	return cmd
}

// applyEstimator sets opt's E-step, iterations, tolerance and
// acceleration from --estimator (and its older spelling --exact): the
// estimator's settings (clickmodels.Estimator.Options), except
// --iterations, --tolerance and --accelerate where given.
func applyEstimator(cmd *cobra.Command, name string, exact bool, opt *clickmodels.Options) error {
	est, err := clickmodels.ParseEstimator(name)
	if err != nil {
		return usagef("%s: --estimator: %v", cmd.Name(), err)
	}
	if exact && est != clickmodels.EstimatorExact {
		return usagef("%s: --exact contradicts --estimator %s", cmd.Name(), est)
	}
	def := est.Options()
	opt.Exact = def.Exact
	if !cmd.Flags().Changed("iterations") {
		opt.Iterations = def.Iterations
	}
	if !cmd.Flags().Changed("tolerance") {
		opt.Tolerance = def.Tolerance
	}
	if cmd.Flags().Lookup("accelerate") != nil && !cmd.Flags().Changed("accelerate") {
		opt.Accelerate = def.Accelerate
	}
	return nil
}

// nopBar is the progress bar before the first model.
type nopBar struct{}

func (nopBar) Add(int) {}
func (nopBar) Finish() {}

// runFit fits into a directory built beside out and published whole
// (fit.Run picks how the log is fitted).
func runFit(cmd *cobra.Command, path, shardDir string, cfg clickmodels.RunConfig, out string) ([]clickmodels.Report, error) {
	fc := fit.Config{Input: path, ShardDir: shardDir, ShardSplit: !cmd.Flags().Changed("split"), RunConfig: cfg}
	if err := fit.Check(fc); err != nil {
		return nil, usagef("%v", err)
	}
	dir, err := atomicfile.CreateDir(out, clickmodels.MetricsFile, clickmodels.OutputNames...)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	defer dir.Abort()
	fc.Dir = dir.Path()
	reps, err := fit.Run(cmd.Context(), fc)
	var small *shards.LimitTooSmallError
	if errors.As(err, &small) {
		return nil, usagef("fit: --memory-limit: %v", err)
	}
	var subset *fit.SubsetMemoryError
	if errors.As(err, &subset) {
		return nil, usagef("%v", err)
	}
	if err != nil {
		return nil, err
	}
	return reps, dir.Commit()
}
