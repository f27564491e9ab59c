package features

import (
	"context"
	"math"
	"testing"
)

// redeclGraphs: vocabulary g re-declares h's class h:Org, with a comment of
// its own, and h's property h:name, with a label of its own; k only makes
// |R| = 3. Triples: g 13, h 7, k 1.
var redeclGraphs = [][2]string{
	{"http://g.org/", `
g:Shop a owl:Class ; rdfs:label "Shop" .
g:Owner a owl:Class .
g:owns a owl:ObjectProperty ; rdfs:domain g:Owner ; rdfs:range g:Shop .
g:sells a owl:ObjectProperty ; rdfs:domain g:Shop ; rdfs:range h:Org .
h:Org a owl:Class ; rdfs:comment "a club of athletes" .
h:name a owl:DatatypeProperty ; rdfs:label "Name" .`},
	{"http://h.org/", `
h:Org a owl:Class ; rdfs:label "Organisation" .
h:Club a owl:Class ; rdfs:subClassOf h:Org .
h:name a owl:DatatypeProperty ; rdfs:domain h:Org ; rdfs:label "title" .`},
	{"http://k.org/", `k:Thing a owl:Class .`},
}

// TestRefRedeclaredTerms: in the reference semantics a term typed in
// another vocabulary's graph is a term of that vocabulary too, with that
// graph's labels and comments (LOVRepository.getTermQueryMatch,
// LOVRepository.java line 191, runs "GRAPH <O> { ?uri a ?termType ... }";
// getClass/PropertyQueryMatchRDFSLabels lines 250 and 266 read the labels
// in O's graph). Worked by hand; the pair's term (g:Shop, g:Owner, h:Club)
// only selects the ontology, g or h. The paper semantics are not checked
// here (NaN).
//
//   - IDF_O (21), "athl" in g: h:Org matches by g's comment; idf(h:Org) =
//     ln(|R| / #graphs containing it) = ln(3/2) (IDFOntology.getScore).
//     Without re-declarations: no match, 0.
//   - BM25_O (24), the same: tf(h:Org, g) = 0 (not under g's term prefix),
//     so BM25 = idf·(0·2+1)/(0 + 2·(1 − 0.75 + 0.75·ratio)), ratio =
//     3·13 / ⌊3·21/3⌋ = 39/21 (BM25Ontology.getScore).
//   - Density_O (31), "athl" in g: the class h:Org scored in its own
//     ontology h (TermStatsScorer.java lines 33-55): 1 subclass (Club),
//     1 relation (h:name's domain), no parent: 1·1 + 0.5·1 = 1.5.
//   - Betweenness_O (15), "athl shop" in g: classes Shop and h:Org. g's
//     ontology graph is the path Owner - Shop - Org (+ source - sink for
//     h:name, which has no domain in g): Shop lies on (Owner, Org), 2
//     unhalved; Org is a leaf and outside g's prefix, 0. (2 + 0) / 2 / 2
//     = 0.5 (BetweennessMeasure.java lines 42-43 divide twice). Without
//     re-declarations: Shop alone, 2 / 1 / 1 = 2.
//   - Semantic_Similarity_O (16), "athl owner" in g: Owner and h:Org at
//     distance 2, one pair: 2. Without: Owner alone, 1.
//   - Property_Match_O (6), "name": in g, h:name's label "Name" there,
//     lower-cased, equals the word: 0.6. In h its label is "title" (the
//     local name matches but no label contains the word): 0.
//   - Class_Match_O (5), "organisation": in h 0.6 ("Organisation"); in g
//     h:Org has no label: 0.
//   - Text_Relevancy_T (4) of h:Org for "athl" reads its ontology h's
//     graph, where no text contains the word: 0.
func TestRefRedeclaredTerms(t *testing.T) {
	nan := math.NaN()
	ratio := 39.0 / 21
	bm25 := math.Log(1.5) * 1 / (2 * (1 - 0.75 + 0.75*ratio))
	checkSem(t, redeclGraphs, []semCase{
		{FeatIDFO, "athl", "g:Shop", math.Log(1.5), nan, "h:Org matched by g's comment"},
		{FeatBM25O, "athl", "g:Shop", bm25, nan, "tf 0 outside g's prefix"},
		{FeatTFO, "athl", "g:Shop", 0, nan, "tf 0 outside g's prefix"},
		{FeatDensityO, "athl", "g:Shop", 1.5, nan, "h:Org's density in h"},
		{FeatBetweennessO, "athl shop", "g:Shop", 0.5, nan, "(2 + 0) / 2 / 2"},
		{FeatSemanticSimilarity, "athl owner", "g:Shop", 2, nan, "Owner - Shop - Org"},
		{FeatPropertyMatch, "name", "g:Shop", 0.6, nan, "g's label Name"},
		{FeatPropertyMatch, "name", "h:Club", 0, nan, "h's label title"},
		{FeatClassMatch, "organisation", "h:Club", 0.6, nan, "h's label"},
		{FeatClassMatch, "organisation", "g:Shop", 0, nan, "no label of h:Org in g"},
		{FeatTextRelevancy, "athl", "h:Org", 0, nan, "h's text of h:Org"},
		{FeatBooleanMatch, "organisation", "h:Org", 1, nan, "h's label"},
	})
}

// TestSharedCorpusRedeclaredDensity: "organization" against the gr
// vocabulary. schema:Organization is typed owl:Class in gr's graph, so it is
// a matched class of gr, scored with its density in schema.org
// (TermStatsScorer.java lines 33-55). LOVBench's Java gives Density_O 50.69
// (two decimals) for this pair; reading only gr's own classes gave 1.33.
func TestSharedCorpusRedeclaredDensity(t *testing.T) {
	c, _ := sharedRefCorpus(t)
	tab, _, err := c.Extract(context.Background(), []Pair{{Query: "organization", Term: "http://purl.org/goodrelations/v1#BusinessEntity", Line: 2}},
		ExtractOptions{Features: []int{FeatDensityO}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Values[0]; math.Abs(got-50.69) > 0.005 {
		t.Errorf("Density_O(organization, gr) = %g, want 50.69", got)
	}
}
