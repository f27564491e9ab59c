package labels

import (
	"math"
	"testing"
)

// LOVBench's first-page shares, by hand from paper Table 4 (section 5.2):
// share x 184,224 pairs, less the 110,274 sampled pairs for label 0, over
// the 73,950 labelled pairs. Label 1: 0.2410 x 184,224 = 44,398 labelled
// pairs (60.04%), the count docs/pipeline.md cites.
func TestLOVBenchFirstPageShare(t *testing.T) {
	want := map[int]float64{4: 0.8470, 3: 4.0607, 2: 18.0861, 1: 60.0378, 0: 16.7691, Junk: 0.1495}
	sum := 0.0
	for _, l := range AllLabels() {
		got := 100 * LOVBenchFirstPageShare(l)
		sum += got
		if math.Abs(got-want[l]) > 0.0005 {
			t.Errorf("label %d: %.4f%% of LOVBench's labelled pairs, want %.4f%%", l, got, want[l])
		}
	}
	// Table 4's shares are rounded to 0.01% of 184,224 pairs (up to 9
	// pairs each), so the first-page shares sum to 100% within 0.1 point.
	if math.Abs(sum-100) > 0.1 {
		t.Errorf("first-page shares sum to %.3f%%", sum)
	}
}
