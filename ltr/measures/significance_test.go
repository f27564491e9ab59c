package measures

import (
	"encoding/json"
	"strings"
	"testing"
)

// The worked example of the Holm-Bonferroni method (four hypotheses,
// p = 0.01, 0.04, 0.03, 0.005, alpha 0.05), by hand: sorted, 0.005, 0.01,
// 0.03, 0.04 are multiplied by 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04; the
// running maximum makes them 0.02, 0.03, 0.06, 0.06. Holm rejects the
// hypotheses with p 0.005 and 0.01 and stops at 0.03 (0.03 > 0.05/2).
// Bonferroni multiplies each by 4: 0.04, 0.16, 0.12, 0.02.
func TestHolmWorkedExample(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	for _, tc := range []struct {
		c    Correction
		want []float64
	}{
		{CorrectionHolm, []float64{0.03, 0.06, 0.06, 0.02}},
		{CorrectionBonferroni, []float64{0.04, 0.16, 0.12, 0.02}},
		{CorrectionNone, p},
	} {
		got := tc.c.Adjust(p)
		for i := range got {
			if !near(got[i], tc.want[i], 1e-12) {
				t.Errorf("%s: adjusted p = %v, want %v", tc.c, got, tc.want)
				break
			}
		}
	}
	// Rejections at 0.05: the first and the fourth hypothesis.
	rejected := ""
	for i, q := range CorrectionHolm.Adjust(p) {
		if q < 0.05 {
			rejected += string(rune('1' + i))
		}
	}
	if rejected != "14" {
		t.Errorf("Holm rejects hypotheses %q, want 1 and 4", rejected)
	}
	// Large p-values are capped at 1.
	if got := CorrectionHolm.Adjust([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm of 0.6, 0.7 = %v, want 1, 1", got)
	}
	if c, err := ParseCorrection(""); err != nil || c != CorrectionHolm {
		t.Errorf("default correction %q %v", c, err)
	}
	if _, err := ParseCorrection("bh"); err == nil || !strings.Contains(err.Error(), "holm, bonferroni or none") {
		t.Errorf("ParseCorrection(bh) error %v", err)
	}
}

// Student's sleep data (Cushny and Peebles 1905, the example of R's
// t.test documentation): extra hours of sleep of 10 patients under two
// drugs, paired. Differences 1.2 2.4 1.3 1.3 0 1 1.8 0.8 4.6 1.4: mean
// 1.58, sd 1.229995, t = 4.0621 with 9 degrees of freedom, and R prints the
// 95% confidence interval 0.7001142 to 2.4598858. Cohen's d_z = 1.58 /
// 1.2299955 = 1.2845576. Nine patients slept more, one the same.
func TestPairedSleepData(t *testing.T) {
	drug1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	drug2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	s := Paired(drug1, drug2)
	if s.N != 10 || !near(s.Diff, 1.58, 1e-12) {
		t.Errorf("n = %d diff = %v, want 10 and 1.58", s.N, s.Diff)
	}
	if !near(s.CILow, 0.7001142, 1e-6) || !near(s.CIHigh, 2.4598858, 1e-6) {
		t.Errorf("CI = [%.7f, %.7f], want [0.7001142, 2.4598858]", s.CILow, s.CIHigh)
	}
	if s.EffectSize == nil || !near(*s.EffectSize, 1.2845576, 1e-6) {
		t.Errorf("d_z = %v, want 1.2845576", s.EffectSize)
	}
	if s.Wins != 9 || s.Ties != 1 || s.Losses != 0 {
		t.Errorf("W/T/L = %d/%d/%d, want 9/1/0", s.Wins, s.Ties, s.Losses)
	}
	// The t-test of the same data: R's t = 4.0621, p = 0.002833.
	if tt := PairedTTest(drug1, drug2); !near(tt.T, 4.0621, 1e-4) || !near(tt.P, 0.002833, 1e-6) {
		t.Errorf("t = %v p = %v, want 4.0621 0.002833", tt.T, tt.P)
	}
	// A constant difference has no spread: no interval width, no effect
	// size (JSON null rather than an infinity JSON cannot hold).
	c := Paired([]float64{1, 2, 3}, []float64{2, 3, 4})
	if c.CILow != 1 || c.CIHigh != 1 || c.EffectSize != nil || c.Wins != 3 {
		t.Errorf("constant difference: %+v", c)
	}
	if _, err := json.Marshal(Significance{PairedStats: c}); err != nil {
		t.Errorf("marshal: %v", err)
	}
}

// d = (3, -1, 2), observed sum 4. The 8 sign assignments give the sums
// 4, 0, 6, 2, -2, -6, 0, -4 (signs +++, ++-, +-+, +--, -++, -+-, --+, ---);
// four reach |sum| >= 4, so the exact two-sided p is 4/8 = 0.5.
// d = (1, 1, 1, 1): only the all-plus and all-minus assignments reach
// |sum| = 4: p = 2/16 = 0.125.
func TestRandomisationTinyByHand(t *testing.T) {
	if p := RandomisationTest([]float64{0, 0, 0}, []float64{3, -1, 2}, 0, 1); p != 0.5 {
		t.Errorf("d = (3, -1, 2): p = %v, want 0.5", p)
	}
	if p := RandomisationTest([]float64{0, 1, 2, 3}, []float64{1, 2, 3, 4}, 0, 1); p != 0.125 {
		t.Errorf("d = (1, 1, 1, 1): p = %v, want 0.125", p)
	}
}

func TestSignificanceVerdict(t *testing.T) {
	sig := []*Significance{{P: 0.01, PairedStats: PairedStats{Diff: 0.1}}, {P: 0.04, PairedStats: PairedStats{Diff: -0.1}},
		{P: 0.03, PairedStats: PairedStats{Diff: 0.2}}, {P: 0.005, PairedStats: PairedStats{Diff: -0.05}}}
	AdjustFamily(sig, CorrectionHolm)
	var got []string
	for _, s := range sig {
		got = append(got, s.Verdict(DefaultAlpha))
	}
	if strings.Join(got, ",") != "better,n.s.,n.s.,worse" {
		t.Errorf("verdicts %v", got)
	}
}
