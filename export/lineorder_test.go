package export

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
)

// TestConstantScorerGetsRandomOrderNDCG checks that the line order leaks no label:
// on freshly exported folds, a constant scorer whose ties keep file order
// (RankLib's rule) scores at the level of a random ranking, not more.
//
// The ground truth is laid out as the sampling stage writes it: each
// query's labelled terms first (graded 0..4), then its sampled label-0
// terms. The expected NDCG@10 of a random order is computed exactly and
// independently of the exporter: with every score tied, every position
// holds each document with probability 1/n, so its expected gain is the
// query's mean gain, and E[DCG@10] = mean gain x sum_{r=1..10} 1/log2(r+1)
// (NDCG's ideal DCG does not depend on the order).
func TestConstantScorerGetsRandomOrderNDCG(t *testing.T) {
	const nq, nLabelled, nSampled = 600, 10, 16
	var gt []sampling.Row
	var header []string
	header = append(header, "query", "term")
	for _, f := range FeatureList()[:33] {
		header = append(header, f.Name)
	}
	var vals [][]float64
	x := uint64(7)
	for q := range nq {
		name := "query " + strconv.Itoa(q)
		for i := range nLabelled + nSampled {
			label := 0
			if i < nLabelled {
				// A first SERP: grades 1..4 mostly near the top, some 0.
				x = hashes.Mix(x)
				label = []int{4, 3, 2, 2, 1, 1, 1, 0, 0, 0}[x%10]
			}
			gt = append(gt, sampling.Row{Query: name, Term: "http://example.org/v" + strconv.Itoa(q%13) + "#t" + strconv.Itoa(i), Label: label})
			v := make([]float64, 33)
			for j := range v {
				x = hashes.Mix(x)
				v[j] = float64(x%1000) / 7
			}
			vals = append(vals, v)
		}
	}
	in := t.TempDir()
	gtp, fp := writeInputs(t, in, gt, header, vals)
	out := filepath.Join(t.TempDir(), "dataset")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 11}}); err != nil {
		t.Fatal(err)
	}
	gtLabels := map[string][]float64{}
	for _, r := range gt {
		gtLabels[r.Query] = append(gtLabels[r.Query], float64(r.Label))
	}
	folds, err := ltr.ReadFolds(out)
	if err != nil {
		t.Fatal(err)
	}
	disc10 := 0.0
	for r := 1; r <= 10; r++ {
		disc10 += 1 / math.Log2(float64(r)+1)
	}
	var fileOrder, expected, gtOrder []float64
	for _, f := range folds {
		for _, q := range f.Test.Queries {
			labels := make([]float64, len(q.Docs))
			meanGain := 0.0
			for i, d := range q.Docs {
				labels[i] = d.Label
				meanGain += (math.Exp2(d.Label) - 1) / float64(len(q.Docs))
			}
			// Ideal DCG@10 by hand: labels sorted descending.
			sorted := append([]float64(nil), labels...)
			for i := range sorted {
				for j := i + 1; j < len(sorted); j++ {
					if sorted[j] > sorted[i] {
						sorted[i], sorted[j] = sorted[j], sorted[i]
					}
				}
			}
			idcg := 0.0
			for r := 0; r < 10 && r < len(sorted); r++ {
				idcg += (math.Exp2(sorted[r]) - 1) / math.Log2(float64(r)+2)
			}
			if idcg == 0 {
				continue // NDCG 0 in any order
			}
			dcg := 0.0 // a constant scorer, ties in file order
			for r := 0; r < 10; r++ {
				dcg += (math.Exp2(labels[r]) - 1) / math.Log2(float64(r)+2)
			}
			fileOrder = append(fileOrder, dcg/idcg)
			expected = append(expected, meanGain*disc10/idcg)
			// The same ranker on the ground-truth order (labelled first),
			// which the exporter wrote before the label-free line order.
			c := q.Docs[0].Comment
			g := 0.0
			for r, l := range gtLabels[c[:strings.LastIndexByte(c, ' ')]][:10] {
				g += (math.Exp2(l) - 1) / math.Log2(float64(r)+2)
			}
			gtOrder = append(gtOrder, g/idcg)
		}
	}
	if len(fileOrder) < nq*9/10 {
		t.Fatalf("%d test queries with relevant documents, want about %d", len(fileOrder), nq)
	}
	// Mean and standard error of the per-query difference.
	n := float64(len(fileOrder))
	d := make([]float64, len(fileOrder))
	mean := 0.0
	for i := range d {
		d[i] = fileOrder[i] - expected[i]
		mean += d[i] / n
	}
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss / (n - 1) / n)
	got, want, leak := avg(fileOrder), avg(expected), avg(gtOrder)
	t.Logf("constant scorer NDCG@10: exported order %.4f, random-order expectation %.4f (SE of the difference %.4f), ground-truth order %.4f", got, want, se, leak)
	if math.Abs(mean) > 4*se || math.Abs(mean) > 0.03 {
		t.Errorf("constant scorer NDCG@10 %.4f on the exported folds, a random order expects %.4f (difference %.4f, SE %.4f)", got, want, mean, se)
	}
	// The check can fail: the old order (labelled terms first) scores far
	// above a random order.
	if leak < want+0.2 {
		t.Errorf("ground-truth order scores %.4f, random %.4f: the test data do not show the leak", leak, want)
	}
}

func avg(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
