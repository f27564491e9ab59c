package features

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The hand-written test corpus: three vocabularies A, B, C.
//
// A (25 triples, t1..t25 in the order written), B (9 triples), C (7
// triples); |R| = 3, avgos(R) = 41/3.
const testPrefixes = `@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix vann: <http://purl.org/vocab/vann/> .
@prefix a: <http://a.org/> .
@prefix b: <http://b.org/> .
@prefix c: <http://c.org/> .
`

var testGraphs = []struct{ name, ttl string }{
	{"http://a.org/", `
<http://a.org/> a owl:Ontology ;
  dcterms:title "Animal ontology" ;
  vann:preferredNamespacePrefix "a" ;
  vann:preferredNamespaceUri "http://a.org/" ;
  owl:imports <http://b.org/> .
a:Animal a owl:Class ; rdfs:label "Animal" .
a:Dog a owl:Class ; rdfs:label "Dog" ; rdfs:subClassOf a:Animal .
a:Cat a owl:Class ; rdfs:label "Cat animal"@en ; rdfs:subClassOf a:Animal .
a:Person a owl:Class ; rdfs:label "Person" ; rdfs:subClassOf b:Agent .
a:owns a owl:ObjectProperty ; rdfs:label "owns animal" ; rdfs:domain a:Person ; rdfs:range a:Animal .
a:feeds a owl:ObjectProperty ; rdfs:comment "feeds a dog" ; rdfs:domain a:Person ; rdfs:range a:Dog ;
  rdfs:subPropertyOf a:owns .
`},
	{"http://b.org/", `
<http://b.org/> a owl:Ontology ; dcterms:title "Basic agents" ;
  vann:preferredNamespacePrefix "b" ; vann:preferredNamespaceUri "http://b.org/" .
b:Agent a owl:Class ; rdfs:label "Agent" .
b:name a owl:DatatypeProperty ; rdfs:label "name" ; rdfs:domain b:Agent .
`},
	{"http://c.org/", `
<http://c.org/> a owl:Ontology .
c:Pet a rdfs:Class ; rdfs:label "Pet animal" ; rdfs:subClassOf a:Animal .
c:owner a rdf:Property ; rdfs:domain c:Pet ; rdfs:range b:Agent .
`},
}

func testCorpus(t testing.TB) *Corpus {
	t.Helper()
	return testCorpusSem(t, DefaultSemantics)
}

// feature computes one feature for one pair.
func feature(t *testing.T, c *Corpus, query, term string, id int) float64 {
	t.Helper()
	tab, _, err := c.Extract(context.Background(), []Pair{{Query: query, Term: term, Line: 2}}, ExtractOptions{Features: []int{id}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tab.Rows[0].Values[0]
}

type fcase struct {
	query, term string
	want        float64
	why         string
}

func checkFeature(t *testing.T, id int, cases []fcase) {
	t.Helper()
	checkCorpus(t, testCorpus(t), id, cases)
}

var (
	ln2   = math.Log(2)
	ln3   = math.Log(3)
	ln1_5 = math.Log(1.5)
)

func TestCorpusModel(t *testing.T) {
	c := testCorpus(t)
	st := c.Stats()
	if st.Vocabularies != 3 || st.Terms != 10 || st.Classes != 6 || st.Properties != 4 {
		t.Errorf("stats = %+v, want 3 vocabularies, 10 terms, 6 classes, 4 properties", st)
	}
	if u, ok := c.Resolve("a:Dog"); !ok || u != "http://a.org/Dog" {
		t.Errorf("Resolve(a:Dog) = %q, %v", u, ok)
	}
	if u, ok := c.Resolve("http://c.org/Pet"); !ok || u != "http://c.org/Pet" {
		t.Errorf("Resolve(full URI) = %q, %v", u, ok)
	}
	if u, ok := c.Resolve("a:Zebra"); ok || u != "http://a.org/Zebra" {
		t.Errorf("Resolve(a:Zebra) = %q, %v; want the expansion and false", u, ok)
	}
	if p := c.Prefixed("http://b.org/name"); p != "b:name" {
		t.Errorf("Prefixed(b:name) = %q", p)
	}
	if p := c.Prefixed("http://c.org/Pet"); p != "http://c.org/Pet" {
		t.Errorf("Prefixed(c:Pet) = %q, want the URI (C declares no prefix)", p)
	}
	want := []string{"http://a.org/Animal", "http://a.org/Cat", "http://a.org/owns", "http://c.org/Pet"}
	if got := c.Matches("Animal"); !reflect.DeepEqual(got, want) {
		t.Errorf("Matches(Animal) = %v, want %v", got, want)
	}
	if got := c.Parents("http://a.org/Person"); !reflect.DeepEqual(got, []string{"http://b.org/Agent"}) {
		t.Errorf("Parents(a:Person) = %v", got)
	}
	ti, ok := c.Term("http://a.org/Cat")
	if !ok || ti.Kind != Class || ti.Vocabulary != "http://a.org/" || ti.VocabularyPrefix != "a" ||
		!reflect.DeepEqual(ti.Labels, []Literal{{"Cat animal", "en"}}) {
		t.Errorf("Term(a:Cat) = %+v", ti)
	}
	if got := len(c.Terms()); got != 10 {
		t.Errorf("Terms() has %d entries, want 10", got)
	}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"birthDate":            {"birth", "date"},
		"HTMLParser":           {"html", "parser"},
		"date-of_birth 2020":   {"date", "of", "birth", "2020"},
		"iso3166Code":          {"iso", "3166", "code"},
		"XMLHttpRequest2":      {"xml", "http", "request", "2"},
		"A1b":                  {"a", "1", "b"},
		"ABC":                  {"abc"},
		"x.Y":                  {"x", "y"},
		"  Überprüfung&quot; ": {"überprüfung", "quot"},
		"":                     nil,
	} {
		if got := Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := LocalName("http://xmlns.com/foaf/0.1/"); got != "0.1" {
		t.Errorf("LocalName(namespace) = %q", got)
	}
}

func TestBooleanMatch(t *testing.T) { // feature 1
	checkFeatureSem(t, SemanticsPaper, FeatBooleanMatch, []fcase{
		{"animal", "a:Cat", 1, `"animal" in rdfs:label "Cat animal"`},
		{"animal", "a:Animal", 1, "local name and label"},
		{"animal", "a:Dog", 0, "Dog has no word animal"},
		{"dog", "a:feeds", 1, `rdfs:comment "feeds a dog"`},
		{"zebra animal", "http://c.org/Pet", 1, "one word suffices"},
	})
}

// LOV_Match_T: max over fields of boost * Lucene BM25 (k1 = 1.2, b = 0.75).
//
// rdfs:label field: 8 documents, 11 words, avgdl = 11/8 = 1.375; "animal"
// in 4 (Animal, Cat, owns, Pet): idf = ln(1 + (8-4+0.5)/(4+0.5)) = ln 2.
// Local-name field: 10 one-word documents, "animal" in 1:
// idf = ln(1 + 9.5/1.5) = ln(22/3), tf-part 2.2/(1+1.2*(0.25+0.75)) = 1.
// Vocabulary field: A's 6 terms hold [a animal ontology], B's 2 hold
// [b basic agents], C's none: 8 documents, avgdl 3, "animal" in 6:
// idf = ln(1 + 2.5/6.5).
func TestLOVMatchT(t *testing.T) { // feature 2
	labelCat := ln2 * 2.2 / (1 + 1.2*(0.25+0.75*2/1.375))
	checkFeatureSem(t, SemanticsPaper, FeatLOVMatchT, []fcase{
		{"animal", "a:Animal", 12 * math.Log(22.0/3), "local-name boost 12 wins"},
		{"animal", "a:Cat", 3 * labelCat, "label boost 3 * 0.5845 > vocabulary field 0.3254"},
		{"animal", "a:Dog", math.Log(1 + 2.5/6.5), "only the vocabulary field (A's title) matches"},
		{"animal", "b:Agent", 0, "nothing matches"},
	})
}

// LOV_Match_O: BM25 over vocabulary documents A [a animal ontology], B [b
// basic agents], C [] (2 documents with words, avgdl 3); "animal" in 1:
// idf = ln(1 + 1.5/1.5) = ln 2, tf-part 2.2/(1 + 1.2*(0.25+0.75*3/3)) = 1.
func TestLOVMatchO(t *testing.T) { // feature 3
	checkFeatureSem(t, SemanticsPaper, FeatLOVMatchO, []fcase{
		{"animal", "a:Dog", ln2, "A's title"},
		{"animal", "b:name", 0, "B's text has no animal"},
		{"basic", "b:name", ln2, "B's title, same idf"},
	})
}

func TestTextRelevancy(t *testing.T) { // feature 4
	checkFeatureSem(t, SemanticsPaper, FeatTextRelevancy, []fcase{
		{"cat animal", "a:Cat", 2, "both words in the label"},
		{"cat animal", "a:Animal", 1, "animal only"},
		{"cat animal cat", "a:Cat", 2, "distinct words"},
		{"zebra", "a:Cat", 0, "no match"},
	})
}

// Class_Match_O = sum_q 0.6*|exact label| + 0.4*|partial label| over O's classes.
func TestClassMatch(t *testing.T) { // feature 5
	checkFeatureSem(t, SemanticsPaper, FeatClassMatch, []fcase{
		{"animal", "a:Dog", 0.6*1 + 0.4*1, `A: "Animal" exact, "Cat animal" partial`},
		{"animal dog", "a:Dog", 0.6*1 + 0.4*1 + 0.6*1, `plus "Dog" exact`},
		{"animal", "http://c.org/owner", 0.4, `C: "Pet animal" partial`},
		{"animal", "b:Agent", 0, "B: none"},
	})
}

func TestPropertyMatch(t *testing.T) { // feature 6
	checkFeatureSem(t, SemanticsPaper, FeatPropertyMatch, []fcase{
		{"animal", "a:Dog", 0.4, `A: "owns animal" partial`},
		{"name", "b:Agent", 0.6, `B: "name" exact`},
		{"dog", "a:Dog", 0, "feeds has no label (comment only)"},
	})
}

func TestQueryLength(t *testing.T) { // feature 7
	checkFeatureSem(t, SemanticsPaper, FeatQueryLength, []fcase{
		{"animal", "a:Dog", 1, "one word"},
		{"Zebra animal zebra", "a:Dog", 2, "distinct words, known or not"},
		{"birthDate", "a:Dog", 2, "tokenised: birth, date"},
	})
}

// Repository PageRank (d = 0.85, x 1e5). Nodes A, B, C.
func TestPageRankOwlImports(t *testing.T) { // feature 8
	// Edge A->B; B and C dangling. x = z = u, y = 1.85u, 3.85u = 1.
	u := 1 / 3.85
	checkFeaturePaper(t, FeatPageRankOwlImports, []fcase{
		{"animal", "a:Dog", 1e5 * u, "A"},
		{"animal", "b:Agent", 1e5 * 1.85 * u, "B"},
		{"animal", "http://c.org/Pet", 1e5 * u, "C"},
	})
}

func TestPageRankImplicit(t *testing.T) { // feature 9
	// Edges A->B (b:Agent, owl:imports object), C->A (a:Animal), C->B
	// (b:Agent); B dangling. z = s, x = s + 0.85*z/2 = 1.425s,
	// y = s + 0.85x + 0.85z/2 = 2.63625s, sum 5.06125s = 1.
	s := 1 / 5.06125
	checkFeaturePaper(t, FeatPageRankImplicit, []fcase{
		{"animal", "a:Dog", 1e5 * 1.425 * s, "A"},
		{"animal", "b:Agent", 1e5 * 2.63625 * s, "B"},
		{"animal", "http://c.org/Pet", 1e5 * s, "C"},
	})
}

func TestPageRankVoaf(t *testing.T) { // feature 10
	// Derived voaf edges: A->B specializes+extends (a:Person subClassOf
	// b:Agent), C->A specializes+extends (c:Pet subClassOf a:Animal), C->B
	// extends (rdfs:range b:Agent): C has 3 out-edges, 2 to A.
	// z = s, x = s + 0.85*z*2/3, y = s + 0.85x + 0.85z/3.
	x := 1 + 0.85*2.0/3
	y := 1 + 0.85*x + 0.85/3
	s := 1 / (1 + x + y)
	checkFeaturePaper(t, FeatPageRankVoaf, []fcase{
		{"animal", "a:Dog", 1e5 * x * s, "A"},
		{"animal", "b:Agent", 1e5 * y * s, "B"},
		{"animal", "http://c.org/Pet", 1e5 * s, "C"},
	})
}

// Hubs: PageRank on the reversed ontology graph. G(A): edges
// Person->Animal (owns), Person->Dog (feeds); reversed: Animal->Person,
// Dog->Person; Cat isolated. Animal = Cat = Dog = base, Person = 2.7 base,
// 5.7 base = 1. G(C): Pet->Agent (owner), reversed Agent->Pet: Agent = base,
// Pet = 1.85 base, 2.85 base = 1. G(B): the single node Agent has 1.
func TestHub(t *testing.T) { // feature 11
	checkFeaturePaper(t, FeatHub, []fcase{
		{"animal", "a:Person", 2.7 / 5.7, "A hub"},
		{"animal", "a:Cat", 1 / 5.7, "isolated"},
		{"animal", "http://c.org/Pet", 1.85 / 2.85, "C"},
		{"animal", "b:Agent", 1, "single node"},
		{"animal", "a:owns", 0, "properties have no hub score"},
	})
}

func TestMaxHub(t *testing.T) { // feature 12
	checkFeaturePaper(t, FeatMaxHub, []fcase{
		{"animal", "a:owns", 2.7 / 5.7, "A: Person"},
		{"animal", "http://c.org/owner", 1.85 / 2.85, "C: Pet is C's only class (b:Agent is B's)"},
	})
}

func TestMinHub(t *testing.T) { // feature 13
	checkFeaturePaper(t, FeatMinHub, []fcase{
		{"animal", "a:owns", 1 / 5.7, "A: Animal, Cat, Dog"},
		{"animal", "b:name", 1, "B: Agent"},
	})
}

// Betweenness on undirected G(A): Animal - Person - Dog, Cat isolated;
// Person lies on the one shortest path Animal..Dog, counted for both
// ordered pairs of equation (5)'s sum over c_i != c_j.
func TestBetweennessT(t *testing.T) { // feature 14
	checkFeaturePaper(t, FeatBetweennessT, []fcase{
		{"x", "a:Person", 2, "pairs (Animal, Dog), (Dog, Animal)"},
		{"x", "a:Animal", 0, "endpoint"},
		{"x", "a:feeds", 0, "property"},
	})
}

func TestBetweennessO(t *testing.T) { // feature 15
	checkFeaturePaper(t, FeatBetweennessO, []fcase{
		{"person dog", "a:Cat", (2 + 0) / 2.0, "sigma_c(A) = {Dog, Person}"},
		{"animal", "a:Cat", 0, "sigma_c(A) = {Animal, Cat}"},
		{"zebra", "a:Cat", 0, "no matched class"},
	})
}

func TestSemanticSimilarity(t *testing.T) { // feature 16
	checkFeaturePaper(t, FeatSemanticSimilarity, []fcase{
		{"person dog", "a:Cat", 1.0 / 1, "Person-Dog path length 1"},
		{"animal dog", "a:Cat", (0 + 1.0/2 + 0) / 3, "pairs Animal-Cat (no path), Animal-Dog (2), Cat-Dog (no path)"},
		{"person", "a:Cat", 1, "one class: the i = j case"},
		{"zebra", "a:Cat", 0, "none"},
	})
}

// TF (eq. 7): f(t, A): Animal 5 (t6 t7 t10 t13 t20), Dog 4 (t8 t9 t10
// t24), Cat 3, Person 5, owns 5, feeds 5; max 5. C: Pet 4, owner 3.
func TestTFT(t *testing.T) { // feature 17
	checkFeatureSem(t, SemanticsPaper, FeatTFT, []fcase{
		{"x", "a:Animal", 0.5 + 0.5*5/5, "max"},
		{"x", "a:Dog", 0.5 + 0.5*4/5, ""},
		{"x", "a:Cat", 0.5 + 0.5*3/5, ""},
		{"x", "http://c.org/owner", 0.5 + 0.5*3/4, ""},
	})
}

// IDF (eq. 7): ln(|R| / df): a:Animal occurs in A and C; b:Agent in A, B, C.
func TestIDFT(t *testing.T) { // feature 18
	checkFeatureSem(t, SemanticsPaper, FeatIDFT, []fcase{
		{"x", "a:Animal", math.Log(3.0 / 2), "df 2"},
		{"x", "b:Agent", math.Log(3.0 / 3), "df 3"},
		{"x", "a:Dog", ln3, "df 1"},
	})
}

func TestTFIDFT(t *testing.T) { // feature 19
	checkFeatureSem(t, SemanticsPaper, FeatTFIDFT, []fcase{
		{"x", "a:Dog", 0.9 * ln3, "TF 0.9 * IDF ln 3"},
		{"x", "http://c.org/owner", 0.875 * ln3, ""},
		{"x", "b:Agent", 0, "IDF 0"},
	})
}

// sigma_t("animal", A) = {Animal, Cat, owns}.
func TestTFO(t *testing.T) { // feature 20
	checkFeatureSem(t, SemanticsPaper, FeatTFO, []fcase{
		{"animal", "a:Person", 1 + 0.8 + 1, "TF Animal + Cat + owns"},
		{"animal", "http://c.org/owner", 1, "C: Pet"},
		{"animal", "b:Agent", 0, "B: none"},
	})
}

func TestIDFO(t *testing.T) { // feature 21
	checkFeatureSem(t, SemanticsPaper, FeatIDFO, []fcase{
		{"animal", "a:Person", ln1_5 + ln3 + ln3, "IDF Animal + Cat + owns"},
	})
}

func TestTFIDFO(t *testing.T) { // feature 22
	checkFeatureSem(t, SemanticsPaper, FeatTFIDFO, []fcase{
		{"animal", "a:Person", 1*ln1_5 + 0.8*ln3 + 1*ln3, "TF-IDF Animal + Cat + owns"},
	})
}

// BM25 (eq. 8 as printed) with k = 2, b = 0.75, |A| = 25, avgos = 41/3:
// IDF * (TF*k + 1) / (TF + k*(1 - b + b*|O|/avgos)).
func bm25Hand(idf, tf, size float64) float64 {
	return idf * (tf*2 + 1) / (tf + 2*(0.25+0.75*size/(41.0/3)))
}

func TestBM25T(t *testing.T) { // feature 23
	checkFeatureSem(t, SemanticsPaper, FeatBM25T, []fcase{
		{"x", "a:Dog", ln3 * (0.9*2 + 1) / (0.9 + 2*(0.25+0.75*25/(41.0/3))), "A"},
		{"x", "http://c.org/owner", ln3 * (0.875*2 + 1) / (0.875 + 2*(0.25+0.75*7/(41.0/3))), "C"},
		{"x", "b:Agent", 0, "IDF 0"},
	})
}

func TestBM25O(t *testing.T) { // feature 24
	checkFeatureSem(t, SemanticsPaper, FeatBM25O, []fcase{
		{"animal", "a:Person", bm25Hand(ln1_5, 1, 25) + bm25Hand(ln3, 0.8, 25) + bm25Hand(ln3, 1, 25), "Animal + Cat + owns"},
	})
}

// VSM (eq. 9-10). TF-IDF of A's terms: Animal ln1.5, Dog 0.9 ln3, Cat
// 0.8 ln3, Person, owns, feeds ln3. Query word weights: animal matches in
// A and C: ln(3/2); dog only in A: ln 3.
func TestVSMO(t *testing.T) { // feature 25
	norm := math.Sqrt(ln1_5*ln1_5 + (0.81+0.64+3)*ln3*ln3)
	oneWord := (ln1_5 + 1.8*ln3) * ln1_5 / (norm * ln1_5)
	twoWords := ((0.9*ln3+ln3)*ln3 + (ln1_5+1.8*ln3)*ln1_5) / (norm * math.Sqrt(ln3*ln3+ln1_5*ln1_5))
	checkFeatureSem(t, SemanticsPaper, FeatVSMO, []fcase{
		{"animal", "a:Person", oneWord, "(Animal + Cat + owns) . w"},
		{"dog animal", "a:Person", twoWords, "dog: Dog + feeds"},
		{"zebra", "a:Person", 0, "no word known"},
	})
}

func TestSubclasses(t *testing.T) { // feature 26
	checkFeaturePaper(t, FeatSubclasses, []fcase{
		{"x", "a:Animal", 2, "Dog, Cat (c:Pet is in C, not A)"},
		{"x", "b:Agent", 0, "a:Person subClassOf b:Agent is stated in A"},
		{"x", "a:owns", 0, "property"},
	})
}

func TestSuperclasses(t *testing.T) { // feature 27
	checkFeaturePaper(t, FeatSuperclasses, []fcase{
		{"x", "a:Person", 1, "b:Agent"},
		{"x", "a:Animal", 0, ""},
	})
}

func TestRelations(t *testing.T) { // feature 28
	checkFeaturePaper(t, FeatRelations, []fcase{
		{"x", "a:Person", 2, "domain of owns and feeds"},
		{"x", "a:Animal", 1, "range of owns"},
		{"x", "http://c.org/Pet", 1, "domain of owner"},
	})
}

func TestSiblings(t *testing.T) { // feature 29
	checkFeaturePaper(t, FeatSiblings, []fcase{
		{"x", "a:Dog", 1, "Cat"},
		{"x", "a:Person", 0, "only child of b:Agent in A"},
	})
}

func TestDensityT(t *testing.T) { // feature 30
	checkFeaturePaper(t, FeatDensityT, []fcase{
		{"x", "a:Animal", 1.0*2 + 0.25*0 + 0.5*1 + 0.5*0, "sub 2, rel 1"},
		{"x", "a:Dog", 1.0*0 + 0.25*1 + 0.5*1 + 0.5*1, "sup 1, rel 1, sib 1"},
		{"x", "a:Person", 0.25*1 + 0.5*2, "sup 1, rel 2"},
	})
}

func TestDensityO(t *testing.T) { // feature 31
	checkFeaturePaper(t, FeatDensityO, []fcase{
		{"animal", "a:owns", (2.5 + 0.75) / 2, "mean over Animal (2.5), Cat (0.25+0.5)"},
		{"zebra", "a:owns", 0, "no matched class"},
	})
}

func TestSubproperties(t *testing.T) { // feature 32
	checkFeaturePaper(t, FeatSubproperties, []fcase{
		{"x", "a:owns", 1, "feeds"},
		{"x", "a:feeds", 0, ""},
		{"x", "a:Animal", 0, "class"},
	})
}

func TestSuperproperties(t *testing.T) { // feature 33
	checkFeaturePaper(t, FeatSuperproperties, []fcase{
		{"x", "a:feeds", 1, "owns"},
		{"x", "a:owns", 0, ""},
	})
}

// LabelSearch_T: BM25 on rdfs:label alone (8 documents, avgdl 1.375,
// idf(animal) = ln 2, see TestLOVMatchT).
func TestLabelSearch(t *testing.T) { // feature 34
	checkFeatureSem(t, SemanticsPaper, FeatLabelSearch, []fcase{
		{"animal", "a:Animal", ln2 * 2.2 / (1 + 1.2*(0.25+0.75*1/1.375)), "dl 1"},
		{"animal", "a:Cat", ln2 * 2.2 / (1 + 1.2*(0.25+0.75*2/1.375)), "dl 2"},
		{"animal", "a:feeds", 0, "no label"},
	})
}

func TestSearch(t *testing.T) {
	c := testCorpus(t)
	hits := c.Search("animal", ByLOV, 2)
	if len(hits) != 2 || hits[0].URI != "http://a.org/Animal" || hits[0].Prefixed != "a:Animal" {
		t.Fatalf("Search(animal, lov) = %+v", hits)
	}
	if want := 12 * math.Log(22.0/3); math.Abs(hits[0].Score-want) > 1e-12 {
		t.Errorf("top score %g, want %g", hits[0].Score, want)
	}
	// Label ranking: Animal (dl 1) before Cat, owns, Pet (dl 2, tied, by URI).
	var got []string
	for _, h := range c.Search("animal", ByLabel, 0) {
		got = append(got, h.URI)
	}
	want := []string{"http://a.org/Animal", "http://a.org/Cat", "http://a.org/owns", "http://c.org/Pet"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Search(animal, label) = %v, want %v", got, want)
	}
}

// TestSearchAgreesWithFeatures: Search scores are features 2 and 34 in
// the paper semantics (Search does not depend on the semantics).
func TestSearchAgreesWithFeatures(t *testing.T) {
	c := testCorpusSem(t, SemanticsPaper)
	for _, by := range []Ranking{ByLOV, ByLabel} {
		id := FeatLOVMatchT
		if by == ByLabel {
			id = FeatLabelSearch
		}
		hits := c.Search("dog animal basic", by, 0)
		if len(hits) == 0 {
			t.Fatalf("no hits by %v", by)
		}
		for _, h := range hits {
			if f := feature(t, c, "dog animal basic", h.URI, id); f != h.Score {
				t.Errorf("by %v: %s score %g, feature %g", by, h.URI, h.Score, f)
			}
		}
	}
}

func TestExtractUnknownAndDeterminism(t *testing.T) {
	c := testCorpus(t)
	pairs := []Pair{{"animal", "a:Cat", 2}, {"animal", "a:Zebra", 3}, {"dog", "http://a.org/feeds", 4}, {"cat animal", "http://c.org/Pet", 5}}
	if _, rep, err := c.Extract(context.Background(), pairs, ExtractOptions{Source: "p.csv"}); err == nil || rep.Unknown != 1 ||
		!strings.Contains(err.Error(), "p.csv:3: field term") {
		t.Errorf("error policy: err %v, report %+v", err, rep)
	}
	tab, rep, err := c.Extract(context.Background(), pairs, ExtractOptions{Unknown: UnknownSkip})
	if err != nil || rep.Unknown != 1 || len(tab.Rows) != 3 {
		t.Fatalf("skip policy: %v %+v rows %d", err, rep, len(tab.Rows))
	}
	zero, _, err := c.Extract(context.Background(), pairs, ExtractOptions{Unknown: UnknownZero, Workers: 1})
	if err != nil || len(zero.Rows) != 4 || zero.Rows[1].Term != "http://a.org/Zebra" {
		t.Fatalf("zero policy: %v %+v", err, zero)
	}
	for i, v := range zero.Rows[1].Values {
		if want := 0.0; zero.Features[i] == FeatQueryLength {
			if v != 1 {
				t.Errorf("zero row Query_Length_Q = %g, want 1", v)
			}
		} else if v != want {
			t.Errorf("zero row %s = %g", FeatureName(zero.Features[i]), v)
		}
	}
	many, _, _ := c.Extract(context.Background(), pairs, ExtractOptions{Unknown: UnknownZero, Workers: 4})
	if !reflect.DeepEqual(zero, many) {
		t.Error("1 and 4 workers differ")
	}
	var b1, b2 strings.Builder
	if err := zero.WriteCSV(&b1); err != nil {
		t.Fatal(err)
	}
	if err := many.WriteCSV(&b2); err != nil || b1.String() != b2.String() {
		t.Error("CSV differs")
	}
	if h := strings.SplitN(b1.String(), "\n", 2)[0]; !strings.HasPrefix(h, "query,term,Boolean_Match_T,LOV_Match_T,") || !strings.HasSuffix(h, ",Superproperties_T,LabelSearch_T") {
		t.Errorf("header %q", h)
	}
}

func TestReadPairs(t *testing.T) {
	ps, err := ReadPairs(strings.NewReader("\ufeffquery,term,label\nperson,foaf:Person,2\n\"a, b\",http://x/y,0\n"), "p.csv")
	if err != nil || len(ps) != 2 || ps[1] != (Pair{"a, b", "http://x/y", 3}) {
		t.Fatalf("ReadPairs = %+v, %v", ps, err)
	}
	for in, want := range map[string]string{
		"q,t\nx,y\n":           "p.csv:1: header",
		"query,term\nx,\n":     "p.csv:2: field term: empty",
		"query,term\n,foo:x\n": "p.csv:2: field query: empty",
		"":                     "p.csv: empty file",
	} {
		if _, err := ReadPairs(strings.NewReader(in), "p.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadPairs(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestParseFeatureList(t *testing.T) {
	ids, err := ParseFeatureList("1-3, 34,2")
	if err != nil || !reflect.DeepEqual(ids, []int{1, 2, 3, 34}) {
		t.Errorf("ParseFeatureList = %v, %v", ids, err)
	}
	for _, bad := range []string{"0", "35", "3-1", "x", ""} {
		if _, err := ParseFeatureList(bad); err == nil {
			t.Errorf("ParseFeatureList(%q) accepted", bad)
		}
	}
}

// TestLoadFiles loads N-Quads files from a directory: a named graph (the
// vocabulary) and a default-graph prefix index (metadata, as the zazuko
// _index file), plus a LOV prefix file; then checks lenient loading.
func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("v.nq", `<http://v.org/ns#Thing> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://v.org/ns#> .
<http://v.org/ns#Thing> <http://www.w3.org/2000/01/rdf-schema#label> "Thing" <http://v.org/ns#> .
`)
	write("_index.nq", `<https://prefix.example/zz:> <http://www.w3.org/ns/rdfa#prefix> "zz" .
<https://prefix.example/zz:> <http://www.w3.org/ns/rdfa#uri> <http://v.org/ns#> .
<https://prefix.example/zz:> <http://purl.org/dc/terms/title> "Zebra vocabulary" .
`)
	lov := filepath.Join(t.TempDir(), "lov.json")
	if err := os.WriteFile(lov, []byte(`{"head":{"vars":["vocabPrefix","vocabURI","termPrefix"]},"results":{"bindings":[
{"vocabPrefix":{"type":"literal","value":"vv"},"vocabURI":{"type":"uri","value":"http://v.org/ns"},"termPrefix":{"type":"uri","value":"http://v.org/ns#"}}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(context.Background(), []string{dir}, LoadOptions{Prefixes: lov})
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Files != 2 || st.Vocabularies != 1 || st.MetadataGraphs != 1 || st.Terms != 1 {
		t.Fatalf("stats %+v", st)
	}
	if v := c.Vocabularies()[0]; v.URI != "http://v.org/ns#" || v.Prefix != "zz" {
		t.Errorf("vocabulary %+v, want prefix zz from the index", v)
	}
	if p := c.Prefixed("http://v.org/ns#Thing"); p != "zz:Thing" {
		t.Errorf("Prefixed = %q, want zz:Thing (corpus declaration before LOV file)", p)
	}
	if u, ok := c.Resolve("vv:Thing"); !ok || u != "http://v.org/ns#Thing" {
		t.Errorf("Resolve(vv:Thing) = %q, %v (LOV prefix)", u, ok)
	}
	// The index title is vocabulary text: "zebra" gives LOV_Match_O > 0.
	tab, _, err := c.Extract(context.Background(), []Pair{{Query: "zebra", Term: "zz:Thing"}}, ExtractOptions{Features: []int{FeatLOVMatchO}})
	if err != nil || tab.Rows[0].Values[0] <= 0 {
		t.Errorf("LOV_Match_O(zebra) = %v, %v; want > 0", tab, err)
	}

	bad := write("w.nq", "<http://w.org/A> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://w.org/> .\n<http://w.org/B> broken .\n")
	if _, err := Load(context.Background(), []string{bad}, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "w.nq:2:") {
		t.Errorf("strict load error %v, want one naming w.nq:2", err)
	}
	c, err = Load(context.Background(), []string{bad}, LoadOptions{Lenient: true})
	if err != nil || c.Stats().Skipped != 1 || c.Stats().Terms != 1 {
		t.Errorf("lenient load: %v %+v", err, c.Stats())
	}
}

// A pairs row with more or fewer fields than the header is
// an error naming the file and line, as export's feature reader does.
func TestReadPairsFieldCount(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"query,term\ndog,v:Dog\ndog,v:Cat,extra\n", "p.csv:3: 3 fields, want 2 (as the header)"},
		{"query,term,label\ndog,v:Dog,1\ndog,v:Cat\n", "p.csv:3: 2 fields, want 3 (as the header)"},
		{"query,term\ndog\n", "p.csv:2: 1 fields, want 2 (as the header)"},
	} {
		_, err := ReadPairs(strings.NewReader(c.in), "p.csv")
		if err == nil || err.Error() != c.want {
			t.Errorf("ReadPairs(%q): err %v, want %s", c.in, err, c.want)
		}
	}
	ps, err := ReadPairs(strings.NewReader("query,term,label\ndog,v:Dog,1\n"), "p.csv")
	if err != nil || len(ps) != 1 {
		t.Errorf("good file: %v %v", ps, err)
	}
}
