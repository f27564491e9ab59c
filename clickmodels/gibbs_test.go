package clickmodels

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/lovbench/lovbench/sessions"
)

// dbnEnumerate returns, for a 3-rank SERP of the cascade model (DBN with
// continuation gamma; SDBN with gamma 1) with attractiveness a and
// satisfaction s, by brute force over every configuration of the latent
// variables (examination E, attraction A and satisfaction S at each rank,
// 2^9 of them), the probability of the clicks, the joint probability of
// the clicks and a satisfied last click, and, per rank, the joint
// probability of the clicks and its examination. The model is Chapelle
// and Zhang's (2009) definition, written here apart from the sampler: rank
// 1 is examined, C = E A, a click satisfies with S; the next rank is
// examined iff this one was, the user was not satisfied by a click here,
// and goes on with probability gamma.
func dbnEnumerate(a, s []float64, gamma float64, clicks uint64) (pC, pCSat float64, pCExam [3]float64) {
	const n = 3
	bern := func(x int, p float64) float64 {
		if x == 1 {
			return p
		}
		return 1 - p
	}
	l := -1
	for r := range n {
		if clicks&(1<<uint(r)) != 0 {
			l = r
		}
	}
	for cfg := range 1 << (3 * n) {
		bit := func(k int) int { return (cfg >> uint(k)) & 1 }
		var e, at, st [n]int
		for r := range n {
			e[r], at[r], st[r] = bit(3*r), bit(3*r+1), bit(3*r+2)
		}
		p := bern(e[0], 1)
		for r := range n {
			p *= bern(at[r], a[r]) * bern(st[r], s[r])
			if r+1 < n {
				goOn := 0.0
				if e[r] == 1 && !(e[r]*at[r] == 1 && st[r] == 1) {
					goOn = gamma
				}
				p *= bern(e[r+1], goOn)
			}
		}
		match := true
		for r := range n {
			if (e[r]*at[r] == 1) != (clicks&(1<<uint(r)) != 0) {
				match = false
			}
		}
		if !match || p == 0 {
			continue
		}
		pC += p
		if l >= 0 && st[l] == 1 {
			pCSat += p
		}
		for r := range n {
			if e[r] == 1 {
				pCExam[r] += p
			}
		}
	}
	return pC, pCSat, pCExam
}

// TestCascadeLatentsByEnumeration checks the sampler's exact conditionals
// of a SERP's latent variables given its clicks (cascadeLatents: the
// probability that the last click satisfied, and of going on to each rank
// below it) against a brute-force enumeration of every latent
// configuration, for every click pattern of a 3-rank SERP, DBN and SDBN;
// and the walks cascadeWalk draws from them against the same
// probabilities (200,000 walks, within 4.5 standard errors).
func TestCascadeLatentsByEnumeration(t *testing.T) {
	enumeratedSERPs(func(gamma float64, clicks uint64, pC, pCSat float64, pCExam [3]float64, l int, pSat float64, goOn []float64) {
		wantSat := 0.0
		if l >= 0 {
			wantSat = pCSat / pC
		}
		if math.Abs(pSat-wantSat) > 1e-12 {
			t.Errorf("gamma %v clicks %03b: P(last click satisfied) %v, enumeration %v", gamma, clicks, pSat, wantSat)
		}
		// P(E_r = 1 | C) for the ranks below the last click: the
		// chain of going on from it, not satisfied at it.
		chain := 1 - pSat
		examined := [3]float64{}
		for r := range 3 {
			if r <= l || r == 0 {
				examined[r] = 1
				continue
			}
			chain *= goOn[r-1]
			examined[r] = chain
		}
		for r := range 3 {
			if want := pCExam[r] / pC; math.Abs(examined[r]-want) > 1e-12 {
				t.Errorf("gamma %v clicks %03b: P(E_%d = 1 | C) %v, enumeration %v", gamma, clicks, r, examined[r], want)
			}
		}
		// The walks.
		const walks = 200000
		src := rand.NewPCG(uint64(clicks), math.Float64bits(gamma))
		var sat, reach [3]int
		for range walks {
			satisfied, last := cascadeWalk(l, pSat, goOn, src)
			if satisfied {
				sat[l]++
			}
			for r := 0; r <= last; r++ {
				reach[r]++
			}
		}
		check := func(what string, got int, p float64) {
			t.Helper()
			se := math.Sqrt(p * (1 - p) / walks)
			if f := float64(got) / walks; math.Abs(f-p) > 4.5*se+1e-12 {
				t.Errorf("gamma %v clicks %03b: %s in %.4f of the walks, enumeration %.4f", gamma, clicks, what, f, p)
			}
		}
		if l >= 0 {
			check("last click satisfied", sat[l], wantSat)
		}
		for r := l + 1; r < 3; r++ {
			check("rank examined", reach[r], pCExam[r]/pC)
		}
	})
}

// enumeratedSERPs calls fn for every click pattern of a 3-rank SERP
// (attractiveness 0.6, 0.3, 0.45; satisfaction 0.7, 0.25, 0.5), DBN
// (continuation 0.8) and SDBN, with the brute-force enumeration's
// probabilities (dbnEnumerate) and the sampler's conditionals
// (cascadeLatents: the last click l, the probability that it satisfied,
// and of going on from each rank).
func enumeratedSERPs(fn func(gamma float64, clicks uint64, pC, pCSat float64, pCExam [3]float64, l int, pSat float64, goOn []float64)) {
	a := []float64{0.6, 0.3, 0.45}
	s := []float64{0.7, 0.25, 0.5}
	for _, gamma := range []float64{0.8, 1} {
		for clicks := uint64(0); clicks < 8; clicks++ {
			pC, pCSat, pCExam := dbnEnumerate(a, s, gamma, clicks)
			var car [4]float64
			goOn := make([]float64, 3)
			l, pSat := cascadeLatents(a, s, gamma, clicks, car[:], goOn)
			fn(gamma, clicks, pC, pCSat, pCExam, l, pSat, goOn)
		}
	}
}

// TestDrawPriorsByHand checks the cells' refit to the draws (the method of
// moments, and the fallbacks of a cell of too few pairs) by hand.
func TestDrawPriorsByHand(t *testing.T) {
	by := make([][exposureClasses]drawMoments, rankBuckets)
	// Rank bucket 0, class 0: 60 draws, half 0.2 and half 0.6: mean 0.4,
	// variance 0.04, concentration 0.24 / 0.04 - 1 = 5.
	for i := range 60 {
		by[0][0].add(0.2 + 0.4*float64(i%2))
	}
	// Class 1 of the same bucket: 10 draws of 0.4, too few: it takes the
	// bucket's, 70 draws of mean (24 + 4) / 70 = 0.4 and variance
	// (60 * 0.2 + 10 * 0.16) / 70 - 0.16 = 0.034286, concentration 6.
	for range 10 {
		by[0][1].add(0.4)
	}
	got := drawPriors(by)
	near := func(what string, p BetaPrior, alpha, beta float64) {
		t.Helper()
		if math.Abs(p.Alpha-alpha) > 1e-9 || math.Abs(p.Beta-beta) > 1e-9 {
			t.Errorf("%s: Beta(%v, %v), want Beta(%v, %v)", what, p.Alpha, p.Beta, alpha, beta)
		}
	}
	near("cell (0, 0)", got[0][0], 2, 3)
	near("cell (0, 1), too few", got[0][1], 0.4*6, 0.6*6)
	// Rank bucket 1 has no draws: every cell takes all pairs' (the same 70).
	near("rank bucket 1", got[1][3], 0.4*6, 0.6*6)
}

// TestBetaFromMeanLogMomentByHand checks that the Beta with the mean and
// E[ln x] of a Beta is that Beta (E[ln x] = psi(alpha) - psi(alpha +
// beta), the digamma function).
func TestBetaFromMeanLogMomentByHand(t *testing.T) {
	for _, c := range [][2]float64{{2, 5}, {0.4, 3}, {30, 2}, {0.7, 0.6}, {0.05, 20}} {
		l1 := mathext.Digamma(c[0]) - mathext.Digamma(c[0]+c[1])
		a, b := betaFromMeanLogMoment(c[0]/(c[0]+c[1]), l1)
		if math.Abs(a-c[0]) > 1e-7*c[0] || math.Abs(b-c[1]) > 1e-7*c[1] {
			t.Errorf("Beta(%v, %v): fitted Beta(%v, %v)", c[0], c[1], a, b)
		}
	}
}

// gibbsLogSERPs are 1,500 SERPs over 30 queries of 15 documents: 1,200
// random ones (clickLogOf's) and 300 copies of three SERPs of a query of
// their own, without a click, with one and with two, so that records of
// weight 16 and more take the grouped walks (cascadeWalks).
func gibbsLogSERPs() []sessions.SERP {
	rng := rand.New(rand.NewPCG(7, 11))
	out := make([]sessions.SERP, 1500)
	for i := range out {
		if i%5 != 4 {
			out[i] = randomSERP(i, 30, 15, 5, rng, func(r int) float64 { return 0.5 / float64(r+1) })
			continue
		}
		s := sessions.SERP{SessionID: fmt.Sprintf("g%d", i), Query: "grouped", Results: []string{"g1", "g2", "g3", "g4", "g5", "g6"}}
		switch i % 3 {
		case 1:
			s.Clicks = []sessions.Click{{Rank: 2}}
		case 2:
			s.Clicks = []sessions.Click{{Rank: 0}, {Rank: 3}}
		}
		out[i] = s
	}
	return out
}

// TestGibbsDeterministic checks that the sampler's relevance Betas do not
// depend on the number of workers, that a second fit gives the same
// bits, that they differ from the intervals without it, and that without
// Options.Gibbs the model carries none; and that they do not depend on
// where a pair or a record is in the prepared data: the same SERPs with
// the queries in another order (each query's SERPs in theirs) give every
// (query, document) pair the same Betas, to the bit (the streams are
// keyed by names, gibbsKeys). The log has records of weight 16 and more
// (gibbsLogSERPs).
func TestGibbsDeterministic(t *testing.T) {
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	byQuery := slices.Clone(serps)
	slices.SortStableFunc(byQuery, func(a, b sessions.SERP) int { return strings.Compare(b.Query, a.Query) })
	moved := preparedLog(t, len(byQuery), func(i int) sessions.SERP { return byQuery[i] })
	if w := slices.Max(d.recWeight); w < groupedWalks {
		t.Fatalf("the heaviest record weighs %v, want at least %d", w, groupedWalks)
	}
	for _, kind := range []Kind{DBN, SDBN} {
		fitWith := func(d *Data, workers, sweeps int) *Model {
			opt := EstimatorExact.Options()
			opt.Workers, opt.Gibbs = workers, GibbsSetting{BurnIn: 3, Sweeps: sweeps, RefitEvery: 2}
			m, err := Fit(context.Background(), d, kind, opt)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m1 := fitWith(d, 1, 5)
		one, four, again := m1.Evidence, fitWith(d, 4, 5).Evidence, fitWith(d, 4, 5).Evidence
		if one.RelAlpha == nil {
			t.Fatalf("%v: no sampler Betas", kind)
		}
		for p := range one.RelAlpha {
			if one.RelAlpha[p] != four.RelAlpha[p] || one.RelBeta[p] != four.RelBeta[p] || four.RelAlpha[p] != again.RelAlpha[p] || four.RelBeta[p] != again.RelBeta[p] {
				t.Fatalf("%v pair %d: Beta(%v, %v) with 1 worker, (%v, %v) with 4, (%v, %v) again", kind, p, one.RelAlpha[p], one.RelBeta[p], four.RelAlpha[p], four.RelBeta[p], again.RelAlpha[p], again.RelBeta[p])
			}
			if !(one.RelAlpha[p] > 0 && one.RelBeta[p] > 0) {
				t.Fatalf("%v pair %d: Beta(%v, %v)", kind, p, one.RelAlpha[p], one.RelBeta[p])
			}
		}
		mm := fitWith(moved, 2, 5)
		at := map[[2]string]int{}
		for p := range mm.PairQuery {
			at[[2]string{mm.QueryNames[mm.PairQuery[p]], mm.DocNames[mm.PairDoc[p]]}] = p
		}
		shifted := 0
		for p := range m1.PairQuery {
			q := at[[2]string{m1.QueryNames[m1.PairQuery[p]], m1.DocNames[m1.PairDoc[p]]}]
			if p != q {
				shifted++ // a pair whose index moved
			}
			if ev := mm.Evidence; ev.RelAlpha[q] != one.RelAlpha[p] || ev.RelBeta[q] != one.RelBeta[p] {
				t.Fatalf("%v pair %d (%d with the queries moved): Beta(%v, %v), moved (%v, %v)", kind, p, q, one.RelAlpha[p], one.RelBeta[p], ev.RelAlpha[q], ev.RelBeta[q])
			}
		}
		if len(mm.PairQuery) != len(m1.PairQuery) || shifted < len(m1.PairQuery)/2 {
			t.Fatalf("%v: %d pairs moved of %d (%d with the queries moved)", kind, shifted, len(m1.PairQuery), len(mm.PairQuery))
		}
		if off := fitWith(d, 4, 0).Evidence; off.RelAlpha != nil || off.RelMean != nil {
			t.Errorf("%v: sampler Betas without Options.Gibbs", kind)
		}
	}
}

// TestDigammaMemo checks the Rao-Blackwell sums' memo against the digamma
// function itself, for arguments that come back (a cell's prior plus
// whole counts) and many more than its slots, so that slots are taken
// over: every value it returns is the function's, to the bit.
func TestDigammaMemo(t *testing.T) {
	var m digammaMemo
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		x := 0.37 + float64(rng.IntN(40)) // a prior's alpha plus a count
		if i%2 == 1 {
			x = rng.Float64() * 50 // fresh arguments, colliding
		}
		if got, want := m.of(x), mathext.Digamma(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("digamma(%v): memo %v, mathext %v", x, got, want)
		}
	}
}

// TestPriorTableUsed checks that fitting only some cells (the Gibbs
// sampler's, whose other cells hold no pair) gives those cells the bits
// of the full table's fit, with the prior of all pairs needed (rank
// buckets 10-15 empty) and not (every marked cell's bucket informative).
func TestPriorTableUsed(t *testing.T) {
	by := benchPriorHists()
	full := priorTableOf(by, true)
	var used [][exposureClasses]bool
	for _, marks := range [][][2]int{{{0, 0}, {3, 2}, {3, 5}, {9, 1}}, {{12, 0}, {2, 3}}} {
		used = make([][exposureClasses]bool, rankBuckets)
		for _, c := range marks {
			used[c[0]][c[1]] = true
		}
		got := priorTableUsed(by, true, used, nil)
		for _, c := range marks {
			if g, w := got.byCell[c[0]][c[1]], full.byCell[c[0]][c[1]]; g != w {
				t.Errorf("cell %v: %+v, the full table's %+v", c, g, w)
			}
		}
	}
}

// TestGibbsPassesStaged: the sampler run pass by pass through
// GibbsShards' stage API (Pass, Reduce), every pass with a fresh
// GibbsShards restored from the last one's round (MarshalRound,
// UnmarshalRound), histograms (GibbsHists' encoding) and chain
// (GibbsChain's encoding), as a pipeline runs it, gives the relevance
// Betas of Fit (the sampler in memory) to the bit; the histograms' merge
// is the same in either order, from their encoding too (MergeBinary),
// and their encoding round-trips.
func TestGibbsPassesStaged(t *testing.T) {
	ctx := context.Background()
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	for _, kind := range []Kind{DBN, SDBN} {
		opt := EstimatorExact.Options()
		opt.Workers, opt.Gibbs = 2, GibbsSetting{BurnIn: 3, Sweeps: 4, RefitEvery: 2, PoolSat: true}
		want, err := Fit(ctx, d, kind, opt)
		if err != nil {
			t.Fatal(err)
		}
		// The EM fit Fit's sampler starts from.
		global := InitialGlobals(kind, d.ranks, opt)
		f := newFitter(ctx, d, kind, opt, global, true)
		done, err := fitLoop(ctx, held([]*fitter{f}), d.ranks, kind, opt, global, kind.Iterations(opt.Iterations, opt.Exact), d.serps, []*fitter{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sf := &ShardFit{f: f, d: d}
		gs, err := NewGibbsShards(kind, opt, 1, nil)
		if err != nil || gs == nil {
			t.Fatalf("%v: NewGibbsShards: %v, %v", kind, gs, err)
		}
		var round, hists, chain []byte
		var prev *GibbsHists
		for p := range gs.Passes() {
			g, _ := NewGibbsShards(kind, opt, 1, nil)
			var c *GibbsChain
			if p > 0 {
				if err := g.UnmarshalRound(round); err != nil {
					t.Fatal(err)
				}
				var h *GibbsHists
				if hists != nil {
					if h, err = UnmarshalGibbsHists(hists); err != nil {
						t.Fatal(err)
					}
				}
				if err := g.Reduce(p-1, h); err != nil {
					t.Fatal(err)
				}
				if c, err = UnmarshalGibbsChain(chain); err != nil {
					t.Fatal(err)
				}
			}
			c, h, err := g.Pass(ctx, p, sf, c)
			if err != nil {
				t.Fatal(err)
			}
			if round, err = g.MarshalRound(); err != nil {
				t.Fatal(err)
			}
			if chain, err = c.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
			hists = nil
			if h != nil {
				hists, _ = h.MarshalBinary()
				back, err := UnmarshalGibbsHists(hists)
				if err != nil {
					t.Fatal(err)
				}
				if again, _ := back.MarshalBinary(); !bytes.Equal(again, hists) {
					t.Fatalf("%v pass %d: histograms' encoding does not round-trip", kind, p)
				}
				if prev != nil {
					// Two different passes' histograms, merged either way.
					ab, _ := UnmarshalGibbsHists(hists)
					ab.Merge(prev)
					ba, _ := prev.MarshalBinary()
					x, _ := UnmarshalGibbsHists(ba)
					x.Merge(back)
					// And added from the encoding (MergeBinary).
					y, _ := UnmarshalGibbsHists(ba)
					if err := y.MergeBinary(hists); err != nil {
						t.Fatal(err)
					}
					e1, _ := ab.MarshalBinary()
					e2, _ := x.MarshalBinary()
					e3, _ := y.MarshalBinary()
					if !bytes.Equal(e1, e2) || !bytes.Equal(e1, e3) || bytes.Equal(e1, hists) {
						t.Fatalf("%v pass %d: merged histograms differ by order or way (or equal one side)", kind, p)
					}
				}
				prev = back
			}
			if p == gs.Passes()-1 {
				if err := gs.SetChain(0, c); err != nil {
					t.Fatal(err)
				}
			}
		}
		m, err := gs.FinalModel(ctx, sf, 0, done, opt)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.Evidence, m.Evidence
		if w.RelAlpha == nil || len(g.RelAlpha) != len(w.RelAlpha) {
			t.Fatalf("%v: %d staged Betas, %d of Fit", kind, len(g.RelAlpha), len(w.RelAlpha))
		}
		for p := range w.RelAlpha {
			if g.RelAlpha[p] != w.RelAlpha[p] || g.RelBeta[p] != w.RelBeta[p] {
				t.Fatalf("%v pair %d: staged Beta(%v, %v), Fit's (%v, %v)", kind, p, g.RelAlpha[p], g.RelBeta[p], w.RelAlpha[p], w.RelBeta[p])
			}
		}
	}
}

// TestGibbsHold checks the restricted sampler (GibbsSetting.HoldShown) on
// gibbsLogSERPs, whose six pairs of the query "grouped" are shown in 300
// SERPs each and every other pair in fewer than 100: held from 100, the
// six pairs get the interval of the fit without the sampler (the
// counts'), to the bit, and every other pair a sampler's Beta; the
// records the walks visit are all but the three of "grouped" (its SERPs
// without a click, with one, with two: they show held pairs alone); and
// held from more impressions than any pair has, the Betas are the bits
// of the sampler without HoldShown.
func TestGibbsHold(t *testing.T) {
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	for _, kind := range []Kind{DBN, SDBN} {
		fitWith := func(sweeps int, hold float64) *Model {
			opt := EstimatorExact.Options()
			opt.Workers, opt.Gibbs = 2, GibbsSetting{BurnIn: 3, Sweeps: sweeps, RefitEvery: 2, PoolSat: true, RankOnly: true, HoldShown: hold}
			m, err := Fit(context.Background(), d, kind, opt)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		counts, _, err := fitWith(0, 0).RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		m := fitWith(5, 100)
		dists, _, err := m.RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for p := range dists {
			grouped := m.QueryNames[m.PairQuery[p]] == "grouped"
			if sh := m.Evidence.Shown[p]; grouped != (sh >= 100) {
				t.Fatalf("%v pair %d (grouped %t) shown %v times", kind, p, grouped, sh)
			}
			if grouped {
				held++
				if m.Evidence.RelAlpha[p] != 0 || dists[p] != counts[p] {
					t.Fatalf("%v held pair %d: sampler Beta(%v, %v), %+v against the counts' %+v", kind, p, m.Evidence.RelAlpha[p], m.Evidence.RelBeta[p], dists[p], counts[p])
				}
			} else if !(m.Evidence.RelAlpha[p] > 0 && m.Evidence.RelBeta[p] > 0) || dists[p] == counts[p] {
				t.Fatalf("%v pair %d not held: Beta(%v, %v), %+v (counts' %+v)", kind, p, m.Evidence.RelAlpha[p], m.Evidence.RelBeta[p], dists[p], counts[p])
			}
		}
		if held != 6 {
			t.Fatalf("%v: %d pairs held, want the 6 of \"grouped\"", kind, held)
		}
		c := &GibbsChain{read: make([]uint8, d.Pairs())}
		c.hold(d, m.Evidence.Shown, 100, nil)
		off := 0
		for _, on := range c.recOn {
			if on == 0 {
				off++
			}
		}
		if off != 3 {
			t.Fatalf("%v: %d records not visited, want 3 (of %d)", kind, off, len(c.recOn))
		}
		all, none := fitWith(5, 0).Evidence, fitWith(5, 1e9).Evidence
		for p := range all.RelAlpha {
			if all.RelAlpha[p] != none.RelAlpha[p] || all.RelBeta[p] != none.RelBeta[p] {
				t.Fatalf("%v pair %d: Beta(%v, %v) without holding, (%v, %v) held from 1e9", kind, p, all.RelAlpha[p], all.RelBeta[p], none.RelAlpha[p], none.RelBeta[p])
			}
		}
	}
}
