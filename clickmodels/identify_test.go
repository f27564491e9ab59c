package clickmodels

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// ridgeLog is a tiny log of two queries whose SERPs always show the same
// two results in the same order: q1 A B, q2 C D, clicks as listed (rank
// 0-based, -1 none), eight SERPs each, interleaved. No pair is ever shown at
// both ranks, so the identifiability graph (ranks joined by a pair shown at
// both) has two components, {1} and {2}. With join, q1 is also shown as
// B A once, which joins ranks 1 and 2 through B (and A).
func ridgeLog(t *testing.T, join bool) *sessions.Log {
	t.Helper()
	log := &sessions.Log{}
	clicks1 := []int{0, -1, 1, 0, -1, 0, 1, -1}
	clicks2 := []int{-1, 0, 0, -1, 1, -1, 0, 1}
	add := func(id, q string, res []string, c int) {
		s := sessions.SERP{SessionID: id, Query: q, Results: res}
		if c >= 0 {
			s.Clicks = []sessions.Click{{Rank: c}}
		}
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	for i := range clicks1 {
		n := string(rune('a' + i))
		add("s1"+n, "q1", []string{"A", "B"}, clicks1[i])
		add("s2"+n, "q2", []string{"C", "D"}, clicks2[i])
		if join && i == 0 {
			add("s3", "q1", []string{"B", "A"}, 0)
		}
	}
	return log
}

// TestIdentificationGraph: a log whose graph is disconnected gets the
// warning, in metrics.json and in the log, and one whose graph is
// connected does not; the components are those of the hand-drawn graph.
func TestIdentificationGraph(t *testing.T) {
	for _, tc := range []struct {
		join  bool
		comps [][]int
	}{{false, [][]int{{1}, {2}}}, {true, [][]int{{1, 2}}}} {
		for _, k := range []Kind{PBM, UBM} {
			var logBuf bytes.Buffer
			dir := filepath.Join(t.TempDir(), "fit")
			cfg := RunConfig{Kinds: []Kind{k}, Options: Options{Level: 0.9}, Log: slog.New(slog.NewTextHandler(&logBuf, nil))}
			if _, err := Run(context.Background(), ridgeLog(t, tc.join), cfg, dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
			if err != nil {
				t.Fatal(err)
			}
			var reps []Report
			if err := json.Unmarshal(b, &reps); err != nil {
				t.Fatal(err)
			}
			id := reps[0].Uncertainty.Identification
			if id == nil {
				t.Fatalf("%v join=%v: no identification in metrics.json", k, tc.join)
			}
			var got [][]int
			for _, c := range id.Components {
				got = append(got, c.Ranks)
			}
			if !equalRanks(got, tc.comps) || id.Connected != (len(tc.comps) == 1) {
				t.Errorf("%v join=%v: components %v connected %v, want %v", k, tc.join, got, id.Connected, tc.comps)
			}
			warned := strings.Contains(logBuf.String(), "does not identify")
			if tc.join && (warned || id.Warning != "") {
				t.Errorf("%v: connected graph warned: %q / %q", k, logBuf.String(), id.Warning)
			}
			if !tc.join && (!warned || id.Warning == "") {
				t.Errorf("%v: disconnected graph did not warn (log %q, metrics %q)", k, logBuf.String(), id.Warning)
			}
		}
	}
	// Models without a scale ridge have no graph.
	m, err := Fit(context.Background(), mustPrepare(t, ridgeLog(t, false)), DCTR, Options{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if _, rep, err := m.RelevanceDists(); err != nil || rep.Identification != nil {
		t.Errorf("DCTR: identification %+v (err %v), want none", rep.Identification, err)
	}
}

func equalRanks(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func mustPrepare(t *testing.T, log *sessions.Log) *Data {
	t.Helper()
	d, err := Prepare(log, DefaultRanks)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestIdentifiedScale computes the identified scale set of a hand-made
// graph: ranks 1-2 joined (pairs of first rank 1 with attractiveness up to
// 0.625 at the point, whose lower bounds reach 0.5), rank 4 alone (a pair
// at 0.25, lower bound 0.2); PBM examination 0.8, 0.5, 0.9 (rank 3,
// never shown: not a node), 0.4. The scale's upper end is set by the
// lower bounds, not by the noisier point estimates: component
// {1, 2}: c in [max(0.8, 0.5), 1/0.5] = [0.8, 2]; component {4}: [0.4,
// 1/0.2] = [0.4, 5]. The point estimates give 1/0.625 = 1.6 and 4: the
// upper ends of the scales the Beta beside the interval spreads over.
func TestIdentifiedScale(t *testing.T) {
	var acc ridgeAcc
	acc.add(0b0011, 0.625)
	acc.addLower(0b0011, 0.45)
	acc.add(0b0001, 0.5)
	acc.addLower(0b0001, 0.4)
	acc.add(0b0010, 0.3)
	acc.addLower(0b0010, 0.5) // the largest lower bound of component {1, 2}
	acc.add(0b1000, 0.25)
	acc.addLower(0b1000, 0.2)
	rd, id := identify(PBM, []float64{0.8, 0.5, 0.9, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, 10, &acc)
	if id.Connected || len(id.Components) != 2 {
		t.Fatalf("components %+v", id.Components)
	}
	c0, c1 := id.Components[0], id.Components[1]
	if !equalRanks([][]int{c0.Ranks, c1.Ranks}, [][]int{{1, 2}, {4}}) || c0.Pairs != 3 || c1.Pairs != 1 {
		t.Errorf("components %+v", id.Components)
	}
	near(t, "component 1 scale min", c0.ScaleMin, 0.8)
	near(t, "component 1 scale max", c0.ScaleMax, 2)
	near(t, "component 1 point max", c0.MaxAttractiveness, 0.625)
	near(t, "component 1 bound", c0.AttractivenessBound, 0.5)
	near(t, "component 2 scale min", c1.ScaleMin, 0.4)
	near(t, "component 2 scale max", c1.ScaleMax, 5)
	// A pair shown at rank 2 takes component 1's scales.
	near(t, "component 1 scale max by the points", c0.ScaleMaxPoint, 1.6)
	near(t, "component 2 scale max by the points", c1.ScaleMaxPoint, 4)
	if lo, pt, hi := rd.scaleOf(0b0010); lo != 0.8 || pt != 1.6 || hi != 2 {
		t.Errorf("scale of a rank-2 pair %v, %v, %v, want 0.8, 1.6, 2", lo, pt, hi)
	}
	// UBM (R = 3): rank 2's examination parameters are index 2*3 + p for a
	// previous click p in {0, 1} or none (p = 2); p = 2 at rank 0 and 1
	// likewise. Unreachable cells (previous click at or after the rank) and
	// cells at exactly 0.5 (never counted) are left out.
	g := []float64{
		0.7, 0.99, 0.6, // rank 0: only "none" (0.6) is reachable
		0.3, 0.99, 0.5, // rank 1: after a click at 0 (0.3); "none" 0.5 left out
		0.2, 0.45, 0.1, // rank 2: 0.2, 0.45, none 0.1
	}
	for r, want := range []float64{0.6, 0.3, 0.45} {
		near(t, "UBM max examination of rank "+string(rune('1'+r)), examMax(UBM, g, 3, r), want)
	}
}

// TestScaledRelevance checks the identified-set interval and the Beta
// beside it by hand: X ~ Beta(2, 3), interval [0.1, 0.7] at the fitted
// scale, c in [0.8, 1.6]. Interval: [0.8 * 0.1, min(1, 1.6 * 0.7)] =
// [0.08, 1]. Moments: E[X] = 2/5, E[X^2] = 2*3/(5*6) = 1/5; E[c] = 1.2,
// E[c^2] = (0.64 + 1.28 + 2.56)/3 = 4.48/3. Mean 0.48, second moment
// 4.48/15 = 0.298666..., variance 0.298666... - 0.2304 = 0.0682666...,
// concentration 0.48 * 0.52 / 0.0682666... - 1 = 3.65625 - 1 = 2.65625:
// Beta(1.275, 1.38125).
func TestScaledRelevance(t *testing.T) {
	a, b, lo, hi := ScaledRelevance(2, 3, 0.1, 0.7, 0.8, 1.6)
	near(t, "lower", lo, 0.08)
	near(t, "upper", hi, 1)
	nearTol(t, "alpha", a, 1.275, 1e-9)
	nearTol(t, "beta", b, 1.38125, 1e-9)
	if a, b, lo, hi := ScaledRelevance(2, 3, 0.1, 0.7, 1, 1); a != 2 || b != 3 || lo != 0.1 || hi != 0.7 {
		t.Errorf("no ridge changed the relevance: %v %v %v %v", a, b, lo, hi)
	}
}

// TestScaleDecidesConfidence: a pair known precisely at the fitted scale,
// X ~ Beta(480, 520) (mean 0.48, sd 0.016), lies in label 1's band [0.45,
// 0.5) with probability about 0.85; with the scale open over [0.8, 1] (c X
// runs from 0.384 to 0.48) the band holds it only for c above about 0.94,
// and its probability under c uniform, integrated numerically here
// (midpoint rule over c and x, the Beta density from math.Lgamma), is
// 0.302. The Beta the relevance file writes (two moments matched) gives
// 0.266: within 0.05 of it, and low.
func TestScaleDecidesConfidence(t *testing.T) {
	const a0, b0, cMin, cMax = 480.0, 520.0, 0.8, 1.0
	lb := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	band := func(lo, hi, scale float64) float64 { // P(lo <= scale X < hi), midpoint rule
		const n = 4000
		s, w := 0.0, (hi-lo)/scale/n
		for i := range n {
			x := lo/scale + (float64(i)+0.5)*w
			s += math.Exp((a0-1)*math.Log(x)+(b0-1)*math.Log(1-x)-lb(a0, b0)) * w
		}
		return s
	}
	unscaled := band(0.45, 0.5, 1)
	const nc = 200
	mix := 0.0
	for i := range nc {
		mix += band(0.45, 0.5, cMin+(float64(i)+0.5)*(cMax-cMin)/nc) / nc
	}
	if unscaled < 0.8 || mix > 0.4 {
		t.Fatalf("hand integration: unscaled %v, mixture %v", unscaled, mix)
	}
	lo, hi := BetaInterval(a0, b0, 0.9)
	a, b, _, _ := ScaledRelevance(a0, b0, lo, hi, cMin, cMax)
	nearTol(t, "unscaled confidence", BetaProbability(a0, b0, 0.45, 0.5), unscaled, 1e-3)
	nearTol(t, "confidence over the scale", BetaProbability(a, b, 0.45, 0.5), mix, 0.05)
}

// TestRidgeIntervalOfFit: on the connected tiny log, PBM's relevance
// intervals are the pairs' posterior intervals at the fitted scale
// widened over c in [max(gamma_1, gamma_2), 1 / L], L the largest lower
// bound of the pairs' attractiveness at the fitted scale, each its
// posterior's quantile at 0.05 / n over the n pairs of the component (not
// the largest fitted attractiveness: issue 36 part 3), the fitted values
// read from the model (ranks 1 and 2 are the only ones shown).
func TestRidgeIntervalOfFit(t *testing.T) {
	m, err := Fit(context.Background(), mustPrepare(t, ridgeLog(t, true)), PBM, Options{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	dists, rep, err := m.RelevanceDists()
	if err != nil {
		t.Fatal(err)
	}
	cMin := max(m.Global[0], m.Global[1])
	pw := m.pairWriter()
	if _, err := pw.setPriors(); err != nil {
		t.Fatal(err)
	}
	var v pairVal
	maxLo, maxA := 0.0, 0.0
	for p := range dists {
		v.setPair(m, p)
		a, b := pw.relevanceBeta(&v)
		// The lower bound at (1 - 0.9) / 2 over the component's pairs.
		lo := BetaQuantile(a, b, 0.05/float64(len(dists)))
		maxLo, maxA = max(maxLo, lo), max(maxA, m.Attr[p])
	}
	cMax := max(1/maxLo, 1/maxA)
	if !(cMax > 1/maxA) {
		t.Fatalf("the log does not tell the bounds apart: 1/L %v, 1/max alpha %v", cMax, 1/maxA)
	}
	// ScaleMax to rounding: the fit takes the tail as (1 - level) / 2 / n,
	// which differs from 0.05 / n in the last bit.
	if c := rep.Identification.Components[0]; c.ScaleMin != cMin || math.Abs(c.ScaleMax-cMax) > 1e-12*cMax {
		t.Errorf("scales [%v, %v], want [%v, %v]", c.ScaleMin, c.ScaleMax, cMin, cMax)
	}
	for p, d := range dists {
		v.setPair(m, p)
		a, b := pw.relevanceBeta(&v)
		lo, hi := BetaInterval(a, b, 0.9)
		nearTol(t, "lower", d.Lower, cMin*lo, 1e-12)
		nearTol(t, "upper", d.Upper, min(1, cMax*hi), 1e-12)
		if !(d.Lower < lo) {
			t.Errorf("pair %d: lower %v not below the fitted-scale lower %v", p, d.Lower, lo)
		}
	}
}
