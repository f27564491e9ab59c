package measures

import (
	"context"
	"fmt"
	"math"
)

// Comparison is the paired comparison of a run with the baseline on one
// measure: the PairedStats (difference, confidence interval, effect size,
// wins/ties/losses), the paired t, Wilcoxon and randomisation tests, and
// the randomisation p-value corrected for the number of comparisons.
type Comparison struct {
	Measure  string  `json:"measure"`
	Baseline string  `json:"baseline"`
	Run      string  `json:"run"`
	Base     float64 `json:"baseline_mean"`
	Mean     float64 `json:"mean"`
	// PairedStats holds diff (Mean - Base) and queries (paired queries).
	PairedStats
	T     *float64 `json:"t"`   // paired t statistic; nil (JSON null) when infinite
	PT    float64  `json:"p_t"` // paired t-test p-value
	PW    float64  `json:"p_wilcoxon"`
	PRand float64  `json:"p_randomisation"`
	// PAdjusted is PRand corrected with CompareOptions.Correction over
	// the measure's comparisons (every run against the baseline).
	PAdjusted float64 `json:"p_randomisation_adjusted"`
}

// DefaultTrials is the number of random sign assignments of the paired
// randomisation test by default, RankLib's Analyzer default: lovbench
// eval --trials, and lovbench ltr --permutations (ltr.DefaultPermutations).
const DefaultTrials = 10000

// CompareOptions configure Compare.
type CompareOptions struct {
	// Baseline is the index of the baseline in the results (default 0).
	Baseline int
	// Trials and Seed drive the randomisation test (DefaultTrials).
	Trials int
	Seed   uint64
	// Correction corrects the randomisation p-values of each measure for
	// the number of runs compared (default Holm).
	Correction Correction
}

// Compare tests every run other than the baseline against it, on every
// per-query measure (global measures have no per-query values and are
// skipped).
func Compare(results []*Result, opt CompareOptions) []Comparison {
	if len(results) < 2 || opt.Baseline < 0 || opt.Baseline >= len(results) {
		return nil
	}
	if opt.Correction == "" {
		opt.Correction = CorrectionHolm
	}
	base := results[opt.Baseline]
	type job struct {
		r *Result
		m string
	}
	var jobs []job
	for i, r := range results {
		if i == opt.Baseline {
			continue
		}
		for _, m := range base.Measures {
			a, ok := base.PerQuery[m]
			b, ok2 := r.PerQuery[m]
			if ok && ok2 && len(a) == len(b) {
				jobs = append(jobs, job{r, m})
			}
		}
	}
	// The tests of different (run, measure) pairs are independent and each
	// randomisation test has its own generator seeded with seed, so running
	// them in parallel gives the same values as running them in order.
	out := make([]Comparison, len(jobs))
	parallelItems(len(jobs), func(i int) {
		r, m := jobs[i].r, jobs[i].m
		a, b := base.PerQuery[m], r.PerQuery[m]
		tt := PairedTTest(a, b)
		var tval *float64
		if !math.IsInf(tt.T, 0) {
			v := tt.T
			tval = &v
		}
		ps := Paired(a, b)
		ps.Diff = r.Mean[m] - base.Mean[m]
		out[i] = Comparison{
			Measure: m, Baseline: base.Run, Run: r.Run,
			Base: base.Mean[m], Mean: r.Mean[m], PairedStats: ps,
			T: tval, PT: tt.P,
			PW:    Wilcoxon(a, b).P,
			PRand: RandomisationTest(a, b, opt.Trials, opt.Seed),
		}
	})
	// One family per measure.
	fam := map[string][]int{}
	for i, c := range out {
		fam[c.Measure] = append(fam[c.Measure], i)
	}
	for _, idx := range fam {
		p := make([]float64, len(idx))
		for j, i := range idx {
			p[j] = out[i].PRand
		}
		for j, q := range opt.Correction.Adjust(p) {
			out[idx[j]].PAdjusted = q
		}
	}
	return out
}

// Sensitivity reports how often the order of the runs swaps between
// measures and between gain settings, the analysis of section 4 of
// Küster and König-Ries (2010) (Figures 1 and 3), on the mean
// scores. A pair of runs swaps between two settings when one setting
// scores run i strictly above run j and the other strictly below; ties
// are not swaps.
type Sensitivity struct {
	Runs     []string `json:"runs"`
	Measures []string `json:"measures"`
	// RunPairs is the number of pairs of runs, n(n-1)/2.
	RunPairs int `json:"run_pairs"`
	// MeasureSwaps[i][j] is the number of run pairs that measures i and j
	// order differently.
	MeasureSwaps [][]int `json:"measure_swaps"`
	// MeasureSwapRate is the share of (measure pair, run pair) combinations
	// that swap.
	MeasureSwapRate float64 `json:"measure_swap_rate"`
	// GainSettings are the gain settings compared for the gain-dependent
	// measures.
	GainSettings []string `json:"gain_settings"`
	// GainSwaps[m] is the number of (gain setting pair, run pair)
	// combinations that measure m orders differently.
	GainSwaps map[string]int `json:"gain_swaps"`
	// GainSwapRate[m] is GainSwaps[m] over the number of combinations.
	GainSwapRate map[string]float64 `json:"gain_swap_rate"`
	// GainMeans[setting][run][measure] are the means under each setting.
	GainMeans map[string][]map[string]float64 `json:"gain_means"`
}

// swaps counts the pairs (i, j) that x and y order strictly differently.
func swaps(x, y []float64) int {
	n := 0
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if (x[i]-x[j])*(y[i]-y[j]) < 0 {
				n++
			}
		}
	}
	return n
}

// GainSettings returns the gain settings of the sensitivity analysis, after
// the four settings of Küster and König-Ries (2010) section 4:
// exponential and identity gains (graded) and binary relevance at grade
// >= relevantFrom and >= relevantFrom+1 (relaxed and strict binary).
func GainSettings(relevantFrom float64) []string {
	return []string{"exp", "identity", fmt.Sprintf("binary:%g", relevantFrom), fmt.Sprintf("binary:%g", relevantFrom+1)}
}

// AnalyseSensitivity computes the Sensitivity of results (one per run, all
// with the same measures). The gain-setting part re-evaluates the runs with
// each of GainSettings(opts.RelevantFrom) for the measures that use a gain.
func AnalyseSensitivity(ctx context.Context, q *Qrels, runs []*Run, results []*Result, opts Options) (*Sensitivity, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("sensitivity needs at least one run")
	}
	s := &Sensitivity{Measures: results[0].Measures, GainSwaps: map[string]int{}, GainSwapRate: map[string]float64{}, GainMeans: map[string][]map[string]float64{}}
	for _, r := range results {
		s.Runs = append(s.Runs, r.Run)
	}
	nr := len(results)
	s.RunPairs = nr * (nr - 1) / 2
	means := func(rs []*Result, m string) []float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = r.Mean[m]
		}
		return v
	}
	nm := len(s.Measures)
	s.MeasureSwaps = make([][]int, nm)
	total, swapped := 0, 0
	for i := range s.MeasureSwaps {
		s.MeasureSwaps[i] = make([]int, nm)
	}
	for i := 0; i < nm; i++ {
		for j := i + 1; j < nm; j++ {
			n := swaps(means(results, s.Measures[i]), means(results, s.Measures[j]))
			s.MeasureSwaps[i][j], s.MeasureSwaps[j][i] = n, n
			swapped += n
			total += s.RunPairs
		}
	}
	if total > 0 {
		s.MeasureSwapRate = float64(swapped) / float64(total)
	}
	var gm []Measure
	for _, m := range opts.Measures {
		if m.UsesGain() {
			gm = append(gm, m)
		}
	}
	if len(gm) == 0 {
		return s, nil
	}
	s.GainSettings = GainSettings(opts.RelevantFrom)
	per := make([][]*Result, len(s.GainSettings))
	for k, name := range s.GainSettings {
		g, err := ParseGain(name)
		if err != nil {
			return nil, err
		}
		o := opts
		o.Gain = g
		o.Measures = gm
		rs, err := EvaluateRuns(ctx, q, runs, o)
		if err != nil {
			return nil, err
		}
		per[k] = rs
		for _, r := range rs {
			s.GainMeans[name] = append(s.GainMeans[name], r.Mean)
		}
	}
	for _, m := range gm {
		n, comb := 0, 0
		for a := range per {
			for b := a + 1; b < len(per); b++ {
				n += swaps(means(per[a], m.Name), means(per[b], m.Name))
				comb += s.RunPairs
			}
		}
		s.GainSwaps[m.Name] = n
		if comb > 0 {
			s.GainSwapRate[m.Name] = float64(n) / float64(comb)
		}
	}
	return s, nil
}
