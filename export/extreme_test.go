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
