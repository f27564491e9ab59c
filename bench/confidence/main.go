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
//
// -compare C1,C2,... compares, at each minimum confidence C, the plain
// filter (`export --min-confidence C`) with the stratified one that keeps
// the label shares (`export --keep-confident F`, F the fraction of the
// labels the plain filter keeps at C, so both keep about as many;
// labels.Selection): the labels kept, the share of them that are right
// (their true relevance lies in their band), the share a random draw with
// the same label shares would get right (SelectionOutcome.RightAtRandom:
// how much of a filter's gain is its label distribution alone), Pearson r
// with the truth and the label shares (report.Outcome; docs/dataset.md, "A filter that keeps
// the label shares"). -sim ref runs it on a log of the second simulator
// (clickmodels/refsim, -model, -serps, -queries) through the user's path
// (ingest, fit, label with the defaults; calibration.Run) instead of the
// demo:
//
//	go run ./bench/confidence -profiles lovbench -seeds 1 -compare 0.5,0.58,0.7,0.8
//	go run ./bench/confidence -sim ref -model ubm -serps 60000 -queries 300 -compare 0.5,0.58,0.7,0.8
//
// -compare-queries A1,A2,... compares, at each minimum query agreement A,
// `export --min-query-agreement A` with the agreeing filter that keeps
// the label shares at as many queries (`export --keep-agreeing-queries
// F`, F the fraction of the queries with an agreement the minimum keeps;
// labels.Selection): labels and queries kept, the largest share
// difference from all labels (labels.ShareDeviation), the kept queries'
// mean expected agreement, the share of their pairs of labels with
// different labels whose true relevances are in the labels' order
// (trueOrder: what the expected agreement predicts), the share of right
// labels, the share at random with these shares, and Pearson r
// (docs/dataset.md, "Whole queries that keep the label shares"):
//
//	go run ./bench/confidence -sim ref -model dbn -serps 60000 -queries 300 -compare-queries 0.7,0.65,0.6
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline"
	"github.com/lovbench/lovbench/pipeline/calibration"
	"github.com/lovbench/lovbench/report"
)

func main() {
	profiles := flag.String("profiles", "lovbench,dense", "demo profiles, comma-separated")
	seeds := flag.String("seeds", "1", "seeds: a list (1,2) or a range (1-7)")
	step := flag.Float64("step", report.SweepStep, "step of the grid of minimum confidences")
	target := flag.Float64("target", report.RecoveryTarget, "Pearson r to reach")
	minPairs := flag.Int("min-pairs", report.RecoveryMinPairs, "fewest pairs a level must keep")
	keep := flag.String("workdir", "", "keep the work directories under this directory (default: a temporary one, removed)")
	compare := flag.String("compare", "", "minimum confidences at which to compare the plain filter with the stratified one, comma-separated (e.g. 0.5,0.58,0.7)")
	compareQ := flag.String("compare-queries", "", "minimum query agreements at which to compare --min-query-agreement with --keep-agreeing-queries, comma-separated (e.g. 0.7,0.6)")
	simName := flag.String("sim", "demo", "demo (the demo's profiles) or ref (a log of clickmodels/refsim, with -compare or -compare-queries)")
	model := flag.String("model", refsim.UBM, "with -sim ref: the model that simulates the log (ubm or dbn), fitted alone")
	serps := flag.Int("serps", 60000, "with -sim ref: SERPs of the log")
	queries := flag.Int("queries", 300, "with -sim ref: queries of the log")
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
	levels := parseLevels("-compare", "minimum confidences", *compare)
	qlevels := parseLevels("-compare-queries", "minimum agreements", *compareQ)
	if *simName == "ref" {
		if levels == nil && qlevels == nil {
			fail(fmt.Errorf("-sim ref needs -compare or -compare-queries"))
		}
		for _, seed := range ss {
			dir := filepath.Join(base, fmt.Sprintf("ref-%s-%d", *model, seed))
			ls, truth, err := refLabels(ctx, *model, *serps, *queries, seed, dir)
			if err != nil {
				fail(err)
			}
			fmt.Printf("== refsim %s, %d SERPs, %d queries, seed %d\n", *model, *serps, *queries, seed)
			if levels != nil {
				printCompare(ls, truth, levels)
			}
			if qlevels != nil {
				compareQueries(ls, truth, filepath.Join(dir, labels.FileLabels), qlevels)
			}
		}
		return
	} else if *simName != "demo" {
		fail(fmt.Errorf("-sim %q: want demo or ref", *simName))
	}
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
			fmt.Printf("== profile %s, seed %d\n", p, seed)
			if qlevels != nil {
				compareQueries(ls, truth, filepath.Join(rc.Label, labels.FileLabels), qlevels)
			}
			if levels != nil {
				printCompare(ls, truth, levels)
			}
			if levels != nil || qlevels != nil {
				continue
			}
			sweep := report.ConfidenceSweep(ls, truth, report.SweepLevels(*step), false)
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

// refLabels simulates a log of the second simulator (refsim) in dir, runs
// the user's path on it with the defaults (ingest, the fit of model alone,
// label; calibration.Run) and returns the labels and the truth of the
// labelled pairs.
func refLabels(ctx context.Context, model string, serps, queries int, seed uint64, dir string) ([]labels.Label, map[[2]string]float64, error) {
	kind, err := clickmodels.ParseKind(model)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	path, truthOf, _, err := calibration.RefLog(ctx, refsim.Default(model, serps, queries, seed), dir)
	if err != nil {
		return nil, nil, err
	}
	if _, err := calibration.Run(ctx, path, kind, truthOf, dir, calibration.Options{}); err != nil {
		return nil, nil, err
	}
	lp := filepath.Join(dir, labels.FileLabels)
	ls, err := labels.ReadLabelsFile(lp)
	if err != nil {
		return nil, nil, err
	}
	truth := map[[2]string]float64{}
	for _, l := range ls {
		if v, ok := truthOf(l.Query, l.Term); ok {
			truth[[2]string{l.Query, l.Term}] = v
		}
	}
	return ls, truth, nil
}

// printCompare prints, for all labels and at each minimum confidence, the
// plain filter beside the stratified one that keeps as many labels (the
// fraction the plain one keeps of the labels with a confidence).
func printCompare(ls []labels.Label, truth map[[2]string]float64, levels []float64) {
	th := labels.DefaultThresholds()
	known := 0
	for _, l := range ls {
		if l.Confidence != labels.NoConfidence {
			known++
		}
	}
	fmt.Printf("| filter | labels | queries | right | right at random with these shares | Pearson r |")
	for _, l := range labels.AllLabels() {
		fmt.Printf(" label %d |", l)
	}
	fmt.Printf("\n|---|---|---|---|---|---|%s\n", strings.Repeat("---|", len(labels.AllLabels())))
	all := report.Outcome(ls, truth, labels.Selection{}, th)
	row := func(name string, o report.SelectionOutcome) {
		fmt.Printf("| %s | %d | %d | %.3f | %.3f | %.3f |", name, o.Level.Pairs, o.Level.Queries, o.Right, o.RightAtRandom(all), o.Level.Pearson)
		for _, s := range o.Share {
			fmt.Printf(" %.1f%% |", 100*s)
		}
		fmt.Println()
	}
	row("all labels", all)
	for _, c := range levels {
		plain := report.Outcome(ls, truth, labels.Selection{MinConfidence: c}, th)
		row(fmt.Sprintf("--min-confidence %g", c), plain)
		n := 0
		for _, l := range ls {
			if l.Confidence != labels.NoConfidence && l.Confidence >= c {
				n++
			}
		}
		if n == 0 || known == 0 {
			continue
		}
		f := math.Round(float64(n)/float64(known)*1e4) / 1e4
		row(fmt.Sprintf("--keep-confident %g", f), report.Outcome(ls, truth, labels.Selection{KeepConfident: f}, th))
	}
}

// compareQueries prints, for all labels and at each minimum query
// agreement, --min-query-agreement beside --keep-agreeing-queries at as
// many queries, with the agreements of the order file beside the labels
// file lp.
func compareQueries(ls []labels.Label, truth map[[2]string]float64, lp string, levels []float64) {
	ag, err := labels.ReadQueryOrderFile(labels.QueryOrderPath(lp))
	if err != nil {
		fail(err)
	}
	th := labels.DefaultThresholds()
	eligible := 0
	for _, a := range ag {
		if !math.IsNaN(a) {
			eligible++
		}
	}
	fmt.Println("| filter | labels | queries | largest share difference | mean agreement | pairs in the true order | right | right at random with these shares | Pearson r |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	all := report.Outcome(ls, truth, labels.Selection{}, th)
	row := func(name string, sel labels.Selection) int {
		o := report.Outcome(ls, truth, sel, th)
		verdict := sel.SelectLabels(ls)
		kept := map[string]bool{}
		for i, v := range verdict {
			if v == labels.Kept {
				kept[ls[i].Query] = true
			}
		}
		sum, n := 0.0, 0
		for q := range kept {
			if a := ag[q]; !math.IsNaN(a) {
				sum += a
				n++
			}
		}
		fmt.Printf("| %s | %d | %d | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name, o.Level.Pairs, len(kept), 100*labels.ShareDeviation(all.Count, o.Count), sum/float64(max(n, 1)), trueOrder(ls, truth, kept), o.Right, o.RightAtRandom(all), o.Level.Pearson)
		return len(kept)
	}
	row("all labels", labels.Selection{})
	for _, a := range levels {
		n := row(fmt.Sprintf("--min-query-agreement %g", a), labels.Selection{MinQueryAgreement: a, QueryAgreement: ag})
		if n == 0 || eligible == 0 {
			continue
		}
		f := math.Round(float64(n)/float64(eligible)*1e4) / 1e4
		row(fmt.Sprintf("--keep-agreeing-queries %g", f), labels.Selection{KeepAgreeing: f, QueryAgreement: ag})
	}
}

// trueOrder is the share of the pairs of labels of a query in kept, with
// different labels and both with a truth, whose true relevances are in
// the labels' order (a tie of the truths counts half): the realised
// agreement of the labels' order with the true order, pooled over the
// pairs.
func trueOrder(ls []labels.Label, truth map[[2]string]float64, kept map[string]bool) float64 {
	type graded struct {
		grade int
		y     float64
	}
	by := map[string][]graded{}
	for _, l := range ls {
		if y, ok := truth[[2]string{l.Query, l.Term}]; ok && kept[l.Query] {
			by[l.Query] = append(by[l.Query], graded{l.Grade, y})
		}
	}
	right, pairs := 0.0, 0
	for _, gs := range by {
		for i, a := range gs {
			for _, b := range gs[i+1:] {
				if a.grade == b.grade {
					continue
				}
				if a.grade < b.grade {
					a, b = b, a
				}
				pairs++
				switch {
				case a.y > b.y:
					right++
				case a.y == b.y:
					right += 0.5
				}
			}
		}
	}
	return right / float64(max(pairs, 1))
}

// parseLevels reads the comma-separated levels in (0, 1] of flag name
// (what: what they are, for the error); nil for "".
func parseLevels(name, what, s string) []float64 {
	if s == "" {
		return nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0 && x <= 1) {
			fail(fmt.Errorf("%s %q: want %s in (0, 1]", name, s, what))
		}
		out = append(out, x)
	}
	return out
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
