// Command confidence measures, on the demo's simulated logs, how well the
// labels whose confidence reaches a minimum recover the hidden true
// relevance (docs/pipeline.md, "How sure the demo's labels are"): for each
// profile and seed it runs the demo's pipeline without the learning-to-rank
// stage (which the labels do not depend on), then prints the report's
// section "How sure are the labels" (pipeline.WorkdirReportConfig, report.Build) and, over
// the grid 0, step, ..., 1 of minimum confidences (report.ConfidenceSweep),
// the lowest level whose labels reach the target Pearson r over at least
// -min-pairs pairs, the one over any number of pairs, and the best r over
// at least -min-pairs pairs.
//
//	go run ./bench/confidence -profiles lovbench -seeds 1-7
//	go run ./bench/confidence -profiles dense -seeds 1
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline"
	"github.com/lovbench/lovbench/report"
)

func main() {
	profiles := flag.String("profiles", "lovbench,dense", "demo profiles, comma-separated")
	seeds := flag.String("seeds", "1", "seeds: a list (1,2) or a range (1-7)")
	step := flag.Float64("step", report.SweepStep, "step of the grid of minimum confidences")
	target := flag.Float64("target", report.RecoveryTarget, "Pearson r to reach")
	minPairs := flag.Int("min-pairs", report.RecoveryMinPairs, "fewest pairs a level must keep")
	keep := flag.String("workdir", "", "keep the work directories under this directory (default: a temporary one, removed)")
	flag.Parse()
	ss, err := parseSeeds(*seeds)
	if err != nil {
		fail(err)
	}
	base := *keep
	if base == "" {
		if base, err = os.MkdirTemp("", "lovbench-confidence-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(base)
	}
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, name := range strings.Split(*profiles, ",") {
		p, err := pipeline.ParseDemoProfile(name)
		if err != nil {
			fail(err)
		}
		for _, seed := range ss {
			wd := filepath.Join(base, fmt.Sprintf("%s-%d", p, seed))
			cfg := pipeline.DemoConfig(wd, p, 0, 0, seed)
			off := false
			cfg.LTR.Enabled = &off
			if _, err := pipeline.Run(ctx, cfg, pipeline.RunOptions{Log: quiet, AllowDegenerate: true}); err != nil {
				fail(fmt.Errorf("%s seed %d: %w", p, seed, err))
			}
			rc, err := pipeline.WorkdirReportConfig(wd)
			if err != nil {
				fail(err)
			}
			d, err := report.Build(rc)
			if err != nil {
				fail(err)
			}
			ls, truth, err := report.ReadSimulatedLabels(filepath.Join(rc.Label, labels.FileLabels), rc.Truth)
			if err != nil {
				fail(err)
			}
			sweep := report.ConfidenceSweep(ls, truth, report.SweepLevels(*step), false)
			fmt.Printf("== profile %s, seed %d\n", p, seed)
			print(d.Confidence, sweep, *target, *minPairs)
		}
	}
}

// print writes one run's figures.
func print(c *report.Confidence, sweep []report.ConfidenceLevel, target float64, minPairs int) {
	if c == nil || c.Known == 0 {
		fmt.Println("labels without confidence")
		return
	}
	fmt.Printf("labelled pairs %d, with a confidence %d\n", c.Pairs, c.Known)
	if p := c.Prior; p != nil {
		fmt.Printf("cannot tell from the prior: %d of %d (%.1f%%)\n", p.Labels, p.Of, 100*float64(p.Labels)/float64(p.Of))
	}
	fmt.Printf("%-9s %7s %8s %8s %8s %8s\n", "label", "pairs", "mean", "<0.5", "0.5-0.8", ">=0.8")
	for _, r := range c.ByLabel {
		fmt.Printf("%-9d %7d %8.3f %8d %8d %8d\n", r.Label, r.Pairs, r.Mean, r.Bins[0], r.Bins[1], r.Bins[2]+r.Bins[3])
	}
	fmt.Printf("%-12s %7s %8s %8s %8s\n", "min conf", "pairs", "queries", "pearson", "kendall")
	for _, lv := range c.Recovery {
		fmt.Printf("%-12g %7d %8d %8.4f %8.4f\n", lv.Min, lv.Pairs, lv.Queries, lv.Pearson, lv.Kendall)
	}
	if lv, ok := report.LowestLevelReaching(sweep, target, minPairs); ok {
		fmt.Printf("lowest level with pearson >= %g over >= %d pairs: %g (%d pairs, %d queries, pearson %.4f)\n", target, minPairs, lv.Min, lv.Pairs, lv.Queries, lv.Pearson)
	} else {
		fmt.Printf("lowest level with pearson >= %g over >= %d pairs: none\n", target, minPairs)
	}
	if lv, ok := report.LowestLevelReaching(sweep, target, 2); ok {
		fmt.Printf("lowest level with pearson >= %g, any size: %g (%d pairs, %d queries, pearson %.4f)\n", target, lv.Min, lv.Pairs, lv.Queries, lv.Pearson)
	} else {
		fmt.Printf("lowest level with pearson >= %g, any size: none\n", target)
	}
	best := report.ConfidenceLevel{Pearson: -2}
	for _, lv := range sweep {
		if lv.Pairs >= minPairs && lv.Pearson > best.Pearson {
			best = lv
		}
	}
	fmt.Printf("best pearson over >= %d pairs: %.4f at %g (%d pairs, %d queries)\n", minPairs, best.Pearson, best.Min, best.Pairs, best.Queries)
}

// parseSeeds reads "1,2,5" or "1-7".
func parseSeeds(s string) ([]uint64, error) {
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, err1 := strconv.ParseUint(lo, 10, 64)
		b, err2 := strconv.ParseUint(hi, 10, 64)
		if err1 != nil || err2 != nil || a > b {
			return nil, fmt.Errorf("-seeds %q: want a list (1,2) or a range (1-7)", s)
		}
		var out []uint64
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
		return out, nil
	}
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds %q: %v", s, err)
		}
		out = append(out, x)
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "confidence:", err)
	os.Exit(1)
}
