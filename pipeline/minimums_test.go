package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
)

// exportFixture exports n queries of 3 terms each into a 5-fold dataset;
// relevant(q) gives query q one term with label 2 (the others 0).
func exportFixture(t *testing.T, n int, relevant func(q int) bool) string {
	t.Helper()
	dir := t.TempDir()
	var gt, fs strings.Builder
	gt.WriteString("query,term,label\n")
	fs.WriteString("query,term")
	for id := 1; id <= 34; id++ {
		fs.WriteString("," + features.FeatureName(id))
	}
	fs.WriteString("\n")
	for q := range n {
		for tm := range 3 {
			l := 0
			if tm == 0 && relevant(q) {
				l = 2
			}
			fmt.Fprintf(&gt, "q%d,http://x.org/T%d,%d\n", q, tm, l)
			fmt.Fprintf(&fs, "q%d,http://x.org/T%d%s\n", q, tm, strings.Repeat(",0.5", 34))
		}
	}
	os.WriteFile(filepath.Join(dir, "gt.csv"), []byte(gt.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "f.csv"), []byte(fs.String()), 0o644)
	out := filepath.Join(dir, "ds")
	if _, err := export.Run(context.Background(), export.Config{GroundTruth: filepath.Join(dir, "gt.csv"), Features: filepath.Join(dir, "f.csv"), Out: out,
		Options: export.Options{Folds: 5, Seed: 1, Version: "test"}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The minimums of a benchmark, counted by hand. Five
// folds deal n queries into 5 equal test partitions.
func TestCheckMinimums(t *testing.T) {
	t.Parallel()
	// 25 queries, all with a relevant term: 5 test queries per fold, fine.
	if p, err := CheckMinimums(exportFixture(t, 25, func(int) bool { return true }), DefaultMinimums()); err != nil || len(p) != 0 {
		t.Errorf("25 relevant queries: %v %v", p, err)
	}
	// 10 queries: 2 per test set, below 5, in all five folds.
	p, err := CheckMinimums(exportFixture(t, 10, func(int) bool { return true }), DefaultMinimums())
	if err != nil || len(p) != 5 || !strings.Contains(p[0], "Fold1's test set has 2 queries, need at least 5") {
		t.Errorf("10 queries: %q %v", p, err)
	}
	// 25 queries, none relevant: every test set lacks a relevant query.
	p, err = CheckMinimums(exportFixture(t, 25, func(int) bool { return false }), DefaultMinimums())
	if err != nil || len(p) != 5 || !strings.Contains(p[4], "Fold5's test set has 0 queries with a relevant term (label >= 1), need at least 1") {
		t.Errorf("no relevant query: %q %v", p, err)
	}
}
