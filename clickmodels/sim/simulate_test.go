package sim

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
)

// onePage is a SERPSource showing the same three documents for one query
// every time, with fixed true attractiveness.
type onePage struct{ attr map[string]float64 }

func (s onePage) Next(*rand.Rand) (string, []string, error) {
	return "q", []string{"d0", "d1", "d2"}, nil
}

func (s onePage) Truth(_, d string) (float64, float64) { return s.attr[d], 0.5 }

// TestExaminationGlobal checks the geometric examination probabilities
// against hand-computed values: UBM with R = 3, first 0.5, decay 0.4 has
// exam[r][p] = 0.5 * 0.4^(r-p-1) (column 2 for "no click yet") and 0.5 in
// the unused cells (p >= r); PBM has 0.5, 0.2, 0.08.
func TestExaminationGlobal(t *testing.T) {
	g, err := ExaminationGlobal(clickmodels.UBM, 3, 0.5, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	// rows r = 0, 1, 2; columns p = 0, 1, none
	want := []float64{
		0.5, 0.5, 0.5, // r 0: p 0 and 1 unused; no click yet: 0.5
		0.5, 0.5, 0.2, // r 1: after a click at 0: 0.5; p 1 unused; none: 0.5*0.4
		0.2, 0.5, 0.08, // r 2: after 0: 0.5*0.4; after 1: 0.5; none: 0.5*0.16
	}
	for i := range want {
		if d := g[i] - want[i]; d > 1e-15 || d < -1e-15 {
			t.Errorf("UBM cell %d = %v, want %v", i, g[i], want[i])
		}
	}
	g, err = ExaminationGlobal(clickmodels.PBM, 3, 0.5, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{0.5, 0.2, 0.08} {
		if d := g[i] - w; d > 1e-15 || d < -1e-15 {
			t.Errorf("PBM rank %d = %v, want %v", i, g[i], w)
		}
	}
	if _, err := ExaminationGlobal(clickmodels.DBN, 3, 0.5, 0.4); err == nil {
		t.Error("DBN has no examination probabilities, want an error")
	}
	if _, err := ExaminationGlobal(clickmodels.UBM, 3, 0, 0.4); err == nil {
		t.Error("first = 0 accepted")
	}
	if _, err := ExaminationGlobal(clickmodels.UBM, 3, 0.5, 1.5); err == nil {
		t.Error("decay = 1.5 accepted")
	}
}

// TestReturnAfterClick simulates a user who examines every rank
// (UBM, examination 1), finds d0 and d1 all but certainly attractive and
// d2 all but never, and always comes back after a click. Every page is
// then seen twice: clicks on d0 and d1 the first time, none the second
// time (the user has read them, and d2 does not attract), after which
// the next page is a fresh one. Without coming back every SERP has the
// two clicks.
func TestReturnAfterClick(t *testing.T) {
	src := onePage{attr: map[string]float64{"d0": 1 - 1e-12, "d1": 1 - 1e-12, "d2": 1e-12}}
	g, err := ExaminationGlobal(clickmodels.UBM, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ret := range []float64{0, 1} {
		var clicks []uint64
		_, err := Simulate(context.Background(), Config{Kind: clickmodels.UBM, SERPs: 200, Seed: 3, Source: src, Global: g, Ranks: 3, ReturnAfterClick: ret},
			func(s *SERP) error {
				if s.Query != "q" || len(s.Docs) != 3 || s.Docs[0] != "d0" || s.Docs[2] != "d2" {
					t.Fatalf("SERP %d shows %q %v", s.Index, s.Query, s.Docs)
				}
				clicks = append(clicks, s.Clicks)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range clicks {
			want := uint64(0b011)
			if ret == 1 && i%2 == 1 {
				want = 0
			}
			if c != want {
				t.Fatalf("return %v: SERP %d clicks %03b, want %03b", ret, i, c, want)
			}
		}
	}
	for _, bad := range []float64{-0.1, 1.1} {
		_, err := Simulate(context.Background(), Config{Kind: clickmodels.UBM, SERPs: 1, Source: src, ReturnAfterClick: bad}, func(*SERP) error { return nil })
		if err == nil {
			t.Errorf("return-after-click %v accepted", bad)
		}
	}
}
