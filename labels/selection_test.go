package labels

import (
	"maps"
	"slices"
	"testing"
)

// waterFill by hand: queries b (5 rows), a (1), c (3) and a quota of 6.
// Each keeps m = 2 or all it has (2 + 1 + 2 = 5; m = 3 would need 7), and
// the one row left over goes to the first query in byte order that has
// more than 2: a has 1, so b. A quota beyond the rows keeps them all.
func TestWaterFillByHand(t *testing.T) {
	per := map[string][]int{"b": {0, 1, 2, 3, 4}, "a": {5}, "c": {6, 7, 8}}
	if got, want := waterFill(per, 6), map[string]int{"a": 1, "b": 3, "c": 2}; !maps.Equal(got, want) {
		t.Errorf("quota 6: %v, want %v", got, want)
	}
	if got, want := waterFill(per, 20), map[string]int{"a": 1, "b": 5, "c": 3}; !maps.Equal(got, want) {
		t.Errorf("quota 20: %v, want %v", got, want)
	}
	if got, want := waterFill(per, 0), map[string]int{"a": 0, "b": 0, "c": 0}; !maps.Equal(got, want) {
		t.Errorf("quota 0: %v, want %v", got, want)
	}
}

// The stratified mode over labels breaks ties of confidence by query, then
// term, in byte order: of label 3's four labels at 0.5 (q2/b, q1/z, q1/a,
// q2/a) it keeps KeepCount(0.5, 4) = 2, q1/a and q1/z; of label 1's two,
// the more confident. q2 keeps no label and goes whole.
func TestSelectLabelsStratifiedTies(t *testing.T) {
	ls := []Label{
		{Query: "q2", Term: "b", Grade: 3, Confidence: 0.5},
		{Query: "q1", Term: "z", Grade: 3, Confidence: 0.5},
		{Query: "q1", Term: "a", Grade: 3, Confidence: 0.5},
		{Query: "q2", Term: "a", Grade: 3, Confidence: 0.5},
		{Query: "q2", Term: "c", Grade: 1, Confidence: 0.1},
		{Query: "q1", Term: "c", Grade: 1, Confidence: 0.2},
	}
	got := Selection{KeepConfident: 0.5}.SelectLabels(ls)
	want := []Verdict{BelowConfidence, Kept, Kept, BelowConfidence, BelowConfidence, Kept}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
}
