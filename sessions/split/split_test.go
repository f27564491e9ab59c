package split

import (
	"math"
	"slices"
	"testing"
)

// TestParseAndTrainFraction: the one place split names and train
// fractions are checked (fit, shard, run configurations and Beam call it).
func TestParseAndTrainFraction(t *testing.T) {
	for in, want := range map[string]string{"": "spec", "spec": "spec", "random": "random", "time": "time"} {
		if got, err := Parse(in); err != nil || string(got) != want {
			t.Errorf("Parse(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := Parse("weekly"); err == nil {
		t.Error("Parse(weekly) accepted")
	}
	for f, ok := range map[float64]bool{0.75: true, 1e-9: true, 0: false, 1: false, -0.5: false, math.NaN(): false} {
		if err := CheckTrainFraction(f); (err == nil) != ok {
			t.Errorf("CheckTrainFraction(%v) = %v", f, err)
		}
	}
}

// TestTrainCut: floor(fraction x n), by hand.
func TestTrainCut(t *testing.T) {
	for _, c := range []struct {
		n    int
		f    float64
		want int
	}{{4, 0.75, 3}, {10, 0.75, 7}, {1, 0.75, 0}, {0, 0.75, 0}, {3, 0.999, 2}} {
		if got := TrainCut(c.n, c.f); got != c.want {
			t.Errorf("TrainCut(%d, %v) = %d, want %d", c.n, c.f, got, c.want)
		}
	}
	if f, err := TrainFraction(0); f != 0.75 || err != nil {
		t.Errorf("TrainFraction(0) = %v, %v, want 0.75", f, err)
	}
}

// TestRandomTrain: the mask has TrainCut trues at the drawn positions.
func TestRandomTrain(t *testing.T) {
	m := RandomTrain(100, 0.75, 7)
	n := 0
	for _, b := range m {
		if b {
			n++
		}
	}
	if n != 75 {
		t.Errorf("%d positions train, want 75", n)
	}
	for _, i := range RandomTrainPositions(100, 0.75, 7) {
		if !m[i] {
			t.Errorf("position %d drawn but not in the mask", i)
		}
	}
}

// TestTimeSplit: sessions A (positions 0, 2), B (1, 4), C (3, 5) of six
// SERPs at fraction 0.5 (cut 3): A and B start before the cut and train
// whole; C starts at 3 and tests.
func TestTimeSplit(t *testing.T) {
	sess := []string{"A", "B", "A", "C", "B", "C"}
	ts := NewTimeSplit[string](int64(len(sess)), 0.5)
	for i, s := range sess {
		if ts.Before(int64(i)) {
			ts.Start(s)
		}
	}
	var got []bool
	for i, s := range sess {
		got = append(got, ts.Train(int64(i), s))
	}
	if want := []bool{true, true, true, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("train flags %v, want %v", got, want)
	}
}
