package ltr

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Normalization is a per-query feature normalisation, applied to each
// feature over the documents of one query, as RankLib's -norm option does
// (RankLib SumNormalizor, ZScoreNormalizor, LinearNormalizer).
type Normalization string

// The normalisations.
const (
	// NormNone leaves the values unchanged.
	NormNone Normalization = "none"
	// NormSum divides by the sum of absolute values, x / sum|x|, when the
	// sum is positive (a constant feature too, as in RankLib).
	NormSum Normalization = "sum"
	// NormZScore maps to (x - mean) / sd with the sample standard deviation
	// (denominator n-1); a feature whose values within the query are all
	// equal keeps them, as do lists of one document (RankLib's sd > 0
	// test).
	NormZScore Normalization = "zscore"
	// NormLinear maps to (x - min) / (max - min); a constant feature
	// becomes 0. (RankLib starts max at Float.MIN_VALUE, a positive
	// number, which is wrong for all-negative features; we use the true
	// maximum.)
	NormLinear Normalization = "linear"
)

// ParseNormalization accepts none, sum, zscore and linear.
func ParseNormalization(s string) (Normalization, error) {
	switch n := Normalization(strings.ToLower(strings.TrimSpace(s))); n {
	case NormNone, NormSum, NormZScore, NormLinear:
		return n, nil
	case "":
		return NormNone, nil
	}
	return "", fmt.Errorf("unknown normalisation %q (want none, sum, zscore or linear)", s)
}

// normalizeBlock normalises the n x d row-major matrix x of one query in
// place, column by column, exactly as RankLib's normalisers do on its
// float32 feature values (x must hold float32 values, as makeBlock
// stores them; see normalizeColumn).
func normalizeBlock(x []float64, n, d int, norm Normalization) {
	if norm == NormNone || norm == "" || n == 0 {
		return
	}
	col := make([]float64, n)
	sorted := make([]float64, n)
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			col[i] = x[i*d+j]
		}
		normalizeColumn(col, sorted, norm)
		for i := 0; i < n; i++ {
			x[i*d+j] = col[i]
		}
	}
}

// normalizeColumn normalises the float32 values v of one feature over one
// query in place. It computes what RankLib's SumNormalizor,
// ZScoreNormalizor and LinearNormalizer compute (sums and the standard
// deviation in float64 over the float32 values, each result rounded to
// float32), with two differences that make a document's value depend
// only on the multiset of the query's values, never on the order of the
// lines:
//
//   - the sums run over the values sorted increasingly (a fixed order)
//     instead of in file order. A float64 sum of up to 2^29 float32 values
//     whose exponents span less than 29 - log2(n) binades is exact in any
//     order, so the two agree bit for bit on such data (all LOVBench
//     features); otherwise they differ in the last bits of the float64
//     sum, which the rounding to float32 almost always hides;
//   - a feature is constant when all its values are equal (tested
//     exactly), and a constant feature keeps its values under zscore and
//     sum and becomes 0 under linear, as in RankLib. (For float32 values
//     RankLib's sd > 0 test decides the same way: n equal float32 values
//     sum exactly to n*v in float64, so the mean is v and the spread 0.)
//
// sorted is scratch of length len(v).
func normalizeColumn(v, sorted []float64, norm Normalization) {
	n := len(v)
	constant := true
	for _, t := range v[1:] {
		if t != v[0] {
			constant = false
			break
		}
	}
	switch norm {
	case NormSum:
		// RankLib: norm = sum |x|; x / norm when norm > 0. A constant
		// feature is divided too (x / (n*|x|) = ±1/n), as in RankLib.
		for i, t := range v {
			sorted[i] = math.Abs(t)
		}
		slices.Sort(sorted)
		s := 0.0
		for _, t := range sorted {
			s += t
		}
		if s > 0 {
			for i := range v {
				v[i] = float64(float32(v[i] / s))
			}
		}
	case NormZScore:
		// RankLib: mean and the sample sd (denominator n-1) in float64;
		// (x - mean) / sd when sd > 0, so lists of one document and
		// constant features are unchanged.
		if n < 2 || constant {
			return
		}
		copy(sorted, v)
		slices.Sort(sorted)
		mean := 0.0
		for _, t := range sorted {
			mean += t
		}
		mean /= float64(n)
		ss := 0.0
		for _, t := range sorted {
			ss += (t - mean) * (t - mean)
		}
		sd := math.Sqrt(ss / float64(n-1))
		if sd > 0 {
			for i := range v {
				v[i] = float64(float32((v[i] - mean) / sd))
			}
		}
	case NormLinear:
		// RankLib, in float32: (x - min) / (max - min) when max > min,
		// else 0.
		lo, hi := float32(math.MaxFloat32), float32(-math.MaxFloat32)
		for _, t := range v {
			lo = min(lo, float32(t))
			hi = max(hi, float32(t))
		}
		for i := range v {
			if hi > lo {
				v[i] = float64((float32(v[i]) - lo) / (hi - lo))
			} else {
				v[i] = 0
			}
		}
	}
}

// block is one query prepared for training or scoring: the labels and the
// selected, normalised features as an n x d row-major matrix. Its rows are
// in tie order, docid descending (see docOrder), so that every ranking
// helper that breaks score ties by increasing row index follows trec_eval's
// rule (score descending, docid descending) and never the file order, which
// may carry label information.
type block struct {
	id     string
	n      int
	labels []float64
	x      []float64
	// perm maps block rows to documents of the query: row i is
	// Docs[perm[i]]; nil when the two orders are the same.
	perm []int
}

// table is a Dataset restricted to a feature list and normalised.
type table struct {
	fids   []int
	d      int
	blocks []block
	rows   int
}

// makeTable extracts the features fids (1-based ids) of every query of ds
// and normalises them per query.
func makeTable(ds *Dataset, fids []int, norm Normalization) *table {
	t := &table{fids: fids, d: len(fids), blocks: make([]block, len(ds.Queries))}
	for qi := range ds.Queries {
		t.blocks[qi] = makeBlock(&ds.Queries[qi], fids, norm)
		t.rows += t.blocks[qi].n
	}
	return t
}

func makeBlock(q *Query, fids []int, norm Normalization) block {
	n, d := len(q.Docs), len(fids)
	b := block{id: q.ID, n: n, labels: make([]float64, n), x: make([]float64, n*d), perm: docOrder(q)}
	for i := range q.Docs {
		di := i
		if b.perm != nil {
			di = b.perm[i]
		}
		doc := &q.Docs[di]
		b.labels[i] = doc.Label
		for j, f := range fids {
			b.x[i*d+j] = float64(float32(doc.Feature(f))) // RankLib's float32
		}
	}
	normalizeBlock(b.x, n, d, norm)
	return b
}
