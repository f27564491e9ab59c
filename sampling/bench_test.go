package sampling

import (
	"context"
	"fmt"
	"testing"

	"github.com/lovbench/lovbench/labels"
)

type benchCorpus struct{ pool []string }

func (c benchCorpus) Matches(string) []string { return c.pool }
func (c benchCorpus) Resolve(n string) (string, bool) {
	return "http://example.org/" + n, true
}

// BenchmarkSample samples LOVBench's size: 7,395 queries with 10 labelled
// terms each and a candidate pool of 2,000 matching terms per query, to an
// average of 26 judgments per query (184,224 pairs in LOVBench).
func BenchmarkSample(b *testing.B) {
	c := benchCorpus{}
	for i := range 2000 {
		c.pool = append(c.pool, fmt.Sprintf("http://example.org/T%d", i))
	}
	var ls []labels.Label
	for q := range 7395 {
		for r := range 10 {
			ls = append(ls, labels.Label{Query: fmt.Sprintf("query %d", q), Term: fmt.Sprintf("T%d", (q+r*13)%2000), Rank: r + 1, Grade: r % 5})
		}
	}
	for b.Loop() {
		rows, _, err := Sample(context.Background(), ls, c, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) != 26*7395 {
			b.Fatalf("%d rows", len(rows))
		}
	}
}
