package clickmodels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// scatterTestLog is n SERPs of 1 to 10 ranks over 40 queries (half of
// them repeats of 20 SERPs, merged into heavy records), documents
// drawn with replacement (a SERP may show a document twice, so one pair
// takes two ranks' counts), every rank clicked with probability 0.3
// (SERPs without a click, clicks at the last rank), prepared.
func scatterTestLog(tb testing.TB, n int) *Data {
	tb.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	draw := func() sessions.SERP {
		k := 1 + rng.IntN(10)
		s := sessions.SERP{Query: fmt.Sprintf("q%d", rng.IntN(40))}
		for range k {
			s.Results = append(s.Results, fmt.Sprintf("d%d", rng.IntN(12)))
		}
		for r := range k {
			if rng.Float64() < 0.3 {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r})
			}
		}
		return s
	}
	// Half the SERPs repeat one of 20, so that records have weights
	// other than 1 and 2 (w·x·y and w·(x·y) differ then).
	var popular [20]sessions.SERP
	for j := range popular {
		popular[j] = draw()
	}
	return preparedLog(tb, n, func(i int) sessions.SERP {
		s := draw()
		if rng.IntN(2) == 0 {
			s = popular[rng.IntN(len(popular))]
		}
		s.SessionID = fmt.Sprintf("s%d", i)
		return s
	})
}

// TestEStepCascadeScatter checks estepCascadeScatter against what it
// replaces, estep (estepDBNExact, estepSDBNExact) and scatter record by
// record, bit for bit: every pair's attractiveness and satisfaction
// numerator and DBN's continuation counts, at random values; and its
// log-likelihood against cascadeLLChunk's (an exact sum, so the
// records' terms must be the same bits).
func TestEStepCascadeScatter(t *testing.T) {
	d := scatterTestLog(t, 3000)
	for _, kind := range []Kind{DBN, SDBN} {
		rng := rand.New(rand.NewPCG(1, 2))
		g := filled(kind.GlobalParams(d.ranks), Unseen)
		if kind == DBN {
			g[0] = 0.83
		}
		f := newFitter(context.Background(), d, kind, Options{Workers: 1, Exact: true}, g, true)
		if !f.cascadeScatter(false) || f.cascadeScatter(true) {
			t.Fatalf("%v: cascadeScatter", kind)
		}
		for p := range f.attr {
			f.attr[p], f.sat[p] = 0.01+0.98*rng.Float64(), 0.01+0.98*rng.Float64()
		}
		run := func(fused bool) (aNum, sNum []float64, num, den, ll float64) {
			f.aNum, f.sNum = filled(len(f.attr), 1), filled(len(f.attr), 1)
			sc := newScratch(f.ng)
			c := &sc.c
			c.gNum, c.gDen = sc.xNum, sc.xDen
			var v view
			if !fused {
				for _, ch := range d.chunks {
					f.cascadeLLChunk(ch, sc)
				}
			}
			for i := 0; i < d.Records(); i++ {
				if fused {
					f.estepCascadeScatter(sc, i, true)
					continue
				}
				f.load(&v, sc, i)
				estep(kind, &v, d.recWeight[i], c)
				f.scatter(c, d.recPair[d.recOff[i]:d.recOff[i+1]], d.recWeight[i], false)
			}
			if len(sc.xNum) == 0 { // SDBN: no global value
				return f.aNum, f.sNum, 0, 0, sc.ll.Float64()
			}
			return f.aNum, f.sNum, sc.xNum[0].Float64(), sc.xDen[0].Float64(), sc.ll.Float64()
		}
		wa, ws, wn, wd, wl := run(false)
		ga, gs, gn, gd, gl := run(true)
		if math.Float64bits(wl) != math.Float64bits(gl) || wl == 0 {
			t.Errorf("%v: log-likelihood %v, cascadeLLChunk %v", kind, gl, wl)
		}
		// Record by record: a term's last bit would be lost in the sum.
		f.aNum, f.sNum = filled(len(f.attr), 1), filled(len(f.attr), 1)
		sc := newScratch(f.ng)
		sc.c.gNum, sc.c.gDen = sc.xNum, sc.xDen
		for i := 0; i < d.Records(); i++ {
			sc.ll = ExactSum{}
			f.cascadeLLChunk(chunk{recLo: i, recHi: i + 1}, sc)
			want := sc.ll.Float64()
			sc.ll = ExactSum{}
			f.estepCascadeScatter(sc, i, true)
			if got := sc.ll.Float64(); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%v: record %d: log-likelihood %v, cascadeLLChunk %v", kind, i, got, want)
			}
		}
		for p := range wa {
			if math.Float64bits(wa[p]) != math.Float64bits(ga[p]) || math.Float64bits(ws[p]) != math.Float64bits(gs[p]) {
				t.Fatalf("%v: pair %d: attractiveness %v, satisfaction %v; estep and scatter %v, %v", kind, p, ga[p], gs[p], wa[p], ws[p])
			}
		}
		if math.Float64bits(wn) != math.Float64bits(gn) || math.Float64bits(wd) != math.Float64bits(gd) {
			t.Errorf("%v: continuation %v / %v, estep %v / %v", kind, gn, gd, wn, wd)
		}
		if kind == DBN && wn == 0 {
			t.Errorf("DBN: no continuation counts")
		}
	}
}
