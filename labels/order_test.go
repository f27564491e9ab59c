package labels

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// millerOrder is P(X > Y), X ~ Beta(a1, b1), Y ~ Beta(a2, b2), a1 a whole
// number, by the closed form of Evan Miller ("Formulas for Bayesian A/B
// testing", 2015): the sum over i < a1 of
// B(a2 + i, b1 + b2) / ((b1 + i) B(1 + i, b1) B(a2, b2)).
func millerOrder(a1, b1, a2, b2 float64) float64 {
	lb := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	s := 0.0
	for i := 0.0; i < a1; i++ {
		s += math.Exp(lb(a2+i, b1+b2) - math.Log(b1+i) - lb(1+i, b1) - lb(a2, b2))
	}
	return s
}

// TestOrderConfidence checks P(X > Y) against hand computations: Beta(2,
// 1) (density 2x) against the uniform, integral of 2x * x = 2/3; against
// Beta(1, 2) (CDF 2y - y^2), integral of 2x (2x - x^2) = 4/3 - 1/2 = 5/6;
// equal posteriors 1/2; and against Evan Miller's closed form for wider
// and for sharp posteriors (concentrations 8 and 1000), both ways round.
func TestOrderConfidence(t *testing.T) {
	for _, c := range []struct {
		x, y Posterior
		want float64
	}{
		{Posterior{2, 1}, Posterior{1, 1}, 2.0 / 3},
		{Posterior{1, 1}, Posterior{2, 1}, 1.0 / 3},
		{Posterior{2, 1}, Posterior{1, 2}, 5.0 / 6},
		{Posterior{3.5, 2.5}, Posterior{3.5, 2.5}, 0.5},
		{Posterior{3, 5}, Posterior{4, 4}, millerOrder(3, 5, 4, 4)},
		{Posterior{4, 4}, Posterior{3, 5}, millerOrder(4, 4, 3, 5)},
		{Posterior{480, 520}, Posterior{50, 50}, millerOrder(480, 520, 50, 50)},
		{Posterior{50, 50}, Posterior{480, 520}, millerOrder(50, 50, 480, 520)},
		{Posterior{12, 988}, Posterior{1, 60}, millerOrder(12, 988, 1, 60)},
	} {
		got := OrderConfidence(c.x, c.y)
		if math.Abs(got-c.want) > 1e-5 { // measured: at most 4e-6
			t.Errorf("P(%v > %v) = %.9f, hand %.9f", c.x, c.y, got, c.want)
		}
	}
	if !math.IsNaN(OrderConfidence(Posterior{}, Posterior{1, 1})) {
		t.Error("no posterior: want NaN")
	}
}

// TestOrderAgreement: a query of three labels, a (label 2, Beta(2, 1)), b
// (label 1, uniform) and c (label 1, Beta(1, 2)), and d without a
// posterior. The pairs with different labels are (a, b) and (a, c), with
// order confidences 2/3 and 5/6 (TestOrderConfidence); the query's expected
// agreement is their mean, 3/4. A query whose labels are equal has none.
func TestOrderAgreement(t *testing.T) {
	ls := []Label{
		{Query: "q", Term: "b", Grade: 1, Post: Posterior{1, 1}},
		{Query: "q", Term: "a", Grade: 2, Post: Posterior{2, 1}},
		{Query: "q", Term: "c", Grade: 1, Post: Posterior{1, 2}},
		{Query: "q", Term: "d", Grade: 4},
		{Query: "r", Term: "x", Grade: 0, Post: Posterior{1, 1}},
		{Query: "r", Term: "y", Grade: 0, Post: Posterior{2, 1}},
	}
	qs, ps := OrderAgreements(ls)
	if len(qs) != 2 || len(ps) != 2 {
		t.Fatalf("queries %+v, pairs %+v", qs, ps)
	}
	if q := qs[0]; q.Query != "q" || q.Labels != 3 || q.Pairs != 2 || math.Abs(q.Expected-0.75) > 1e-5 {
		t.Errorf("query q: %+v, want 3 labels, 2 pairs, expected 0.75", q)
	}
	if p := ps[0]; p.High != "a" || p.Low != "b" || p.HighLabel != 2 || p.LowLabel != 1 || math.Abs(p.Confidence-2.0/3) > 1e-5 {
		t.Errorf("pair 1 %+v, want a over b at 2/3", p)
	}
	if p := ps[1]; p.High != "a" || p.Low != "c" || math.Abs(p.Confidence-5.0/6) > 1e-5 {
		t.Errorf("pair 2 %+v, want a over c at 5/6", p)
	}
	if q := qs[1]; q.Query != "r" || q.Pairs != 0 || !math.IsNaN(q.Expected) {
		t.Errorf("query r: %+v, want no pairs, NaN", q)
	}
}

// TestRunWritesOrder: label writes the order files beside the labels. One
// query of three results with posteriors Beta(2, 1) (relevance 0.8, label
// 4), uniform (0.46, label 1) and Beta(1, 2) (0.3, label 0): the pairs'
// order confidences are 2/3, 5/6 and P(U > Beta(1, 2)) = integral of
// 2x - x^2 = 2/3, so the expected agreement is (2/3 + 5/6 + 2/3) / 3 =
// 13/18.
func TestRunWritesOrder(t *testing.T) {
	dir := t.TempDir()
	lp, rp := filepath.Join(dir, "log.tsv"), filepath.Join(dir, "rel.tsv")
	os.WriteFile(lp, []byte("s1\t0\tQ\tq\t0\td0\td1\td2\ns1\t1\tC\td0\n"), 0o644)
	os.WriteFile(rp, []byte(RelevanceHeaderIntervals+"\nq\td0\t0.8\t0.1\t0.9\t2\t1\nq\td1\t0.46\t0.1\t0.9\t1\t1\nq\td2\t0.3\t0.1\t0.9\t1\t2\n"), 0o644)
	out := filepath.Join(dir, "labels.csv")
	rep, err := Run(context.Background(), Config{Relevance: rp, Sessions: lp, Out: out, Options: Options{SERPSize: 3}})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Order
	if o == nil || o.Queries != 1 || o.WithPairs != 1 || o.Pairs != 3 || math.Abs(o.MeanAgreement-13.0/18) > 1e-5 || o.QueryFile != "labels.query_order.csv" {
		t.Fatalf("order summary %+v", o)
	}
	f, err := os.Open(filepath.Join(dir, "labels.query_order.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qa, err := ReadQueryOrder(f, "labels.query_order.csv")
	if err != nil || len(qa) != 1 || math.Abs(qa["q"]-13.0/18) > 1e-5 {
		t.Errorf("query order %v, %v; want q: 13/18", qa, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "labels.pair_order.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != PairOrderHeader || !strings.HasPrefix(lines[1], "q,d0,d1,4,1,0.66666") || !strings.HasPrefix(lines[2], "q,d0,d2,4,0,0.83333") || !strings.HasPrefix(lines[3], "q,d1,d2,1,0,0.66666") {
		t.Errorf("pair order file:\n%s", b)
	}
}

// BenchmarkOrderAgreement: one query of ten labels with different
// posteriors and grades 0..4 (45 pairs, 36 with different labels).
// Measured on the shared 2-core machine (go test -run XXX -bench
// OrderAgreement -benchtime 2s ./labels): 2.8 ms per query, two thirds
// of it in the quantiles (gonum's InvRegIncBeta, 48 per label); 32 nodes
// take 2.1 ms but err by up to 9e-6.
func BenchmarkOrderAgreement(b *testing.B) {
	var ls []Label
	for i := range 10 {
		ls = append(ls, Label{Query: "q", Term: string(rune('a' + i)), Grade: i % 5, Post: Posterior{Alpha: 1 + float64(i)*3.7, Beta: 2 + float64(9-i)*2.9}})
	}
	for b.Loop() {
		OrderAgreement(ls)
	}
}

// BenchmarkOrderAgreementsSparse: 400 queries of ten labels whose
// posteriors come from 40 (the same evidence in the same prior cell, as
// on a sparse log), grades by the posterior's mean, through one rule as
// `lovbench label` computes them (orderWriter: one rule per run).
func BenchmarkOrderAgreementsSparse(b *testing.B) {
	qs := make([][]Label, 400)
	for q := range qs {
		for i := range 10 {
			k := (q*7 + i*13) % 40
			p := Posterior{Alpha: 1 + float64(k%8)*1.3, Beta: 2 + float64(k/8)*2.1}
			qs[q] = append(qs[q], Label{Query: strconv.Itoa(q), Term: string(rune('a' + i)), Grade: min(int(5*p.Alpha/(p.Alpha+p.Beta)), 4), Post: p})
		}
	}
	for b.Loop() {
		r := newOrderRule()
		for _, ls := range qs {
			r.agreement(ls)
		}
	}
}
