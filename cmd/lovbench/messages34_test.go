package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulate on a small corpus of the user's own says what it needs: a SERP
// length the corpus can fill, not "is the corpus empty?". The corpus has
// four terms; "person" is a word of three labels (Person, Person name,
// person age), so the longest full SERP is 3 terms.
func TestSimulateSmallCorpusNamesSERPLength(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "mine.ttl")
	ttl := `@prefix ex: <http://example.org/mine#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://example.org/mine> a owl:Ontology .
ex:Person a owl:Class ; rdfs:label "Person" .
ex:name a owl:DatatypeProperty ; rdfs:label "Person name" .
ex:age a owl:DatatypeProperty ; rdfs:label "person age" .
ex:Animal a owl:Class ; rdfs:label "Animal" .
`
	if err := os.WriteFile(corpus, []byte(ttl), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "log.tsv")
	code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--corpus", corpus, "--sessions", "20", "--queries", "1", "--out", out)
	if code != 1 || strings.Contains(errs, "is the corpus empty") || !strings.Contains(errs, "--serp-length") || !strings.Contains(errs, "at most 3") {
		t.Fatalf("simulate --corpus mine: code %d (want 1): %s", code, errs)
	}
	if code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--corpus", corpus, "--serp-length", "3", "--sessions", "20", "--queries", "1", "--out", out); code != 0 {
		t.Fatalf("simulate --serp-length 3: code %d: %s", code, errs)
	}
}
