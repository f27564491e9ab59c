package clickmodels_test

import (
	"bytes"
	"context"
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

func benchGibbs(b *testing.B, serps, queries int) {
	var buf bytes.Buffer
	if _, _, err := refsim.Simulate(context.Background(), refsim.Default(refsim.DBN, serps, queries, 1), &buf); err != nil {
		b.Fatal(err)
	}
	log, _, err := sessions.ReadYandex(&buf, "refsim", true)
	if err != nil {
		b.Fatal(err)
	}
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		b.Fatal(err)
	}
	opt := clickmodels.DefaultEstimator.Options()
	opt.Workers = 1
	withGibbs := opt
	withGibbs.Intervals = clickmodels.IntervalsGibbs
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
