package clickmodels_test

import (
	"context"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/sessions"
)

func init() {
	clickmodels.SimulatedLog = func(ctx context.Context, kind clickmodels.Kind, serps int, seed uint64, queries int, shuffle float64, srcSeed uint64) (*sessions.Log, error) {
		src, err := sim.NewSyntheticSource(synthCfg(queries, shuffle, srcSeed))
		if err != nil {
			return nil, err
		}
		log, _, err := sim.SimulateLog(ctx, sim.Config{Kind: kind, SERPs: serps, Seed: seed, Source: src})
		return log, err
	}
}

// synthCfg is DefaultSyntheticConfig with the given queries, shuffled share
// and seed.
func synthCfg(queries int, shuffle float64, seed uint64) sim.SyntheticConfig {
	c := sim.DefaultSyntheticConfig()
	c.Queries, c.Shuffle, c.Seed = queries, shuffle, seed
	return c
}
