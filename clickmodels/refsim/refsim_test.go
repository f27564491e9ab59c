package refsim

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestExamination checks UBM's examination against the formula of the
// package documentation by hand: 0.95 at rank 1 without a click, 0.95 /
// (1 + 0.45 * 9) = 0.188119 at rank 10 without a click, 0.85 just below a
// click, 0.85 / (1 + 0.45 * 2) = 0.447368 three ranks below one.
func TestExamination(t *testing.T) {
	c := Default(UBM, 1, 1, 1)
	for _, tc := range []struct {
		r, prev int
		want    float64
	}{{1, 0, 0.95}, {10, 0, 0.188119}, {3, 2, 0.85}, {7, 4, 0.447368}} {
		if got := c.Examination(tc.r, tc.prev); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("gamma[%d][%d] = %v, want %v", tc.r, tc.prev, got, tc.want)
		}
	}
}

// serp is one SERP read back from the log.
type serp struct {
	docs   []string
	clicks []bool
}

// readLog parses the Yandex lines Simulate writes.
func readLog(t *testing.T, b []byte) []serp {
	t.Helper()
	var out []serp
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch f[2] {
		case "Q":
			out = append(out, serp{docs: f[5:], clicks: make([]bool, len(f)-5)})
		case "C":
			s := &out[len(out)-1]
			for r, d := range s.docs {
				if d == f[3] {
					s.clicks[r] = true
				}
			}
		default:
			t.Fatalf("line %q", sc.Text())
		}
	}
	return out
}

// simulate runs cfg and returns the SERPs and the truth by document.
func simulate(t *testing.T, cfg Config) ([]serp, map[string]Pair, Stats) {
	t.Helper()
	var b bytes.Buffer
	truth, st, err := Simulate(context.Background(), cfg, &b)
	if err != nil {
		t.Fatal(err)
	}
	byDoc := map[string]Pair{}
	for _, p := range truth {
		byDoc[p.Doc] = p
	}
	return readLog(t, b.Bytes()), byDoc, st
}

// TestUBMClicks: the clicks of the log follow UBM's definition: summed
// over the log, the clicks at rank 1 match sum 0.95 alpha, and those at
// rank 3 after a click at rank 1 and none at 2 match sum gamma[3][1]
// alpha = 0.85 / 1.45 alpha, within 3 standard errors.
func TestUBMClicks(t *testing.T) {
	serps, truth, st := simulate(t, Default(UBM, 40000, 100, 3))
	if st.SERPs != 40000 || len(serps) != 40000 {
		t.Fatalf("%d SERPs counted, %d read, want 40000", st.SERPs, len(serps))
	}
	check := func(what string, keep func(s serp) (int, float64, bool)) {
		var clicks, want, variance float64
		for _, s := range serps {
			r, p, ok := keep(s)
			if !ok {
				continue
			}
			p *= truth[s.docs[r]].Attr
			want += p
			variance += p * (1 - p)
			if s.clicks[r] {
				clicks++
			}
		}
		if d := math.Abs(clicks - want); d > 3*math.Sqrt(variance) {
			t.Errorf("%s: %v clicks, want %.1f +- %.1f", what, clicks, want, 3*math.Sqrt(variance))
		}
	}
	check("rank 1", func(s serp) (int, float64, bool) { return 0, 0.95, true })
	check("rank 3 after a click at 1", func(s serp) (int, float64, bool) {
		return 2, 0.85 / 1.45, s.clicks[0] && !s.clicks[1]
	})
	check("rank 5 without a click above", func(s serp) (int, float64, bool) {
		return 4, 0.95 / (1 + 0.45*4), !s.clicks[0] && !s.clicks[1] && !s.clicks[2] && !s.clicks[3]
	})
}

// TestDBNClicks: the clicks follow DBN's cascade: rank 1 is clicked with
// probability a1; rank 2 with (1 - a1 s1) gamma a2, gamma = 0.8 (the user
// continues unless satisfied by a click at rank 1); no click at all with
// the probability of the cascade's product, checked by the count of SERPs
// whose first two ranks hold no click: (1 - a1)(1 - gamma a2) summed.
func TestDBNClicks(t *testing.T) {
	serps, truth, st := simulate(t, Default(DBN, 40000, 100, 4))
	var c1, w1, v1, c2, w2, v2, n0, w0, v0 float64
	for _, s := range serps {
		a1, s1 := truth[s.docs[0]].Attr, truth[s.docs[0]].Sat
		a2 := truth[s.docs[1]].Attr
		p1 := a1
		p2 := (1 - a1*s1) * 0.8 * a2
		p0 := (1 - a1) * (1 - 0.8*a2)
		w1, v1 = w1+p1, v1+p1*(1-p1)
		w2, v2 = w2+p2, v2+p2*(1-p2)
		w0, v0 = w0+p0, v0+p0*(1-p0)
		if s.clicks[0] {
			c1++
		}
		if s.clicks[1] {
			c2++
		}
		if !s.clicks[0] && !s.clicks[1] {
			n0++
		}
	}
	for _, c := range []struct {
		what            string
		got, want, var_ float64
	}{{"clicks at rank 1", c1, w1, v1}, {"clicks at rank 2", c2, w2, v2}, {"no click at ranks 1-2", n0, w0, v0}} {
		if math.Abs(c.got-c.want) > 3*math.Sqrt(c.var_) {
			t.Errorf("%s: %v, want %.1f +- %.1f", c.what, c.got, c.want, 3*math.Sqrt(c.var_))
		}
	}
	if st.ClicklessSERP == 0 || st.Perturbed < 11000 || st.Perturbed > 13000 {
		t.Errorf("counts %+v: want click-less SERPs and about 30%% of 40,000 perturbed", st)
	}
	for _, p := range truth {
		if p.Relevance != p.Attr*p.Sat {
			t.Fatalf("DBN relevance of %s is %v, want a*s = %v", p.Doc, p.Relevance, p.Attr*p.Sat)
		}
	}
}

// TestSeeded: the same seed writes the same bytes; another seed does not.
func TestSeeded(t *testing.T) {
	run := func(seed uint64) []byte {
		var b bytes.Buffer
		if _, _, err := Simulate(context.Background(), Default(DBN, 500, 20, seed), &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if !bytes.Equal(run(7), run(7)) {
		t.Error("seed 7 twice: different logs")
	}
	if bytes.Equal(run(7), run(8)) {
		t.Error("seeds 7 and 8: the same log")
	}
}

// TestZipfQueries: query 1 is the most popular, query 1's share of the
// SERPs is near the Zipf law's 1 / sum_{k=1}^{50} (k + 1)^-1.1 (rand's
// Zipf with v = 1: P(k) proportional to (v + k)^-s, k from 0).
func TestZipfQueries(t *testing.T) {
	var b bytes.Buffer
	if _, _, err := Simulate(context.Background(), Default(UBM, 20000, 50, 5), &b); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	sc := bufio.NewScanner(&b)
	for sc.Scan() {
		if f := strings.Split(sc.Text(), "\t"); f[2] == "Q" {
			count[f[3]]++
		}
	}
	var z float64
	for k := range 50 {
		z += math.Pow(float64(k+1), -1.1)
	}
	want := 20000 / z
	if got := float64(count["1"]); math.Abs(got-want) > 4*math.Sqrt(want) {
		t.Errorf("query 1 in %v SERPs, want %.0f", got, want)
	}
	for q, n := range count {
		if n > count["1"] {
			t.Errorf("query %s (%d SERPs) more popular than query 1 (%d)", q, n, count["1"])
		}
	}
}

// TestBadConfig: configurations the simulator cannot draw are errors.
func TestBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Model: "pbm", SERPs: 1, Queries: 1},
		{Model: UBM, SERPs: 0, Queries: 1},
		{Model: UBM, SERPs: 1, Queries: 1, Ranks: 10, Pool: 5},
		{Model: UBM, SERPs: 1, Queries: 1, ZipfS: 0.5},
		{Model: DBN, SERPs: 1, Queries: 1, Continuation: 1.5},
		{Model: PSCM, SERPs: 1, Queries: 1, Return: 1.5},
		{Model: PSCM, SERPs: 1, Queries: 1, ReturnExam: -0.5},
	} {
		if _, _, err := Simulate(context.Background(), c, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// readOrders parses the Yandex lines Simulate writes into the documents of
// every SERP and its clicked ranks (0-based) in the order of the click
// lines, which is the order of the clicks (times 1, 2, ...).
func readOrders(t *testing.T, b []byte) (docs [][]string, orders [][]int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch f[2] {
		case "Q":
			docs = append(docs, f[5:])
			orders = append(orders, nil)
		case "C":
			s := len(docs) - 1
			if want := strconv.Itoa(len(orders[s]) + 1); f[1] != want {
				t.Fatalf("click line %q: time %s, want %s", sc.Text(), f[1], want)
			}
			for r, d := range docs[s] {
				if d == f[3] {
					orders[s] = append(orders[s], r)
				}
			}
		}
	}
	return docs, orders
}

// TestPSCMClicks checks PSCM's user against the package documentation's
// definition on SERPs of three results (every list a permutation of the
// query's three documents), with the probability of six click sequences
// written out by hand. With a_r the attractiveness of the document at
// rank r, g(r, p) the examination going down from a click at p (0: the
// start) and u(r, p) going up, rho = 0.4 the return probability:
//
//	no click:   (1 - a1 g(1,0)) (1 - a2 g(2,0)) (1 - a3 g(3,0))
//	3:          (1 - a1 g(1,0)) (1 - a2 g(2,0)) a3 g(3,0) [rho (1 - a2 u(2,3)) (1 - a1 u(1,3)) + 1 - rho]
//	1, 2:       a1 g(1,0) a2 g(2,1) (1 - a3 g(3,2))   (nothing above 1 to return to; 1 is not examined again from 2)
//	3, 1:       (1 - a1 g(1,0)) (1 - a2 g(2,0)) a3 g(3,0) rho (1 - a2 u(2,3)) a1 u(1,3) (1 - a2 g(2,1))
//	2, 1, 3:    (1 - a1 g(1,0)) a2 g(2,0) rho a1 u(1,2) a3 g(3,1)   (2 is skipped going down from 1)
//	1, 3, 2:    a1 g(1,0) (1 - a2 g(2,1)) a3 g(3,1) rho a2 u(2,3)
//
// g(r, p) = e / (1 + 0.45 (r - p - 1)), e = 0.95 at the start and 0.85
// after a click; u(r, p) = 0.7 / (1 + 0.45 (p - r - 1)). Summed over the
// log, each sequence's count is within 4 standard errors of its expected
// count; the counts of the simulation agree with the log.
func TestPSCMClicks(t *testing.T) {
	cfg := Config{Model: PSCM, SERPs: 40000, Queries: 30, Seed: 9, Ranks: 3, Pool: 3}
	var b bytes.Buffer
	truth, st, err := Simulate(context.Background(), cfg, &b)
	if err != nil {
		t.Fatal(err)
	}
	attr := map[string]float64{}
	for _, p := range truth {
		attr[p.Doc] = p.Attr
		if p.Relevance != p.Attr {
			t.Fatalf("PSCM relevance of %s is %v, want the attractiveness %v", p.Doc, p.Relevance, p.Attr)
		}
	}
	g := func(r, p int) float64 {
		e := 0.95
		if p > 0 {
			e = 0.85
		}
		return e / (1 + 0.45*float64(r-p-1))
	}
	u := func(r, p int) float64 { return 0.7 / (1 + 0.45*float64(p-r-1)) }
	const rho = 0.4
	seqs := []struct {
		order string
		p     func(a1, a2, a3 float64) float64
	}{
		{"", func(a1, a2, a3 float64) float64 { return (1 - a1*g(1, 0)) * (1 - a2*g(2, 0)) * (1 - a3*g(3, 0)) }},
		{"3", func(a1, a2, a3 float64) float64 {
			return (1 - a1*g(1, 0)) * (1 - a2*g(2, 0)) * a3 * g(3, 0) * (rho*(1-a2*u(2, 3))*(1-a1*u(1, 3)) + 1 - rho)
		}},
		{"1 2", func(a1, a2, a3 float64) float64 { return a1 * g(1, 0) * a2 * g(2, 1) * (1 - a3*g(3, 2)) }},
		{"3 1", func(a1, a2, a3 float64) float64 {
			return (1 - a1*g(1, 0)) * (1 - a2*g(2, 0)) * a3 * g(3, 0) * rho * (1 - a2*u(2, 3)) * a1 * u(1, 3) * (1 - a2*g(2, 1))
		}},
		{"2 1 3", func(a1, a2, a3 float64) float64 {
			return (1 - a1*g(1, 0)) * a2 * g(2, 0) * rho * a1 * u(1, 2) * a3 * g(3, 1)
		}},
		{"1 3 2", func(a1, a2, a3 float64) float64 {
			return a1 * g(1, 0) * (1 - a2*g(2, 1)) * a3 * g(3, 1) * rho * a2 * u(2, 3)
		}},
	}
	docs, orders := readOrders(t, b.Bytes())
	if len(docs) != cfg.SERPs {
		t.Fatalf("%d SERPs read, want %d", len(docs), cfg.SERPs)
	}
	count, want, variance := make([]float64, len(seqs)), make([]float64, len(seqs)), make([]float64, len(seqs))
	multi, outOfOrder := 0, 0
	for s, ds := range docs {
		var key []string
		for _, r := range orders[s] {
			key = append(key, strconv.Itoa(r+1))
		}
		if len(orders[s]) > 1 {
			multi++
			for i := 1; i < len(orders[s]); i++ {
				if orders[s][i] < orders[s][i-1] {
					outOfOrder++
					break
				}
			}
		}
		k := strings.Join(key, " ")
		for i, sq := range seqs {
			p := sq.p(attr[ds[0]], attr[ds[1]], attr[ds[2]])
			want[i] += p
			variance[i] += p * (1 - p)
			if k == sq.order {
				count[i]++
			}
		}
	}
	for i, sq := range seqs {
		if sd := math.Sqrt(variance[i]); math.Abs(count[i]-want[i]) > 4*sd {
			t.Errorf("click sequence %q: %v SERPs, want %.1f +- %.1f", sq.order, count[i], want[i], 4*sd)
		}
	}
	if st.MultiClick != multi || st.OutOfOrder != outOfOrder || outOfOrder == 0 {
		t.Errorf("counts %+v: the log has %d SERPs with two clicks or more, %d of them out of rank order (want some)", st, multi, outOfOrder)
	}
}

// TestPSCMNoReturns: without returns no SERP is clicked out of rank order,
// and the default configuration's returns make about 30% of the SERPs
// with two clicks or more out of order (the package documentation).
func TestPSCMNoReturns(t *testing.T) {
	c := Default(PSCM, 20000, 2000, 2)
	_, st, err := Simulate(context.Background(), c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if share := float64(st.OutOfOrder) / float64(st.MultiClick); share < 0.25 || share > 0.35 {
		t.Errorf("with returns: %d of %d SERPs with two clicks or more out of order (%.3f), want about 0.3", st.OutOfOrder, st.MultiClick, share)
	}
	c.NoReturns = true
	if _, st, err = Simulate(context.Background(), c, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st.OutOfOrder != 0 || st.MultiClick == 0 {
		t.Errorf("without returns: %d of %d SERPs with two clicks or more out of order, want 0", st.OutOfOrder, st.MultiClick)
	}
}
