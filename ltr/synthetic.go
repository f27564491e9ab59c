package ltr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SyntheticOptions describe a synthetic learning-to-rank dataset whose true
// scoring function is known (used by the tests and the bench/ltr program).
type SyntheticOptions struct {
	Queries int
	// DocsPerQuery is the mean list length; lengths vary uniformly in
	// [DocsPerQuery/2, 3*DocsPerQuery/2].
	DocsPerQuery int
	// Features is the number of features (at least 8; features beyond the
	// eighth are pure noise).
	Features int
	// Noise is the standard deviation of the Gaussian noise added to the
	// true score before it is quantised into labels.
	Noise float64
	Seed  uint64
}

// SyntheticTruth is the true scoring function of Synthetic, over the
// 1-based feature vector (x[0] is feature 1):
//
//	f(x) = 2 x1 + 1.5 x2 + x3 - x4 + 2 x5 x6 + sin(3 x7)
//
// Feature 8 is a per-query constant (it cannot rank); the rest are noise.
func SyntheticTruth(x []float64) float64 {
	return 2*x[0] + 1.5*x[1] + x[2] - x[3] + 2*x[4]*x[5] + math.Sin(3*x[6])
}

// Synthetic generates a dataset: features uniform on [0,1) (feature 8
// constant within each query), label = f(x) + N(0, Noise^2) quantised into
// grades 0..4 at the 50th, 75th, 90th and 97th percentiles of all noisy
// scores (a label distribution skewed to 0 like LOVBench's). Query ids are
// q1, q2, ...; comments are "query<q> term<i>". Deterministic in Seed.
func Synthetic(opt SyntheticOptions) (*Dataset, error) {
	if opt.Queries < 1 || opt.DocsPerQuery < 2 || opt.Features < 8 || opt.Noise < 0 {
		return nil, fmt.Errorf("synthetic: need queries >= 1, docs per query >= 2, features >= 8, noise >= 0")
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x73796e))
	ds := &Dataset{Name: "synthetic", NumFeatures: opt.Features}
	var noisy []float64
	for q := 1; q <= opt.Queries; q++ {
		lo := max(opt.DocsPerQuery/2, 1)
		n := lo + rng.IntN(opt.DocsPerQuery+1)
		qc := rng.Float64()
		query := Query{ID: fmt.Sprint(q), Docs: make([]Doc, n)}
		for i := range query.Docs {
			x := make([]float64, opt.Features)
			for j := range x {
				x[j] = rng.Float64()
			}
			x[7] = qc
			query.Docs[i] = Doc{Features: x, Comment: fmt.Sprintf("query%d term%d", q, i+1)}
			v := SyntheticTruth(x) + opt.Noise*rng.NormFloat64()
			query.Docs[i].Label = v // replaced by the grade below
			noisy = append(noisy, v)
		}
		ds.Queries = append(ds.Queries, query)
	}
	sorted := slices.Clone(noisy)
	slices.Sort(sorted)
	cuts := []float64{}
	for _, p := range []float64{0.5, 0.75, 0.9, 0.97} {
		cuts = append(cuts, sorted[int(p*float64(len(sorted)-1))])
	}
	row := 0
	for qi := range ds.Queries {
		for di := range ds.Queries[qi].Docs {
			d := &ds.Queries[qi].Docs[di]
			g := 0
			for g < len(cuts) && d.Label > cuts[g] {
				g++
			}
			d.Label = float64(g)
			row++
			d.Row = row
		}
	}
	return ds, nil
}

// MakeFolds splits the queries of ds at random (seeded) into 5 equal
// partitions P1..P5 and returns the folds of docs/method.md section 7: fold k
// tests on P_k, validates on P_{k+1} and trains on the other three
// (indices mod 5). Documents are shared with ds.
func MakeFolds(ds *Dataset, seed uint64) []Fold {
	order := make([]int, len(ds.Queries))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, 0x666f6c64))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	const k = NumFoldsMax
	parts := make([][]Query, k)
	for i, qi := range order {
		p := i * k / len(order)
		parts[p] = append(parts[p], ds.Queries[qi])
	}
	folds := make([]Fold, k)
	for f := 0; f < k; f++ {
		name := FoldDir(f + 1)
		var train []Query
		for p := 2; p < k; p++ {
			train = append(train, parts[(f+p)%k]...)
		}
		mk := func(part string, qs []Query) *Dataset {
			return &Dataset{Name: ds.Name + "/" + FoldFile(f+1, part), Queries: qs, NumFeatures: ds.NumFeatures}
		}
		folds[f] = Fold{Name: name, Train: mk(SetTrain, train), Vali: mk(SetVali, parts[(f+1)%k]), Test: mk(SetTest, parts[f])}
	}
	return folds
}
