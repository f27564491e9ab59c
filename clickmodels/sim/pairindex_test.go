package sim

import (
	"context"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
)

// TestPairIndex: one document shown for 20 queries (past the short list
// of 8 into the map) and another for one; every pair is found with the
// index it was given, and pairs never added are not.
func TestPairIndex(t *testing.T) {
	var x pairIndex
	for q := range int32(20) {
		x.add(q, 3, 100+q)
	}
	x.add(5, 0, 7)
	for q := range int32(20) {
		if p, ok := x.find(q, 3); !ok || p != 100+q {
			t.Errorf("find(%d, 3) = %d, %v; want %d", q, p, ok, 100+q)
		}
	}
	if p, ok := x.find(5, 0); !ok || p != 7 {
		t.Errorf("find(5, 0) = %d, %v; want 7", p, ok)
	}
	for _, c := range [][2]int32{{20, 3}, {4, 0}, {0, 1}, {0, 9}} {
		if _, ok := x.find(c[0], c[1]); ok {
			t.Errorf("find(%d, %d) found a pair never added", c[0], c[1])
		}
	}
}

// BenchmarkSimulateLog: 20,000 UBM SERPs over the synthetic source of 200
// queries with pools of 20 (clickmodels' TestConsistency's source).
func BenchmarkSimulateLog(b *testing.B) {
	cfg := DefaultSyntheticConfig()
	cfg.Queries, cfg.Seed = 200, 7
	src, err := NewSyntheticSource(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := SimulateLog(context.Background(), Config{Kind: clickmodels.UBM, SERPs: 20000, Seed: 11, Source: src}); err != nil {
			b.Fatal(err)
		}
	}
}
