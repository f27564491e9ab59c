package ltr

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFeatureSpec(t *testing.T) {
	good := map[string][]int{
		"1,3,5-9":   {1, 3, 5, 6, 7, 8, 9},
		"34":        {34},
		" 2 , 7-7 ": {2, 7},
		"10-12,1":   {10, 11, 12, 1},
	}
	for in, want := range good {
		got, err := ParseFeatureSpec(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":        "empty element",
		"1,,2":    "empty element",
		"0":       "not a feature id",
		"a":       "not a feature id",
		"3-1":     "empty (3 > 1)",
		"1-":      "not a feature id",
		"1,2,1-3": "feature 1 listed twice",
		"-2":      "not a feature id",
		"2000000": "not a feature id",
	}
	for in, want := range bad {
		if _, err := ParseFeatureSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one mentioning %q", in, err, want)
		}
	}
	c, err := NewFeatureSet("1,3,5-9")
	if err != nil || c.Name != "Features_1_3_5-9" || !reflect.DeepEqual(c.Features, []int{1, 3, 5, 6, 7, 8, 9}) {
		t.Fatalf("NewFeatureSet: %+v %v", c, err)
	}
}
