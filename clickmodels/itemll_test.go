package clickmodels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestItemLogLikelihood checks the tolerance's log-likelihood of PBM and
// UBM from merged items (itemll.go) against a hand computation on a log
// whose SERPs have different lengths and one SERP twice, and against the
// per-SERP pass, which the PyClick equality tests cover.
//
//	S1, S4: A B C, click on A (rank 0)
//	S2:     A B, no click
//	S3:     B A, click on A (rank 1)
//
// With a_A = 0.6, a_B = 0.3, a_C = 0.2 and every examination parameter
// j = 0.9 - 0.01 j (j = rank for PBM, rank*R + previous click's rank for
// UBM, R-1 = 9 before the first click), the sum over SERPs of the mean over
// ranks of ln P(c_r | c_<r) is
//
//	PBM: 2/3 [ln(.6 g0) + ln(1-.3 g1) + ln(1-.2 g2)] + 1/2 [ln(1-.6 g0) + ln(1-.3 g1)] + 1/2 [ln(1-.3 g0) + ln(.6 g1)]
//	UBM: 2/3 [ln(.6 g9) + ln(1-.3 g10) + ln(1-.2 g20)] + 1/2 [ln(1-.6 g9) + ln(1-.3 g19)] + 1/2 [ln(1-.3 g9) + ln(.6 g19)]
func TestItemLogLikelihood(t *testing.T) {
	log, d := handLog(t, []sessions.SERP{
		{SessionID: "S1", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "S2", Query: "q", Results: []string{"A", "B"}},
		{SessionID: "S3", Query: "q", Results: []string{"B", "A"}, Clicks: []sessions.Click{{Rank: 1}}},
		{SessionID: "S4", Query: "q", Results: []string{"A", "B", "C"}, Clicks: []sessions.Click{{Rank: 0}}},
	})
	g := func(j int) float64 { return 0.9 - 0.01*float64(j) }
	ln := math.Log
	want := map[Kind]float64{
		PBM: 2.0/3*(ln(.6*g(0))+ln(1-.3*g(1))+ln(1-.2*g(2))) + 0.5*(ln(1-.6*g(0))+ln(1-.3*g(1))) + 0.5*(ln(1-.3*g(0))+ln(.6*g(1))),
		UBM: 2.0/3*(ln(.6*g(9))+ln(1-.3*g(10))+ln(1-.2*g(20))) + 0.5*(ln(1-.6*g(9))+ln(1-.3*g(19))) + 0.5*(ln(1-.3*g(9))+ln(.6*g(19))),
	}
	attr := map[string]float64{"A": 0.6, "B": 0.3, "C": 0.2}
	for _, kind := range []Kind{PBM, UBM} {
		ll := func(factorize bool) float64 {
			x, f := trainLLAt(t, d, log, kind, g, attr, factorize)
			if factorize && f.ill == nil {
				t.Fatalf("%v: the factorised fitter did not take the items' log-likelihood", kind)
			}
			return x
		}
		items, perSERP := ll(true), ll(false)
		if math.Abs(items-want[kind]) > 1e-12 {
			t.Errorf("%v: log-likelihood from items %.15f, hand computation %.15f", kind, items, want[kind])
		}
		if math.Abs(items-perSERP) > 1e-12 {
			t.Errorf("%v: log-likelihood from items %.15f, per-SERP pass %.15f", kind, items, perSERP)
		}
	}
}

// handLog returns the log of serps and its prepared data, with the 10
// ranks the hand computations assume.
func handLog(t *testing.T, serps []sessions.SERP) (*sessions.Log, *Data) {
	t.Helper()
	log := &sessions.Log{}
	for _, s := range serps {
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Ranks() != 10 {
		t.Fatalf("ranks %d, the hand computation assumes 10", d.Ranks())
	}
	return log, d
}

// trainLLAt returns the training log-likelihood of d (prepared from log)
// under kind with the global values g(j) and the attractiveness of each
// document attr[name], from the factorised fitter or the per-SERP pass
// (factorize), and the fitter.
func trainLLAt(t *testing.T, d *Data, log *sessions.Log, kind Kind, g func(int) float64, attr map[string]float64, factorize bool) (float64, *fitter) {
	t.Helper()
	ctx := context.Background()
	global := make([]float64, kind.GlobalParams(d.ranks))
	for j := range global {
		global[j] = g(j)
	}
	f := newFitter(ctx, d, kind, Options{Workers: 2}, global, factorize)
	if factorize != (f.fz != nil) {
		t.Fatalf("%v: factorised fitter %v, want %v", kind, f.fz != nil, factorize)
	}
	for p := range f.attr {
		f.attr[p] = attr[log.Docs.Names[d.pairDoc[p]]]
	}
	st := NewStats(kind, d.ranks)
	f.trainLL(ctx, st)
	return st.LL.Float64(), f
}

// TestItemsPassFused: PBM's and UBM's E-step made in the log-likelihood's
// pass over the items (estepLLItems, itemsPass) must give the same bits
// as the two passes it replaces (trainLLItems, then iterateFactorized):
// the counts, the log-likelihood and the pair values, iteration after
// iteration, on a log whose SERPs have different lengths, so that a
// factorised item is split among several llItems, and whose queries
// repeat pairs at several ranks.
func TestItemsPassFused(t *testing.T) {
	d := randomClickLog(t, 3000, 40, 14, 1)
	ctx := context.Background()
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	for _, kind := range []Kind{PBM, UBM} {
		g1 := filled(kind.GlobalParams(d.ranks), Unseen)
		g2 := slices.Clone(g1)
		opt := Options{Workers: 2}
		fused, sep := newFitter(ctx, d, kind, opt, g1, true), newFitter(ctx, d, kind, opt, g2, true)
		split := 0
		for it := range 6 {
			st1, st2 := NewStats(kind, d.ranks), NewStats(kind, d.ranks)
			if it == 0 {
				fused.ill = newItemLL(ctx, fused)
			}
			ref := addOnlyLL(d, fused)
			fused.estepLL(ctx, st1)
			sep.trainLL(ctx, st2)
			sep.iterateFactorized(ctx, sep.workers, st2)
			if it == 0 {
				if !fused.ill.fused {
					t.Fatalf("%v: the items' estep flags do not name the factorised items", kind)
				}
				for _, x := range fused.ill.items {
					if x.estep && !x.clicked {
						split++
					}
				}
				if split == len(fused.ill.items) || split != len(fused.fz.items) {
					t.Fatalf("%v: %d estep items, %d factorised items, %d llItems", kind, split, len(fused.fz.items), len(fused.ill.items))
				}
			}
			if ref != st1.LL {
				t.Fatalf("%v iteration %d: the pass's log-likelihood %v, llFold.add on every item %v", kind, it, st1.LL.Float64(), ref.Float64())
			}
			b1, _ := st1.MarshalBinary()
			b2, _ := st2.MarshalBinary()
			if !slices.Equal(b1, b2) {
				t.Fatalf("%v iteration %d: the fused pass's counts or log-likelihood (%v) differ from the two passes' (%v)", kind, it, st1.LL.Float64(), st2.LL.Float64())
			}
			if !same(fused.attr, sep.attr) {
				t.Fatalf("%v iteration %d: the fused pass's attractiveness differs", kind, it)
			}
			copy(g1, MStepGlobals(kind, st1))
			copy(g2, MStepGlobals(kind, st2))
		}
		// More llItems than factorised items that are not clicked: the
		// lengths split some of them.
		unclicked := 0
		for _, x := range fused.ill.items {
			if !x.clicked {
				unclicked++
			}
		}
		if unclicked <= split {
			t.Errorf("%v: no factorised item is split among lengths (%d unclicked llItems, %d factorised items): the test does not reach the case", kind, unclicked, split)
		}
	}
}

// addOnlyLL is the log-likelihood of f's items (newItemLL) under f's
// values, every term taken by llFold.add (no inlined path), query by
// query as itemsPass folds them.
func addOnlyLL(d *Data, f *fitter) ExactSum {
	sc := newScratch(f.ng)
	for ci, ch := range d.chunks {
		attr := f.attr[ch.pairLo:ch.pairHi]
		var fold llFold
		fold.reset()
		for _, it := range f.ill.items[f.ill.off[ci]:f.ill.off[ci+1]] {
			p := attr[it.pair] * f.global[it.exam]
			if !it.clicked {
				p = 1 - p
			}
			fold.add(it.n, p, it.w)
			if it.last {
				fold.flush(sc, allLengths)
			}
		}
	}
	return sc.ll
}

// randomClickLog returns n SERPs of minLen to 10 ranks over queries
// queries, each SERP showing a random sample of docs documents in random
// order, rank r clicked with probability 0.5/(r+1), prepared.
func randomClickLog(tb testing.TB, n, queries, docs, minLen int) *Data {
	return clickLogOf(tb, n, queries, docs, minLen, rand.New(rand.NewPCG(7, 11)), func(r int) float64 { return 0.5 / float64(r+1) })
}

// clickLogOf returns n SERPs of minLen to 10 ranks over queries queries,
// each SERP showing a random sample of docs documents in random order,
// rank r clicked with probability click(r), drawn from rng, prepared.
func clickLogOf(tb testing.TB, n, queries, docs, minLen int, rng *rand.Rand, click func(r int) float64) *Data {
	tb.Helper()
	return preparedLog(tb, n, func(i int) sessions.SERP { return randomSERP(i, queries, docs, minLen, rng, click) })
}

// randomSERP is SERP i of clickLogOf.
func randomSERP(i, queries, docs, minLen int, rng *rand.Rand, click func(r int) float64) sessions.SERP {
	k := minLen + rng.IntN(11-minLen)
	s := sessions.SERP{SessionID: fmt.Sprintf("s%d", i), Query: fmt.Sprintf("q%d", rng.IntN(queries))}
	for _, j := range rng.Perm(docs)[:k] {
		s.Results = append(s.Results, fmt.Sprintf("d%d", j))
	}
	for r := range k {
		if rng.Float64() < click(r) {
			s.Clicks = append(s.Clicks, sessions.Click{Rank: r})
		}
	}
	return s
}

// preparedLog returns the log of the n SERPs serp(0), ..., serp(n-1),
// added in that order, prepared.
func preparedLog(tb testing.TB, n int, serp func(i int) sessions.SERP) *Data {
	tb.Helper()
	log := &sessions.Log{}
	for i := range n {
		s := serp(i)
		if err := log.Add(&s); err != nil {
			tb.Fatal(err)
		}
	}
	d, err := Prepare(log, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// BenchmarkUBMPass is one pass of UBM's EM under the tolerance (the
// log-likelihood of the values and the E-step and pair M-step) on
// 300,000 SERPs over 20,000 queries (all of 10 ranks, as simulated logs,
// and of 1 to 10 ranks), one worker: fused,
// the one pass over the items (estepLL), and separate, the log-likelihood's
// pass then the E-step's (trainLL, iterateFactorized) as before.
// Reported: CPU-milliseconds (user+sys) per pass, the measure on a shared
// machine.
//
//	go test ./clickmodels -run '^$' -bench UBMPass -benchtime 20x
func BenchmarkUBMPass(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		minLen int
	}{{"length10", 10}, {"lengths1-10", 1}} {
		d := randomClickLog(b, 300000, 20000, 30, c.minLen)
		for _, fused := range []bool{true, false} {
			b.Run(c.name+"/"+map[bool]string{true: "fused", false: "separate"}[fused], func(b *testing.B) {
				g := filled(UBM.GlobalParams(d.ranks), Unseen)
				f := newFitter(ctx, d, UBM, Options{Workers: 1}, g, true)
				f.ill = newItemLL(ctx, f)
				var ru0, ru1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
				for b.Loop() {
					st := NewStats(UBM, d.ranks)
					if fused {
						f.estepLL(ctx, st)
					} else {
						f.trainLL(ctx, st)
						f.iterateFactorized(ctx, f.workers, st)
					}
					copy(g, MStepGlobals(UBM, st))
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
				cpu := func(ru *syscall.Rusage) float64 {
					return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
				}
				b.ReportMetric((cpu(&ru1)-cpu(&ru0))/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkDBNPass is one pass of exact DBN's EM under the tolerance
// (the log-likelihood of the values, the E-step and the pair M-step:
// estepLL) on 300,000 SERPs of 10 ranks over 20,000 queries, one worker.
// Reported: CPU-milliseconds (user+sys) per pass.
//
//	go test ./clickmodels -run '^$' -bench DBNPass -benchtime 20x
func BenchmarkDBNPass(b *testing.B) {
	ctx := context.Background()
	d := randomClickLog(b, 300000, 20000, 30, 10)
	g := filled(DBN.GlobalParams(d.ranks), Unseen)
	f := newFitter(ctx, d, DBN, Options{Workers: 1, Exact: true}, g, true)
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		st := NewStats(DBN, d.ranks)
		f.estepLL(ctx, st)
		copy(g, MStepGlobals(DBN, st))
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(ru *syscall.Rusage) float64 { return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6 }
	b.ReportMetric((cpu(&ru1)-cpu(&ru0))/float64(b.N), "cpu-ms/op")
}
