package features

import (
	"cmp"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features/rdf"
)

// testCorpusSem builds the hand-written corpus of features_test.go with the
// given semantics.
func testCorpusSem(t testing.TB, sem Semantics) *Corpus {
	t.Helper()
	return buildTurtle(t, sem, testPrefixes, testGraphs)
}

// addTurtle adds the Turtle graph ttl (prefixes prepended) to b as the
// named graph name.
func addTurtle(t testing.TB, b *Builder, prefixes, name, ttl string) {
	t.Helper()
	_, err := rdf.ParseTurtle(strings.NewReader(prefixes+ttl), name, rdf.Options{}, func(q rdf.Quad) error {
		q.G = rdf.NewIRI(name)
		b.Add(q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// buildTurtle builds a corpus from Turtle graphs (prefixes prepended).
func buildTurtle(t testing.TB, sem Semantics, prefixes string, graphs []struct{ name, ttl string }) *Corpus {
	t.Helper()
	b := NewBuilder()
	b.SetSemantics(sem)
	for _, g := range graphs {
		addTurtle(t, b, prefixes, g.name, g.ttl)
	}
	c, err := b.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Semantics() != sem {
		t.Fatalf("Semantics() = %q, want %q", c.Semantics(), sem)
	}
	return c
}

func checkFeatureSem(t *testing.T, sem Semantics, id int, cases []fcase) {
	t.Helper()
	checkCorpus(t, testCorpusSem(t, sem), id, cases)
}

func checkCorpus(t *testing.T, c *Corpus, id int, cases []fcase) {
	t.Helper()
	for _, tc := range cases {
		got := feature(t, c, tc.query, tc.term, id)
		if math.Abs(got-tc.want) > 1e-9*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s [%s] (%q, %s) = %.12g, want %.12g (%s)", FeatureName(id), c.Semantics(), tc.query, tc.term, got, tc.want, tc.why)
		}
	}
}

// The reference test corpus (Java file and line numbers below are under
// lovbench-dataset/src/main/java/experiment/ of the LOVBench repository).
//
// G1 = http://ex.org/people (17 triples), term prefix http://ex.org/people#:
// f(t, G1) = Person 3 (its type, label, Human's subClassOf),
// PersonalProfile 2, Human 3, knows 3, age 2, Extra 1, Foreign 2.
// G2 = http://ex.org/geo (8 triples), prefix http://ex.org/geo#: Place 4,
// livesIn 3; p:Person occurs in G2 too (livesIn's domain).
// |R| = 2, 25 triples.
const refPrefixes = `@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix vann: <http://purl.org/vocab/vann/> .
@prefix p: <http://ex.org/people#> .
@prefix g: <http://ex.org/geo#> .
`

var refGraphs = []struct{ name, ttl string }{
	{"http://ex.org/people", `
<http://ex.org/people> a owl:Ontology ; vann:preferredNamespaceUri "http://ex.org/people#" .
p:Person a owl:Class ; rdfs:label "Person" .
p:PersonalProfile a owl:Class ; rdfs:label "Personal profile"@en .
p:Human a owl:Class ; rdfs:label "person" ; rdfs:subClassOf p:Person .
p:knows a owl:ObjectProperty ; rdfs:label "knows" ; rdfs:comment "Relates a person to a person" .
p:age a owl:DatatypeProperty ; rdfs:label "Age of person" .
<http://ex.org/people/Extra> a owl:Class .
<http://elsewhere.org/x/Foreign> a owl:Class ; rdfs:label "Foreign person" .
`},
	{"http://ex.org/geo", `
<http://ex.org/geo> a owl:Ontology ; vann:preferredNamespaceUri "http://ex.org/geo#" .
g:Place a owl:Class ; rdfs:label "Place" ; rdfs:comment "Where a person lives" .
g:livesIn a owl:ObjectProperty ; rdfs:domain p:Person ; rdfs:range g:Place .
`},
}

const (
	pPerson   = "http://ex.org/people#Person"
	pProfile  = "http://ex.org/people#PersonalProfile"
	pHuman    = "http://ex.org/people#Human"
	pKnows    = "http://ex.org/people#knows"
	pAge      = "http://ex.org/people#age"
	pExtra    = "http://ex.org/people/Extra"
	pForeign  = "http://elsewhere.org/x/Foreign"
	gPlace    = "http://ex.org/geo#Place"
	gLivesIn  = "http://ex.org/geo#livesIn"
	twoSpaces = "person  age"
)

func refCorpus(t testing.TB, sem Semantics) *Corpus {
	return buildTurtle(t, sem, refPrefixes, refGraphs)
}

// TestRefOntologyOfTerm: LOVPrefixes.getOntologyUriOfTermUri (lines
// 229-249): the LOV term prefix, else the URI up to its last '/' or '#'.
func TestRefOntologyOfTerm(t *testing.T) {
	c := refCorpus(t, SemanticsReference)
	for uri, want := range map[string]string{
		pPerson:  "http://ex.org/people", // prefix http://ex.org/people#
		gPlace:   "http://ex.org/geo",
		pExtra:   "http://ex.org/people", // fallback: up to the last '/' is G1's name (line 245)
		pForeign: "",                     // fallback http://elsewhere.org/x is no graph
	} {
		got := ""
		if o := c.ref.ontology[c.termIdx[uri]]; o >= 0 {
			got = c.vocabs[o].uri
		}
		if got != want {
			t.Errorf("ontology of %s = %q, want %q", uri, got, want)
		}
	}
	// Longest ontology URI wins (line 237 compares the ontology URIs'
	// lengths, not the prefixes'): http://ex.org/a#T starts with both
	// http://ex.org/a# (ontology http://ex.org/a) and http://ex.org/
	// (ontology http://ex.org/a-longer-name), so its ontology is the
	// latter, where it is not typed: BooleanMatch reads GRAPH <that> and
	// gives 0 (BooleanMatch.java:25).
	c2 := buildTurtle(t, SemanticsReference, refPrefixes, []struct{ name, ttl string }{
		{"http://ex.org/a", `<http://ex.org/a> vann:preferredNamespaceUri "http://ex.org/a#" . <http://ex.org/a#T> a owl:Class ; rdfs:label "tea" .`},
		{"http://ex.org/a-longer-name", `<http://ex.org/a-longer-name> vann:preferredNamespaceUri "http://ex.org/" . <http://ex.org/U> a owl:Class .`},
	})
	if o := c2.ref.ontology[c2.termIdx["http://ex.org/a#T"]]; o < 0 || c2.vocabs[o].uri != "http://ex.org/a-longer-name" {
		t.Errorf("ontology of a#T = %d, want http://ex.org/a-longer-name", o)
	}
	checkCorpus(t, c2, FeatBooleanMatch, []fcase{{"tea", "http://ex.org/a#T", 0, "not typed in its Java ontology"}})
	checkCorpus(t, buildTurtle(t, SemanticsPaper, refPrefixes, []struct{ name, ttl string }{
		{"http://ex.org/a", `<http://ex.org/a> vann:preferredNamespaceUri "http://ex.org/a#" . <http://ex.org/a#T> a owl:Class ; rdfs:label "tea" .`},
	}), FeatBooleanMatch, []fcase{{"tea", "http://ex.org/a#T", 1, "paper: its defining vocabulary"}})
}

func TestJavaSplitSpace(t *testing.T) {
	// String.split(" ") as TermQuery.java:32 calls it.
	for q, want := range map[string][]string{
		"person":         {"person"},
		"person person":  {"person", "person"},
		"person  age":    {"person", "", "age"},
		"person ":        {"person"},
		" person":        {"", "person"},
		"":               {""},
		"   ":            {},
		"foaf:Person x ": {"foaf:Person", "x"},
	} {
		got := javaSplitSpace(q)
		if len(got) != len(want) || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("javaSplitSpace(%q) = %q, want %q", q, got, want)
		}
	}
}

// Feature 1. Reference: BooleanMatch.java:25 with LOVRepository.
// getTermQueryMatch (line 191) and AbstractQuery.java:50-61: a
// case-insensitive regex of the words on the local name or the nine
// AbstractOntologyRepository.QUERY_MATCH_LOV values, in the graph of the
// term's ontology. Paper: Section 5.1.2, a word of the query matches.
func TestRefBooleanMatch(t *testing.T) {
	checkCorpus(t, refCorpus(t, SemanticsReference), FeatBooleanMatch, []fcase{
		{"person", pProfile, 1, `"person" is a substring of "Personal"`},
		{"PERSON", pHuman, 1, `case-insensitive, label "person"`},
		{"liv", gLivesIn, 1, `substring of the local name "livesIn"`},
		{"person", pForeign, 0, "its Java ontology http://elsewhere.org/x is no graph"},
		{"extra", pExtra, 1, "ontology G1 by the '/' fallback, local name matches"},
		{"zebra", pPerson, 0, "no match"},
		{"zebra  giraffe", pExtra, 1, `the empty word between two spaces matches everything (regex "(zebra||giraffe)")`},
	})
	checkCorpus(t, refCorpus(t, SemanticsPaper), FeatBooleanMatch, []fcase{
		{"person", pProfile, 0, `whole words only: "personal" is not "person"`},
		{"person", pForeign, 1, `label "Foreign person"`},
		{"liv", gLivesIn, 0, "whole words only"},
		{"zebra  giraffe", pExtra, 0, "no word matches"},
	})
}

// Feature 4. Reference: TextRelevancy.java:33-40, every word of the query
// (repeats included) contained in a matched label or the local name
// (LOVRepository.getTermQueryMatchLabels, line 216). Paper: Table 3, the
// number of distinct query words matching the term.
func TestRefTextRelevancy(t *testing.T) {
	checkCorpus(t, refCorpus(t, SemanticsReference), FeatTextRelevancy, []fcase{
		{"person person", pProfile, 2, "repeated word counted twice, substring of Personal"},
		{"person person", pPerson, 2, "repeats"},
		{"age person", pAge, 2, `"Age of person"`},
		{twoSpaces, pAge, 3, "person, the empty word, age"},
		{"person", pForeign, 0, "ontology is no graph"},
	})
	checkCorpus(t, refCorpus(t, SemanticsPaper), FeatTextRelevancy, []fcase{
		{"person person", pProfile, 0, "no whole-word match"},
		{"person person", pPerson, 1, "distinct words"},
		{twoSpaces, pAge, 2, "person, age"},
		{"person", pForeign, 1, "its label"},
	})
}

// Feature 7. Reference: QueryLength.java:21, the size of TermQuery's
// split (TermQuery.java:32). Paper: Table 3, |{q_i in Q}|, distinct words.
func TestRefQueryLength(t *testing.T) {
	checkCorpus(t, refCorpus(t, SemanticsReference), FeatQueryLength, []fcase{
		{"person person", pAge, 2, "repeats kept"},
		{twoSpaces, pAge, 3, "the empty word counts"},
		{"person ", pAge, 1, "trailing empty words dropped by split"},
		{"birthDate", pAge, 1, "no tokenisation"},
	})
	// An unknown term written with --unknown zero keeps Query_Length_Q.
	tab, _, err := refCorpus(t, SemanticsReference).Extract(context.Background(), []Pair{{Query: "zebra zebra", Term: "http://nowhere.org/x", Line: 2}},
		ExtractOptions{Features: []int{FeatQueryLength}, Unknown: UnknownZero})
	if err != nil || tab.Rows[0].Values[0] != 2 {
		t.Errorf("Query_Length_Q of an unknown term = %v (%v), want 2", tab.Rows[0].Values, err)
	}
	checkCorpus(t, refCorpus(t, SemanticsPaper), FeatQueryLength, []fcase{
		{"person person", pAge, 1, "distinct"},
		{twoSpaces, pAge, 2, ""},
		{"birthDate", pAge, 2, "birth, date"},
	})
}

// Features 5 and 6 for query "person" in G1 (the ontology of p:age).
// Reference: ClassMatchMeasure.java:48-69 / PropertyMatchMeasure.java:
// 48-67: per query word and matched class, exact when the label set
// contains the lower-cased word, else partial when a label contains it
// ignoring case. The set holds the labels lower-cased
// (LOVRepository.getClassQueryMatchRDFSLabels and
// getPropertyQueryMatchRDFSLabels call toLowerCase on every label they
// read), so "Person" is an exact match of "person". Classes: Person
// "Person" (exact), PersonalProfile (partial), Human "person" (exact),
// Foreign "Foreign person" (partial): 0.6*2 + 0.4*2 = 2.0; properties: age
// "Age of person" (partial) 0.4.
// Paper: eq. in Table 3 with exact = the label is the word: Person and
// Human exact, Foreign partial: 0.6*2 + 0.4 = 1.6.
func TestRefClassPropertyMatch(t *testing.T) {
	ref, paper := refCorpus(t, SemanticsReference), refCorpus(t, SemanticsPaper)
	checkCorpus(t, ref, FeatClassMatch, []fcase{
		{"person", pAge, 0.6*2 + 0.4*2, "2 exact (Person, Human), 2 partial"},
		{"person person", pAge, 2 * (0.6*2 + 0.4*2), "each repeat counts"},
		{"person", pForeign, 0, "ontology of the term is no graph"},
		{"place", gLivesIn, 0.6, `"Place" lower-cased is "place": exact`},
	})
	checkCorpus(t, ref, FeatPropertyMatch, []fcase{
		{"person", pAge, 0.4, "age partial"},
		{"knows", pAge, 0.6, "exact"},
	})
	checkCorpus(t, paper, FeatClassMatch, []fcase{
		{"person", pAge, 0.6*2 + 0.4*1, "Person, Human exact; Foreign partial"},
		{"person person", pAge, 0.6*2 + 0.4*1, "distinct words"},
		{"person", pForeign, 0.6*2 + 0.4*1, "its defining vocabulary G1"},
	})
	checkCorpus(t, paper, FeatPropertyMatch, []fcase{{"person", pAge, 0.4, "age partial"}})
}

// Features 17-19, 23. Reference (TFIDFScorer.java:82, 107, 120-122;
// BM25Term.java:49-51; LOVRepository.java:382-394): tf = 0.5 +
// 0.5*f/max over G1's terms under its prefix (max 3), 0 for terms outside
// the prefix (Extra, Foreign) and for an ontology that is no graph;
// idf = ln(2/df); BM25 = idf*(tf*2+1)/(tf + 2*(0.25 + 0.75*3|O|/floor(3*25/2)))
// with 3|G1| = 51 and floor(75/2) = 37.
// Paper (eq. 7, 8): max over all G1 terms (3), |O|/avgos = 17/12.5.
func TestRefTFIDFBM25T(t *testing.T) {
	ref, paper := refCorpus(t, SemanticsReference), refCorpus(t, SemanticsPaper)
	ln2 := math.Log(2)
	dRef := 2 * (0.25 + 0.75*51.0/37)
	dPaper := 2 * (0.25 + 0.75*17/12.5)
	checkCorpus(t, ref, FeatTFT, []fcase{
		{"x", pProfile, 0.5 + 0.5*2/3, "f 2, max 3"},
		{"x", pExtra, 0, "outside G1's term prefix"},
		{"x", pForeign, 0, "ontology is no graph"},
		{"x", gLivesIn, 0.5 + 0.5*3/4, "G2: max 4 (Place)"},
	})
	checkCorpus(t, paper, FeatTFT, []fcase{
		{"x", pExtra, 0.5 + 0.5*1/3, "f 1"},
		{"x", pForeign, 0.5 + 0.5*2/3, "f 2"},
	})
	for _, c := range []*Corpus{ref, paper} {
		checkCorpus(t, c, FeatIDFT, []fcase{
			{"x", pPerson, 0, "in G1 and G2: ln(2/2)"},
			{"x", pAge, ln2, "ln(2/1)"},
		})
	}
	checkCorpus(t, ref, FeatTFIDFT, []fcase{{"x", pProfile, 5.0 / 6 * ln2, ""}, {"x", pForeign, 0, "tf 0"}})
	checkCorpus(t, ref, FeatBM25T, []fcase{
		{"x", pProfile, ln2 * (5.0/3 + 1) / (5.0/6 + dRef), "numerator TF*k + 1"},
		{"x", pExtra, ln2 * 1 / dRef, "tf 0: idf * 1 / (k*(1-b+b*ratio))"},
		{"x", pForeign, ln2 * 1 / (2 * 0.25), "no graph: tf 0 and size 0"},
	})
	checkCorpus(t, paper, FeatBM25T, []fcase{
		{"x", pProfile, ln2 * (5.0/3 + 1) / (5.0/6 + dPaper), "eq. 8 as printed"},
	})
}

// Features 20-22, 24 for "person" in G1. Reference sigma_t(Q, G1) =
// {Person, PersonalProfile, Human, knows, age, Foreign} (substrings;
// TFOntology.java:37-45 etc. sum over LOVRepository.getTermQueryMatch);
// tf 1, 5/6, 1, 1, 5/6, 0; idf 0, ln2 x5.
// Paper sigma_t = {Person, Human, knows, age, Foreign} (whole words).
func TestRefOntologyTextFeatures(t *testing.T) {
	ref, paper := refCorpus(t, SemanticsReference), refCorpus(t, SemanticsPaper)
	ln2 := math.Log(2)
	d := 2 * (0.25 + 0.75*51.0/37)
	checkCorpus(t, ref, FeatTFO, []fcase{{"person", pAge, 1 + 5.0/6 + 1 + 1 + 5.0/6 + 0, ""}, {"person", pForeign, 0, "no graph"}})
	checkCorpus(t, ref, FeatIDFO, []fcase{{"person", pAge, 5 * ln2, ""}})
	checkCorpus(t, ref, FeatTFIDFO, []fcase{{"person", pAge, (5.0/6 + 1 + 1 + 5.0/6) * ln2, ""}})
	checkCorpus(t, ref, FeatBM25O, []fcase{{"person", pAge,
		ln2*(5.0/3+1)/(5.0/6+d) + 2*ln2*3/(1+d) + ln2*(5.0/3+1)/(5.0/6+d) + ln2/d, "Person has idf 0; Foreign tf 0"}})
	checkCorpus(t, paper, FeatTFO, []fcase{{"person", pAge, 1 + 1 + 1 + 5.0/6 + 5.0/6, ""}})
	checkCorpus(t, paper, FeatIDFO, []fcase{{"person", pAge, 4 * ln2, ""}})
}

// Feature 25. Reference (VSMOntology.java:48-91): "age" matches only in G1
// (age): tf-idf_Q = (1/1) * ln(2/1); sum = TF-IDF(age) = 5/6 ln2; norms
// sqrt(sum over G1 of TF-IDF^2) = ln2*sqrt(2*25/36 + 2) = ln2*sqrt(122)/6
// and ln2: 5/sqrt(122). "age age person": counts 2, 2, 1, max 2; person's
// weight is (1/2 as int = 0) * ..., age twice: 2*(5/6)ln2^2 /
// (ln2*sqrt(122)/6 * sqrt(2)ln2) = 5/sqrt(61). "person" matches in both
// graphs: ln(2/2) = 0, so 0.
// Paper (eq. 9-10): the norm counts Extra (2/3 ln2) and Foreign (5/6 ln2):
// ln2*sqrt(163)/6, so 5/sqrt(163).
func TestRefVSM(t *testing.T) {
	checkCorpus(t, refCorpus(t, SemanticsReference), FeatVSMO, []fcase{
		{"age", pAge, 5 / math.Sqrt(122), ""},
		{"age age person", pAge, 5 / math.Sqrt(61), "integer division of the word counts"},
		{"person", pAge, 0, "ln(2/2)"},
		{"age age knows", pAge, 5 / math.Sqrt(61), "knows: count 1 / max 2 is 0 as an integer division, so it adds nothing"},
	})
	// |R| = 3 in the corpus of features_test.go; "animal" matches in A
	// and C: ln(3/2) as an integer division is ln 1 = 0.
	checkFeatureSem(t, SemanticsReference, FeatVSMO, []fcase{{"animal", "a:Person", 0, "ln(3/2 as int)"}})
	checkCorpus(t, refCorpus(t, SemanticsPaper), FeatVSMO, []fcase{
		{"age", pAge, 5 / math.Sqrt(163), ""},
	})
}

// searchGraphs: one vocabulary, maxDoc 3 terms for LOV's term index;
// literals "cat", "dog cat", "a cat eater".
var searchGraphs = []struct{ name, ttl string }{
	{"http://s.org/v", `
<http://s.org/v#Cat> a owl:Class ; rdfs:label "cat" .
<http://s.org/v#Dog> a owl:Class ; rdfs:label "dog cat" .
<http://s.org/v#Bird> a owl:Class ; rdfs:comment "a cat eater" .
`},
}

// Feature 2, reference: LOVScorer.getScoresFromTermApi reads the LOV
// API's scoreFeatureHit = hit score / best hit score of the query
// (wHitScore 1), rounded to 6 decimals. Hit score: Lucene classic TF-IDF
// (Elasticsearch 1.x) under multi_match best_fields, boosts local name 12,
// rdfs:label 3, rdfs:comment 1.5. For "cat", maxDoc 3: idf(local) =
// 1 + ln(3/2), idf(label) = 1 + ln(3/3) = 1, idf(comment) = 1 + ln(3/2);
// queryNorm = 1/(12*(1+ln 1.5)) (the local-name field's weight is the
// largest). Cat (local name, norm 1): 1+ln 1.5, the best. Dog (label of 2
// words, norm 1/sqrt 2 stored as 0.625): 3*0.625*queryNorm; divided by
// the best: 0.15625/(1+ln 1.5)^2 = 0.0791006 -> 0.079101. Bird (comment
// of 3 words, norm 0.5): 1.5*(1+ln 1.5)^2*queryNorm*0.5/(1+ln 1.5) = 0.0625.
func TestRefLOVMatchT(t *testing.T) {
	c := buildTurtle(t, SemanticsReference, refPrefixes, searchGraphs)
	checkCorpus(t, c, FeatLOVMatchT, []fcase{
		{"cat", "http://s.org/v#Cat", 1, "the best hit"},
		{"cat", "http://s.org/v#Dog", 0.079101, "lossy norm 0.625, rounded to 6 decimals"},
		{"cat", "http://s.org/v#Bird", 0.0625, "comment boost 1.5, norm 0.5"},
		{"zebra", "http://s.org/v#Cat", 0, "no hit"},
	})
}

// Feature 34, reference: LOVSearchRepository.search, Stardog textMatch on
// every literal (?term ?p ?l), BM25 k1 1.2, b 0.75 over the 3 literals
// (avgdl 2, "cat" in all 3: idf = ln(1 + 0.5/3.5) = ln(8/7)).
// Paper: BM25 on rdfs:label only (2 documents, avgdl 1.5, idf ln 1.2).
func TestRefLabelSearch(t *testing.T) {
	ln87 := math.Log(8.0 / 7)
	checkCorpus(t, buildTurtle(t, SemanticsReference, refPrefixes, searchGraphs), FeatLabelSearch, []fcase{
		{"cat", "http://s.org/v#Cat", ln87 * 2.2 / (1 + 1.2*(0.25+0.75*1/2.0)), "dl 1"},
		{"cat", "http://s.org/v#Dog", ln87 * 2.2 / (1 + 1.2*(0.25+0.75*2/2.0)), "dl 2"},
		{"cat", "http://s.org/v#Bird", ln87 * 2.2 / (1 + 1.2*(0.25+0.75*3/2.0)), "an rdfs:comment counts too"},
	})
	checkCorpus(t, buildTurtle(t, SemanticsPaper, refPrefixes, searchGraphs), FeatLabelSearch, []fcase{
		{"cat", "http://s.org/v#Cat", math.Log(1.2) * 2.2 / (1 + 1.2*(0.25+0.75*1/1.5)), "rdfs:label only"},
		{"cat", "http://s.org/v#Bird", 0, "no label"},
	})
}

// Feature 3, reference: LOVScorer.getScoresFromVocabularyApi, the raw
// _score of LOV's vocabulary search (classic TF-IDF, best_fields over
// prefix^12, dcterms:title^3, dcterms:description^1.5), rounded. maxDoc 2;
// "cat" is in one document of each field: idf 1; queryNorm 1/12. X: prefix
// "cat" (norm 1): 12/12 = 1. Y: description of 6 words (norm 1/sqrt 6
// stored as 0.375): 1.5/12*0.375 = 0.046875.
func TestRefLOVMatchO(t *testing.T) {
	const pre = `@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix vann: <http://purl.org/vocab/vann/> .
`
	c := buildTurtle(t, SemanticsReference, pre, []struct{ name, ttl string }{
		{"http://x.org/", `<http://x.org/> a owl:Ontology ; dcterms:title "Cat ontology" ;
  vann:preferredNamespacePrefix "cat" ; vann:preferredNamespaceUri "http://x.org/" . <http://x.org/A> a owl:Class .`},
		{"http://y.org/", `<http://y.org/> a owl:Ontology ; dcterms:title "Dog things" ; dcterms:description "Not about cats but a cat" ;
  vann:preferredNamespacePrefix "dog" ; vann:preferredNamespaceUri "http://y.org/" . <http://y.org/B> a owl:Class .`},
	})
	checkCorpus(t, c, FeatLOVMatchO, []fcase{
		{"cat", "http://x.org/A", 1, "prefix field, boost 12"},
		{"cat", "http://y.org/B", 0.046875, "description field, lossy norm"},
		{"zebra", "http://x.org/A", 0, ""},
	})
}

// TestTopKAndRound: the Java keeps the API's first 500 results
// (page_size=500) and rounds with Math.round(x*1e6)/1e6.
func TestTopKAndRound(t *testing.T) {
	got := topK(map[int32]float64{1: 0.5, 2: 0.9, 3: 0.5, 4: 0.1}, 2, func(x float64) float64 { return x })
	if len(got) != 2 || got[2] != 0.9 || got[1] != 0.5 {
		t.Errorf("topK = %v, want {2: 0.9, 1: 0.5} (ties: lower index)", got)
	}
	for x, want := range map[float64]float64{0.0791006203: 0.079101, 0.0000005: 0.000001, 0.12345649: 0.123456} {
		if r := javaRound6(x); r != want {
			t.Errorf("javaRound6(%v) = %v, want %v", x, r, want)
		}
	}
	for n, want := range map[int32]float64{1: 1, 2: 0.625, 3: 0.5, 6: 0.375} {
		if got := classicNorm(n); got != want {
			t.Errorf("classicNorm(%d) = %v, want %v (Lucene SmallFloat.floatToByte315)", n, got, want)
		}
	}
}

// TestTopKSelect checks the selection against a full sort on random scores
// with ties.
func TestTopKSelect(t *testing.T) {
	for n := 1; n < 300; n += 7 {
		scores := make(map[int32]float64)
		for i := 0; i < n; i++ {
			scores[int32(i*7919%1009)] = float64((i * 31) % 13)
		}
		type ds struct {
			d int32
			s float64
		}
		var all []ds
		for d, s := range scores {
			all = append(all, ds{d, s})
		}
		slices.SortFunc(all, func(a, b ds) int {
			if a.s != b.s {
				return cmp.Compare(b.s, a.s)
			}
			return cmp.Compare(a.d, b.d)
		})
		for _, k := range []int{1, 5, 50} {
			cp := make(map[int32]float64)
			for d, s := range scores {
				cp[d] = s
			}
			got := topK(cp, k, func(x float64) float64 { return x })
			want := min(k, n)
			if len(got) != want {
				t.Fatalf("n %d k %d: %d kept", n, k, len(got))
			}
			for _, x := range all[:want] {
				if _, ok := got[x.d]; !ok {
					t.Fatalf("n %d k %d: %d (%g) missing", n, k, x.d, x.s)
				}
			}
		}
	}
}

// TestRefOntologyLOVPrefixFile: LOVPrefixes.initFromPrefixFile keys the
// LOV prefix file by vocabURI, vocabularies outside the corpus included;
// getOntologyUriOfTermUri (line 237) then picks the longest vocabulary URI
// among the matching prefixes: the foreign vocabulary
// http://ex.org/people-and-more (prefix http://ex.org/) has a longer URI
// than http://ex.org/people and http://ex.org/geo, so it takes all their
// terms, whose ontology-dependent features become 0.
func TestRefOntologyLOVPrefixFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lov.json")
	json := `{"head":{"vars":["vocabPrefix","vocabURI","termPrefix"]},"results":{"bindings":[
{"vocabPrefix":{"value":"more"},"vocabURI":{"value":"http://ex.org/people-and-more"},"termPrefix":{"value":"http://ex.org/"}},
{"vocabPrefix":{"value":"geo"},"vocabURI":{"value":"http://ex.org/geo"},"termPrefix":{"value":"http://ex.org/geo#"}}]}}`
	if err := os.WriteFile(file, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	for _, g := range refGraphs {
		if _, err := rdf.ParseTurtle(strings.NewReader(refPrefixes+g.ttl), g.name, rdf.Options{}, func(q rdf.Quad) error {
			q.G = rdf.NewIRI(g.name)
			b.Add(q)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AddLOVPrefixes(file); err != nil {
		t.Fatal(err)
	}
	c, err := b.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{pPerson, gPlace} {
		if o := c.ref.ontology[c.termIdx[u]]; o != -1 {
			t.Errorf("ontology of %s = %s, want the foreign http://ex.org/people-and-more", u, c.vocabs[o].uri)
		}
	}
	if o := c.ref.ontology[c.termIdx[pForeign]]; o != -1 {
		t.Errorf("ontology of %s = %d, want none", pForeign, o)
	}
	checkCorpus(t, c, FeatBooleanMatch, []fcase{{"person", pPerson, 0, "its ontology is no graph of the corpus"}})
	checkCorpus(t, c, FeatTFT, []fcase{{"x", pPerson, 0, "its ontology is no graph"}})
}

// TestSharedCorpusCaseInsensitiveMatch: features 5 and 6 of "weinregion"
// for dbo:WineRegion on the shared corpus, worked by hand from the dbo
// graph's rdfs:labels. Classes: dbo:WineRegion "Weinregion"@de, exact once
// lower-cased (ClassMatchMeasure.java line 52 against LOVRepository's
// lower-cased label set): 0.6. Properties: dbo:wineRegion "Weinregion"@de
// (exact) and dbo:isPartOfWineRegion "ist ein Teil der Weinregion"@de
// (partial): 0.6 + 0.4 = 1.0. A case-sensitive test gave 0.4 and 0.8.
func TestSharedCorpusCaseInsensitiveMatch(t *testing.T) {
	c, _ := sharedRefCorpus(t)
	tab, _, err := c.Extract(context.Background(), []Pair{{Query: "weinregion", Term: "http://dbpedia.org/ontology/WineRegion", Line: 2}},
		ExtractOptions{Features: []int{FeatClassMatch, FeatPropertyMatch}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Values; math.Abs(got[0]-0.6) > 1e-12 || math.Abs(got[1]-1.0) > 1e-12 {
		t.Errorf("Class_Match_O, Property_Match_O = %v, want [0.6 1]", got)
	}
}

// TestRefMinHubOfNoOntology: Min_Hub_O (13) of a term whose Java ontology
// has no terms in the repository (here http://elsewhere.org/x/Foreign, whose namespace is no
// graph of the corpus) is Double.MAX_VALUE in reference mode:
// HubDWRankScorer.java line 69 starts the minimum there and its loop over
// getAllTerms(ontology) (lines 70-86) has nothing to lower it with; the
// maximum starts and stays at 0. Paper mode scores the term's own
// vocabulary, which has terms.
func TestRefMinHubOfNoOntology(t *testing.T) {
	for _, sem := range []Semantics{SemanticsReference, SemanticsPaper} {
		tab, _, err := refCorpus(t, sem).Extract(context.Background(), []Pair{{Query: "person", Term: pForeign, Line: 2}},
			ExtractOptions{Features: []int{FeatMaxHub, FeatMinHub}})
		if err != nil {
			t.Fatal(err)
		}
		got := tab.Rows[0].Values
		if sem == SemanticsReference && (got[0] != 0 || got[1] != math.MaxFloat64) {
			t.Errorf("reference: Max_Hub_O, Min_Hub_O = %v, want [0 %v]", got, math.MaxFloat64)
		}
		if sem == SemanticsPaper && got[1] == math.MaxFloat64 {
			t.Errorf("paper: Min_Hub_O = %v, want the vocabulary's minimum", got[1])
		}
	}
}
