package clickmodels

import (
	"fmt"
	"math"
	"strings"
)

// IntervalMethod is how DBN's and SDBN's relevance Betas (the relevance
// file's alpha, beta, lower and upper, and so the labels' confidence) are
// computed: Options.Intervals, lovbench fit --intervals-from, run's
// click_models.intervals_from. The other models have one method, the
// default's, whatever it says.
type IntervalMethod string

const (
	// IntervalsCounts is the empirical-Bayes Beta of the evidence pass's
	// expected counts (docs/clickmodels.md, "Uncertainty"): the library's
	// zero IntervalMethod, and what IntervalsAuto takes above
	// AutoGibbsTrainSERPs.
	IntervalsCounts IntervalMethod = "counts"
	// IntervalsGibbs is the Gibbs sampler of the hierarchical model
	// (gibbs.go) in the setting GibbsIntervals: several times the DBN
	// fit's CPU where most pairs are seen seldom (about 4x at 100 k SERPs
	// over 20,000 queries), less where they are seen often (the pairs
	// shown in 512 SERPs or more are held at the fit: 1.7x at 1 M SERPs
	// over 300 queries), the same bits in memory, on query shards, under a memory limit and
	// in lovbench-beam (docs/clickmodels.md, "A Gibbs sampler of the
	// hierarchical DBN, measured").
	IntervalsGibbs IntervalMethod = "gibbs"
	// IntervalsGibbsSubset is the Gibbs sampler of IntervalsGibbs on a
	// subset of whole queries of about GibbsSubsetSERPs training SERPs,
	// chosen by a hash of their names, its posterior carried to the other
	// pairs by a map per prior cell fitted to the subset's
	// (GibbsSubsetIntervals, gibbstransfer.go): IntervalsAuto's choice
	// above AutoGibbsTrainSERPs, the same bits in memory, on query shards,
	// under a memory limit and in lovbench-beam, where the subset is
	// gathered from the shards and sampled alone (gibbssubset.go;
	// docs/clickmodels.md, "The sampler on a subset of queries").
	IntervalsGibbsSubset IntervalMethod = "gibbs-subset"
	// IntervalsAuto is the default of lovbench fit, lovbench-beam fit and
	// run (fit.DefaultConfig): with the exact estimator and intervals on,
	// IntervalsGibbs for a fit of at most AutoGibbsTrainSERPs training
	// SERPs, IntervalsGibbsSubset above; IntervalsCounts otherwise
	// (Options.ResolveIntervals). An
	// engine
	// resolves it from the whole log's training SERPs before it fits, so
	// every engine picks alike; Fit refuses it unresolved.
	IntervalsAuto IntervalMethod = "auto"
)

// AutoGibbsTrainSERPs is the most training SERPs for which IntervalsAuto
// takes the Gibbs sampler. The sampler calibrates DBN's and SDBN's
// intervals on the logs where the counts do not (10 k to 200 k SERPs on
// both simulators), and costs several times the DBN fit: at this size a
// few CPU-seconds to some tens. Above it the sampler runs on a subset of
// the queries (IntervalsGibbsSubset), which keeps the default fit within
// issue 36 part 7's budget at 1 M SERPs, where the counts over-cover
// sparse logs, and costs 1.02 x the counts' fit at 35 M SERPs under
// --memory-limit 1GiB, the subset gathered from the shards
// (gibbssubset.go; docs/clickmodels.md, "The default: the sampler where
// it is affordable", "The sampler on a subset of queries"). Until
// 2026-11-30 the counts were taken above 1,000,000 training SERPs, where
// out of core the subset's 132 passes read and rewrote every shard's
// chain (some 40 minutes at 35 M SERPs).
const AutoGibbsTrainSERPs = 300_000

// ResolveIntervals returns o with IntervalsAuto decided for a fit of
// trainSERPs training SERPs (the whole log's, in every engine): with
// intervals on, the exact estimator and no measurement setting of the
// sampler's (Options.Gibbs), the sampler for at most AutoGibbsTrainSERPs
// training SERPs and the sampler on a subset above; the counts otherwise.
// Any other method is returned as it is. It also sets the
// rate of the sampler's subset (GibbsSetting.SubsetRate, and
// IntervalsGibbsSubset's) from trainSERPs.
func (o Options) ResolveIntervals(trainSERPs int64) Options {
	if o.Intervals == IntervalsAuto {
		switch {
		case o.NoIntervals || !o.Exact || o.Gibbs != (GibbsSetting{}):
			o.Intervals = IntervalsCounts
		case trainSERPs <= AutoGibbsTrainSERPs:
			o.Intervals = IntervalsGibbs
		default:
			o.Intervals = IntervalsGibbsSubset
		}
	}
	if o.Gibbs.Subset > 0 {
		o.Gibbs.SubsetRate = subsetRate(o.Gibbs.Subset, trainSERPs)
	}
	if o.Intervals == IntervalsGibbsSubset {
		o.subsetRate = subsetRate(o.subsetSERPs(), trainSERPs)
	}
	return o
}

// GibbsUncertaintyMethod names the Gibbs sampler's intervals in
// metrics.json and the fit summary (UncertaintyReport.Method), where
// UncertaintyMethod names the default's.
const GibbsUncertaintyMethod = "gibbs-hierarchical-cascade"

// ParseIntervalMethod parses an interval method (case-insensitive); ""
// is the commands' default, IntervalsAuto.
func ParseIntervalMethod(s string) (IntervalMethod, error) {
	switch m := IntervalMethod(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return IntervalsAuto, nil
	case IntervalsCounts, IntervalsGibbs, IntervalsGibbsSubset, IntervalsAuto:
		return m, nil
	}
	return "", fmt.Errorf("unknown interval method %q (want auto, counts, gibbs or gibbs-subset)", s)
}

// GibbsSetting is one setting of the Gibbs sampler (gibbs.go): BurnIn
// sweeps, then Sweeps kept (Sweeps 0: no sampler), and its variants. It
// is recorded in UncertaintyReport.Gibbs.
type GibbsSetting struct {
	BurnIn int `json:"burn_in"`
	Sweeps int `json:"sweeps"`
	// FromDraws fits the cells' priors to the pairs' drawn values instead
	// of to the sweep's complete-data counts.
	FromDraws bool `json:"from_draws,omitempty"`
	// Mean writes the sampler's posterior mean of the relevance in the
	// relevance column (and so the labels) instead of the EM fit's.
	Mean bool `json:"mean_column,omitempty"`
	// PoolSat pools the satisfaction's priors over the rank buckets (one
	// per exposure class).
	PoolSat bool `json:"pool_satisfaction,omitempty"`
	// RankOnly makes the cells the rank buckets alone, pooled over the
	// exposure classes.
	RankOnly bool `json:"cells_by_rank_only,omitempty"`
	// RefitEvery refits the cells' priors to the complete-data counts
	// every RefitEvery sweeps (0 or 1: every sweep), holding them between.
	RefitEvery int `json:"refit_every,omitempty"`
	// DrawExam (UBM's sampler, gibbsubm.go) draws the examination
	// parameters too, the state moved back to the fitted scale each sweep,
	// instead of holding them at the EM fit.
	DrawExam bool `json:"draw_examination,omitempty"`
	// HoldShown (DBN, SDBN) holds every pair shown in at least HoldShown
	// training SERPs (Evidence.Shown) at its EM fit, its interval the
	// counts' (relevanceBeta), and sweeps only the records that show a
	// pair below it (0: none held; gibbs.go, "restricted sampler").
	HoldShown float64 `json:"hold_shown,omitempty"`
	// Subset (DBN, SDBN; a measurement, gibbstransfer.go) runs the
	// sampler on a subset of whole queries of about Subset training
	// SERPs (each query kept with probability SubsetRate, by a hash of
	// its name), and gives the pairs of the other queries the counts'
	// Beta corrected per prior cell by what the sampler made of the
	// subset's (0: the whole log).
	Subset float64 `json:"subset_serps,omitempty"`
	// SubsetRate is Subset over the whole log's training SERPs, at most
	// 1 (Options.ResolveIntervals sets it; a Fit of the whole log in
	// memory takes its own SERPs where it is 0).
	SubsetRate float64 `json:"subset_rate,omitempty"`
	// TransferLog (with Subset; a measurement) gives the pairs outside
	// the subset the Beta of the corrected mean and of their counts'
	// E[ln r] shifted by the cell's mean shift (TransferMap.betaLog)
	// instead of the corrected variance.
	TransferLog bool `json:"transfer_log_moment,omitempty"`
}

// GibbsIntervals is the setting of IntervalsGibbs, the best measured
// (docs/clickmodels.md, "A Gibbs sampler of the hierarchical DBN,
// measured"): 30 sweeps of burn-in and 100 kept, the cells the rank
// buckets alone and the satisfaction's pooled over them, the cells'
// priors fitted to the complete-data counts every 5 sweeps, the pairs
// shown in 512 training SERPs or more held at their fit with the counts'
// intervals (their records not swept), and the relevance column the EM
// fit's.
func GibbsIntervals() GibbsSetting {
	return GibbsSetting{BurnIn: 30, Sweeps: 100, PoolSat: true, RankOnly: true, RefitEvery: 5, HoldShown: gibbsHoldShown}
}

// gibbsHoldShown is the opt-in's GibbsSetting.HoldShown: measured as
// calibrated as holding none on both simulators and seeds, where 8-128
// miss targets the full chain passes (docs/clickmodels.md, "The
// restricted sampler").
const gibbsHoldShown = 512

// GibbsSubsetSERPs is the training SERPs of IntervalsGibbsSubset's
// subset of queries: at this size the default fit of DCTR, UBM and DBN
// on issue 36 part 7's log of 1 M SERPs costs 1.46 x the reference's CPU,
// inside the part's budget of 1.5 x, where 75,000 cost 1.59 x
// (docs/clickmodels.md, "The sampler on a subset of queries").
const GibbsSubsetSERPs = 50_000

// GibbsSubsetIntervals is the setting of IntervalsGibbsSubset for a
// subset of about serps training SERPs, a share rate of the queries (0:
// a Fit of the whole log takes serps of its own): GibbsIntervals on that
// subset.
func GibbsSubsetIntervals(serps, rate float64) GibbsSetting {
	g := GibbsIntervals()
	g.Subset, g.SubsetRate = serps, rate
	return g
}

// CheckSubsetSERPs checks a size of IntervalsGibbsSubset's subset as a
// user gives it (lovbench fit and lovbench-beam fit --gibbs-subset-serps,
// run's click_models.gibbs_subset_serps): a positive, finite number of
// training SERPs. A size at or above the log's training SERPs puts every
// query in the subset. Options.SubsetSERPs 0 stands for the default,
// GibbsSubsetSERPs, which a user writes by leaving the size out.
func CheckSubsetSERPs(n float64) error {
	if !(n > 0) || math.IsInf(n, 1) {
		return fmt.Errorf("subset of %v training SERPs: want a positive number (left out: %d)", n, GibbsSubsetSERPs)
	}
	return nil
}

// checkSubsetSERPs checks o's SubsetSERPs as a user gives it, before
// ResolveIntervals: 0 (the default), or a size (CheckSubsetSERPs) of a
// subset the fit may run the sampler on, that is with
// IntervalsGibbsSubset, or IntervalsAuto where auto may pick it (intervals
// on, the exact estimator, no measurement setting). A resolved Options of
// auto may carry the size beside IntervalsGibbs or IntervalsCounts (the
// engines pass it on as given), so Fit does not check this.
func (o Options) checkSubsetSERPs() error {
	const flag = "the sampler's subset size (--gibbs-subset-serps, click_models.gibbs_subset_serps)"
	if o.SubsetSERPs == 0 {
		return nil
	}
	if err := CheckSubsetSERPs(o.SubsetSERPs); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	switch {
	case o.Intervals == IntervalsGibbsSubset:
		return nil
	case o.Intervals != IntervalsAuto:
		m := o.Intervals
		if m == "" {
			m = IntervalsCounts
		}
		return fmt.Errorf("%s applies to intervals from gibbs-subset (--intervals-from gibbs-subset, click_models.intervals_from), and to auto where it picks the subset: not to %s", flag, m)
	case o.NoIntervals:
		return fmt.Errorf("%s: with --no-intervals (no_intervals) auto runs no sampler: give one of them", flag)
	case !o.Exact:
		return fmt.Errorf("%s: with PyClick's estimator (--estimator pyclick) auto takes the counts, never the subset: give one of them", flag)
	case o.Gibbs != GibbsSetting{}:
		return fmt.Errorf("%s: with the measurement setting Options.Gibbs auto takes the counts (its subset is GibbsSetting.Subset)", flag)
	}
	return nil
}

// subsetSERPs is o's Options.SubsetSERPs, GibbsSubsetSERPs if 0.
func (o Options) subsetSERPs() float64 {
	if o.SubsetSERPs > 0 {
		return o.SubsetSERPs
	}
	return GibbsSubsetSERPs
}

// gibbsSetting is the sampler's setting of o: GibbsIntervals with
// IntervalsGibbs, GibbsSubsetIntervals with IntervalsGibbsSubset, else
// the measurement setting o.Gibbs (Sweeps 0: no sampler).
func (o Options) gibbsSetting() GibbsSetting {
	switch o.Intervals {
	case IntervalsGibbs:
		return GibbsIntervals()
	case IntervalsGibbsSubset:
		return GibbsSubsetIntervals(o.subsetSERPs(), o.subsetRate)
	}
	return o.Gibbs
}

// UsesGibbs reports whether o's fit runs the Gibbs sampler for DBN and
// SDBN (IntervalsGibbs or the measurement switches; with the measurement
// switches UBM's sampler too, gibbsubm.go, a measurement of a whole log in
// memory whose draws are keyed by the records' and pairs' indexes).
func (o Options) UsesGibbs() bool { return !o.NoIntervals && o.gibbsSetting().Sweeps > 0 }

// CheckIntervals checks o's interval method as a user gives it, before
// ResolveIntervals: a known one, the Gibbs sampler's only with intervals,
// the exact estimator and no measurement switch beside it, and the size
// of its subset (SubsetSERPs) only where the fit may run the sampler on a
// subset. fit.Check adds what depends on how the log is read; Fit checks
// the method (checkMethod).
func (o Options) CheckIntervals() error {
	if err := o.checkMethod(); err != nil {
		return err
	}
	return o.checkSubsetSERPs()
}

// checkMethod is CheckIntervals without the subset's size, which a
// resolved Options may carry beside any method (checkSubsetSERPs).
func (o Options) checkMethod() error {
	if o.Intervals == "" || o.Intervals == IntervalsCounts || o.Intervals == IntervalsAuto {
		return nil
	}
	if o.Intervals != IntervalsGibbs && o.Intervals != IntervalsGibbsSubset {
		return fmt.Errorf("click models: Options.Intervals: unknown interval method %q (want auto, counts, gibbs or gibbs-subset)", o.Intervals)
	}
	switch {
	case o.NoIntervals:
		return fmt.Errorf("intervals from gibbs (--intervals-from gibbs, click_models.intervals_from) computes the intervals that --no-intervals (no_intervals) turns off: give one of them")
	case !o.Exact:
		// The sampler holds DBN's continuation at the EM fit's and starts
		// from its pair values: PyClick's E-step fits a biased
		// continuation (docs/method.md section 3), which the sampler
		// would take as known; it was measured with the exact estimator
		// only.
		return fmt.Errorf("intervals from gibbs (--intervals-from gibbs, click_models.intervals_from) needs the exact estimator (--estimator exact, the default): the sampler holds DBN's continuation at the EM fit's, and PyClick's estimator fits it biased")
	case o.Gibbs != GibbsSetting{}:
		return fmt.Errorf("click models: Options.Intervals %s sets the sampler's setting (GibbsIntervals); leave the measurement setting Options.Gibbs unset", o.Intervals)
	}
	return nil
}
