package corpussim

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/features/democorpus"
)

var (
	demoOnce   sync.Once
	demoCorpus *features.Corpus
	demoErr    error
)

// loadDemoCorpus loads the embedded corpus once per test binary.
func loadDemoCorpus(t testing.TB) *features.Corpus {
	t.Helper()
	demoOnce.Do(func() {
		paths, err := democorpus.Materialize(t.TempDir())
		if err != nil {
			demoErr = err
			return
		}
		demoCorpus, demoErr = features.Load(context.Background(), paths, features.LoadOptions{})
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoCorpus
}

// matchSearch is a stand-in search engine for tests: matching terms in URI
// order.
func matchSearch(c *features.Corpus) Searcher {
	return func(q string, k int) []string {
		m := c.Matches(q)
		if len(m) > k {
			m = m[:k]
		}
		return m
	}
}

func TestCorpusSourceDeterministic(t *testing.T) {
	c := loadDemoCorpus(t)
	o := Options{Queries: 60, SERPSize: 10, ZipfS: 1.1, Seed: 7}
	a, err := New(context.Background(), c, matchSearch(c), o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(context.Background(), c, matchSearch(c), o)
	qa, qb := a.Queries(), b.Queries()
	if len(qa) != 60 {
		t.Fatalf("%d queries", len(qa))
	}
	counts := map[string]int{}
	ra, rb := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		q1, s1, _ := a.Next(ra)
		q2, _, _ := b.Next(rb)
		if q1 != q2 {
			t.Fatal("two sources with one seed draw different queries")
		}
		if len(s1) != 10 {
			t.Fatalf("SERP of %q has %d results", q1, len(s1))
		}
		counts[q1]++
	}
	for i := range qa {
		if qa[i] != qb[i] {
			t.Fatal("query lists differ")
		}
	}
	// Zipf: the most popular query is drawn most, roughly 1/H share.
	if counts[qa[0]] < counts[qa[10]] || counts[qa[0]] < 400 {
		t.Errorf("popularity not Zipf-like: top %d, 11th %d", counts[qa[0]], counts[qa[10]])
	}
	other, _ := New(context.Background(), c, matchSearch(c), Options{Queries: 60, SERPSize: 10, ZipfS: 1.1, Seed: 8})
	if other.Queries()[0] == qa[0] && other.Queries()[1] == qa[1] {
		t.Error("another seed selects the same queries")
	}
}

func TestTrueRelevance(t *testing.T) {
	c := loadDemoCorpus(t)
	s, err := New(context.Background(), c, matchSearch(c), Options{Queries: 10, ZipfS: 1.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Averaged over the seeded noise, a term named by the query beats one
	// whose comment only mentions it; unknown terms get the floor value.
	person := s.TrueRelevance("person", "http://xmlns.com/foaf/0.1/Person")
	if r := s.TrueRelevance("person", "http://example.org/none"); math.Abs(r-1/(1+math.Exp(3.2))) > 1e-12 {
		t.Errorf("unknown term relevance %g", r)
	}
	if at, sat := s.Truth("person", "http://xmlns.com/foaf/0.1/Person"); at != person || sat != person {
		t.Errorf("Truth = %g, %g, want the relevance %g twice", at, sat, person)
	}
	split, _ := New(context.Background(), c, matchSearch(c), Options{Queries: 10, ZipfS: 1.1, Seed: 1, SplitSatisfaction: true})
	if at, sat := split.Truth("person", "http://xmlns.com/foaf/0.1/Person"); math.Abs(at*sat-person) > 1e-12 {
		t.Errorf("split Truth %g x %g != relevance %g", at, sat, person)
	}
	if person <= 0 || person >= 1 || person != s.TrueRelevance("person", "http://xmlns.com/foaf/0.1/Person") {
		t.Errorf("relevance %g not in (0,1) or not deterministic", person)
	}
	var named, other float64
	var nn, no int
	for _, q := range s.Queries() {
		for _, term := range c.Matches(q) {
			r := s.TrueRelevance(q, term)
			if features.LocalName(term) != "" && containsAll(features.Tokenize(features.LocalName(term)), features.Tokenize(q)) {
				named += r
				nn++
			} else {
				other += r
				no++
			}
		}
	}
	if nn == 0 || no == 0 || named/float64(nn) <= other/float64(no)+0.1 {
		t.Errorf("mean relevance: named %g (%d), other %g (%d)", named/float64(nn), nn, other/float64(no), no)
	}
}

func containsAll(set, ws []string) bool {
	m := wordSet(set)
	for _, w := range ws {
		if !m[w] {
			return false
		}
	}
	return true
}

func TestLoadCorpusSourceEmbedded(t *testing.T) {
	src, err := Load(context.Background(), nil, features.LoadOptions{}, Options{Queries: 20, ZipfS: 1.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	q, serp, err := src.Next(rand.New(rand.NewPCG(1, 1)))
	if err != nil || q == "" || len(serp) != 10 {
		t.Fatalf("Next: %q %v %v", q, serp, err)
	}
	// The SERP is the corpus search's top 10, best first.
	c := loadDemoCorpus(t)
	hits := c.Search(q, features.ByLOV, 10)
	for i, h := range hits {
		if serp[i] != h.URI {
			t.Fatalf("SERP[%d] = %s, search gives %s", i, serp[i], h.URI)
		}
	}
	if _, err := Load(context.Background(), []string{t.TempDir()}, features.LoadOptions{}, Options{Queries: 1, ZipfS: 1.1}); err == nil {
		t.Error("an empty corpus directory gave no error")
	}
}
