package clickmodels

import (
	"context"
	"strings"
	"testing"
)

// TestResolveIntervals: IntervalsAuto is the sampler up to
// AutoGibbsTrainSERPs training SERPs (300,000) with the exact estimator
// and intervals on, the counts at 300,001, under PyClick's estimator,
// without intervals or with the sampler's measurement setting; the other
// methods stay as they are; "" and "AUTO" parse to it.
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
	for _, c := range []struct {
		name  string
		o     Options
		train int64
		want  IntervalMethod
	}{
		{"exact, 300,000", exact, 300000, IntervalsGibbs},
		{"exact, 1", exact, 1, IntervalsGibbs},
		{"exact, 300,001", exact, 300001, IntervalsCounts},
		{"pyclick, 1,000", pyclick, 1000, IntervalsCounts},
		{"no intervals", off, 1000, IntervalsCounts},
		{"measurement setting", measured, 1000, IntervalsCounts},
		{"counts asked", counts, 1000, IntervalsCounts},
		{"gibbs asked, 1 M", gibbs, 1000000, IntervalsGibbs},
	} {
		if got := c.o.ResolveIntervals(c.train).Intervals; got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
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
