package clickmodels_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// BenchmarkSimulated fits UBM and DBN (50 iterations) on 1,000,000 SERPs
// simulated from them (10,000 queries); the full 10-million-SERP figure
// comes from go run ./bench/clickmodels -sim 10000000. Reported:
// SERPs x iterations per second of the fit (Prepare included).
func BenchmarkSimulated(b *testing.B) {
	for _, k := range []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN} {
		b.Run(k.String(), func(b *testing.B) {
			src, err := sim.NewSyntheticSource(synthCfg(10000, 0.3, 1))
			if err != nil {
				b.Fatal(err)
			}
			log, _, err := sim.SimulateLog(context.Background(), sim.Config{Kind: k, SERPs: 1_000_000, Seed: 2, Source: src})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				d, err := clickmodels.Prepare(log, 0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := clickmodels.Fit(context.Background(), d, k, clickmodels.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(log.Len())*clickmodels.DefaultIterations*float64(b.N)/b.Elapsed().Seconds(), "serp-iter/s")
		})
	}
}

// BenchmarkPSCMBesideUBM fits UBM and PSCM side by side on one prepared
// log (issue 35: PSCM's fit at most 2 x UBM's CPU at 1 M SERPs): 1,000,000
// SERPs simulated from UBM (10,000 queries) with 30% of the multi-click
// SERPs clicked in a random order (bench/clickmodels -order 0.3), one
// worker, as fit's default (exact, tolerance, intervals) and as
// --estimator pyclick --no-intervals. Reported: CPU-seconds (user+sys) per
// fit, the measure on a shared machine.
//
//	go test ./clickmodels -run '^$' -bench PSCMBesideUBM -benchtime 1x
//
// PSCMBesideUBM/iteration/MODEL is one EM iteration (the E-step over the
// merged items and the global M-step): PyClick's estimator without
// intervals fitted for 51 and for 1 iterations, the difference in
// CPU-seconds over 50.
func BenchmarkPSCMBesideUBM(b *testing.B) {
	src, err := sim.NewSyntheticSource(synthCfg(10000, 0.3, 1))
	if err != nil {
		b.Fatal(err)
	}
	log, _, err := sim.SimulateLog(context.Background(), sim.Config{Kind: clickmodels.UBM, SERPs: 1_000_000, Seed: 2, Source: src})
	if err != nil {
		b.Fatal(err)
	}
	sim.ShuffleClickOrders(log, 0.3, rand.New(rand.NewPCG(7, 7)))
	d, err := clickmodels.Prepare(log, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, est := range []clickmodels.Estimator{clickmodels.DefaultEstimator, clickmodels.EstimatorPyClick} {
		opt := est.Options()
		opt.Workers, opt.NoIntervals = 1, est != clickmodels.DefaultEstimator
		for _, k := range []clickmodels.Kind{clickmodels.UBM, clickmodels.PSCM} {
			b.Run(fmt.Sprintf("%s/%s", est, k), func(b *testing.B) {
				c0 := cpuSeconds()
				for b.Loop() {
					m, err := clickmodels.Fit(context.Background(), d, k, opt)
					if err != nil {
						b.Fatal(err)
					}
					if !opt.NoIntervals {
						if _, _, err := m.RelevanceDists(); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/fit")
			})
		}
	}
	for _, k := range []clickmodels.Kind{clickmodels.UBM, clickmodels.PSCM} {
		b.Run(fmt.Sprintf("iteration/%s", k), func(b *testing.B) {
			opt := clickmodels.EstimatorPyClick.Options()
			opt.Workers, opt.NoIntervals = 1, true
			var cpu [2]float64 // 1 and 51 iterations
			for b.Loop() {
				for i, n := range []int{1, 51} {
					opt.Iterations = n
					c0 := cpuSeconds()
					if _, err := clickmodels.Fit(context.Background(), d, k, opt); err != nil {
						b.Fatal(err)
					}
					cpu[i] += cpuSeconds() - c0
				}
			}
			b.ReportMetric((cpu[1]-cpu[0])/50/float64(b.N)*1e3, "cpu-ms/iteration")
		})
	}
}

// cpuSeconds is the user and system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
