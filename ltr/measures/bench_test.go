package measures

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeBenchFiles writes a qrels file and a run file of queries x docs
// lines (10,000 x 100 = one million run lines) into dir, seeded.
func writeBenchFiles(b *testing.B, dir string, queries, docs int) (qrels, run string) {
	b.Helper()
	rng := rand.New(rand.NewPCG(11, 13))
	qrels, run = filepath.Join(dir, "bench.qrels"), filepath.Join(dir, "bench.run")
	fq, err := os.Create(qrels)
	if err != nil {
		b.Fatal(err)
	}
	fr, err := os.Create(run)
	if err != nil {
		b.Fatal(err)
	}
	wq, wr := bufio.NewWriter(fq), bufio.NewWriter(fr)
	for q := 0; q < queries; q++ {
		for j := 0; j < 25; j++ {
			// 25 distinct judged documents per query among t0..t199 (about
			// half of them retrieved), grades 0..4.
			d := j*8 + rng.IntN(8)
			fmt.Fprintf(wq, "q%d 0 http://example.org/v%d#t%d %d\n", q, d%50, d, rng.IntN(5))
		}
		for d := 0; d < docs; d++ {
			// Coarse scores so that ties occur and the docid tie-break runs.
			fmt.Fprintf(wr, "q%d Q0 http://example.org/v%d#t%d %d %.2f lovbench\n", q, d%50, d, d+1, float64(rng.IntN(1000))/100)
		}
	}
	for _, w := range []*bufio.Writer{wq, wr} {
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	fq.Close()
	fr.Close()
	return qrels, run
}

// BenchmarkEval1M reads qrels and a one-million-line run file and computes
// the default measures (NDCG@3/5/10, MAP, ERR@3/5/10): what
// `lovbench eval --qrels Q --run R` does.
func BenchmarkEval1M(b *testing.B) {
	benchEval(b, DefaultMeasures)
}

// BenchmarkEval1MAll is BenchmarkEval1M with --measures all.
func BenchmarkEval1MAll(b *testing.B) {
	benchEval(b, "all")
}

func benchEval(b *testing.B, list string) {
	dir := b.TempDir()
	qp, rp := writeBenchFiles(b, dir, 10000, 100)
	opts := DefaultOptions()
	var err error
	if opts.Measures, err = ParseMeasures(list); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		q, err := ReadQrels(qp)
		if err != nil {
			b.Fatal(err)
		}
		run, err := ReadRun(rp)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Evaluate(context.Background(), q, run, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCompare10kQueries compares two runs of 10,000 queries on the 7
// default measures: paired t-test, Wilcoxon and a 10,000-trial
// randomisation test each (the --run A --run B part of lovbench eval).
func BenchmarkCompare10kQueries(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 8))
	ms, _ := ParseMeasures(DefaultMeasures)
	mk := func(name string, shift float64) *Result {
		r := &Result{Run: name, Mean: map[string]float64{}, PerQuery: map[string][]float64{}}
		for _, m := range ms {
			r.Measures = append(r.Measures, m.Name)
			v := make([]float64, 10000)
			for i := range v {
				v[i] = min(1, max(0, rng.Float64()+shift))
			}
			r.PerQuery[m.Name] = v
		}
		return r
	}
	rs := []*Result{mk("a", 0), mk("b", 0.01)}
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if cs := Compare(rs, CompareOptions{Trials: 10000, Seed: 1}); len(cs) != len(ms) {
			b.Fatal(len(cs))
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
