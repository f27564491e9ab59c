package features

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two ontologies importing each other, each defining one class, and a
// third importing the first: A <-> B, C -> A.
const (
	ontA = `@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://a.example/ont> a owl:Ontology ; owl:imports <http://b.example/ont> .
<http://a.example/ont#Person> a owl:Class ; rdfs:label "person" .
`
	ontB = `@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://b.example/ont> a owl:Ontology ; owl:imports <http://a.example/ont> .
<http://b.example/ont#Agent> a owl:Class ; rdfs:label "agent person" .
`
	ontC = `@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://c.example/ont> a owl:Ontology ; owl:imports <http://a.example/ont> .
<http://c.example/ont#Group> a owl:Class ; rdfs:label "group of person" .
`
)

// asNQuads writes the statements of a Turtle document above as N-Quads in
// the graph g (the documents use only absolute IRIs, a, ; and literals).
func asNQuads(t *testing.T, ttl, g string) string {
	t.Helper()
	var quads []string
	for _, line := range strings.Split(ttl, "\n") {
		if line == "" || strings.HasPrefix(line, "@prefix") {
			continue
		}
		line = strings.TrimSuffix(line, " .")
		line = strings.ReplaceAll(line, "owl:", "http://www.w3.org/2002/07/owl#")
		line = strings.ReplaceAll(line, "rdfs:", "http://www.w3.org/2000/01/rdf-schema#")
		subj, rest, _ := strings.Cut(line, " ")
		for _, po := range strings.Split(rest, " ; ") {
			p, o, _ := strings.Cut(po, " ")
			switch {
			case p == "a":
				p = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
			default:
				p = "<" + p + ">"
			}
			if strings.HasPrefix(o, "http://www.w3.org/") {
				o = "<" + o + ">"
			}
			quads = append(quads, subj+" "+p+" "+o+" <"+g+"> .")
		}
	}
	return strings.Join(quads, "\n") + "\n"
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pageRanks(t *testing.T, c *Corpus) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, v := range c.Vocabularies() {
		out[v.URI] = v.PageRank[0]
	}
	return out
}

// TestTurtleOntologiesImportEachOther: a vocabulary in a Turtle file is
// named by its owl:Ontology IRI, so owl:imports meets it and
// PageRank_OwlImports_O (feature 8) is no longer 0.
//
// By hand, two ontologies A <-> B: the owl:imports graph has the nodes A and
// B and the edges A->B, B->A. Reference semantics (JUNG, jump probability
// 0.85): x'(A) = 0.15*x(B)/1 + 0.85/2 = 0.15*0.5 + 0.425 = 0.5 from the
// uniform start 0.5, so nothing changes and JUNG stops after the first
// iteration: 0.5 x 1e5 = 50000 each. Paper semantics (damping 0.85): the
// same by symmetry, 50000 each.
func TestTurtleOntologiesImportEachOther(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"a.ttl": ontA, "b.ttl": ontB})
	for _, sem := range []Semantics{SemanticsReference, SemanticsPaper} {
		c, err := Load(ctx, []string{dir}, LoadOptions{Semantics: sem})
		if err != nil {
			t.Fatal(err)
		}
		pr := pageRanks(t, c)
		want := map[string]float64{"http://a.example/ont": 50000, "http://b.example/ont": 50000}
		if len(pr) != 2 {
			t.Fatalf("%s: vocabularies %v, want the two ontology IRIs", sem, pr)
		}
		for u, w := range want {
			if got, ok := pr[u]; !ok || math.Abs(got-w) > 1e-6 {
				t.Errorf("%s: PageRank_OwlImports_O(%s) = %v (present %v), want %v", sem, u, got, ok, w)
			}
		}
		for _, n := range c.Stats().Names {
			if n.Rule != NamedByOntology {
				t.Errorf("%s: %s named by %s, want %s", sem, n.Source, n.Rule, NamedByOntology)
			}
		}
	}
}

// TestOntologyNamesAsymmetricImports: A <-> B, C -> A, computed by hand.
//
// Reference semantics (JUNG): nodes A, B, C, each with out-degree 1, no
// dangling node; the fixed point of x(v) = 0.15*sum_{w->v} x(w) + 0.85/3:
// x(C) = 0.85/3 = k; x(B) = 0.15*x(A) + k; x(A) = 0.15*(x(B)+x(C)) + k =
// 0.0225*x(A) + 1.3k, so x(A) = 1.3k/0.9775. JUNG runs 100 iterations
// (its change never falls under 1e-4 at the first), contracting by 0.15 per
// iteration, so it reaches the fixed point to the last bits.
//
// Paper semantics (damping 0.85 over all three vocabularies): x(C) =
// 0.15/3 = 0.05; x(B) = 0.05 + 0.85*x(A); x(A) = 0.05 + 0.85*(x(B)+x(C)) =
// 0.135 + 0.7225*x(A), so x(A) = 0.135/0.2775.
func TestOntologyNamesAsymmetricImports(t *testing.T) {
	ctx := context.Background()
	k := 0.85 / 3
	refA := 1.3 * k / 0.9775
	paperA := 0.135 / 0.2775
	want := map[Semantics]map[string]float64{
		SemanticsReference: {"http://a.example/ont": refA * 1e5, "http://b.example/ont": (0.15*refA + k) * 1e5, "http://c.example/ont": k * 1e5},
		SemanticsPaper:     {"http://a.example/ont": paperA * 1e5, "http://b.example/ont": (0.05 + 0.85*paperA) * 1e5, "http://c.example/ont": 0.05 * 1e5},
	}
	turtle := writeFiles(t, map[string]string{"a.ttl": ontA, "b.ttl": ontB, "c.ttl": ontC})
	nquads := writeFiles(t, map[string]string{"all.nq": asNQuads(t, ontA, "http://a.example/ont") +
		asNQuads(t, ontB, "http://b.example/ont") + asNQuads(t, ontC, "http://c.example/ont")})
	pairs := []Pair{{Query: "person", Term: "http://a.example/ont#Person"}, {Query: "person", Term: "http://b.example/ont#Agent"},
		{Query: "group person", Term: "http://c.example/ont#Group"}, {Query: "agent", Term: "http://b.example/ont#Agent"}}
	for _, sem := range []Semantics{SemanticsReference, SemanticsPaper} {
		var tabs [2]*Table
		for i, dir := range []string{turtle, nquads} {
			form := [2]string{"Turtle", "N-Quads"}[i]
			c, err := Load(ctx, []string{dir}, LoadOptions{Semantics: sem})
			if err != nil {
				t.Fatal(err)
			}
			pr := pageRanks(t, c)
			if len(pr) != 3 {
				t.Fatalf("%s %s: vocabularies %v", sem, form, pr)
			}
			for u, w := range want[sem] {
				if got := pr[u]; math.Abs(got-w) > 1e-6 {
					t.Errorf("%s %s: PageRank_OwlImports_O(%s) = %.6f, want %.6f", sem, form, u, got, w)
				}
			}
			tab, _, err := c.Extract(ctx, pairs, ExtractOptions{Features: AllFeatures(), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			tabs[i] = tab
		}
		// The same corpus as N-Quads (graph names = ontology IRIs) gives
		// the same 34 features.
		for r := range tabs[0].Rows {
			for j, f := range tabs[0].Features {
				a, b := tabs[0].Rows[r].Values[j], tabs[1].Rows[r].Values[j]
				if a != b {
					t.Errorf("%s: pair %d feature %s: Turtle %v, N-Quads %v", sem, r, FeatureName(f), a, b)
				}
			}
		}
	}
}

// TestOntologyNameFallbacks: a file declaring two ontologies, or none, keeps
// its file name and Load says so; a file without owl:Ontology but with one
// vann:preferredNamespaceUri is named by it; a Turtle file whose ontology
// is also a named graph of an N-Quads file joins that graph.
func TestOntologyNameFallbacks(t *testing.T) {
	ctx := context.Background()
	two := ontA + strings.ReplaceAll(ontB, "owl:imports <http://a.example/ont>", "rdfs:label \"b\"")
	none := `@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://n.example/X> a owl:Class .
`
	vann := `@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix vann: <http://purl.org/vocab/vann/> .
<http://v.example/ns#X> a owl:Class .
<http://v.example/ns#> vann:preferredNamespaceUri "http://v.example/ns#" .
`
	extra := `<http://c.example/ont#Extra> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://c.example/ont> .
`
	dir := writeFiles(t, map[string]string{"two.ttl": two, "none.ttl": none, "vann.ttl": vann, "c.ttl": ontC, "extra.nq": extra})
	var logBuf bytes.Buffer
	c, err := Load(ctx, []string{dir}, LoadOptions{Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, v := range c.Vocabularies() {
		uris = append(uris, v.URI)
	}
	abs := func(name string) string { return "file://" + filepath.Join(dir, name) }
	wantURIs := []string{abs("none.ttl"), abs("two.ttl"), "http://c.example/ont", "http://v.example/ns#"}
	if strings.Join(uris, " ") != strings.Join(wantURIs, " ") {
		t.Errorf("vocabularies\n%v\nwant\n%v", uris, wantURIs)
	}
	// c.ttl and the N-Quads graph are one vocabulary: 4 + 1 triples.
	for _, v := range c.Vocabularies() {
		if v.URI == "http://c.example/ont" && (v.Triples != 5 || v.Classes != 2) {
			t.Errorf("merged vocabulary: %d triples, %d classes, want 5 and 2", v.Triples, v.Classes)
		}
	}
	log := logBuf.String()
	for _, w := range []string{"two.ttl", "several owl:Ontology IRIs", "none.ttl", "no owl:Ontology and no vann:preferredNamespaceUri"} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}
