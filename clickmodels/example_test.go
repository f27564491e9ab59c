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
