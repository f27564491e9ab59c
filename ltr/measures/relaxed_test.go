package measures

import (
	"math/rand/v2"
	"testing"
)

// bruteAssignment tries every injective assignment of rows to columns.
func bruteAssignment(w [][]float64) float64 {
	best := 0.0
	usedCol := make([]bool, len(w[0]))
	var rec func(i int, sum float64)
	rec = func(i int, sum float64) {
		if i == len(w) {
			best = max(best, sum)
			return
		}
		rec(i+1, sum) // row i unassigned
		for j := range w[i] {
			if !usedCol[j] {
				usedCol[j] = true
				rec(i+1, sum+w[i][j])
				usedCol[j] = false
			}
		}
	}
	rec(0, 0)
	return best
}

// TestHungarianMatchesBruteForce checks the Hungarian algorithm against an
// exhaustive search on seeded random matrices of every shape up to 6 x 6.
func TestHungarianMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		w := make([][]float64, n)
		for i := range w {
			w[i] = make([]float64, m)
			for j := range w[i] {
				if rng.IntN(3) > 0 { // sparse, like proximity matrices
					w[i][j] = float64(rng.IntN(11)) / 10
				}
			}
		}
		got, assign := maxAssignment(w)
		want := bruteAssignment(w)
		if !near(got, want, 1e-9) {
			t.Fatalf("trial %d: %v: Hungarian %v, brute force %v", trial, w, got, want)
		}
		// The returned assignment is one-to-one and sums to the total.
		sum, seen := 0.0, map[int]bool{}
		for i, j := range assign {
			if j < 0 {
				continue
			}
			if seen[j] {
				t.Fatalf("trial %d: column %d assigned twice", trial, j)
			}
			seen[j] = true
			sum += w[i][j]
		}
		if !near(sum, got, 1e-9) {
			t.Fatalf("trial %d: assignment sums to %v, total %v", trial, sum, got)
		}
	}
}

// Hierarchy: Dog and Cat are direct sub-classes of Animal, Puppy of Dog.
var zoo = MapHierarchy{"Dog": {"Animal"}, "Cat": {"Animal"}, "Puppy": {"Dog"}}

// Retrieved (Puppy, Animal, Car), relevant {Dog, Cat}:
//
//	Puppy-Dog: Puppy is more specific than Dog; Animal-Dog and Animal-Cat:
//	Animal is more general. Car matches nothing. Best match
//	{Puppy-Dog, Animal-Cat}.
//	symmetric:  omega = 0.5 + 0.5 = 1.0   P = 1/3,  R = 1/2
//	effort:     omega = 0.6 + 0.4 = 1.0   P = 1/3,  R = 1/2
//	precision:  omega = 1 + 0.5 = 1.5     P = 1/2,  R = 3/4
//	recall:     omega = 0.5 + 1 = 1.5     P = 1/2,  R = 3/4
//	oriented:   P = 1.5/3 = 1/2 (precision table), R = 1.5/2 = 3/4
//	equality:   omega = 0                 P = 0,    R = 0
func TestRelaxedPRHand(t *testing.T) {
	found := []string{"Puppy", "Animal", "Car"}
	rel := []string{"Dog", "Cat"}
	cases := []struct {
		prox   Proximity
		wp, wr float64
	}{
		{Symmetric, 1.0 / 3, 0.5},
		{Effort, 1.0 / 3, 0.5},
		{PrecisionOriented, 0.5, 0.75},
		{RecallOriented, 0.5, 0.75},
		{Oriented, 0.5, 0.75},
		{Equality, 0, 0},
	}
	for _, c := range cases {
		p, r := RelaxedPR(found, rel, zoo, c.prox)
		if !near(p, c.wp, 1e-12) || !near(r, c.wr, 1e-12) {
			t.Errorf("%v: P=%v R=%v, want P=%v R=%v", c.prox, p, r, c.wp, c.wr)
		}
	}
	// Effort differs from symmetric when only one direction is available:
	// retrieved Puppy alone, relevant Dog: 0.6; retrieved Animal, relevant
	// Dog: 0.4.
	if p, _ := RelaxedPR([]string{"Puppy"}, []string{"Dog"}, zoo, Effort); !near(p, 0.6, 1e-12) {
		t.Errorf("effort Puppy->Dog = %v, want 0.6", p)
	}
	if p, _ := RelaxedPR([]string{"Animal"}, []string{"Dog"}, zoo, Effort); !near(p, 0.4, 1e-12) {
		t.Errorf("effort Animal->Dog = %v, want 0.4", p)
	}
}

// A greedy match in rank order would pair Animal with Dog (0.5) and leave
// Puppy unmatched; the best match pairs Puppy-Dog (1) and Animal-Cat (0.5).
func TestRelaxedPRNeedsOptimalMatch(t *testing.T) {
	p, r := RelaxedPR([]string{"Animal", "Puppy"}, []string{"Dog", "Cat"}, zoo, PrecisionOriented)
	if !near(p, 0.75, 1e-12) || !near(r, 0.75, 1e-12) {
		t.Errorf("P=%v R=%v, want 0.75 0.75 (omega = 1.5)", p, r)
	}
}

// With exact matches only, relaxed P and R are standard P and R
// (boundedness, section 3.1): 2 of 4 retrieved are relevant, 2 of 3
// relevant are retrieved.
func TestRelaxedPRExactIsStandard(t *testing.T) {
	p, r := RelaxedPR([]string{"a", "x", "b", "y"}, []string{"a", "b", "c"}, zoo, Symmetric)
	if !near(p, 0.5, 1e-12) || !near(r, 2.0/3, 1e-12) {
		t.Errorf("P=%v R=%v, want 0.5 0.6667", p, r)
	}
	if p, r := RelaxedPR(nil, []string{"a"}, zoo, Symmetric); p != 0 || r != 0 {
		t.Errorf("empty retrieved: P=%v R=%v", p, r)
	}
}

func TestParseProximity(t *testing.T) {
	for _, n := range []string{"equality", "symmetric", "effort", "precision", "recall", "oriented"} {
		p, err := ParseProximity(n)
		if err != nil || p.String() != n {
			t.Errorf("ParseProximity(%q) = %v, %v", n, p, err)
		}
	}
	if _, err := ParseProximity("edit"); err == nil {
		t.Error("ParseProximity(edit) accepted")
	}
}

// resolvingZoo resolves the prefixed names "z:Dog" etc. to "Dog".
type resolvingZoo struct{ MapHierarchy }

func (r resolvingZoo) Resolve(name string) (string, bool) {
	if len(name) > 2 && name[:2] == "z:" {
		return name[2:], true
	}
	_, ok := r.MapHierarchy[name]
	return name, ok
}

// A Hierarchy that resolves names compares resolved terms: z:Puppy is
// Puppy, a sub-class of the relevant Dog (symmetric 0.5), and z:Cat is Cat.
func TestRelaxedPRResolvesNames(t *testing.T) {
	p, r := RelaxedPR([]string{"z:Puppy", "z:Cat"}, []string{"Dog", "Cat"}, resolvingZoo{zoo}, Symmetric)
	if !near(p, 0.75, 1e-12) || !near(r, 0.75, 1e-12) {
		t.Errorf("P=%v R=%v, want 0.75 0.75", p, r)
	}
}
