package ltr

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestLambdaMARTLambdasByHand checks the one-pass lambda computation
// against Burges (2010, section 7) computed by hand for a two-document
// query, and against a direct transcription of the formula (every pair,
// exp per pair) on a query with ties in the scores and labels.
func TestLambdaMARTLambdasByHand(t *testing.T) {
	// Query 1: labels 1, 0; scores 0, 0. Gains 1, 0; IDCG@10 = 1/log2(2) = 1.
	// rho = 1/(1+e^0) = 1/2; |dNDCG| = 1 - 1/log2(3) = 0.3690702464;
	// lambda = +-0.1845351232; w = 1/4 * 0.3690702464 = 0.0922675616.
	ds := &Dataset{NumFeatures: 1, Queries: []Query{
		{ID: "a", Docs: []Doc{{Label: 1, Features: []float64{1}}, {Label: 0, Features: []float64{2}}}},
		{ID: "b", Docs: []Doc{
			{Label: 2, Features: []float64{1}}, {Label: 0, Features: []float64{2}}, {Label: 1, Features: []float64{3}},
			{Label: 0, Features: []float64{4}}, {Label: 2, Features: []float64{5}}, {Label: 3, Features: []float64{6}},
		}},
	}}
	tr := makeTable(ds, []int{1}, NormNone)
	const k = 3
	lt := newLMTrainer(DefaultLambdaMARTParams(), tr, k)
	scores := []float64{0, 0, 0.3, -0.2, 0.3, 1.1, -0.5, 0.3}
	// The trainer's invariant: ex is exp(score) up to a per-query factor;
	// query b's factor is out of range, which makes lambdas rescale it.
	for r, s := range scores {
		lt.ex[r] = math.Exp(s)
		if r >= 2 {
			lt.ex[r] *= 1e150
		}
	}
	lt.lambdas(scores)
	want := []float64{0.1845351232, -0.1845351232}
	wantW := []float64{0.0922675616, 0.0922675616}
	// Query 1 has k = 3 > n: both ranks count.
	for i := range want {
		if math.Abs(lt.target[i]-want[i]) > 1e-9 || math.Abs(lt.weight[i]-wantW[i]) > 1e-9 {
			t.Errorf("query a doc %d: lambda %.10f w %.10f, want %.10f %.10f", i, lt.target[i], lt.weight[i], want[i], wantW[i])
		}
	}
	// Query 2: the formula over all pairs, ranks by decreasing score with
	// ties in index order, ranks >= k discounted 0.
	lab := []float64{2, 0, 1, 0, 2, 3}
	s := scores[2:]
	rank := []int{1, 4, 2, 0, 5, 3} // s = 0.3,-0.2,0.3,1.1,-0.5,0.3: order 3,0,2,5,1,4
	ideal := (math.Exp2(3)-1)/math.Log2(2) + (math.Exp2(2)-1)/math.Log2(3) + (math.Exp2(2)-1)/math.Log2(4)
	disc := func(r int) float64 {
		if r >= k {
			return 0
		}
		return 1 / math.Log2(float64(r)+2)
	}
	lam, w := make([]float64, 6), make([]float64, 6)
	for i := range lab {
		for j := range lab {
			if lab[i] <= lab[j] || (rank[i] >= k && rank[j] >= k) {
				continue
			}
			rho := 1 / (1 + math.Exp(s[i]-s[j]))
			d := math.Abs((math.Exp2(lab[i])-math.Exp2(lab[j]))*(disc(rank[i])-disc(rank[j]))) / ideal
			lam[i] += rho * d
			lam[j] -= rho * d
			w[i] += rho * (1 - rho) * d
			w[j] += rho * (1 - rho) * d
		}
	}
	for i := range lab {
		if math.Abs(lt.target[2+i]-lam[i]) > 1e-12 || math.Abs(lt.weight[2+i]-w[i]) > 1e-12 {
			t.Errorf("query b doc %d: lambda %.12f w %.12f, want %.12f %.12f", i, lt.target[2+i], lt.weight[2+i], lam[i], w[i])
		}
	}
	maxAbs := 0.0
	for _, v := range lt.target {
		maxAbs = max(maxAbs, math.Abs(v))
	}
	if lt.maxAbs != maxAbs {
		t.Errorf("maxAbs %v, want max |lambda| %v", lt.maxAbs, maxAbs)
	}
}

// TestLambdaMARTBinsRouteLikeThresholds checks the equivalence the trainer
// relies on when it routes rows by bin: for every split bin b (all but the
// last) and any value x, bin(x) <= b exactly when x <= threshold[b],
// including values between, on and outside the training values.
func TestLambdaMARTBinsRouteLikeThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ds := &Dataset{NumFeatures: 2}
	for q := 0; q < 50; q++ {
		var docs []Doc
		for i := 0; i < 20; i++ {
			docs = append(docs, Doc{Features: []float64{rng.NormFloat64(), float64(rng.IntN(5))}})
		}
		ds.Queries = append(ds.Queries, Query{ID: "q", Docs: docs})
	}
	tr := makeTable(ds, []int{1, 2}, NormNone)
	cols := make([]uint8, tr.rows*tr.d)
	bn := newBinner(tr, 64, cols)
	if len(bn.thr[0]) != 64 || len(bn.thr[1]) != 5 {
		t.Fatalf("bins %d and %d, want 64 (1,000 distinct values) and 5", len(bn.thr[0]), len(bn.thr[1]))
	}
	// The bins newBinner reads off the sorted columns (1,000 rows: the
	// radix path) and, for a 40-row table (the sort.Float64s path), equal
	// bin's search.
	small := makeTable(&Dataset{NumFeatures: 2, Queries: ds.Queries[:2]}, []int{1, 2}, NormNone)
	smallCols := make([]uint8, small.rows*small.d)
	smallBn := newBinner(small, 8, smallCols)
	for _, c := range []struct {
		tb   *table
		bn   *binner
		cols []uint8
	}{{tr, bn, cols}, {small, smallBn, smallCols}} {
		r := 0
		for qi := range c.tb.blocks {
			b := &c.tb.blocks[qi]
			for i := 0; i < b.n; i++ {
				for j := 0; j < c.tb.d; j++ {
					if got, want := c.cols[j*c.tb.rows+r], c.bn.bin(j, b.x[i*c.tb.d+j]); got != want {
						t.Fatalf("%d rows, row %d column %d: bin %d from the sorted column, %d by search", c.tb.rows, r, j, got, want)
					}
				}
				r++
			}
		}
	}
	for j, thr := range bn.thr {
		xs := []float64{math.Inf(-1), -100, 100, math.Inf(1), math.NaN()}
		for _, v := range thr {
			xs = append(xs, v, math.Nextafter(v, math.Inf(-1)), math.Nextafter(v, math.Inf(1)))
		}
		for i := 0; i < 1000; i++ {
			xs = append(xs, 3*rng.NormFloat64())
		}
		for _, x := range xs {
			b := int(bn.bin(j, x))
			for s := 0; s < len(thr)-1; s++ {
				if (b <= s) != (x <= thr[s]) {
					t.Fatalf("column %d x %v: bin %d, split bin %d threshold %v routes differently", j, x, b, s, thr[s])
				}
			}
		}
	}
}

// TestLambdaMARTFitScoresMatchModel checks that the training and validation
// scores the trainer keeps (and Train reports the model's metric from) are
// bit for bit those of scoring the returned model's trees on the features
// (Model.scoreTable), with and without validation early stopping.
func TestLambdaMARTFitScoresMatchModel(t *testing.T) {
	trd, vad, _ := gateData(t)
	opt := DefaultOptions()
	opt.LambdaMART.Trees = 80
	opt.LambdaMART.EarlyStop = 15
	fids := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tr := makeTable(trd, fids, opt.Normalization)
	va := makeTable(vad, fids, opt.Normalization)
	for _, withVali := range []bool{true, false} {
		m := &Model{Features: fids}
		var v *table
		if withVali {
			v = va
		}
		fs, err := trainLambdaMART(context.Background(), m, tr, v, opt)
		if err != nil {
			t.Fatal(err)
		}
		if withVali && m.Iterations >= opt.LambdaMART.Trees {
			t.Logf("no early stop within %d trees", opt.LambdaMART.Trees)
		}
		check := func(name string, got []float64, tb *table) {
			want := m.scoreTable(tb)
			if len(got) != len(want) {
				t.Fatalf("%s: %d scores, want %d", name, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("validation %v, %s row %d: kept score %v, model scores %v", withVali, name, i, got[i], want[i])
				}
			}
		}
		check("train", fs.train, tr)
		if withVali {
			check("validation", fs.vali, va)
		} else if fs.vali != nil {
			t.Errorf("validation scores without validation data")
		}
	}
}

// TestLambdaMARTBinMatchesSearch checks the branch-free bin search (one
// value at a time and four side by side) against
// sort.SearchFloat64s (clamped to the last bin) on every threshold, its
// neighbours, values outside the range, NaN and random values.
func TestLambdaMARTBinMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nthr := range []int{1, 2, 3, 5, 64, 255, 256} {
		thr := make([]float64, nthr)
		v := -1.0
		for i := range thr {
			v += 0.001 + rng.Float64()
			thr[i] = v
		}
		bn := &binner{thr: [][]float64{thr}}
		xs := []float64{math.Inf(-1), math.Inf(1), math.NaN(), -1e300, 1e300, 0}
		for _, v := range thr {
			xs = append(xs, v, math.Nextafter(v, math.Inf(-1)), math.Nextafter(v, math.Inf(1)))
		}
		for i := 0; i < 500; i++ {
			xs = append(xs, (rng.Float64()*1.2-0.1)*(v+1)-1)
		}
		for _, x := range xs {
			want := min(sort.SearchFloat64s(thr, x), nthr-1)
			if got := int(bn.bin(0, x)); got != want {
				t.Fatalf("%d thresholds, x %v: bin %d, want %d", nthr, x, got, want)
			}
		}
		out := make([]uint8, len(xs))
		bn.binInto(0, xs, out)
		for i, x := range xs {
			if want := min(sort.SearchFloat64s(thr, x), nthr-1); int(out[i]) != want {
				t.Fatalf("%d thresholds, binInto x %v: bin %d, want %d", nthr, x, out[i], want)
			}
		}
	}
}

// TestLambdaMARTValidationMeanMatchesScorer checks that the incremental
// validation metric (rankings re-sorted from the previous round) equals
// scorer.mean (rankings sorted from scratch) exactly, for NDCG@10, ERR@10
// and MAP, over rounds of changing scores with ties and a NaN.
func TestLambdaMARTValidationMeanMatchesScorer(t *testing.T) {
	_, vad, _ := gateData(t)
	va := makeTable(vad, []int{1, 2, 3}, NormZScore)
	rng := rand.New(rand.NewPCG(8, 9))
	for _, m := range []Metric{{Kind: MetricNDCG, K: 10}, {Kind: MetricERR, K: 10}, {Kind: MetricMAP}} {
		lt := &lmTrainer{}
		vsc := newScorer(m, va)
		scores := make([]float64, va.rows)
		for round := 0; round < 20; round++ {
			for i := range scores {
				switch rng.IntN(4) {
				case 0:
					scores[i] += rng.NormFloat64()
				case 1:
					scores[i] = math.Round(scores[i]) // ties
				}
			}
			if round == 10 {
				scores[3] = math.NaN()
			}
			got, want := lt.validationMean(vsc, va, scores), vsc.mean(va, scores)
			if got != want {
				t.Fatalf("%s round %d: incremental %v, scorer %v", m, round, got, want)
			}
		}
	}
}

// TestLambdaMARTPackedHistogram checks the packed histogram slots against
// sums computed directly from the rows: per (column, bin), the decoded
// count is exact and the decoded target sum is within count * unit of the
// float sum (each row's target is rounded toward 0 to a multiple of unit), for
// the root and for a subset of rows, and a parent minus a child equals the
// other child exactly.
func TestLambdaMARTPackedHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	ds := &Dataset{NumFeatures: 3}
	for q := 0; q < 40; q++ {
		var docs []Doc
		for i := 0; i < 30; i++ {
			docs = append(docs, Doc{Label: float64(rng.IntN(3)), Features: []float64{rng.Float64(), float64(rng.IntN(4)), rng.NormFloat64()}})
		}
		ds.Queries = append(ds.Queries, Query{ID: "q", Docs: docs})
	}
	tr := makeTable(ds, []int{1, 2, 3}, NormNone)
	p := DefaultLambdaMARTParams()
	p.Bins = 16
	lt := newLMTrainer(p, tr, 10)
	maxAbs := 0.0
	for r := range lt.target {
		lt.target[r] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		maxAbs = max(maxAbs, math.Abs(lt.target[r]))
	}
	lt.quantise(maxAbs)
	if lt.cb != 11 { // 1,200 rows need 11 bits
		t.Fatalf("count bits %d, want 11", lt.cb)
	}
	mask := int64(1)<<lt.cb - 1
	check := func(name string, h []int64, rows []int32) {
		for j := 0; j < lt.d; j++ {
			cnt := make([]int64, histStride)
			sum := make([]float64, histStride)
			for _, r := range rows {
				b := lt.cols[j*lt.n+int(r)]
				cnt[b]++
				sum[b] += lt.target[r]
			}
			for b := 0; b < histStride; b++ {
				v := h[j*histStride+b]
				if v&mask != cnt[b] {
					t.Fatalf("%s column %d bin %d: count %d, want %d", name, j, b, v&mask, cnt[b])
				}
				got := float64(v>>lt.cb) * lt.unit
				if tol := float64(cnt[b])*lt.unit + 1e-12*math.Abs(sum[b]); math.Abs(got-sum[b]) > tol {
					t.Fatalf("%s column %d bin %d: sum %v, want %v within %v", name, j, b, got, sum[b], tol)
				}
			}
		}
	}
	all := make([]int32, lt.n)
	var some, rest []int32
	for r := range all {
		all[r] = int32(r)
		if r%3 == 1 {
			some = append(some, int32(r))
		} else {
			rest = append(rest, int32(r))
		}
	}
	root := lt.newHist()
	lt.fillRoot(root)
	check("root", root, all)
	child := lt.newHist()
	lt.fill(child, some)
	check("child", child, some)
	other := lt.newHist()
	lt.fill(other, rest)
	for i := range root {
		if root[i]-child[i] != other[i] {
			t.Fatalf("slot %d: parent - child %d, other child %d", i, root[i]-child[i], other[i])
		}
	}
}

// TestLambdaMARTSortFloats checks the radix sort against sort.Float64s on
// values of both signs and many magnitudes, infinities, repeated values and
// zeros of both signs (equal under ==), and with a NaN (sorted by
// sort.Float64s).
func TestLambdaMARTSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, n := range []int{0, 1, 100, 511, 512, 5000} {
		for _, withNaN := range []bool{false, true} {
			v := make([]float64, n)
			for i := range v {
				switch rng.IntN(6) {
				case 0:
					v[i] = math.Copysign(0, rng.NormFloat64())
				case 1:
					v[i] = math.Inf(1 - 2*rng.IntN(2))
				case 2:
					v[i] = float64(rng.IntN(5))
				default:
					v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				}
			}
			if withNaN && n > 0 {
				v[n/2] = math.NaN()
			}
			want := slices.Clone(v)
			sort.Float64s(want)
			orig := slices.Clone(v)
			rows := make([]int32, n)
			for i := range rows {
				rows[i] = int32(i)
			}
			permuted := sortFloats(v, rows, &radixScratch{})
			if permuted != (n >= 512 && !withNaN) {
				t.Fatalf("n %d nan %v: permuted %v", n, withNaN, permuted)
			}
			for i := range v {
				if v[i] != want[i] && !(math.IsNaN(v[i]) && math.IsNaN(want[i])) {
					t.Fatalf("n %d nan %v: position %d is %v, want %v", n, withNaN, i, v[i], want[i])
				}
				if permuted && math.Float64bits(orig[rows[i]]) != math.Float64bits(v[i]) {
					t.Fatalf("n %d: position %d holds %v but its row %d had %v", n, i, v[i], rows[i], orig[rows[i]])
				}
			}
		}
	}
}
