package outofcore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIteratesWithinBudget: accelerated EM's iterates count in the pair
// values' budget. With 200 bytes of budget, 120 of them held already by
// pair values, the first iterate of 10 values (80 bytes) is held and the
// next ones go to files (80 more would pass 200); every iterate reads back
// as saved, and remove deletes the files and gives the 80 bytes back.
func TestIteratesWithinBudget(t *testing.T) {
	dir := t.TempDir()
	vals := &pairValues{budget: 200, held: 120}
	it := &iterates{vals: vals, dir: func() (string, error) { return dir, nil }}
	x := func(j int) ([]float64, []float64) {
		attr, sat := make([]float64, 6), make([]float64, 4)
		for i := range attr {
			attr[i] = float64(j) + float64(i)/8
		}
		for i := range sat {
			sat[i] = -float64(j) - float64(i)/16
		}
		return attr, sat
	}
	for j := range 3 {
		a, s := x(j)
		if err := it.Save(0, j, a, s); err != nil {
			t.Fatal(err)
		}
	}
	if vals.held != 200 {
		t.Errorf("%d bytes held, want 200 (120 + one iterate of 80)", vals.held)
	}
	for j := range 3 {
		a, s, err := it.Load(0, j)
		if err != nil {
			t.Fatal(err)
		}
		wa, ws := x(j)
		if !slices.Equal(a, wa) || !slices.Equal(s, ws) {
			t.Errorf("iterate %d: %v %v, want %v %v", j, a, s, wa, ws)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "iterate*"))
	if len(files) != 2 {
		t.Errorf("%d iterate files, want 2: %v", len(files), files)
	}
	// Saved again, a held iterate stays held and a spilled one in its file.
	a, s := x(5)
	if err := it.Save(0, 2, a, s); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := it.Load(0, 2); !slices.Equal(got, a) || vals.held != 200 {
		t.Errorf("resaved iterate: %v, %d bytes held", got, vals.held)
	}
	it.remove()
	if vals.held != 120 {
		t.Errorf("%d bytes held after remove, want 120", vals.held)
	}
	for _, f := range files {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", f, err)
		}
	}
}
