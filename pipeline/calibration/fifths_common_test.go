package calibration_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

// The targets of issue 36, part 4, on the user's path (ingest, fit, label
// with the defaults): the 90% intervals cover 85-95% of the true relevance
// in every fifth of the pairs ordered by evidence, the best-observed fifth
// included, and the label confidences have an expected calibration error
// of at most 0.05. Where the model cannot identify its relevance (UBM's
// scale: alpha c and gamma / c give the same clicks), an interval that
// covers the identified set may cover more than 95%; the ECE then shows
// whether it is wider than it must be, so UBM's coverage is only bounded
// below.
const (
	minFifthCoverage = 0.85
	maxFifthCoverage = 0.95
	maxFifthECE      = 0.05
)

// checkFifths applies the targets to r; ridge lifts the upper bound of
// the coverage (a model with a scale ridge).
func checkFifths(t *testing.T, r *calibration.Report, ridge bool) {
	t.Helper()
	hi := maxFifthCoverage
	if ridge {
		hi = 1
	}
	for g, f := range r.ByEvidence {
		t.Logf("fifth %d: %d pairs, evidence %.1f-%.1f, coverage %.3f, fitted/true %.3f, %d labels, ECE %.3f",
			g+1, f.Pairs, f.MinEvidence, f.MaxEvidence, f.Coverage, f.MeanFitted/f.MeanTrue, f.Labels, f.ECE)
		if f.Coverage < minFifthCoverage || f.Coverage > hi {
			t.Errorf("fifth %d by evidence: coverage %.3f, want %.2f-%.2f", g+1, f.Coverage, minFifthCoverage, hi)
		}
	}
	t.Logf("SERPs %d, kept %d, pairs %d, coverage %.3f, %d labels, ECE %.3f", r.LogSERPs, r.KeptSERPs, r.Pairs, r.Coverage, r.Labels.Pairs, r.Labels.ECE)
	if r.Labels.ECE > maxFifthECE {
		t.Errorf("label-confidence ECE %.3f, want at most %.2f", r.Labels.ECE, maxFifthECE)
	}
}

// withRecalibration is opt with the parametric bootstrap's correction of
// the intervals (calibration.Options.Recalibrate), a measurement that is
// not part of the user's path, when the environment asks for it:
// LOVBENCH_RECALIBRATE=posterior (each pair's values drawn from its
// posterior) or plugin (its point estimates), and
// LOVBENCH_RECALIBRATE_REPLICATES the number of worlds; docs/clickmodels.md, "A
// parametric bootstrap of the intervals, measured and not adopted".
func withRecalibration(opt calibration.Options) calibration.Options {
	switch os.Getenv("LOVBENCH_RECALIBRATE") {
	case "posterior":
		opt.Recalibrate, opt.Bootstrap = true, calibration.DefaultBootstrap()
	case "plugin":
		opt.Recalibrate, opt.Bootstrap = true, calibration.DefaultBootstrap()
		opt.Bootstrap.PlugIn = true
	}
	if n, err := strconv.Atoi(os.Getenv("LOVBENCH_RECALIBRATE_REPLICATES")); err == nil {
		opt.Bootstrap.Replicates = n
	}
	return withGibbs(opt)
}

// withGibbs is opt with DBN's relevance intervals from the Gibbs sampler
// of the hierarchical model (clickmodels.Options.Gibbs), a measurement
// that is not part of the user's path, when the environment asks for
// it: LOVBENCH_GIBBS=B+S, B sweeps of burn-in and S kept, the cells'
// priors fitted to the complete-data counts (B+Sd: to the drawn values,
// clickmodels.GibbsSetting.FromDraws; B+Sm: the relevance column the
// sampler's posterior mean, Mean; p: the satisfaction's priors pooled
// over the ranks, PoolSat; r: the cells the rank buckets alone,
// RankOnly; g: UBM's sampler draws the examination parameters too,
// DrawExam; /K after them: the priors refitted every K sweeps,
// RefitEvery; @H at the end: the pairs shown in at least H SERPs held at
// their fit, HoldShown) (docs/clickmodels.md, "A Gibbs sampler of the hierarchical DBN,
// measured"). The setting reaches UBM's sampler too (clickmodels/gibbsubm.go;
// "A Gibbs sampler of the hierarchical UBM, measured and not adopted").
func withGibbs(opt calibration.Options) calibration.Options {
	env := os.Getenv("LOVBENCH_GIBBS")
	env, holdS, _ := strings.Cut(env, "@")
	hold := 0.0
	if holdS != "" {
		var err error
		if hold, err = strconv.ParseFloat(holdS, 64); err != nil {
			panic("LOVBENCH_GIBBS: want B+S[flags][/K][@H], H the impressions from which a pair is held")
		}
	}
	env, refit, _ := strings.Cut(env, "/")
	spec := strings.TrimRight(env, "dmprg")
	flags := env[len(spec):]
	every := 0
	if refit != "" {
		var err error
		if every, err = strconv.Atoi(refit); err != nil {
			panic("LOVBENCH_GIBBS: want B+S[flags][/K], K the sweeps between refits")
		}
	}
	b, s, ok := strings.Cut(spec, "+")
	if !ok {
		return opt
	}
	burn, err1 := strconv.Atoi(b)
	sweeps, err2 := strconv.Atoi(s)
	if err1 != nil || err2 != nil {
		panic("LOVBENCH_GIBBS: want B+S, two numbers of sweeps")
	}
	prev := opt.Fit
	opt.Fit = func(c *clickmodels.RunConfig) {
		if prev != nil {
			prev(c)
		}
		// The measurement setting replaces the default's method (auto:
		// the sampler in its own setting on these logs), and any other
		// a test asks for.
		c.Intervals = clickmodels.IntervalsCounts
		c.Gibbs = clickmodels.GibbsSetting{BurnIn: burn, Sweeps: sweeps,
			FromDraws: strings.Contains(flags, "d"), Mean: strings.Contains(flags, "m"),
			PoolSat: strings.Contains(flags, "p"), RankOnly: strings.Contains(flags, "r"), RefitEvery: every,
			DrawExam: strings.Contains(flags, "g"), HoldShown: hold}
	}
	return opt
}

// fifthsSeed is the seed of the simulated logs: 1, or
// LOVBENCH_SEED, to check that a calibration measured on the seed-1 logs
// holds on logs it was not tuned to (a measurement, as LOVBENCH_GIBBS).
func fifthsSeed() uint64 {
	env := os.Getenv("LOVBENCH_SEED")
	if env == "" {
		return 1
	}
	s, err := strconv.ParseUint(env, 10, 64)
	if err != nil {
		panic("LOVBENCH_SEED: want a whole number")
	}
	return s
}

// refFifths runs the user's path on a log of the second simulator.
func refFifths(t *testing.T, model string, serps, queries int) *calibration.Report {
	t.Helper()
	return refFifthsWith(t, model, serps, queries, calibration.Options{})
}

// refFifthsWith is refFifths with the path's options.
func refFifthsWith(t *testing.T, model string, serps, queries int, opt calibration.Options) *calibration.Report {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path, truth, _, err := calibration.RefLog(ctx, refsim.Default(model, serps, queries, fifthsSeed()), dir)
	if err != nil {
		t.Fatal(err)
	}
	k := clickmodels.UBM
	if model == refsim.DBN {
		k = clickmodels.DBN
	}
	r, err := calibration.Run(ctx, path, k, truth, dir, withRecalibration(opt))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// simFifths runs the user's path on a log of the project's simulator over
// its synthetic source: dense, 100 SERPs per query with the default
// parameters; sparse, 5 SERPs per query with the LOVBench profile's
// examination for UBM (0.8 at rank 1, falling by 0.4 per rank) and no
// users coming back to the results page (the returns are not a UBM or
// DBN log: no click model can be calibrated on them; docs/clickmodels.md
// measures them apart).
func simFifths(t *testing.T, k clickmodels.Kind, serps int, sparse bool) *calibration.Report {
	t.Helper()
	ctx := context.Background()
	perQuery := 100
	cfg := sim.Config{Kind: k, SERPs: serps, Seed: fifthsSeed()}
	if sparse {
		perQuery = 5
		if k == clickmodels.UBM {
			g, err := sim.ExaminationGlobal(k, clickmodels.DefaultRanks, 0.8, 0.4)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Global = g
		}
	}
	sc := sim.DefaultSyntheticConfig()
	sc.Queries, sc.Seed = serps/perQuery, fifthsSeed()
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Source = src
	dir := t.TempDir()
	path, truth, err := calibration.SimLog(ctx, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := calibration.Run(ctx, path, k, truth, dir, withRecalibration(calibration.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The targets that hold (the others, fifths_test.go, build with the tag
// fifths). Both fail on lovbench 1e0f7c5, whose intervals counted a
// result skipped at a rarely examined rank as a whole failure, whose
// measurement fitted with PyClick's estimator and whose ingest dropped the
// SERPs without a click: RefUBMSparse failed in its best-observed fifth
// (overall coverage 0.919, ECE 0.038; docs/clickmodels.md, "On the user's
// path, by evidence fifth"), the whole 200 k DBN log's (exact estimator)
// fifths were 0.80 0.81 0.76 0.85 0.71.

// TestFifthsRefUBMSparse: UBM on 10,000 SERPs over 2,000 queries. It
// holds since the SERPs without a click reach the click models by default
// (issue 36 part 1): best-observed fifth 0.853, ECE 0.039 (lovbench at
// the merge of issue 36 part 1). TestFifthsRefUBMDense went the other way
// (fifths_test.go).
func TestFifthsRefUBMSparse(t *testing.T) {
	t.Parallel()
	checkFifths(t, refFifths(t, refsim.UBM, 10000, 2000), true)
}

// TestFifthsRefDBNVeryDenseWhole: the worst case, DBN on 200,000
// SERPs over 50 queries, with the SERPs without a click kept (issue 36
// part 1; ingest's default): the exact estimator on the whole log, its
// 150,000 training SERPs within clickmodels.AutoGibbsTrainSERPs, so the
// default's intervals are the Gibbs sampler's: 0.893 0.913 0.887 0.893
// 0.860, ECE 0.035 (seed 2: 0.893 0.907 0.927 0.853 0.893, 0.044); with
// the counts' (fit --intervals-from counts) 0.880 0.913 0.880 0.893
// 0.853, ECE 0.031.
func TestFifthsRefDBNVeryDenseWhole(t *testing.T) {
	t.Parallel()
	checkFifths(t, refFifthsWith(t, refsim.DBN, 200000, 50, calibration.Options{}), false)
}

// TestFifthsRefUBMDense: UBM on 60,000 SERPs over 300 queries. It held
// with the SERPs without a click dropped by ingest and failed with them
// kept (issue 36 part 1), in its best-observed fifth: fifths 0.903 0.899
// 0.873 0.881 0.828, ECE 0.018 (lovbench db630d6). The relevance of that
// fifth is 0.94 x the truth: EM settles at rank 1's examination 0.998
// (truth 0.95), and the scale interval [0.998, 1 / 0.971] stopped short
// of the truth's 1.05 because its upper end was one over the largest
// fitted attractiveness, 0.971, a pair of 22 evidence whose true
// attractiveness is 0.92 (0.86 at the fitted scale). With the upper end
// one over the largest lower confidence bound of the pairs'
// attractiveness (0.887: c up to 1.127; clickmodels/identify.go) every
// fifth holds: 0.911 0.941 0.931 0.944 0.962, ECE 0.018.
func TestFifthsRefUBMDense(t *testing.T) {
	t.Parallel()
	checkFifths(t, refUBMDense(t), true)
}

// refUBMDenseReport is the report of TestFifthsRefUBMDense's path (the
// default options on UBM's 60,000 SERPs over 300 queries), made once per
// test binary by refUBMDense: the tests only read it.
var refUBMDenseReport struct {
	once sync.Once
	r    *calibration.Report
}

// refUBMDense returns refUBMDenseReport, made by the first test that asks
// (a failure there fails the others too).
func refUBMDense(t *testing.T) *calibration.Report {
	t.Helper()
	refUBMDenseReport.once.Do(func() { refUBMDenseReport.r = refFifths(t, refsim.UBM, 60000, 300) })
	if refUBMDenseReport.r == nil {
		t.Fatal("the path on UBM's 60,000 SERPs failed (see the first test that ran it)")
	}
	return refUBMDenseReport.r
}

// TestFifthsRefUBMDenseAccelerate is TestFifthsRefUBMDense with EM
// accelerated (fit --accelerate): EM converges (it stops by the
// tolerance, well within the cap) instead of drifting at the cap. It
// failed likewise on lovbench db630d6 (best-observed fifth 0.813); now
// 0.912 0.941 0.931 0.943 0.962, ECE 0.015. The default fit accelerates
// (clickmodels.EstimatorExact): then the path with the defaults is this
// one, and the test checks TestFifthsRefUBMDense's report (the same
// files, made once) instead of making it again; if the default stops
// accelerating, it runs the path with Accelerate set.
func TestFifthsRefUBMDenseAccelerate(t *testing.T) {
	t.Parallel()
	if fit.DefaultConfig().RunConfig.Accelerate {
		checkFifths(t, refUBMDense(t), true)
		return
	}
	checkFifths(t, refFifthsWith(t, refsim.UBM, 60000, 300, calibration.Options{Fit: func(c *clickmodels.RunConfig) { c.Accelerate = true }}), true)
}

// TestFifthsSimUBMDense: UBM on 20,000 SERPs of the project's simulator
// (100 per query). It failed on lovbench ee2306d in its third fifth by
// evidence: 0.912 0.936 0.849 0.881 0.966, ECE 0.041; 108 of the fifth's
// 763 pairs lay below their interval, most of them shown once or twice
// at ranks 8-9 from the shuffled lists and never clicked, whose prior
// cell (no success: not informative) took its rank bucket's prior, fitted
// to the engine's own results shown there (concentration 13.3). With the
// concentration of such a cell at most what its own pairs identify
// (clickmodels, priorTableOf): 0.891 0.955 0.953 0.954 0.962, ECE 0.036.
func TestFifthsSimUBMDense(t *testing.T) {
	t.Parallel()
	checkFifths(t, simFifths(t, clickmodels.UBM, 20000, false), true)
}

// The DBN targets the default meets since its intervals come from the
// Gibbs sampler on logs of at most clickmodels.AutoGibbsTrainSERPs
// training SERPs (fit --intervals-from auto; docs/clickmodels.md, "The
// default: the sampler where it is affordable"). Each failed with the
// counts' intervals, the default before (seed 1, then seed 2's logs with
// LOVBENCH_SEED=2), and passes on both seeds with the sampler's.

// TestFifthsRefDBNDense: DBN on 60,000 SERPs over 300 queries. Counts:
// 0.983 0.935 0.871 0.870 0.884, ECE 0.037 (seed 2: 0.986 0.924 0.822
// 0.875 0.868, 0.039); the sampler: 0.885 0.903 0.895 0.895 0.914, ECE
// 0.037 (seed 2: 0.885 0.904 0.902 0.922 0.913, 0.031).
func TestFifthsRefDBNDense(t *testing.T) {
	t.Parallel()
	checkFifths(t, refFifths(t, refsim.DBN, 60000, 300), false)
}

// TestFifthsSimDBNDense: DBN on 20,000 SERPs of the project's simulator.
// Counts: 0.984 0.959 0.869 0.827 0.865, ECE 0.073 (seed 2: 0.992 0.969
// 0.877 0.875 0.881, 0.098); the sampler: 0.921 0.855 0.867 0.911 0.890,
// ECE 0.036 (seed 2: 0.885 0.856 0.918 0.935 0.901, 0.040).
func TestFifthsSimDBNDense(t *testing.T) {
	t.Parallel()
	checkFifths(t, simFifths(t, clickmodels.DBN, 20000, false), false)
}

// TestFifthsSimDBNSparse: DBN on 10,000 SERPs of the project's simulator,
// 5 per query. Counts: 0.990 0.990 0.977 0.973 0.948, ECE 0.088 (seed 2:
// 0.993 0.979 0.980 0.967 0.930, 0.102); the sampler: 0.948 0.945 0.915
// 0.895 0.904, ECE 0.029 (seed 2: 0.935 0.930 0.929 0.907 0.889, 0.033).
func TestFifthsSimDBNSparse(t *testing.T) {
	t.Parallel()
	checkFifths(t, simFifths(t, clickmodels.DBN, 10000, true), false)
}
