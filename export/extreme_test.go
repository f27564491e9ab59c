package export

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// TestValidateCountsExtremeValues: a dataset whose Min_Hub_O holds
// Double.MAX_VALUE on 3 rows (LOVBench's value for an ontology without
// terms) is valid, the values round-trip through every file, and Validate
// counts exactly those 3 under Min_Hub_O; 1e299 is not counted.
func TestValidateCountsExtremeValues(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	minHub := 13 - 1 // Min_Hub_O, feature 13
	if header[2+minHub] != "Min_Hub_O" {
		t.Fatalf("column %d is %s", minHub, header[2+minHub])
	}
	vals[0][minHub], vals[7][minHub], vals[40][minHub] = math.MaxFloat64, math.MaxFloat64, math.MaxFloat64
	vals[8][minHub] = 1e299
	gtp, fp := writeInputs(t, in, gt, header, vals)
	out := filepath.Join(t.TempDir(), "dataset")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 5}}); err != nil {
		t.Fatal(err)
	}
	v, err := Validate(context.Background(), out)
	if err != nil || !v.Valid {
		t.Fatalf("dataset with Double.MAX_VALUE rejected: %v %v", err, v.Problems)
	}
	if len(v.Extreme) != 1 || v.Extreme["Min_Hub_O"] != 3 {
		t.Errorf("extreme values %v, want map[Min_Hub_O:3]", v.Extreme)
	}
}

// TestValidateNamesConstantFeatures: a dataset whose PageRank_OwlImports_O
// is 0 in every row (a corpus without owl:imports between its vocabularies)
// is valid, and Validate names that column, with its value, and no other
// (the other columns of the test input vary).
func TestValidateNamesConstantFeatures(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	pr := 8 - 1 // PageRank_OwlImports_O, feature 8
	if header[2+pr] != "PageRank_OwlImports_O" {
		t.Fatalf("column %d is %s", pr, header[2+pr])
	}
	for i := range vals {
		vals[i][pr] = 0
	}
	gtp, fp := writeInputs(t, in, gt, header, vals)
	out := filepath.Join(t.TempDir(), "dataset")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 5}}); err != nil {
		t.Fatal(err)
	}
	v, err := Validate(context.Background(), out)
	if err != nil || !v.Valid {
		t.Fatalf("dataset with a constant feature rejected: %v %v", err, v.Problems)
	}
	if len(v.Constant) != 1 || v.Constant[0].Name != "PageRank_OwlImports_O" || v.Constant[0].Value != 0 {
		t.Errorf("constant features %v, want [{PageRank_OwlImports_O 0}]", v.Constant)
	}
}
