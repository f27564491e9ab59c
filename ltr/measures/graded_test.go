package measures

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The rankings of Table 1 of papers/retrieval-correctness-measures.md; the
// numbers are gain values (identity gain), the list has |L| = 9 items and
// |R| = 3 relevant ones.
var table1 = [][]float64{
	{10, 6, 3, 0, 0, 0, 0, 0, 0}, // R1
	{10, 3, 6, 0, 0, 0, 0, 0, 0}, // R2
	{6, 10, 3, 0, 0, 0, 0, 0, 0}, // R3
	{3, 6, 10, 0, 0, 0, 0, 0, 0}, // R4
	{0, 0, 0, 3, 6, 10, 0, 0, 0}, // R5
	{0, 0, 0, 0, 0, 10, 6, 3, 0}, // R6
	{0, 0, 0, 0, 0, 0, 10, 6, 3}, // R7
}

// TestPaperTables1And2 reproduces, to two decimals, every row of Tables 1
// and 2 of papers/retrieval-correctness-measures.md.
func TestPaperTables1And2(t *testing.T) {
	ideal := idealGains(table1[0], IdentityGain)
	rows := []struct {
		name string
		f    func(g []float64) float64
		want [7]float64
	}{
		// Table 1.
		{"AveP", func(g []float64) float64 { return AP(g, 1) }, [7]float64{1.00, 1.00, 1.00, 1.00, 0.38, 0.28, 0.24}},
		{"NDCG9(sqrt i)", func(g []float64) float64 { return GradedNDCG(g, ideal, 9, SqrtDiscount) }, [7]float64{1.00, 0.98, 0.93, 0.81, 0.52, 0.46, 0.43}},
		{"AWP", func(g []float64) float64 { return AWP(g, ideal) }, [7]float64{1.00, 0.94, 0.87, 0.62, 0.54, 0.79, 0.79}},
		{"Q-measure(beta=1)", func(g []float64) float64 { return QMeasure(g, ideal, 1) }, [7]float64{1.00, 0.94, 0.88, 0.66, 0.50, 0.65, 0.63}},
		{"GenAveP", func(g []float64) float64 { return GenAveP(g, ideal) }, [7]float64{1.00, 0.94, 0.84, 0.57, 0.23, 0.26, 0.23}},
		{"AWDP(sqrt i)", func(g []float64) float64 { return AWDP(g, ideal, SqrtDiscount) }, [7]float64{1.00, 0.94, 0.81, 0.54, 0.29, 0.37, 0.35}},
		{"tau'", func(g []float64) float64 { return TauPrime(g, ideal) }, [7]float64{1.00, 0.97, 0.97, 0.92, 0.67, 0.58, 0.50}},
		// Table 2.
		{"ANCG", func(g []float64) float64 { return ANCG(g, ideal) }, [7]float64{1.00, 0.98, 0.96, 0.87, 0.51, 0.37, 0.26}},
		{"GenAveP'", func(g []float64) float64 { return GenAvePPrime(g, ideal) }, [7]float64{1.00, 0.97, 0.91, 0.76, 0.30, 0.20, 0.13}},
		{"ANDCG(sqrt i)", func(g []float64) float64 { return ANDCG(g, ideal, SqrtDiscount) }, [7]float64{1.00, 0.96, 0.89, 0.72, 0.27, 0.18, 0.12}},
	}
	for _, row := range rows {
		for j, r := range table1 {
			got := row.f(r)
			if math.Round(got*100)/100 != row.want[j] {
				t.Errorf("%s(R%d) = %.4f, paper says %.2f", row.name, j+1, got, row.want[j])
			}
		}
	}
}

// Hand computations with the exponential gain and a list shorter than the
// judged set: grades (2, 0, 1), judged grades {2, 1, 1, 0}.
//
//	gains 3 0 1, ideal 3 1 1 0, |R| = 3, |L| = 3
//	CG  = 3 3 4, ICG = 3 4 5
//	AWP = (3/3 + 4/5)/3 = 0.6
//	ANCG = (1 + 3/4 + 4/5)/3 = 0.85
//	Q(beta=1) = ((3+1)/(3+1) + (4+2)/(5+3))/3 = (1 + 0.75)/3 = 0.5833333
//	GenAveP  = (3/1 + 4/3) / (3/1 + 4/2 + 5/3) = 4.3333333/6.6666667 = 0.65
//	GenAveP' = (3 + 3/2 + 4/3) / (3 + 4/2 + 5/3) = 5.8333333/6.6666667 = 0.875
//	tau': ranking 3 0 1 then the missed 1: (3,0,1,1); discordant pairs
//	(0,1),(0,1) = 2 of 6, tau' = 1 - 2/6 = 0.6666667
//	NDCG(log2) whole list: DCG = 3 + 0 + 1/2 = 3.5,
//	IDCG = 3 + 1/log2(3) + 1/2 + 0 = 4.1309298, NDCG = 0.8472669
func TestGradedHandExp(t *testing.T) {
	gains := []float64{ExpGain(2), ExpGain(0), ExpGain(1)}
	ideal := idealGains([]float64{1, 2, 0, 1}, ExpGain)
	cases := []struct {
		name      string
		got, want float64
	}{
		{"AWP", AWP(gains, ideal), 0.6},
		{"ANCG", ANCG(gains, ideal), 0.85},
		{"Q", QMeasure(gains, ideal, 1), 0.5833333},
		{"GenAveP", GenAveP(gains, ideal), 0.65},
		{"GenAveP'", GenAvePPrime(gains, ideal), 0.875},
		{"tau'", TauPrime(gains, ideal), 0.6666667},
		{"NDCG", GradedNDCG(gains, ideal, 0, Log2Discount), 0.8472669},
		{"AWDP(none)=AWP", AWDP(gains, ideal, NoDiscount), 0.6},
	}
	for _, c := range cases {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
}

// Q-measure with beta = 0 is binary AveP
// (papers/graded-relevance-sws-matchmaking.md section 5).
func TestQMeasureBetaZeroIsAveP(t *testing.T) {
	for j, r := range table1 {
		ideal := idealGains(r, IdentityGain)
		if q, ap := QMeasure(r, ideal, 0), AP(r, 1e-9); !near(q, ap, 1e-12) {
			t.Errorf("R%d: Q(beta=0) = %v, AveP = %v", j+1, q, ap)
		}
	}
}

func TestNoRelevantScoresZero(t *testing.T) {
	g := []float64{0, 0}
	ideal := []float64{0, 0, 0}
	for name, v := range map[string]float64{
		"AWP": AWP(g, ideal), "ANCG": ANCG(g, ideal), "Q": QMeasure(g, ideal, 1),
		"GenAveP": GenAveP(g, ideal), "GenAveP'": GenAvePPrime(g, ideal),
		"tau'": TauPrime(g, ideal), "NDCG": GradedNDCG(g, ideal, 0, Log2Discount),
	} {
		if v != 0 {
			t.Errorf("%s without relevant items = %v, want 0", name, v)
		}
	}
}

// Discounts at rank 1 and 4 written out: log2(5) = 2.3219281,
// logb:3 at rank 4 = log3(6) = 1.6309298, original:2 at rank 2 = 1 and at
// rank 4 = 2.
func TestDiscounts(t *testing.T) {
	lb3, _ := ParseDiscount("logb:3")
	or2, _ := ParseDiscount("original:2")
	cases := []struct {
		name      string
		got, want float64
	}{
		{"log2(1+1)", Log2Discount(1), 1},
		{"log2(4+1)", Log2Discount(4), 2.3219281},
		{"sqrt(4)", SqrtDiscount(4), 2},
		{"logb:3 rank 1", lb3(1), 1},
		{"logb:3 rank 4", lb3(4), 1.6309298},
		{"original:2 rank 2", or2(2), 1},
		{"original:2 rank 1", or2(1), 1},
		{"original:2 rank 4", or2(4), 2},
	}
	for _, c := range cases {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	for _, bad := range []string{"log", "logb:1", "logb:x", "original:", "sqrt:2"} {
		if _, err := ParseDiscount(bad); err == nil {
			t.Errorf("ParseDiscount(%q) accepted", bad)
		}
	}
}

func TestParseGain(t *testing.T) {
	g, err := ParseGain("0=0,1=1,2=5")
	if err != nil {
		t.Fatal(err)
	}
	if g(2) != 5 || g(1) != 1 || g(3) != 0 {
		t.Errorf("map gain: g(2)=%v g(1)=%v g(3)=%v", g(2), g(1), g(3))
	}
	if g, _ := ParseGain("exp"); g(3) != 7 {
		t.Errorf("exp gain of 3 = %v, want 7", g(3))
	}
	if g, _ := ParseGain("binary:2"); g(1) != 0 || g(2) != 1 {
		t.Errorf("binary:2 gain wrong")
	}
	for _, bad := range []string{"expo", "1=", "1=-1", "a=1", "1=1,1=2", "binary:x"} {
		if _, err := ParseGain(bad); err == nil {
			t.Errorf("ParseGain(%q) accepted", bad)
		}
	}
}

// The Fenwick-tree count of discordant pairs equals the O(n^2) count on
// seeded random gain lists with many ties.
func TestDiscordantMatchesQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 200; trial++ {
		x := make([]float64, rng.IntN(40))
		for i := range x {
			x[i] = float64(rng.IntN(5))
		}
		var want int64
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if x[i] < x[j] {
					want++
				}
			}
		}
		if got := discordant(x); got != want {
			t.Fatalf("%v: discordant = %d, want %d", x, got, want)
		}
	}
}
