package ltr

import (
	"math"
	"testing"
)

// Hand-computed per-query normalisations of the column (1, 2, 3, 6) and the
// constant column (5, 5, 5, 5): RankLib computes them in float64 and
// stores the float32 nearest.
func TestNormalizations(t *testing.T) {
	col := []float64{1, 2, 3, 6}
	sd := math.Sqrt((4 + 1 + 0 + 9) / 3.0) // mean 3, sample sd
	cases := map[Normalization][2][]float64{
		NormNone:   {{1, 2, 3, 6}, {5, 5, 5, 5}},
		NormSum:    {{1.0 / 12, 2.0 / 12, 3.0 / 12, 6.0 / 12}, {0.25, 0.25, 0.25, 0.25}},
		NormZScore: {{-2 / sd, -1 / sd, 0, 3 / sd}, {5, 5, 5, 5}},
		NormLinear: {{0, 0.2, 0.4, 1}, {0, 0, 0, 0}},
	}
	for norm, want := range cases {
		x := make([]float64, 8)
		for i := range col {
			x[2*i], x[2*i+1] = col[i], 5
		}
		normalizeBlock(x, 4, 2, norm)
		for i := 0; i < 4; i++ {
			for j := 0; j < 2; j++ {
				// RankLib stores each normalised value as a float32.
				if x[2*i+j] != float64(float32(want[j][i])) {
					t.Errorf("%s: row %d col %d = %v, want %v", norm, i, j, x[2*i+j], want[j][i])
				}
			}
		}
	}
	// A single document: z-score leaves it unchanged (RankLib divides by n-1).
	x := []float64{7}
	normalizeBlock(x, 1, 1, NormZScore)
	if x[0] != 7 {
		t.Errorf("zscore of one document = %v, want 7", x[0])
	}
	// Negative-only column: linear uses the true maximum.
	y := []float64{-4, -2, -3}
	normalizeBlock(y, 3, 1, NormLinear)
	if y[0] != 0 || y[1] != 1 || y[2] != 0.5 {
		t.Errorf("linear of negatives = %v, want [0 1 0.5]", y)
	}
	if _, err := ParseNormalization("minmax"); err == nil {
		t.Error("unknown normalisation accepted")
	}
}
