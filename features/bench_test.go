package features

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lovbench/lovbench/features/rdf"
	"github.com/lovbench/lovbench/internal/refdata"
)

var (
	sharedOnce   sync.Once
	sharedCorpus *Corpus
	sharedErr    error
)

func loadShared(b *testing.B) *Corpus {
	dir := refdata.Path(b, "vocabularies")
	sharedOnce.Do(func() { sharedCorpus, sharedErr = Load(context.Background(), []string{dir}, LoadOptions{}) })
	if sharedErr != nil {
		b.Fatal(sharedErr)
	}
	return sharedCorpus
}

// BenchmarkLoad measures loading and building the 83 shared vocabularies.
func BenchmarkLoad(b *testing.B) {
	dir := refdata.Path(b, "vocabularies")
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), []string{dir}, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDemo measures loading and building the demo's corpus, the
// 16 embedded vocabularies as the pipeline reads them (democorpus's files,
// no prefix file, the default semantics): a fixed cost of every whole run
// and every corpus-reading command.
func BenchmarkLoadDemo(b *testing.B) {
	paths, err := filepath.Glob(filepath.Join("democorpus", "data", "*.nq.gz"))
	if err != nil || len(paths) != 16 {
		b.Fatalf("demo corpus: %d files, %v", len(paths), err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), paths, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPairs draws n pairs: queries from term labels, each paired with up
// to 26 matching terms.
func benchPairs(c *Corpus, n int) []Pair {
	rng := rand.New(rand.NewSource(1))
	terms := c.Terms()
	var pairs []Pair
	for len(pairs) < n {
		ti, _ := c.Term(terms[rng.Intn(len(terms))])
		q := strings.Join(Tokenize(LocalName(ti.URI)), " ")
		m := c.Matches(q)
		for k := 0; k < 26 && k < len(m) && len(pairs) < n; k++ {
			pairs = append(pairs, Pair{Query: q, Term: m[rng.Intn(len(m))]})
		}
	}
	return pairs
}

// BenchmarkExtract measures features 1-33 on 20,000 pairs of the shared
// corpus (bench/features runs the 200,000-pair target).
func BenchmarkExtract(b *testing.B) {
	c := loadShared(b)
	pairs := benchPairs(c, 20000)
	ids, _ := ParseFeatureList("1-33")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Extract(context.Background(), pairs, ExtractOptions{Features: ids}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkSearch measures one LOV-ranked search over the shared corpus.
func BenchmarkSearch(b *testing.B) {
	c := loadShared(b)
	qs := []string{"person", "name", "birth date", "organization", "event time", "title"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Search(qs[i%len(qs)], ByLOV, 10)
	}
}

// Example builds a corpus from Turtle and scores one pair.
func Example() {
	ttl := `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix vann: <http://purl.org/vocab/vann/> .
<http://ex.org/> vann:preferredNamespacePrefix "ex" ; vann:preferredNamespaceUri "http://ex.org/" .
<http://ex.org/Person> a owl:Class ; rdfs:label "Person" .
<http://ex.org/birthDate> a owl:DatatypeProperty ; rdfs:label "birth date" ; rdfs:domain <http://ex.org/Person> .
`
	b := NewBuilder()
	_, err := rdf.ParseTurtle(strings.NewReader(ttl), "ex.ttl", rdf.Options{}, func(q rdf.Quad) error {
		q.G = rdf.NewIRI("http://ex.org/")
		b.Add(q)
		return nil
	})
	if err != nil {
		panic(err)
	}
	c, err := b.Build(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Matches("date of birth"))
	tab, _, _ := c.Extract(context.Background(), []Pair{{Query: "date of birth", Term: "ex:birthDate"}},
		ExtractOptions{Features: []int{FeatBooleanMatch, FeatTextRelevancy, FeatQueryLength, FeatRelations}})
	for i, f := range tab.Features {
		fmt.Printf("%s=%g\n", FeatureName(f), tab.Rows[0].Values[i])
	}
	// Output:
	// [http://ex.org/birthDate]
	// Boolean_Match_T=1
	// Text_Relevancy_T=2
	// Query_Length_Q=3
	// Relations_T=0
}

// BenchmarkWriteParquet200k writes a 200,000-row x 34-feature table (about
// LOVBench's size) as Parquet, the output of `lovbench features --out
// x.parquet`; values are synthetic, seeded.
func BenchmarkWriteParquet200k(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	t := &Table{}
	for id := 1; id <= 34; id++ {
		t.Features = append(t.Features, id)
	}
	for i := range 200000 {
		vals := make([]float64, 34)
		for j := range vals {
			if j%3 == 0 {
				vals[j] = float64(rng.Intn(5))
			} else {
				vals[j] = rng.Float64() * 20
			}
		}
		t.Rows = append(t.Rows, Row{Query: fmt.Sprintf("query %d", i/25), Term: fmt.Sprintf("http://example.org/v%d#t%d", i%400, i), Values: vals})
	}
	var buf countWriter
	b.ResetTimer()
	for b.Loop() {
		if err := t.WriteParquet(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf)/float64(b.N), "bytes/file")
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
