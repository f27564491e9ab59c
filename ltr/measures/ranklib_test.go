package measures

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// labels [3 2 3 0 1 2]:
//
//	gains 2^g-1:     7 3 7 0 1 3
//	log2(i+1):       1 1.5849625 2 2.3219281 2.5849625 2.8073549
//	DCG@6 = 7 + 1.8927893 + 3.5 + 0 + 0.3868528 + 1.0686216 = 13.8482637
//	ideal 3 3 2 2 1 0:
//	IDCG@6 = 7 + 4.4165084 + 1.5 + 1.2920297 + 0.3868528 + 0 = 14.5953909
//	NDCG@6 = 13.8482637 / 14.5953909 = 0.9488102
//	DCG@3 = 12.3927893, IDCG@3 = 12.9165084, NDCG@3 = 0.9594534
func TestDCGNDCGHand(t *testing.T) {
	l := []float64{3, 2, 3, 0, 1, 2}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"DCG@6", DCG(l, 6), 13.8482637},
		{"DCG@all", DCG(l, 0), 13.8482637},
		{"DCG@100", DCG(l, 100), 13.8482637},
		{"DCG@3", DCG(l, 3), 12.3927893},
		{"NDCG@6", NDCG(l, 6), 0.9488102},
		{"NDCG@all", NDCG(l, -1), 0.9488102},
		{"NDCG@3", NDCG(l, 3), 0.9594534},
		{"NDCG@1", NDCG(l, 1), 1},
		{"NDCG no relevant", NDCG([]float64{0, 0, 0}, 10), 0},
		{"NDCG empty", NDCG(nil, 10), 0},
	}
	for _, c := range cases {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	// NDCG does not reorder its argument.
	if l[0] != 3 || l[3] != 0 {
		t.Errorf("NDCG modified its input: %v", l)
	}
}

// labels [3 2 0 1], R(g) = (2^g-1)/16: 7/16, 3/16, 0, 1/16
//
//	ERR = 0.4375/1 + 0.5625*0.1875/2 + 0 + 0.5625*0.8125*0.0625/4
//	    = 0.4375 + 0.052734375 + 0.0071411133 = 0.4973754883
//	ERR@2 = 0.490234375
func TestERRHand(t *testing.T) {
	l := []float64{3, 2, 0, 1}
	if got := ERR(l, 0); !near(got, 0.4973754883, 1e-9) {
		t.Errorf("ERR = %.10f, want 0.4973754883", got)
	}
	if got := ERR(l, 2); !near(got, 0.490234375, 1e-12) {
		t.Errorf("ERR@2 = %.10f, want 0.490234375", got)
	}
	// A grade-4 item first: R = 15/16.
	if got := ERR([]float64{4}, 10); got != 15.0/16 {
		t.Errorf("ERR([4]) = %v, want 0.9375", got)
	}
	// Grades above 4 are clamped to 4.
	if got := ERR([]float64{6, 4}, 10); got != ERR([]float64{4, 4}, 10) {
		t.Errorf("ERR([6 4]) = %v, want ERR([4 4]) = %v", got, ERR([]float64{4, 4}, 10))
	}
}

// labels [1 0 2 0 0 1]:
//
//	relevant >= 1 at ranks 1, 3, 6: AP = (1/1 + 2/3 + 3/6) / 3 = 0.7222222
//	relevant >= 2 at rank 3 only:   AP = (1/3) / 1 = 0.3333333
func TestAPHand(t *testing.T) {
	l := []float64{1, 0, 2, 0, 0, 1}
	if got := AP(l, 1); !near(got, 0.7222222, 1e-6) {
		t.Errorf("AP(>=1) = %.7f, want 0.7222222", got)
	}
	if got := AP(l, 2); !near(got, 1.0/3, 1e-12) {
		t.Errorf("AP(>=2) = %.7f, want 0.3333333", got)
	}
	if got := AP([]float64{0, 0}, 1); got != 0 {
		t.Errorf("AP without relevant = %v, want 0", got)
	}
}
