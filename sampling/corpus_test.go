package sampling_test

import (
	"context"
	"testing"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

// Sampling against the real corpus of package features, on two of the
// zazuko vocabularies: prefixed names resolve, the sample is drawn from the
// query match, and unknown names are reported.
func TestSampleWithCorpus(t *testing.T) {
	paths := []string{
		refdata.Path(t, "vocabularies", "_index.nq.gz"),
		refdata.Path(t, "vocabularies", "foaf.nq.gz"),
		refdata.Path(t, "vocabularies", "vcard.nq.gz"),
	}
	c, err := features.Load(context.Background(), paths, features.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	match := map[string]bool{}
	for _, u := range c.Matches("person") {
		match[u] = true
	}
	ls := []labels.Label{
		{Query: "person", Term: "foaf:Person", Grade: 4, P: 0.8},
		{Query: "person", Term: "nope:Thing", Grade: 1, P: 0.46},
		{Query: "person", Term: "vcard:Individual", Grade: 0, P: 0.3},
	}
	rows, rep, err := sampling.Sample(context.Background(), ls, c, sampling.Options{Seed: 1, PerQuery: 10})
	if err != nil {
		t.Fatal(err)
	}
	// 2 known labelled terms; the budget 10 - 2 = 8 fits in the pool of
	// the other matching terms.
	if len(rows) != 10 || rep.Labelled != 2 || rep.Sampled != 8 || rep.UnknownLabelled != 1 || rep.UnknownTerms[0].Name != "nope:Thing" {
		t.Fatalf("%d rows, report %+v", len(rows), rep)
	}
	if rows[0].Term != "http://xmlns.com/foaf/0.1/Person" || rows[1].Term != "http://www.w3.org/2006/vcard/ns#Individual" {
		t.Errorf("labelled rows %+v", rows[:2])
	}
	for _, r := range rows[2:] {
		if !r.Sampled || r.Label != 0 || !match[r.Term] || r.Term == rows[0].Term || r.Term == rows[1].Term {
			t.Errorf("sampled row %+v is not an unlabelled match of the query", r)
		}
	}
}
