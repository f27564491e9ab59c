package membudget

import (
	"runtime/debug"
	"testing"
)

// TestForFit: the shares of the package doc, by hand for 1 GiB.
func TestForFit(t *testing.T) {
	const gib = 1 << 30
	if got, want := ForFit(gib), (Fit{Limit: gib, ShardPrepare: 256 << 20, PreparedHeld: 128 << 20, GibbsSubset: 256 << 20}); got != want {
		t.Errorf("ForFit(1GiB) = %+v, want %+v", got, want)
	}
	if got := ForFit(0); got != (Fit{}) {
		t.Errorf("ForFit(0) = %+v, want the zero budget", got)
	}
	if got := ForFit(3); got.ShardPrepare != 1 || got.GibbsSubset != 1 {
		t.Errorf("ForFit(3) = %+v, want shares of 1 (never 0 under a limit)", got)
	}
	// MinFitLimit inverts ForFit: the smallest limit whose shard share
	// reaches 1000 bytes is 4000.
	if got := MinFitLimit(1000); got != 4000 || ForFit(got).ShardPrepare != 1000 || ForFit(got-1).ShardPrepare >= 1000 {
		t.Errorf("MinFitLimit(1000) = %d", got)
	}
	if got := SoftLimit(gib); got != 1006632960 { // 15/16 GiB
		t.Errorf("SoftLimit(1GiB) = %d, want 1006632960", got)
	}
}

// TestSetSoftLimit: Go's soft limit is set to SoftLimit and restored.
func TestSetSoftLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := SetSoftLimit(64 << 20)
	if got := debug.SetMemoryLimit(-1); got != 60<<20 {
		t.Errorf("soft limit %d under a 64 MiB limit, want 60 MiB", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("soft limit %d after restore, want %d", got, before)
	}
	SetSoftLimit(0)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("SetSoftLimit(0) changed the soft limit to %d", got)
	}
}
