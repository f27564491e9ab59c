package ltr

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadModelRejectsBadModels(t *testing.T) {
	cases := map[string]string{
		`{"format":"x","algorithm":"ca","features":[1],"normalization":"none","linear":[{"column":0,"weight":1}]}`:                                               "format",
		`{"format":"lovbench-ltr-model/1","algorithm":"ca","features":[1],"normalization":"none","linear":[{"column":1,"weight":1}]}`:                            "column 1 out of range",
		`{"format":"lovbench-ltr-model/1","algorithm":"ca","features":[],"normalization":"none","linear":[]}`:                                                    "no features",
		`{"format":"lovbench-ltr-model/1","algorithm":"lambdamart","features":[1],"normalization":"none","trees":[{"nodes":[{"column":0,"left":0,"right":0}]}]}`: "bad column or children",
		`{"format":"lovbench-ltr-model/1","algorithm":"ranknet","features":[1,2],"normalization":"none","ranknet":{"hidden":[[1,2]],"output":[1,1]}}`:            "want 3",
		`{"format":"lovbench-ltr-model/1","algorithm":"ca","features":[1],"normalization":"none"}`:                                                               "exactly one",
		`{"format":"lovbench-ltr-model/1","algorithm":"ca","features":[1],"normalization":"l2","linear":[{"column":0,"weight":1}]}`:                              "normalisation",
		`{"format":"lovbench-ltr-model/1","bogus":1}`: "unknown field",
	}
	for in, want := range cases {
		_, err := ReadModel(strings.NewReader(in), "m.json")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "m.json: ") {
			t.Errorf("%s: error %v, want one mentioning %q", in, err, want)
		}
	}
}

// A hand-built tree and linear model score as their documented formulas say.
func TestModelScoringByHand(t *testing.T) {
	q := Query{ID: "1", Docs: []Doc{{Features: []float64{0.2, 5}}, {Features: []float64{0.9, -1}}}}
	tree := &Model{Format: ModelFormat, Algorithm: LambdaMART, Features: []int{2, 1}, Normalization: NormNone,
		Trees: []Tree{{Nodes: []TreeNode{{Column: 1, Threshold: 0.5, Left: 1, Right: 2}, {Column: -1, Value: 3}, {Column: -1, Value: -1}}},
			{Nodes: []TreeNode{{Column: -1, Value: 0.25}}}}}
	if err := tree.Validate(); err != nil {
		t.Fatal(err)
	}
	if s := tree.Scores(&q); s[0] != 3.25 || s[1] != -0.75 {
		t.Errorf("tree scores %v, want [3.25 -0.75]", s)
	}
	lin := &Model{Format: ModelFormat, Algorithm: AdaRank, Features: []int{1, 2}, Normalization: NormNone,
		Linear: []LinearTerm{{Column: 0, Weight: 2}, {Column: 1, Weight: 0.5}, {Column: 0, Weight: 1}}}
	// The features are read as float32 (0.2 -> 0.20000000298023224), the
	// sum is in float64 in term order.
	f2, f9 := float64(float32(0.2)), float64(float32(0.9))
	if s := lin.Scores(&q); s[0] != 2*f2+2.5+f2 || s[1] != 2*f9-0.5+f9 {
		t.Errorf("linear scores %v", s)
	}
}

// FuzzReadModel: any input either fails to load or scores without panic.
func FuzzReadModel(f *testing.F) {
	f.Add(`{"format":"lovbench-ltr-model/1","algorithm":"lambdamart","features":[2,1],"normalization":"zscore","trees":[{"nodes":[{"column":1,"threshold":0.5,"left":1,"right":2},{"column":-1,"value":3},{"column":-1,"value":-1}]}]}`)
	f.Add(`{"format":"lovbench-ltr-model/1","algorithm":"ranknet","features":[1],"normalization":"none","ranknet":{"hidden":[[1,2]],"output":[1,1]}}`)
	q := Query{ID: "1", Docs: []Doc{{Features: []float64{0.2, 5, 1}}, {Features: []float64{0.9, -1, 0}}}}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ReadModel(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		m.Scores(&q)
		var b bytes.Buffer
		_ = m.WriteJSON(&b)
	})
}
