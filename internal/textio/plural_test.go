package textio

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 queries"}, {1, "1 query"}, {2, "2 queries"}} {
		if got := Count(c.n, "query", "queries"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
