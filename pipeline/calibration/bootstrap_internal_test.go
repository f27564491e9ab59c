package calibration

import (
	"math"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestBinFactorByHand: ten pairs whose posterior is Beta(1, 1), eight with
// the truth 0.5 and two with the truth t at which Beta(2, 2)'s CDF,
// 3t^2 - 2t^3, is 0.05 (solved here by bisection: t = 0.1354). At the
// factor 1 (the uniform: interval [0.05, 0.95]) every truth is covered; at
// the factor f, Beta(f, f) narrows around 0.5 and t leaves its interval
// below for every f above 2, where 8 of 10 (0.8) are covered. So the
// largest factor that still covers 90% is 2.
func TestBinFactorByHand(t *testing.T) {
	lo, hi := 0.0, 0.5
	for range 100 {
		m := (lo + hi) / 2
		if 3*m*m-2*m*m*m < 0.05 {
			lo = m
		} else {
			hi = m
		}
	}
	tt := lo
	var part []bootObs
	for i := range 10 {
		truth := 0.5
		if i < 2 {
			truth = tt
		}
		part = append(part, bootObs{alpha: 1, beta: 1, truth: truth})
	}
	if c := betaCoverage(part, 1, 0.9); c != 1 {
		t.Errorf("coverage at factor 1: %v, want 1", c)
	}
	if c := betaCoverage(part, 3, 0.9); c != 0.8 {
		t.Errorf("coverage at factor 3: %v, want 0.8", c)
	}
	if f := binFactor(part, 0.9); math.Abs(f-2) > 1e-6 {
		t.Errorf("factor %v, want 2", f)
	}
	// Every truth at 0.5: no factor leaves it out, the bound holds.
	for i := range part {
		part[i].truth = 0.5
	}
	if f := binFactor(part, 0.9); f != maxRecalFactor {
		t.Errorf("factor with every truth at the centre: %v, want the bound %v", f, float64(maxRecalFactor))
	}
}

// TestFactorAtByHand: bins centred at evidence 2 (factor 1) and 8 (factor
// 4); in between the log of the factor is linear in the log of the
// evidence (at 4, halfway: factor 2), beyond the ends the end bins'.
func TestFactorAtByHand(t *testing.T) {
	r := &Recalibration{Bins: []RecalBin{{Center: 2, Factor: 1}, {Center: 8, Factor: 4}}}
	for _, c := range []struct{ ev, want float64 }{{1, 1}, {2, 1}, {4, 2}, {8, 4}, {100, 4}} {
		if f := r.FactorAt(c.ev); math.Abs(f-c.want) > 1e-12 {
			t.Errorf("FactorAt(%v) = %v, want %v", c.ev, f, c.want)
		}
	}
	if f := (&Recalibration{}).FactorAt(3); f != 1 {
		t.Errorf("no bins: factor %v, want 1", f)
	}
}

// TestRecalBinsByHand: evidence 2 and 2.1 share a bin (2 log2 rounds down
// to 2 for both) of two pairs; 3 (bin 3) is alone, below two pairs, so it
// takes 8 and 8.5 (bin 6) with it; the bins' centres are the geometric
// means sqrt(2 x 2.1) and (3 x 8 x 8.5)^(1/3).
func TestRecalBinsByHand(t *testing.T) {
	var obs []bootObs
	for _, ev := range []float64{8.5, 2.1, 3, 2, 8} {
		obs = append(obs, bootObs{alpha: ev / 2, beta: ev / 2, lo: 0.4, hi: 0.6, fit: 0.5, truth: 0.5})
	}
	bs := recalBins(obs, 0.9, 2)
	if len(bs) != 2 {
		t.Fatalf("%d bins, want 2: %+v", len(bs), bs)
	}
	want := []RecalBin{{From: 2, To: 2.1, Pairs: 2, Center: math.Sqrt(4.2)}, {From: 3, To: 8.5, Pairs: 3, Center: math.Cbrt(204)}}
	for i, w := range want {
		b := bs[i]
		if b.From != w.From || b.To != w.To || b.Pairs != w.Pairs || math.Abs(b.Center-w.Center) > 1e-12 || b.Coverage != 1 || b.Ratio != 1 {
			t.Errorf("bin %d: %+v, want %+v with coverage 1 and ratio 1", i, b, w)
		}
	}
}

// TestSubsampleWholeQueries: queries a, b and c with 3, 2 and 4 SERPs; at
// most 5 SERPs keeps whole queries only, at most 5 SERPs, and at least
// one query (each fits alone); a bound above the log keeps every SERP.
func TestSubsampleWholeQueries(t *testing.T) {
	log := &sessions.Log{Offsets: []int64{0}}
	for i, q := range []string{"a", "b", "c", "a", "c", "b", "a", "c", "c"} {
		if err := log.Add(&sessions.SERP{SessionID: string(rune('0' + i)), Query: q, Results: []string{"x", "y"}, Region: "0"}); err != nil {
			t.Fatal(err)
		}
	}
	count := map[string]int{"a": 3, "b": 2, "c": 4}
	idx := subsample(log, 5, 1)
	got := map[string]int{}
	for _, i := range idx {
		got[log.Queries.Names[log.Query[i]]]++
	}
	n := 0
	for q, c := range got {
		if c != count[q] {
			t.Errorf("query %s: %d of its %d SERPs taken", q, c, count[q])
		}
		n += c
	}
	if n == 0 || n > 5 {
		t.Errorf("%d SERPs taken, want 1 to 5", n)
	}
	if len(subsample(log, 100, 1)) != log.Len() {
		t.Errorf("a bound above the log did not keep it whole")
	}
}
