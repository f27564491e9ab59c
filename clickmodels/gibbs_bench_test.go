package clickmodels_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/sessions"
)

// BenchmarkGibbs measures the Gibbs sampler's cost beside the DBN fit it
// follows (docs/clickmodels.md, "A Gibbs sampler of the hierarchical DBN,
// measured"): on the second simulator's DBN log of 100,000 SERPs over
// 20,000 queries (refsim, seed 1, read as `lovbench ingest --format
// yandex` reads it), one worker, the default estimator with intervals,
// fitted without the sampler and with the users' opt-in
// (clickmodels.IntervalsGibbs). Reported: CPU-seconds (user+sys) of the
// fit alone, of the sampler (the difference) and their ratio.
//
//	go test ./clickmodels -run '^$' -bench 'Gibbs$' -benchtime 1x [-cpuprofile gibbs.prof]
func BenchmarkGibbs(b *testing.B) { benchGibbs(b, 100000, 20000) }

// BenchmarkGibbs1M is BenchmarkGibbs on 1,000,000 SERPs over 300 queries:
// few pairs, many SERPs each, most of them repeated (records of large
// weight), where the walks per SERP weigh more than the pairs' draws.
//
//	go test ./clickmodels -run '^$' -bench 'Gibbs1M$' -benchtime 1x [-cpuprofile gibbs1m.prof]
func BenchmarkGibbs1M(b *testing.B) { benchGibbs(b, 1000000, 300) }

// BenchmarkGibbsLog is BenchmarkGibbs on the Yandex-format log
// LOVBENCH_GIBBS_LOG names (skipped without it), such as issue 36 part
// 7's (`lovbench simulate --model ubm --sessions 1000000 --queries
// 100000 --seed 17`), every SERP a training SERP.
//
//	LOVBENCH_GIBBS_LOG=L go test ./clickmodels -run '^$' -bench 'GibbsLog$' -benchtime 1x
func BenchmarkGibbsLog(b *testing.B) {
	path := os.Getenv("LOVBENCH_GIBBS_LOG")
	if path == "" {
		b.Skip("LOVBENCH_GIBBS_LOG names no log")
	}
	log, err := sessions.LoadForFit(path)
	if err != nil {
		b.Fatal(err)
	}
	benchGibbsOn(b, log)
}

func benchGibbs(b *testing.B, serps, queries int) {
	var buf bytes.Buffer
	if _, _, err := refsim.Simulate(context.Background(), refsim.Default(refsim.DBN, serps, queries, 1), &buf); err != nil {
		b.Fatal(err)
	}
	log, _, err := sessions.ReadYandex(&buf, "refsim", true)
	if err != nil {
		b.Fatal(err)
	}
	benchGibbsOn(b, log)
}

// benchGibbsOn is the benchmarks' fits of log: with the users' opt-in,
// or with LOVBENCH_GIBBS_HOLD=H its setting with the pairs shown in at
// least H SERPs held (GibbsSetting.HoldShown; a measurement), with
// LOVBENCH_GIBBS_SUBSET=1 the opt-in on a subset of the queries
// (IntervalsGibbsSubset; =N a subset of N SERPs).
func benchGibbsOn(b *testing.B, log *sessions.Log) {
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		b.Fatal(err)
	}
	opt := clickmodels.DefaultEstimator.Options()
	opt.Workers = 1
	withGibbs := opt
	withGibbs.Intervals = clickmodels.IntervalsGibbs
	if h := os.Getenv("LOVBENCH_GIBBS_HOLD"); h != "" {
		hold, err := strconv.ParseFloat(h, 64)
		if err != nil {
			b.Fatal("LOVBENCH_GIBBS_HOLD: want a number of SERPs")
		}
		withGibbs.Intervals = clickmodels.IntervalsCounts
		withGibbs.Gibbs = clickmodels.GibbsIntervals()
		withGibbs.Gibbs.HoldShown = hold
	}
	if sub := os.Getenv("LOVBENCH_GIBBS_SUBSET"); sub != "" {
		// The opt-in on a subset of the queries (IntervalsGibbsSubset;
		// its rate from the log's SERPs, Fit's own), of the training
		// SERPs given (1: GibbsSubsetSERPs).
		n, err := strconv.ParseFloat(sub, 64)
		if err != nil {
			b.Fatal("LOVBENCH_GIBBS_SUBSET: want a number of SERPs")
		}
		withGibbs.Intervals, withGibbs.Gibbs = clickmodels.IntervalsGibbsSubset, clickmodels.GibbsSetting{}
		if n > 1 {
			withGibbs.SubsetSERPs = n
		}
	}
	var fitCPU, allCPU float64
	for b.Loop() {
		c0 := cpuSeconds()
		if _, err := clickmodels.Fit(context.Background(), d, clickmodels.DBN, opt); err != nil {
			b.Fatal(err)
		}
		c1 := cpuSeconds()
		if _, err := clickmodels.Fit(context.Background(), d, clickmodels.DBN, withGibbs); err != nil {
			b.Fatal(err)
		}
		fitCPU, allCPU = fitCPU+c1-c0, allCPU+cpuSeconds()-c1
	}
	n := float64(b.N)
	b.ReportMetric(fitCPU/n, "fit-cpu-s")
	b.ReportMetric((allCPU-fitCPU)/n, "sampler-cpu-s")
	b.ReportMetric((allCPU-fitCPU)/fitCPU, "sampler/fit")
}
