package features

import (
	"context"
	"math"
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

// buildTurtle builds a corpus from Turtle graphs (prefixes prepended).
func buildTurtle(t testing.TB, sem Semantics, prefixes string, graphs []struct{ name, ttl string }) *Corpus {
	t.Helper()
	b := NewBuilder()
	b.SetSemantics(sem)
	for _, g := range graphs {
		_, err := rdf.ParseTurtle(strings.NewReader(prefixes+g.ttl), g.name, rdf.Options{}, func(q rdf.Quad) error {
			q.G = rdf.NewIRI(g.name)
			b.Add(q)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
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
