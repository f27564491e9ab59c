package clickmodels_test

import (
	"context"
	"fmt"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
)

// Fit UBM on three SERPs and read the relevance of each document. One EM
// iteration from 0.5 gives A 2/3 and B 2/5 (the hand computation in
// TestUBMHandEM).
func ExampleFit() {
	log := &sessions.Log{}
	for _, s := range []sessions.SERP{
		{SessionID: "1", Query: "person", Results: []string{"foaf:Person", "schema:Person"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "2", Query: "person", Results: []string{"foaf:Person", "schema:Person"}},
		{SessionID: "3", Query: "person", Results: []string{"schema:Person", "foaf:Person"}, Clicks: []sessions.Click{{Rank: 1}}},
	} {
		if err := log.Add(&s); err != nil {
			panic(err)
		}
	}
	data, err := clickmodels.Prepare(log, 0)
	if err != nil {
		panic(err)
	}
	m, err := clickmodels.Fit(context.Background(), data, clickmodels.UBM, clickmodels.Options{Iterations: 1})
	if err != nil {
		panic(err)
	}
	for _, doc := range []string{"foaf:Person", "schema:Person", "dcterms:Agent"} {
		fmt.Printf("%s %.4f\n", doc, m.Relevance("person", doc))
	}
	// Output:
	// foaf:Person 0.6667
	// schema:Person 0.4000
	// dcterms:Agent 0.5000
}

// Simulate a DBN log from the built-in synthetic source, fit DBN on the
// first 75% and evaluate on the rest.
func ExampleSimulateLog() {
	sc := clickmodels.DefaultSyntheticConfig()
	sc.Queries = 20
	src, err := clickmodels.NewSyntheticSource(sc)
	if err != nil {
		panic(err)
	}
	log, truth, err := clickmodels.SimulateLog(context.Background(), clickmodels.SimConfig{Kind: clickmodels.DBN, SERPs: 2000, Seed: 2, Source: src})
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
