// Command calibration measures the relevance intervals and label
// confidences of `lovbench fit` and `lovbench label` against the known
// truth of simulated logs (docs/clickmodels.md, "Calibration"): the
// coverage of the intervals, the expected calibration error of the
// confidences over ten bins and their Brier skill.
//
//	go run ./bench/calibration -serps 100000,1000000
//
// Logs: synthetic (sim.SyntheticSource) and corpus-based
// (corpussim over the embedded demo corpus), each sparse (the demo's
// LOVBench profile: about 5 SERPs per query; for UBM examination 0.8 at
// the first rank falling by 0.4 per rank, and users coming back to the
// results page after every click) and dense (about 100 SERPs per query,
// the simulator's default parameters); clicks from UBM and from DBN, each
// fitted with the model that simulated it.
//
// Ablations replace one ingredient of the intervals by the simulation's
// truth (calibration.SimulationOptions): -true-globals fixes the click model's
// global parameters at the simulated ones, -oracle-prior replaces the
// fitted priors by the Beta moment-matched to the true values of each
// prior cell (rank bucket, exposure class), -return 0 takes away the
// users coming back to the results page. -ablate runs, per log and model, the fit as it is, each of the
// three alone, the oracle prior without users coming back, and all three
// together ("what limits each kind of log"; dense logs have no users
// coming back, so they skip the variants without):
//
//	go run ./bench/calibration -serps 100000 -logs synthetic-sparse,corpus-sparse -ablate
//	go run ./bench/calibration -serps 100000 -logs synthetic-dense,corpus-dense -ablate
//
// -user measures instead what a user gets on the documented path with
// the defaults (ingest --format yandex, fit --sessions, label; package
// pipeline/calibration): the coverage of the intervals and the expected
// calibration error of the label confidences, overall and by fifth of the
// pairs ordered by evidence (the posterior's alpha + beta), with the mean
// fitted relevance over the mean true relevance per fifth; -drop-clickless
// ingests with --drop-clickless (the SERPs of sessions without a click
// dropped for the click models too, the default before issue 36) and
// -estimator pyclick fits with PyClick's estimator. -sim picks the
// simulator: ref (clickmodels/refsim, written from the models'
// definitions: -queries queries, Zipf popularity, 30% of lists shuffled,
// click-less SERPs kept) or synthetic-dense, synthetic-sparse (the
// project's own, as above):
//
//	go run ./bench/calibration -user -sim ref -models ubm -serps 60000 -queries 300
//	go run ./bench/calibration -user -sim ref -models dbn -serps 60000,200000 -queries 300,50
//
// -bias takes DBN's bias apart on a log held in memory
// (calibration.DBNBias; docs/clickmodels.md, "Sparse DBN at scale: where
// the bias is"): the continuation, the pairs' relevance by impressions
// fitted freely and with the continuation at the truth, and the rate of
// the intervals' evidence by trials, at the fitted and at the true values;
// -sim ref (with -queries), synthetic-sparse (with -return) or
// synthetic-dense:
//
//	go run ./bench/calibration -bias -sim ref -serps 10000,100000,1000000 -queries 2000,20000,200000
//	go run ./bench/calibration -bias -sim synthetic-sparse -serps 100000 -return 0
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/corpussim"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

func main() {
	serps := flag.String("serps", "100000", "comma-separated numbers of simulated SERPs")
	models := flag.String("models", "ubm,dbn", "models that simulate and fit")
	logs := flag.String("logs", "synthetic-sparse,synthetic-dense,corpus-sparse,corpus-dense", "kinds of log")
	seed := flag.Uint64("seed", 1, "seed of the simulations")
	level := flag.Float64("level", clickmodels.DefaultLevel, "interval level")
	ret := flag.Float64("return", 1, "sparse logs: probability that a user comes back to the results page after a click (the demo's LOVBench profile: 1)")
	trueGlobals := flag.Bool("true-globals", false, "ablation: fix the click model's global parameters at the simulation's values instead of fitting them")
	oracle := flag.Bool("oracle-prior", false, "ablation: replace the fitted priors by the Beta moment-matched to the true values of each prior cell (rank bucket, exposure class)")
	ablate := flag.Bool("ablate", false, "run per log and model the fit as it is, each ablation alone (-true-globals, -return 0 on sparse logs, -oracle-prior), the oracle prior with -return 0, and all together")
	user := flag.Bool("user", false, "measure the user's path (ingest, fit, label with their defaults) by evidence fifth instead")
	simName := flag.String("sim", "ref", "with -user: ref (the second simulator, clickmodels/refsim), synthetic-dense or synthetic-sparse")
	queries := flag.String("queries", "300", "with -user -sim ref: comma-separated numbers of queries, one per -serps value (or one for all)")
	drop := flag.Bool("drop-clickless", false, "with -user: ingest with --drop-clickless (the sessions without a click dropped for the click models too, as LOVBench's rule 1)")
	estimator := flag.String("estimator", string(clickmodels.DefaultEstimator), "with -user: fit --estimator (exact, the default, or pyclick)")
	bias := flag.Bool("bias", false, "measure DBN's bias taken apart instead (calibration.DBNBias): the continuation, the pairs' relevance by impressions fitted freely and with the continuation at the truth, and the rate of the intervals' evidence by trials at the fitted and at the true values; -sim ref (-queries), synthetic-sparse (-return) or synthetic-dense")
	eb := flag.Bool("empirical-prior", false, "with -user: the exact estimator with the empirical-Bayes prior (clickmodels.Options.EmpiricalPrior)")
	recal := flag.Bool("recalibrate", false, "with -user: apply the parametric bootstrap's correction of the intervals (calibration.Options.Recalibrate; a measurement, not adopted) and print its bins")
	recalPlugIn := flag.Bool("recal-plugin", false, "with -recalibrate: the bootstrap's pairs take their point estimates instead of a draw from their posterior")
	recalReps := flag.Int("recal-replicates", 1, "with -recalibrate: the number of worlds the bootstrap draws (their pairs pooled)")
	recalSERPs := flag.Int("recal-serps", calibration.DefaultBootstrap().MaxSERPs, "with -recalibrate: at most this many SERPs (whole queries) in the bootstrap's subsample")
	gibbsBurn := flag.Int("gibbs-burnin", 20, "with -gibbs-sweeps: the Gibbs sampler's sweeps of burn-in")
	gibbsSweeps := flag.Int("gibbs-sweeps", 0, "with -user: DBN's, SDBN's and UBM's relevance intervals from this many kept sweeps of the Gibbs sampler of the hierarchical model (clickmodels.Options.Gibbs; a measurement, off by default; best measured with -gibbs-pool-sat -gibbs-rank-only); 0: off")
	gibbsMean := flag.Bool("gibbs-mean", false, "with -gibbs-sweeps: the relevance column (and so the labels) the sampler's posterior mean (clickmodels.GibbsSetting.Mean)")
	gibbsDraws := flag.Bool("gibbs-draws", false, "with -gibbs-sweeps: the sampler's cell priors fitted to the drawn values, not to the complete-data counts (clickmodels.GibbsSetting.FromDraws)")
	gibbsPoolSat := flag.Bool("gibbs-pool-sat", false, "with -gibbs-sweeps: the sampler's satisfaction priors pooled over the rank buckets (clickmodels.GibbsSetting.PoolSat)")
	gibbsRefit := flag.Int("gibbs-refit-every", 0, "with -gibbs-sweeps: the sampler's cell priors refitted every this many sweeps (clickmodels.GibbsSetting.RefitEvery; 0: every sweep; the opt-in's setting: 5)")
	gibbsDrawExam := flag.Bool("gibbs-draw-exam", false, "with -gibbs-sweeps and -models ubm: UBM's sampler draws the examination parameters too, moved back to the fitted scale each sweep (clickmodels.GibbsSetting.DrawExam)")
	gibbsHold := flag.Float64("gibbs-hold", 0, "with -gibbs-sweeps: the pairs shown in at least this many SERPs held at their fit, their intervals the counts' (clickmodels.GibbsSetting.HoldShown; 0: none)")
	intervalsFrom := flag.String("intervals-from", "", "with -user: DBN's intervals from counts, gibbs, gibbs-subset or auto (fit --intervals-from; \"\": the default, auto); with -gibbs-sweeps the measurement setting decides")
	gibbsTransferLog := flag.Bool("gibbs-transfer-log", false, "with -gibbs-subset: the other pairs' Betas matched on the corrected mean and E[ln r] (clickmodels.GibbsSetting.TransferLog)")
	gibbsSubset := flag.Float64("gibbs-subset", 0, "with -gibbs-sweeps: DBN's sampler on a subset of whole queries of about this many training SERPs, its posterior carried to the other pairs by prior cell (clickmodels.GibbsSetting.Subset; 0: the whole log)")
	gibbsRankOnly := flag.Bool("gibbs-rank-only", false, "with -gibbs-sweeps: the sampler's cells the rank buckets alone, pooled over the exposure classes (clickmodels.GibbsSetting.RankOnly)")
	flag.Parse()
	if *bias {
		if err := runBias(*serps, *queries, *simName, *seed, *ret); err != nil {
			fmt.Fprintln(os.Stderr, "calibration:", err)
			os.Exit(1)
		}
		return
	}
	if *user {
		est, err := clickmodels.ParseEstimator(*estimator)
		if err != nil {
			fmt.Fprintln(os.Stderr, "calibration: -estimator:", err)
			os.Exit(2)
		}
		opt := calibration.Options{DropClickless: *drop, Recalibrate: *recal}
		if *recal {
			opt.Bootstrap = calibration.DefaultBootstrap()
			opt.Bootstrap.PlugIn, opt.Bootstrap.MaxSERPs, opt.Bootstrap.Replicates = *recalPlugIn, *recalSERPs, *recalReps
		}
		method, err := clickmodels.ParseIntervalMethod(*intervalsFrom)
		if err != nil {
			fmt.Fprintln(os.Stderr, "calibration: -intervals-from:", err)
			os.Exit(2)
		}
		if est != clickmodels.DefaultEstimator || *eb || *gibbsSweeps > 0 || method != clickmodels.IntervalsAuto {
			opt.Fit = func(c *clickmodels.RunConfig) {
				if est != clickmodels.DefaultEstimator {
					c.Options = est.Options()
				}
				c.EmpiricalPrior = *eb
				if method != clickmodels.IntervalsAuto {
					c.Intervals = method
				}
				if *gibbsSweeps > 0 {
					c.Gibbs = clickmodels.GibbsSetting{BurnIn: *gibbsBurn, Sweeps: *gibbsSweeps, Mean: *gibbsMean, FromDraws: *gibbsDraws,
						PoolSat: *gibbsPoolSat, RankOnly: *gibbsRankOnly, RefitEvery: *gibbsRefit, DrawExam: *gibbsDrawExam, HoldShown: *gibbsHold, Subset: *gibbsSubset, TransferLog: *gibbsTransferLog}
				}
			}
		}
		if err := runUser(*serps, *queries, *models, *simName, *seed, opt); err != nil {
			fmt.Fprintln(os.Stderr, "calibration:", err)
			os.Exit(1)
		}
		return
	}
	vs := []variant{{name: "as fitted", ret: *ret, opt: calibration.SimulationOptions{TrueGlobals: *trueGlobals, OraclePrior: *oracle}}}
	if *ablate {
		vs = []variant{
			{name: "as fitted", ret: *ret},
			{name: "true globals", ret: *ret, opt: calibration.SimulationOptions{TrueGlobals: true}},
			{name: "no return", ret: 0, sparseOnly: true},
			{name: "oracle prior", ret: *ret, opt: calibration.SimulationOptions{OraclePrior: true}},
			{name: "oracle prior, no return", ret: 0, opt: calibration.SimulationOptions{OraclePrior: true}, sparseOnly: true},
			{name: "all three", ret: 0, opt: calibration.SimulationOptions{TrueGlobals: true, OraclePrior: true}},
		}
	} else if *trueGlobals || *oracle {
		vs[0].name = ""
		if *trueGlobals {
			vs[0].name = "true globals"
		}
		if *oracle {
			vs[0].name = strings.TrimPrefix(vs[0].name+", oracle prior", ", ")
		}
	}
	if err := run(*serps, *models, *logs, *seed, *level, vs); err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		os.Exit(1)
	}
}

// variant is one way of computing the intervals: the users' return
// probability on sparse logs and the ablations.
type variant struct {
	name string
	ret  float64
	opt  calibration.SimulationOptions
	// sparseOnly: the variant differs from another only in ret, which
	// dense logs do not use.
	sparseOnly bool
}

func run(serpList, modelList, logList string, seed uint64, level float64, vs []variant) error {
	ctx := context.Background()
	kinds, err := clickmodels.ParseKinds(modelList)
	if err != nil {
		return err
	}
	fmt.Printf("| log | model | intervals | SERPs | pairs | coverage | label accuracy | mean confidence | ECE | Brier skill |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range strings.Split(serpList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-serps: %w", err)
		}
		for _, logKind := range strings.Split(logList, ",") {
			for _, k := range kinds {
				for _, v := range vs {
					if v.sparseOnly && !strings.HasSuffix(logKind, "-sparse") {
						continue // dense logs have no users coming back
					}
					cfg, err := simConfig(ctx, strings.TrimSpace(logKind), k, n, seed, v.ret)
					if err != nil {
						return err
					}
					opt := v.opt
					opt.Level = level
					c, err := calibration.CalibrateSimulation(ctx, cfg, opt)
					if err != nil {
						return err
					}
					fmt.Printf("| %s | %v | %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", logKind, k, v.name, cfg.SERPs, c.Pairs, c.Coverage, c.Accuracy, c.MeanConfidence, c.ECE, c.BrierSkill)
				}
			}
		}
	}
	return nil
}

// corpusQueries bounds the queries of a corpus-based log.
const corpusQueries = 500

// simConfig is the simulation of one kind of log (see the command's
// documentation).
func simConfig(ctx context.Context, logKind string, k clickmodels.Kind, n int, seed uint64, ret float64) (sim.Config, error) {
	cfg := sim.Config{Kind: k, SERPs: n, Seed: seed}
	perQuery := 100
	sparse := strings.HasSuffix(logKind, "-sparse")
	if sparse {
		perQuery = 5
		cfg.ReturnAfterClick = ret
		if k == clickmodels.UBM || k == clickmodels.PBM {
			g, err := sim.ExaminationGlobal(k, clickmodels.DefaultRanks, 0.8, 0.4)
			if err != nil {
				return cfg, err
			}
			cfg.Global = g
		}
	} else if !strings.HasSuffix(logKind, "-dense") {
		return cfg, fmt.Errorf("log %q: want synthetic-sparse, synthetic-dense, corpus-sparse or corpus-dense", logKind)
	}
	queries := max(1, n/perQuery)
	switch {
	case strings.HasPrefix(logKind, "synthetic-"):
		sc := sim.DefaultSyntheticConfig()
		sc.Queries, sc.Seed = queries, seed
		src, err := sim.NewSyntheticSource(sc)
		if err != nil {
			return cfg, err
		}
		cfg.Source = src
	case strings.HasPrefix(logKind, "corpus-"):
		// The embedded corpus has about 590 queries with a full SERP: its
		// logs keep the profile's SERPs per query over at most
		// corpusQueries queries.
		queries = min(queries, corpusQueries)
		cfg.SERPs = queries * perQuery
		src, err := corpussim.Load(ctx, nil, features.LoadOptions{}, corpussim.Options{Queries: queries, SERPSize: 10, ZipfS: 1.1, Seed: seed,
			SplitSatisfaction: k == clickmodels.DBN || k == clickmodels.SDBN})
		if err != nil {
			return cfg, err
		}
		cfg.Source = src
	default:
		return cfg, fmt.Errorf("log %q: want synthetic-sparse, synthetic-dense, corpus-sparse or corpus-dense", logKind)
	}
	return cfg, nil
}

// runUser prints the user's-path measurement (pipeline/calibration) of
// every size and model.
func runUser(serpList, queryList, modelList, simName string, seed uint64, opt calibration.Options) error {
	ctx := context.Background()
	kinds, err := clickmodels.ParseKinds(modelList)
	if err != nil {
		return err
	}
	ns, qs, err := logSizes(serpList, queryList)
	if err != nil {
		return err
	}
	fmt.Println("| simulator | model | SERPs | queries | click-less SERPs | kept by ingest | pairs | coverage by evidence fifth, least to most | coverage | labels | ECE | ECE by fifth | fitted / true relevance by fifth |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for i, n := range ns {
		q := qs[i]
		for _, k := range kinds {
			work, err := os.MkdirTemp("", "lovbench-calibration-")
			if err != nil {
				return err
			}
			var (
				path     string
				truth    calibration.Truth
				clickles = "-"
			)
			switch simName {
			case "ref":
				var st refsim.Stats
				path, truth, st, err = calibration.RefLog(ctx, refsim.Default(strings.ToLower(k.String()), n, q, seed), work)
				clickles = fmt.Sprintf("%.3f", float64(st.ClicklessSERP)/float64(st.SERPs))
			case "synthetic-dense", "synthetic-sparse":
				var cfg sim.Config
				if cfg, err = simConfig(ctx, simName, k, n, seed, 1); err == nil {
					q = max(1, n/100)
					if simName == "synthetic-sparse" {
						q = max(1, n/5)
					}
					path, truth, err = calibration.SimLog(ctx, cfg, work)
				}
			default:
				err = fmt.Errorf("-sim %q: want ref, synthetic-dense or synthetic-sparse", simName)
			}
			var r *calibration.Report
			if err == nil {
				r, err = calibration.Run(ctx, path, k, truth, work, opt)
			}
			os.RemoveAll(work)
			if err != nil {
				return err
			}
			var cov, ece, bias []string
			for _, f := range r.ByEvidence {
				cov = append(cov, fmt.Sprintf("%.3f", f.Coverage))
				ece = append(ece, fmt.Sprintf("%.3f", f.ECE))
				bias = append(bias, fmt.Sprintf("%.2f", f.MeanFitted/f.MeanTrue))
			}
			fmt.Printf("| %s | %v | %d | %d | %s | %d | %d | %s | %.3f | %d | %.3f | %s | %s |\n", simName, k, n, q, clickles, r.KeptSERPs, r.Pairs,
				strings.Join(cov, " / "), r.Coverage, r.Labels.Pairs, r.Labels.ECE, strings.Join(ece, " / "), strings.Join(bias, " / "))
			if rec := r.Recalibration; rec != nil {
				fmt.Printf("\nbootstrap: %d SERPs, %d pairs, %.2f s (wall)\n\n| evidence (alpha + beta) | pairs | coverage of the refit's intervals | of its Beta | factor | refit / drawn relevance |\n|---|---|---|---|---|---|\n", rec.SERPs, rec.Pairs, rec.Seconds)
				for _, b := range rec.Bins {
					fmt.Printf("| %.2f-%.2f | %d | %.3f | %.3f | %.3f | %.3f |\n", b.From, b.To, b.Pairs, b.Coverage, b.BetaCoverage, b.Factor, b.Ratio)
				}
				fmt.Println()
			}
		}
	}
	return nil
}

// logSizes parses -serps and -queries: one number of queries per number
// of SERPs, or one for all (returned repeated).
func logSizes(serpList, queryList string) (ns, qs []int, err error) {
	if ns, err = ints(serpList, "-serps"); err != nil {
		return nil, nil, err
	}
	if qs, err = ints(queryList, "-queries"); err != nil {
		return nil, nil, err
	}
	switch {
	case len(qs) == 1:
		for len(qs) < len(ns) {
			qs = append(qs, qs[0])
		}
	case len(qs) != len(ns):
		return nil, nil, fmt.Errorf("-queries: %d values for %d -serps values", len(qs), len(ns))
	}
	return ns, qs, nil
}

// ints parses a comma-separated list of integers.
func ints(s, flagName string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flagName, err)
		}
		out = append(out, n)
	}
	return out, nil
}
