package ltr

import (
	"fmt"
	"math"
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
	// sum is positive.
	NormSum Normalization = "sum"
	// NormZScore maps to (x - mean) / sd with the sample standard deviation
	// (denominator n-1), when sd > 0; lists of one document are unchanged.
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
// place, column by column.
func normalizeBlock(x []float64, n, d int, norm Normalization) {
	if norm == NormNone || norm == "" || n == 0 {
		return
	}
	for j := 0; j < d; j++ {
		switch norm {
		case NormSum:
			s := 0.0
			for i := 0; i < n; i++ {
				s += math.Abs(x[i*d+j])
			}
			if s > 0 {
				for i := 0; i < n; i++ {
					x[i*d+j] /= s
				}
			}
		case NormZScore:
			if n < 2 {
				continue
			}
			mean := 0.0
			for i := 0; i < n; i++ {
				mean += x[i*d+j]
			}
			mean /= float64(n)
			ss := 0.0
			for i := 0; i < n; i++ {
				t := x[i*d+j] - mean
				ss += t * t
			}
			sd := math.Sqrt(ss / float64(n-1))
			if sd > 0 {
				for i := 0; i < n; i++ {
					x[i*d+j] = (x[i*d+j] - mean) / sd
				}
			}
		case NormLinear:
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := 0; i < n; i++ {
				lo = math.Min(lo, x[i*d+j])
				hi = math.Max(hi, x[i*d+j])
			}
			for i := 0; i < n; i++ {
				if hi > lo {
					x[i*d+j] = (x[i*d+j] - lo) / (hi - lo)
				} else {
					x[i*d+j] = 0
				}
			}
		}
	}
}

// block is one query prepared for training or scoring: the labels and the
// selected, normalised features as an n x d row-major matrix. Its rows are
// in tie order, docid descending (see docOrder), so that every ranking
// helper that breaks score ties by increasing row index follows trec_eval's
// rule (score descending, docid descending) and never the file order, which
// may carry label information (issue 11).
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
			b.x[i*d+j] = doc.Feature(f)
		}
	}
	normalizeBlock(b.x, n, d, norm)
	return b
}
