package testsize

import "testing"

// TestPick: only LOVBENCH_FULL=1 selects the full size.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"1", 6000}, {"", 1500}, {"0", 1500}, {"true", 1500}} {
		t.Setenv(EnvFull, c.env)
		if got := Pick(1500, 6000); got != c.want || Full() != (c.want == 6000) {
			t.Errorf("%s=%q: Pick = %d, Full = %v; want %d", EnvFull, c.env, got, Full(), c.want)
		}
	}
}
