package rdf

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

// loadCorpus decompresses every shared vocabulary into memory so that the
// benchmark measures parsing, not gzip.
func loadCorpus(b *testing.B) [][]byte {
	dir := refdata.Path(b, "vocabularies")
	files, err := filepath.Glob(filepath.Join(dir, "*.nq.gz"))
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		gz, err := gzip.NewReader(fh)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(gz)
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// BenchmarkParseNQuadsCorpus parses all shared vocabularies (decompressed in
// memory) per iteration; MB/s is reported by SetBytes, statements/s as a
// custom metric.
func BenchmarkParseNQuadsCorpus(b *testing.B) {
	corpus := loadCorpus(b)
	size := 0
	for _, d := range corpus {
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	statements := 0
	for b.Loop() {
		for _, d := range corpus {
			st, err := ParseNQuads(bytes.NewReader(d), "corpus", Options{}, func(Quad) error { return nil })
			if err != nil {
				b.Fatal(err)
			}
			statements += st.Statements
		}
	}
	b.ReportMetric(float64(statements)/b.Elapsed().Seconds(), "statements/s")
}

// BenchmarkLoadPathCorpus includes gzip decompression and file I/O.
func BenchmarkLoadPathCorpus(b *testing.B) {
	dir := refdata.Path(b, "vocabularies")
	statements := 0
	for b.Loop() {
		st, err := LoadPath(b.Context(), dir, Options{}, func(Quad) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		statements += st.Statements
	}
	b.ReportMetric(float64(statements)/b.Elapsed().Seconds(), "statements/s")
}

// BenchmarkParseTurtle parses a generated Turtle document in the style of a
// published vocabulary: prefixed names, ';' lists, language-tagged labels.
func BenchmarkParseTurtle(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("@prefix ex: <http://example.org/vocab#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n")
	for i := range 20000 {
		fmt.Fprintf(&sb, "ex:Term%d a owl:Class ;\n    rdfs:label \"Term number %d\"@en ;\n    rdfs:comment \"\"\"A class\nwith a \\\"long\\\" comment.\"\"\" ;\n    rdfs:subClassOf ex:Term%d, [ a owl:Restriction ; owl:onProperty ex:p ; owl:minCardinality 1 ] .\n", i, i, i/2)
	}
	doc := []byte(sb.String())
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	statements := 0
	for b.Loop() {
		st, err := ParseTurtle(bytes.NewReader(doc), "bench.ttl", Options{}, func(Quad) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		statements += st.Statements
	}
	b.ReportMetric(float64(statements)/b.Elapsed().Seconds(), "statements/s")
}
