package clickmodels_test

import (
	"context"
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
