package ltr

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

func loadIssue17(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join("testdata", "issue17", name)
}

// Item 1: a feature constant within a query keeps its value under zscore
// (RankLib: sd = 0, no change), whatever the rounding of its decimal form.
func TestConstantFeatureKeepsItsValue(t *testing.T) {
	ds, err := ReadSVMLightFile(loadIssue17(t, "constant.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(loadIssue17(t, "ca_f1_f2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m.Normalization = NormZScore
	// f1 stays float32(2.7726) = 2.772599935531616; f2 (1, 2, 3) becomes
	// (-1, 0, 1): mean 2, sample sd sqrt((1+0+1)/2) = 1.
	c := 2.772599935531616
	want := []float64{c - 1, c, c + 1}
	got := m.Scores(&ds.Queries[0])
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("doc %d: score %v, want %v", i, got[i], want[i])
		}
	}
	// 40 equal values: zscore keeps them, linear gives 0, sum gives
	// v / (40 v) = 0.025 (as float32).
	v := float64(float32(2.772588722239781))
	for _, c := range []struct {
		norm Normalization
		want float64
	}{{NormZScore, v}, {NormLinear, 0}, {NormSum, float64(float32(0.025))}} {
		x := make([]float64, 40)
		for i := range x {
			x[i] = v
		}
		normalizeBlock(x, 40, 1, c.norm)
		for i := range x {
			if x[i] != c.want {
				t.Fatalf("%s of a constant feature: row %d = %v, want %v", c.norm, i, x[i], c.want)
			}
		}
	}
}

// Item 2, by hand: the float32 values a, 1, -a with a = 1e30 (as float32).
// In float64, a + 1 = a, so a file-order sum depends on the order: a, 1,
// -a and 1, a, -a give 0, but a, -a, 1 gives 1 (RankLib's mean would be
// 1/3). Summed in sorted order (-a, 1, a) it is 0 for every order: mean 0,
// sum of squares a^2 + 1 + a^2 = 2a^2, sd = a, and the values become -1,
// 1/a and 1.
func TestNormalizationDoesNotDependOnLineOrder(t *testing.T) {
	a := float64(float32(1e30))
	want := map[float64]float64{a: 1, 1: float64(float32(1 / a)), -a: -1}
	for _, perm := range [][]float64{{a, 1, -a}, {a, -a, 1}, {1, a, -a}, {1, -a, a}, {-a, a, 1}, {-a, 1, a}} {
		x := append([]float64(nil), perm...)
		normalizeBlock(x, 3, 1, NormZScore)
		for i, v := range perm {
			if x[i] != want[v] {
				t.Errorf("order %v: %v -> %v, want %v", perm, v, x[i], want[v])
			}
		}
	}
}

// Item 2 on a fold: a permuted copy (queries reversed, each query's lines
// shuffled) and a copy without comments score every document exactly as
// the original does, for models trained with each normalisation.
func TestScoresDoNotDependOnOrderOrComments(t *testing.T) {
	ds, err := Synthetic(SyntheticOptions{Queries: 40, DocsPerQuery: 12, Features: 10, Noise: 0.3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for qi := range ds.Queries {
		for di := range ds.Queries[qi].Docs {
			d := &ds.Queries[qi].Docs[di]
			d.Features[2] *= 963.8724964702644 // many significant digits
			d.Comment = fmt.Sprintf("docid = d%02d", (di*7)%12)
		}
	}
	orig := roundTrip(t, ds)
	rng := rand.New(rand.NewPCG(17, 17))
	perm := &Dataset{NumFeatures: ds.NumFeatures}
	for qi := len(ds.Queries) - 1; qi >= 0; qi-- {
		q := Query{ID: ds.Queries[qi].ID, Docs: append([]Doc(nil), ds.Queries[qi].Docs...)}
		rng.Shuffle(len(q.Docs), func(i, j int) { q.Docs[i], q.Docs[j] = q.Docs[j], q.Docs[i] })
		perm.Queries = append(perm.Queries, q)
	}
	permuted := roundTrip(t, perm)
	bare := roundTrip(t, ds)
	for qi := range bare.Queries {
		for di := range bare.Queries[qi].Docs {
			bare.Queries[qi].Docs[di].Comment = ""
		}
	}
	bare = roundTrip(t, bare)
	fids := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, norm := range []Normalization{NormNone, NormSum, NormZScore, NormLinear} {
		for _, alg := range []Algorithm{LambdaMART, CoordAscent} {
			opt := DefaultOptions()
			opt.Normalization = norm
			opt.LambdaMART.Trees = 40
			opt.CA.Restarts, opt.CA.MaxIter = 1, 5
			m, err := Train(context.Background(), alg, orig, nil, fids, opt)
			if err != nil {
				t.Fatal(err)
			}
			ref := scoresByContent(m, orig)
			for name, other := range map[string]*Dataset{"permuted": permuted, "comment-free": bare} {
				got := scoresByContent(m, other)
				if len(got) != len(ref) {
					t.Fatalf("%s %s %s: %d distinct documents, want %d", alg, norm, name, len(got), len(ref))
				}
				for k, s := range ref {
					if got[k] != s {
						t.Errorf("%s %s %s: document %s scores %v, want %v", alg, norm, name, k, got[k], s)
					}
				}
			}
		}
	}
}

// roundTrip writes ds in SVMlight form and reads it back.
func roundTrip(t *testing.T, ds *Dataset) *Dataset {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSVMLight(&b, ds); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSVMLight(&b, "fold.txt")
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// scoresByContent maps "qid label features" of every document to its
// score.
func scoresByContent(m *Model, ds *Dataset) map[string]float64 {
	out := map[string]float64{}
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		for di, s := range m.Scores(q) {
			d := &q.Docs[di]
			out[fmt.Sprint(q.ID, d.Label, d.Features)] = s
		}
	}
	return out
}

// Item 3: the Newton step of a leaf is bounded by shrinkage * |sum lambda|
// / MinHessian however small the sum of second derivatives.
func TestNewtonLeafIsBounded(t *testing.T) {
	for _, c := range []struct{ sg, sw, want float64 }{
		{0.5, 0.25, float64(float32(0.2))}, // 0.1 * 0.5 / 0.25
		{0.5, 1e-30, 50},                   // 0.1 * 0.5 / 1e-3, not 5e28
		{-0.5, 0, -50},
		{0, 0, 0},
		{0, 1e-300, 0},
	} {
		if got := newtonLeaf(c.sg, c.sw, 0.1, 1e-3); got != c.want {
			t.Errorf("newtonLeaf(%v, %v) = %v, want %v", c.sg, c.sw, got, c.want)
		}
	}
	// Training on a fold that drives pairs far apart: every leaf value
	// stays finite and within 0.1 * (largest |sum lambda| <= rows) / 1e-3.
	ds, err := Synthetic(SyntheticOptions{Queries: 60, DocsPerQuery: 10, Features: 8, Noise: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.LambdaMART.Trees = 200
	m, err := Train(context.Background(), LambdaMART, ds, nil, []int{1, 2, 3, 4, 5, 6, 7, 8}, opt)
	if err != nil {
		t.Fatal(err)
	}
	bound := 0.1 * float64(ds.NumDocs()) / 1e-3
	for ti, tr := range m.Trees {
		for _, n := range tr.Nodes {
			if n.Column < 0 && !(math.Abs(n.Value) <= bound) {
				t.Fatalf("tree %d: leaf value %v beyond %v", ti, n.Value, bound)
			}
		}
	}
}

// Item 4: a value that float64 puts above a RankLib threshold but float32
// puts on it goes left, as in RankLib; thresholds survive the trip through
// RankLib's format bit for bit.
func TestFloat32Thresholds(t *testing.T) {
	ds, err := ReadSVMLightFile(loadIssue17(t, "threshold.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(loadIssue17(t, "lambdamart_float32.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// 0.1000000012 and 0.1000000011 both round to the float32
	// 0.100000001490116 (its neighbours are 0.0999999940 and 0.1000000089).
	if thr := m.Trees[0].Nodes[0].Threshold; thr != 0.10000000149011612 {
		t.Errorf("threshold read as %v, want the float32 0.10000000149011612", thr)
	}
	if got := m.Scores(&ds.Queries[0]); got[0] != 1 || got[1] != 0.5 {
		t.Errorf("scores %v, want [1 0.5] (left on the float32 tie, right for 0.2)", got)
	}
	// A lovbench model whose threshold is a float32 value, written for
	// RankLib and read back: the same threshold, the same sides.
	lm := &Model{Format: ModelFormat, Algorithm: LambdaMART, Features: []int{1}, Normalization: NormNone,
		Trees: []Tree{{Nodes: []TreeNode{{Column: 0, Threshold: float64(float32(0.3)), Left: 1, Right: 2},
			{Column: -1, Value: 1}, {Column: -1, Value: float64(float32(0.7))}}}}}
	var b bytes.Buffer
	if err := lm.WriteRankLib(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRankLibModel(strings.NewReader(b.String()), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Trees[0].Nodes[0].Threshold; got != float64(float32(0.3)) {
		t.Errorf("threshold after the round trip %v, want %v", got, float64(float32(0.3)))
	}
	q := Query{ID: "1", Docs: []Doc{{Features: []float64{0.3}}, {Features: []float64{0.30000004}}}}
	if got := back.Scores(&q); got[0] != 1 || got[1] != float64(float32(0.7)) {
		t.Errorf("scores %v, want [1 %v]", got, float64(float32(0.7)))
	}
}
