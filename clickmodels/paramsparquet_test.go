package clickmodels

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// paramsTestModel is a DBN model of n pairs (attr and sat per pair, one
// global) with values that need all 17 digits, queries of 3 documents.
func paramsTestModel(n int) *Model {
	m := &Model{Kind: DBN, Ranks: 10, Iterations: 7, Global: []float64{0.9000000000000001}}
	for p := range n {
		if p%3 == 0 {
			m.QueryNames = append(m.QueryNames, fmt.Sprintf("query %d\u00e9", p/3))
		}
		m.DocNames = append(m.DocNames, fmt.Sprintf("http://ex.org/d%d", p))
		m.PairQuery = append(m.PairQuery, int32(p/3))
		m.PairDoc = append(m.PairDoc, int32(p))
		m.Attr = append(m.Attr, 1/float64(p+3))
		m.Sat = append(m.Sat, math.Nextafter(0.5, 1)/float64(p%7+1))
	}
	return m
}

// TestParamsParquetRoundTrip: a model written in the Parquet form reads
// back bit for bit (globals, pair order, attr, sat), equal to what the
// JSON form reads back; the relevance file does not depend on the form;
// ParamsAuto writes JSON at ParamsJSONMaxPairs pairs and Parquet at one
// more; ParamsPath prefers the Parquet file, and a rerun in the other form
// leaves no file of the first.
func TestParamsParquetRoundTrip(t *testing.T) {
	m := paramsTestModel(10_000) // more than two of Write's chunks
	dirs := map[ParamsFileFormat]string{}
	for _, f := range []ParamsFileFormat{ParamsJSON, ParamsParquet} {
		dirs[f] = t.TempDir()
		if err := m.WriteFiles(dirs[f], f); err != nil {
			t.Fatal(err)
		}
	}
	jm, err := LoadModel(filepath.Join(dirs[ParamsJSON], "DBN_params.json"))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := LoadModel(ParamsPath(dirs[ParamsParquet], DBN))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]*Model{"json": jm, "parquet": pm} {
		if got.Kind != DBN || got.Ranks != 10 || got.Iterations != 7 || !slices.Equal(got.Global, m.Global) ||
			!slices.Equal(got.Attr, m.Attr) || !slices.Equal(got.Sat, m.Sat) || got.NumPairs() != m.NumPairs() {
			t.Fatalf("%s form read back a different model", name)
		}
		for p := range m.NumPairs() {
			if got.QueryNames[got.PairQuery[p]] != m.QueryNames[m.PairQuery[p]] || got.DocNames[got.PairDoc[p]] != m.DocNames[m.PairDoc[p]] {
				t.Fatalf("%s form: pair %d differs", name, p)
			}
		}
	}
	rj, _ := os.ReadFile(filepath.Join(dirs[ParamsJSON], "DBN_relevance.tsv"))
	rp, _ := os.ReadFile(filepath.Join(dirs[ParamsParquet], "DBN_relevance.tsv"))
	if len(rj) == 0 || !bytes.Equal(rj, rp) {
		t.Error("the relevance file depends on the parameter form")
	}

	// Auto: JSON up to the threshold, Parquet above it.
	for _, c := range []struct {
		pairs int
		ext   string
	}{{ParamsJSONMaxPairs, ".json"}, {ParamsJSONMaxPairs + 1, ".parquet"}} {
		if got := ParamsAuto.ext(c.pairs); got != c.ext {
			t.Errorf("auto with %d pairs writes %s, want %s", c.pairs, got, c.ext)
		}
	}
	// A rerun in the other form replaces the file.
	if err := m.WriteFiles(dirs[ParamsParquet], ParamsJSON); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dirs[ParamsParquet], "DBN_params.parquet")); err == nil {
		t.Error("a stale DBN_params.parquet survived a rerun in JSON")
	}
	if ParamsPath(dirs[ParamsParquet], DBN) != filepath.Join(dirs[ParamsParquet], "DBN_params.json") {
		t.Error("ParamsPath does not fall back to JSON")
	}
}

// TestParamsParquetRejects: a Parquet file without the header metadata, or
// with a value that is no probability, is refused with its name.
func TestParamsParquetRejects(t *testing.T) {
	m := paramsTestModel(5)
	m.Sat[2] = 1.5
	dir := t.TempDir()
	if err := m.WriteFiles(dir, ParamsParquet); err != nil {
		t.Fatal(err)
	}
	_, err := LoadModel(filepath.Join(dir, "DBN_params.parquet"))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("pairs[2]: field sat")) {
		t.Errorf("sat 1.5 accepted or not named: %v", err)
	}
	// The relevance TSV is no Parquet file at all.
	if _, err := LoadModel(filepath.Join(dir, "x.parquet")); err == nil {
		t.Error("a missing file was read")
	}
}

// BenchmarkWriteParams writes the parameter file of a 1,000,000-pair DBN
// model in each form (to io.Discard: the formatting and encoding cost).
func BenchmarkWriteParams(b *testing.B) {
	m := paramsTestModel(1_000_000)
	for _, f := range []ParamsFileFormat{ParamsJSON, ParamsParquet} {
		b.Run(string(f), func(b *testing.B) {
			var n countWriter
			for b.Loop() {
				n = 0
				pw := m.pairWriter()
				var err error
				if f == ParamsJSON {
					err = pw.writeJSON(&n)
				} else {
					err = pw.writeParquet(&n, m.NumPairs())
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/1e6, "MB")
		})
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
