package clickmodels

import "testing"

// TestKindIterations: an EM model runs the iterations asked for (the
// default, 50, for none); a counting model one pass whatever is asked.
func TestKindIterations(t *testing.T) {
	for _, c := range []struct {
		k       Kind
		n, want int
	}{
		{UBM, 0, 50}, {UBM, -3, 50}, {UBM, 7, 7}, {DBN, 1, 1}, {CCM, 20, 20},
		{DCTR, 0, 1}, {DCTR, 50, 1}, {SDBN, 9, 1}, {CM, 5, 1},
	} {
		if got := c.k.Iterations(c.n); got != c.want {
			t.Errorf("%v.Iterations(%d) = %d, want %d", c.k, c.n, got, c.want)
		}
	}
}
