package clickmodels

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestResolveIntervals: IntervalsAuto is the sampler up to
// AutoGibbsTrainSERPs training SERPs (300,000) with the exact estimator
// and intervals on, the sampler on a subset of 50,000 training SERPs
// above at any size (1,000,001 and 35 M too, since the subset is
// gathered out of core), the counts under PyClick's estimator, without
// intervals or with the sampler's measurement setting; the other methods
// stay as they are; "" and "AUTO" parse to it.
func TestResolveIntervals(t *testing.T) {
	exact := EstimatorExact.Options()
	exact.Intervals = IntervalsAuto
	pyclick := EstimatorPyClick.Options()
	pyclick.Intervals = IntervalsAuto
	off := exact
	off.NoIntervals = true
	measured := exact
	measured.Gibbs = GibbsSetting{BurnIn: 1, Sweeps: 2}
	counts := exact
	counts.Intervals = IntervalsCounts
	gibbs := exact
	gibbs.Intervals = IntervalsGibbs
	subset := exact
	subset.Intervals = IntervalsGibbsSubset
	// rate: the subset's, 50,000 SERPs over the training SERPs, at most 1
	// (0: no subset).
	for _, c := range []struct {
		name  string
		o     Options
		train int64
		want  IntervalMethod
		rate  float64
	}{
		{"exact, 300,000", exact, 300000, IntervalsGibbs, 0},
		{"exact, 1", exact, 1, IntervalsGibbs, 0},
		{"exact, 300,001", exact, 300001, IntervalsGibbsSubset, 50000.0 / 300001},
		{"exact, 750,000", exact, 750000, IntervalsGibbsSubset, 1.0 / 15},
		{"exact, 1,000,000", exact, 1000000, IntervalsGibbsSubset, 0.05},
		{"exact, 1,000,001", exact, 1000001, IntervalsGibbsSubset, 50000.0 / 1000001},
		{"exact, 35 M", exact, 35000000, IntervalsGibbsSubset, 1.0 / 700},
		{"pyclick, 35 M", pyclick, 35000000, IntervalsCounts, 0},
		{"subset asked, 35 M", subset, 35000000, IntervalsGibbsSubset, 1.0 / 700},
		{"subset asked, 40,000", subset, 40000, IntervalsGibbsSubset, 1},
		{"pyclick, 1,000", pyclick, 1000, IntervalsCounts, 0},
		{"no intervals", off, 1000, IntervalsCounts, 0},
		{"measurement setting", measured, 1000, IntervalsCounts, 0},
		{"counts asked", counts, 1000, IntervalsCounts, 0},
		{"gibbs asked, 1 M", gibbs, 1000000, IntervalsGibbs, 0},
	} {
		r := c.o.ResolveIntervals(c.train)
		if g := r.gibbsSetting(); r.Intervals != c.want || g.SubsetRate != c.rate || (c.rate > 0) != (g.Subset == 50000) {
			t.Errorf("%s: %q, subset %v at rate %v; want %q at rate %v", c.name, r.Intervals, g.Subset, g.SubsetRate, c.want, c.rate)
		}
	}
	for _, s := range []string{"", "AUTO", " auto "} {
		if m, err := ParseIntervalMethod(s); err != nil || m != IntervalsAuto {
			t.Errorf("ParseIntervalMethod(%q) = %q, %v; want auto", s, m, err)
		}
	}
	if err := exact.CheckIntervals(); err != nil {
		t.Errorf("auto refused: %v", err)
	}
	// Unresolved, a fit refuses it: one shard does not know the log.
	d := &Data{}
	if _, err := Fit(context.Background(), d, DBN, exact); err == nil || !strings.Contains(err.Error(), "whole log") {
		t.Errorf("Fit with auto unresolved: %v", err)
	}
}

// TestCheckSubsetSERPs: a subset's size as given is refused unless
// positive and finite, and with any method but gibbs-subset and auto
// (auto only where it may pick the subset: intervals on, the exact
// estimator); once auto is resolved the size may ride beside the method
// it chose, as the engines pass it on, and Fit's check takes it (a
// negative size still refused).
func TestCheckSubsetSERPs(t *testing.T) {
	for _, n := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if CheckSubsetSERPs(n) == nil {
			t.Errorf("CheckSubsetSERPs(%v) = nil", n)
		}
	}
	if err := CheckSubsetSERPs(0.5); err != nil {
		t.Error(err)
	}
	with := func(m IntervalMethod, n float64, f func(*Options)) Options {
		o := EstimatorExact.Options()
		o.Intervals, o.SubsetSERPs = m, n
		if f != nil {
			f(&o)
		}
		return o
	}
	for _, c := range []struct {
		o    Options
		want string // "" accepted
	}{
		{with(IntervalsGibbsSubset, 1000, nil), ""},
		{with(IntervalsAuto, 1000, nil), ""},
		{with(IntervalsCounts, 0, nil), ""},
		{with(IntervalsGibbsSubset, -1, nil), "want a positive number"},
		{with(IntervalsCounts, 1000, nil), "not to counts"},
		{with("", 1000, nil), "not to counts"},
		{with(IntervalsGibbs, 1000, nil), "not to gibbs"},
		{with(IntervalsAuto, 1000, func(o *Options) { o.NoIntervals = true }), "--no-intervals"},
		{with(IntervalsAuto, 1000, func(o *Options) { o.Exact = false }), "--estimator pyclick"},
		{with(IntervalsAuto, 1000, func(o *Options) { o.Gibbs = GibbsSetting{Sweeps: 1} }), "measurement setting"},
	} {
		err := c.o.CheckIntervals()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s, %v: %v, want %q", c.o.Intervals, c.o.SubsetSERPs, err, c.want)
		}
	}
	for _, n := range []int64{100_000, 750_000, 2_000_000} {
		if err := with(IntervalsAuto, 1000, nil).ResolveIntervals(n).check(); err != nil {
			t.Errorf("auto resolved on %d SERPs: %v", n, err)
		}
	}
	if with(IntervalsGibbsSubset, -1, nil).check() == nil {
		t.Error("check: a negative size accepted")
	}
}
