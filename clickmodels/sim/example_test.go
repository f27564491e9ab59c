package sim_test

import (
	"context"
	"fmt"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// Simulate a DBN log from the built-in synthetic source, fit DBN on the
// first 75% and evaluate on the rest.
func ExampleSimulateLog() {
	sc := sim.DefaultSyntheticConfig()
	sc.Queries = 20
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		panic(err)
	}
	log, truth, err := sim.SimulateLog(context.Background(), sim.Config{Kind: clickmodels.DBN, SERPs: 2000, Seed: 2, Source: src})
	if err != nil {
		panic(err)
	}
	train, test := clickmodels.Split(log, 0.75)
	data, err := clickmodels.Prepare(train, 0)
	if err != nil {
		panic(err)
	}
	m, err := clickmodels.Fit(context.Background(), data, clickmodels.DBN, clickmodels.Options{})
	if err != nil {
		panic(err)
	}
	met, err := clickmodels.Evaluate(m, test)
	if err != nil {
		panic(err)
	}
	fmt.Println(train.Len(), "training SERPs,", truth.NumPairs(), "true pairs, perplexity below 2:", met.Perplexity < 2)
	// Output: 1500 training SERPs, 395 true pairs, perplexity below 2: true
}
