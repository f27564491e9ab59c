package fit

import (
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions/split"
)

// TestDefaultConfig: the defaults are those lovbench fit --help and
// docs/method.md section 3 state: DCTR, DBN and UBM in that order, the
// first 75% of SERPs in file order train, the exact estimator run to a
// tolerance of 1e-7 for at most 200 iterations.
func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	want := []clickmodels.Kind{clickmodels.DCTR, clickmodels.DBN, clickmodels.UBM}
	if len(c.Kinds) != len(want) {
		t.Fatalf("models %v, want %v", c.Kinds, want)
	}
	for i := range want {
		if c.Kinds[i] != want[i] {
			t.Errorf("model %d: %v, want %v", i, c.Kinds[i], want[i])
		}
	}
	if c.TrainFraction != 0.75 || c.Split != split.Spec || c.Seed != 1 {
		t.Errorf("split %s %g seed %d, want spec 0.75 seed 1", c.Split, c.TrainFraction, c.Seed)
	}
	if !c.Exact || c.Tolerance != 1e-7 || c.Iterations != 200 || c.NoIntervals {
		t.Errorf("EM: exact %v, tolerance %g, %d iterations, no intervals %v; want the exact estimator to 1e-7, at most 200, with intervals",
			c.Exact, c.Tolerance, c.Iterations, c.NoIntervals)
	}
}
