package calibration

import (
	"context"
	"slices"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// TestFitTrueGlobals: SimulationOptions.TrueGlobals keeps the global
// parameters at the simulation's values through every iteration (the
// free fit moves them), and fits the pair parameters.
func TestFitTrueGlobals(t *testing.T) {
	ctx := context.Background()
	for _, k := range []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN} {
		sc := sim.DefaultSyntheticConfig()
		sc.Queries = 50
		src, err := sim.NewSyntheticSource(sc)
		if err != nil {
			t.Fatal(err)
		}
		log, truth, err := sim.SimulateLog(ctx, sim.Config{Kind: k, SERPs: 2000, Seed: 1, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		d, err := clickmodels.Prepare(log, 0)
		if err != nil {
			t.Fatal(err)
		}
		fixed, err := fitTrueGlobals(ctx, d, k, clickmodels.Options{Level: 0.9}, truth.Global)
		if err != nil {
			t.Fatal(err)
		}
		free, err := clickmodels.Fit(ctx, d, k, clickmodels.Options{Level: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fixed.Global, truth.Global) {
			t.Errorf("%v: globals %v, want the truth's %v", k, fixed.Global, truth.Global)
		}
		if slices.Equal(free.Global, truth.Global) {
			t.Errorf("%v: the free fit kept the truth's globals", k)
		}
		if fixed.Evidence == nil || fixed.Iterations != clickmodels.DefaultIterations {
			t.Errorf("%v: evidence %v, %d iterations", k, fixed.Evidence != nil, fixed.Iterations)
		}
		moved := 0
		for p := range fixed.Attr {
			if fixed.Attr[p] != clickmodels.Unseen {
				moved++
			}
		}
		if moved == 0 {
			t.Errorf("%v: no pair parameter fitted", k)
		}
		if _, err := fitTrueGlobals(ctx, d, k, clickmodels.Options{}, append(slices.Clone(truth.Global), 0.5)); err == nil {
			t.Errorf("%v: wrong number of globals accepted", k)
		}
	}
}
