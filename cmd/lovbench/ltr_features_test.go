package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ltr --features trains on an arbitrary subset (alone when --configs is not
// given, beside the named configurations when it is).
func TestLTRFeaturesFlag(t *testing.T) {
	t.Parallel()
	data := writeSyntheticFolds(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "ca", "--features", "1,3,5-9",
		"--ca-restarts", "1", "--permutations", "50", "--out", out)
	if code != 0 {
		t.Fatalf("ltr: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "models", "ca_Features_1_3_5-9_Fold1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Features []int }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 3, 5, 6, 7, 8, 9}; !reflect.DeepEqual(m.Features, want) {
		t.Fatalf("model features %v, want %v", m.Features, want)
	}
	csv, _ := os.ReadFile(filepath.Join(out, "CoordinateAscent_Results.csv"))
	if !strings.Contains(string(csv), `"CoordinateAscent","Features_1_3_5-9","MEAN"`) || strings.Contains(string(csv), "LOVSimple") {
		t.Fatalf("CSV rows:\n%s", csv)
	}

	out2 := t.TempDir()
	code, _, stderr = runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "ca", "--configs", "simple", "--features", "2-4",
		"--ca-restarts", "1", "--permutations", "50", "--no-models", "--out", out2)
	csv, _ = os.ReadFile(filepath.Join(out2, "CoordinateAscent_Results.csv"))
	if code != 0 || !strings.Contains(string(csv), `"Features_2-4","MEAN"`) || !strings.Contains(string(csv), `"LOVSimple","MEAN"`) {
		t.Fatalf("--configs simple --features 2-4: exit %d %s\n%s", code, stderr, csv)
	}

	if code, _, stderr := runCLI(t, "ltr", "--data", data, "--out", out, "--features", "3-1"); code != 2 || !strings.Contains(stderr, "--features") {
		t.Errorf("bad --features: exit %d, stderr %q", code, stderr)
	}
	// A feature beyond the data is a bad-input error naming the set.
	if code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "ca", "--features", "30-40", "--out", out); code != 1 || !strings.Contains(stderr, "Features_30-40 uses feature 35") {
		t.Errorf("feature beyond the data: exit %d, stderr %q", code, stderr)
	}
}

// The error for a missing baseline feature names --baseline-feature.
func TestLTRMissingBaselineNamesFlag(t *testing.T) {
	t.Parallel()
	data := writeSyntheticFolds(t) // features 1..34
	code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "ca", "--features", "1-2", "--baseline-feature", "40", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "baseline feature 40 not present (largest feature id 34); choose the baseline feature with --baseline-feature") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
