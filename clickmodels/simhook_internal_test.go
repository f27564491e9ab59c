package clickmodels

import (
	"context"

	"github.com/lovbench/lovbench/sessions"
)

// SimulatedLog simulates a log of serps SERPs with clicks from a kind
// model (seed seed) on the synthetic source with the given queries,
// shuffled share and source seed. The internal tests cannot import the
// simulator (package sim imports this one); simhook_test.go, in package
// clickmodels_test, sets it to sim.SimulateLog before any test runs.
var SimulatedLog func(ctx context.Context, kind Kind, serps int, seed uint64, queries int, shuffle float64, srcSeed uint64) (*sessions.Log, error)
