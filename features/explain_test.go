package features

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestExplainValuesEqualExtract: Explain's 34 values are Extract's for the
// same pair, in both semantics, traced or not.
func TestExplainValuesEqualExtract(t *testing.T) {
	pairs := []Pair{{"athl shop", "g:Shop", 2}, {"organisation", "h:Org", 3}, {"name", "h:name", 4}, {"", "g:owns", 5}, {"club club x", "h:Club", 6}}
	for _, sem := range []Semantics{SemanticsReference, SemanticsPaper} {
		for _, p := range pairs {
			c := tracedCorpus(t, sem, p.Term, redeclGraphs...)
			ex, err := c.Explain(context.Background(), p.Query, p.Term)
			if err != nil {
				t.Fatal(err)
			}
			tab, _, err := c.Extract(context.Background(), []Pair{p}, ExtractOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Features) != 34 {
				t.Fatalf("%d features explained, want 34", len(ex.Features))
			}
			for j, f := range ex.Features {
				if f.ID != j+1 || math.Float64bits(f.Value) != math.Float64bits(tab.Rows[0].Values[j]) {
					t.Errorf("%s %q %s: feature %d %s = %v, Extract %v", sem, p.Query, p.Term, f.ID, f.Name, f.Value, tab.Rows[0].Values[j])
				}
				if f.Source == "" {
					t.Errorf("%s feature %d has no source", sem, f.ID)
				}
			}
		}
	}
}

// inputs returns feature f's input lines joined.
func inputs(ex *Explanation, f int) string { return strings.Join(ex.Features[f-1].Inputs, "\n") }

// TestExplainInputs checks inputs worked by hand on redeclGraphs
// (TestRefRedeclaredTerms has the values).
func TestExplainInputs(t *testing.T) {
	c := tracedCorpus(t, SemanticsReference, "h:Org", redeclGraphs...)
	ex, err := c.Explain(context.Background(), "organisation athl", "h:Org")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Ontology != "http://h.org/" || ex.Vocabulary != "http://h.org/" || !strings.Contains(ex.OntologyRule, "term prefix http://h.org/") {
		t.Errorf("ontology %q (%q), vocabulary %q", ex.Ontology, ex.OntologyRule, ex.Vocabulary)
	}
	for _, c := range []struct {
		f    int
		want string
	}{
		// h's graph labels h:Org "Organisation"; "athl" is only in g's comment.
		{FeatTextRelevancy, `word "organisation": in the value "organisation"`},
		{FeatTextRelevancy, `word "athl": no match`},
		{FeatClassMatch, `"organisation" ~ http://h.org/Org (exact 0.6`},
		// In h, h:Org occurs in 4 triples (its type, its label, h:Club's
		// subClassOf, h:name's domain), h:name in 3, h:Club in 2: max 4.
		{FeatTFT, "f(t, O) = 4 triples of http://h.org/ contain the term; max over O's terms under its term prefix = 4"},
		// h:Org occurs in g (re-declared, range of g:sells) and h: 2 of 3.
		{FeatIDFT, "|R| = 3 vocabularies; 2 of their graphs contain the term"},
		{FeatSubclasses, "in http://h.org/: 1 [http://h.org/Club]"},
		{FeatRelations, "in http://h.org/: 1 [http://h.org/name]"},
		{FeatSuperclasses, "in http://h.org/: 0 []"},
		{FeatDensityT, "1·1 subclasses + 0.25·0 superclasses + 0.5·1 relations + 0.5·0 siblings"},
		{FeatQueryLength, `words: ["organisation" "athl"]`},
	} {
		if got := inputs(ex, c.f); !strings.Contains(got, c.want) {
			t.Errorf("%s inputs:\n%s\nwant a line with %q", FeatureName(c.f), got, c.want)
		}
	}
	// In g, h:Org is a re-declared class matched by g's comment.
	ex, err = tracedCorpus(t, SemanticsReference, "g:Shop", redeclGraphs...).Explain(context.Background(), "athl", "g:Shop")
	if err != nil {
		t.Fatal(err)
	}
	if got := inputs(ex, FeatIDFO); !strings.Contains(got, "http://h.org/Org (tf 0, idf 0.405465, bm25 0.123402, re-declared here)") {
		t.Errorf("IDF_O inputs:\n%s", got)
	}
	if got := inputs(ex, FeatDensityO); !strings.Contains(got, "1 matched classes, Density_T in their own ontology: http://h.org/Org 1.5") {
		t.Errorf("Density_O inputs:\n%s", got)
	}
	if _, err := json.Marshal(ex); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Explain(context.Background(), "x", "http://nowhere.org/X"); err == nil || !strings.Contains(err.Error(), "not in the corpus") {
		t.Errorf("unknown term: %v", err)
	}
}
