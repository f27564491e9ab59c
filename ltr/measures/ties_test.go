package measures

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Hand computations for a tie group straddling the cutoff: ranked labels
// 2 | 1 0 (the last two tied), and a group of three at the top.
func TestExpectedHand(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", name, got, want)
		}
	}
	// DCG@2 of [2,1,0] with 1 and 0 tied: rank 1 gains 3; rank 2 gains 1 or 0
	// with probability 1/2 each: 3 + 0.5/log2(3).
	near("ExpectedDCG", ExpectedDCG([]float64{2, 1, 0}, []int{1, 2}, 2), 3+0.5/math.Log2(3))
	// The ideal DCG@2 is 3 + 1/log2(3).
	near("ExpectedNDCG", ExpectedNDCG([]float64{2, 1, 0}, []int{1, 2}, 2), (3+0.5/math.Log2(3))/(3+1/math.Log2(3)))
	// ERR@2 of the tied group {2,1,0} (R = 3/16, 1/16, 0): the six orders'
	// first two labels, each (1/1) R1 + (1/2) (1-R1) R2.
	r2, r1 := 3.0/16, 1.0/16
	orders := []float64{
		r2 + (1-r2)*r1/2, // 2 1
		r2,               // 2 0
		r1 + (1-r1)*r2/2, // 1 2
		r1,               // 1 0
		r2 / 2,           // 0 2
		r1 / 2,           // 0 1
	}
	want := 0.0
	for _, v := range orders {
		want += v / 6
	}
	near("ExpectedERR", ExpectedERR([]float64{2, 1, 0}, []int{3}, 2), want)
	// AP of [1,0 | 1] with the first two tied: orders 1 0 1 (AP (1 + 2/3)/2
	// = 5/6) and 0 1 1 (AP (1/2 + 2/3)/2 = 7/12); mean 17/24.
	near("ExpectedAP", ExpectedAP([]float64{1, 0, 1}, []int{2, 1}, 1), 17.0/24)
	// A relevant item among three tied, cutoff 1: hit 1/3, RR 1/3; cutoff 2:
	// hit 2/3, RR 1/3 + (2/3)(1/2)(1/2) = 1/2.
	rel := []bool{false, true, false}
	near("expectedHit@1", expectedHit(rel, []int{3}, 1), 1.0/3)
	near("expectedHit@2", expectedHit(rel, []int{3}, 2), 2.0/3)
	near("expectedRR@2", expectedRR(rel, []int{3}, 2), 0.5)
}

func TestOrderTies(t *testing.T) {
	g := []float64{3, 0, 2, 0, 1}
	idx := []int{0, 1, 2, 3, 4}
	OrderTies(g, []int{1, 3, 1}, TiesOptimistic, idx)
	if want := []float64{3, 2, 0, 0, 1}; !equalF(g, want) || idx[1] != 2 || idx[2] != 1 || idx[3] != 3 {
		t.Errorf("optimistic: %v %v", g, idx)
	}
	OrderTies(g, []int{1, 3, 1}, TiesPessimistic, idx)
	if want := []float64{3, 0, 0, 2, 1}; !equalF(g, want) || idx[1] != 1 || idx[2] != 3 || idx[3] != 2 {
		t.Errorf("pessimistic: %v %v", g, idx)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The exact expectations equal the mean over every order of the tie
// groups, enumerated, of the plain measures.
func TestExpectedMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(7)
		labels := make([]float64, n)
		for i := range labels {
			labels[i] = float64(rng.IntN(5))
		}
		var groups []int
		for s := 0; s < n; {
			m := min(n-s, 1+rng.IntN(4))
			groups = append(groups, m)
			s += m
		}
		k := rng.IntN(n + 2) // 0: whole list
		var sum [6]float64
		count := 0
		starts := []int{0}
		for _, m := range groups {
			starts = append(starts, starts[len(starts)-1]+m)
		}
		// Enumerate permutations group by group.
		var perms func(gi int, cur []float64)
		perms = func(gi int, cur []float64) {
			if gi == len(groups) {
				count++
				rel := make([]bool, n)
				for i, l := range cur {
					rel[i] = l >= 2
				}
				sum[0] += NDCG(cur, k)
				sum[1] += ERR(cur, k)
				sum[2] += AP(cur, 2)
				hit, rr, c := 0.0, 0.0, cutoff(k, n)
				for i := 0; i < c; i++ {
					if rel[i] {
						hit, rr = 1, 1/float64(i+1)
						break
					}
				}
				sum[3] += hit
				sum[4] += rr
				ap := 0.0
				h := 0
				for i := 0; i < c; i++ {
					if rel[i] {
						h++
						ap += float64(h) / float64(i+1)
					}
				}
				sum[5] += ap
				return
			}
			s, e := starts[gi], starts[gi+1]
			var permute func(i int)
			permute = func(i int) {
				if i == e {
					perms(gi+1, cur)
					return
				}
				for j := i; j < e; j++ {
					cur[i], cur[j] = cur[j], cur[i]
					permute(i + 1)
					cur[i], cur[j] = cur[j], cur[i]
				}
			}
			permute(s)
		}
		perms(0, append([]float64(nil), labels...))
		rel := make([]bool, n)
		for i, l := range labels {
			rel[i] = l >= 2
		}
		got := []float64{ExpectedNDCG(labels, groups, k), ExpectedERR(labels, groups, k), ExpectedAP(labels, groups, 2),
			expectedHit(rel, groups, cutoff(k, n)), expectedRR(rel, groups, cutoff(k, n)), expectedAPSum(rel, groups, cutoff(k, n))}
		for i, name := range []string{"NDCG", "ERR", "AP", "hit", "RR", "AP sum"} {
			if want := sum[i] / float64(count); math.Abs(got[i]-want) > 1e-12 {
				t.Fatalf("labels %v groups %v k %d: expected %s %.15g, enumeration %.15g", labels, groups, k, name, got[i], want)
			}
		}
	}
}

// lovbench eval with each tie rule on a query whose tie group straddles
// the cutoff 2 and a query whose two documents are tied at the top.
func TestEvaluateTies(t *testing.T) {
	qrels := "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 0\n2 0 x 1\n2 0 y 0\n"
	run := "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 2 r\n1 Q0 d 4 2 r\n2 Q0 x 1 1 r\n2 Q0 y 2 1 r\n"
	q, err := ParseQrels(strings.NewReader(qrels), "q")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRun(strings.NewReader(run), "r")
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := ParseMeasures("ndcg@2,map,p@2,mrr,hr@1,err@1")
	l3 := math.Log2(3)
	ideal := 3 + 1/l3 // query 1: gains 3 and 1 in the top 2
	// docid rule: query 1 ranks a, d, c, b (ties docid descending), query 2 y, x.
	// optimistic: a, c, d, b and x, y; pessimistic: a, d, b, c and y, x.
	// average: query 1's rank 2 holds c with probability 1/3; c is at rank
	// 2, 3 or 4 with probability 1/3 each; query 2's x is first with 1/2.
	want := map[Ties]map[string][2]float64{
		TiesDocID:       {"ndcg@2": {3 / ideal, 1 / l3}, "map": {(1 + 2.0/3) / 2, 0.5}, "p@2": {0.5, 0.5}, "mrr": {1, 0.5}, "hr@1": {1, 0}, "err@1": {3.0 / 16, 0}},
		TiesOptimistic:  {"ndcg@2": {1, 1}, "map": {1, 1}, "p@2": {1, 0.5}, "mrr": {1, 1}, "hr@1": {1, 1}, "err@1": {3.0 / 16, 1.0 / 16}},
		TiesPessimistic: {"ndcg@2": {3 / ideal, 1 / l3}, "map": {(1 + 2.0/4) / 2, 0.5}, "p@2": {0.5, 0.5}, "mrr": {1, 0.5}, "hr@1": {1, 0}, "err@1": {3.0 / 16, 0}},
		TiesAverage: {"ndcg@2": {(3 + 1.0/3/l3) / ideal, (0.5 + 0.5/l3) / 1}, "map": {(1 + (1+2.0/3+0.5)/3) / 2, 0.75},
			"p@2": {(1 + 1.0/3) / 2, 0.5}, "mrr": {1, 0.75}, "hr@1": {1, 0.5}, "err@1": {3.0 / 16, 1.0 / 32}},
	}
	for ties, w := range want {
		opts := DefaultOptions()
		opts.Measures = ms
		opts.Ties = ties
		res, err := Evaluate(context.Background(), q, r, opts)
		if err != nil {
			t.Fatal(ties, err)
		}
		for m, v := range w {
			for i, qid := range []string{"1", "2"} {
				got, _ := res.Value(m, qid)
				if math.Abs(got-v[i]) > 1e-12 {
					t.Errorf("ties %s, %s, query %s: %.15g, want %.15g", ties, m, qid, got, v[i])
				}
			}
		}
	}
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("ndcg@10,q")
	opts.Ties = TiesAverage
	if _, err := Evaluate(context.Background(), q, r, opts); err == nil || !strings.Contains(err.Error(), "measure q") {
		t.Errorf("average ties with the Q-measure: %v, want an error naming the measure", err)
	}
}
