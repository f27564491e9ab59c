package clickmodels

import "testing"

// TestKindIterations: an EM model runs the iterations asked for (the
// default, 50, for none); a counting model one pass whatever is asked.
// SDBN and DCM count under PyClick's estimator and run EM under the exact
// one (their exact E-step); the other counting models count under both.
func TestKindIterations(t *testing.T) {
	for _, c := range []struct {
		k     Kind
		n     int
		exact bool
		want  int
	}{
		{UBM, 0, false, 50}, {UBM, -3, false, 50}, {UBM, 7, false, 7}, {DBN, 1, false, 1}, {CCM, 20, false, 20},
		{DCTR, 0, false, 1}, {DCTR, 50, false, 1}, {SDBN, 9, false, 1}, {CM, 5, false, 1}, {DCM, 5, false, 1},
		{SDBN, 9, true, 9}, {DCM, 0, true, 50}, {UBM, 7, true, 7},
		{DCTR, 50, true, 1}, {CM, 5, true, 1}, {GCTR, 5, true, 1}, {RCTR, 5, true, 1},
	} {
		if got := c.k.Iterations(c.n, c.exact); got != c.want {
			t.Errorf("%v.Iterations(%d, exact %v) = %d, want %d", c.k, c.n, c.exact, got, c.want)
		}
	}
}
