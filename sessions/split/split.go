// Package split holds the rules of the train/test split of a click log
// (docs/method.md, section 3, "Train and test"; the click models of the
// paper's section 4.2 are fitted on one part of the log and evaluated on
// the rest): the split kinds, the default train fraction, the cut, the
// seeded random draw and the time split's rule. The in-memory fit
// (clickmodels), the query-shard writer (shards) and the Beam pipeline all
// flag SERPs with these functions, so the three agree SERP for SERP.
//
// Source, the interface of a log whose SERPs carry their train flag in
// query shards, is here too: shards implements it and clickmodels fits it.
package split

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// Kind is a split method.
type Kind string

// The split methods.
const (
	Spec   Kind = "spec"   // the first fraction of SERPs in file order train
	Random Kind = "random" // a seeded random fraction of SERPs trains
	Time   Kind = "time"   // whole user sessions by their first SERP
)

// DefaultTrainFraction is the share of SERPs that train when none is given
// (docs/method.md, section 3).
const DefaultTrainFraction = 0.75

// DefaultSeed is the seed of the random split when none is given.
const DefaultSeed = 1

// Parse checks a split name: spec, random or time ("" is spec).
func Parse(s string) (Kind, error) {
	switch k := Kind(s); k {
	case "":
		return Spec, nil
	case Spec, Random, Time:
		return k, nil
	}
	return "", fmt.Errorf("split %s: want spec, random or time", textio.Quote(s))
}

// CheckTrainFraction checks the share of SERPs that train: a value in
// (0, 1).
func CheckTrainFraction(f float64) error {
	if !(f > 0 && f < 1) {
		return fmt.Errorf("train fraction %v: want a value in (0, 1)", f)
	}
	return nil
}

// TrainFraction returns f, or DefaultTrainFraction if f is 0, after
// CheckTrainFraction.
func TrainFraction(f float64) (float64, error) {
	if f == 0 {
		f = DefaultTrainFraction
	}
	return f, CheckTrainFraction(f)
}

// TrainCut is the number of training SERPs of the spec and random splits
// of a log of n SERPs: floor(fraction x n), clamped to [0, n]. Under the
// spec split the SERPs at positions below TrainCut train; under the time
// split the user sessions whose first SERP lies below it.
func TrainCut(n int, fraction float64) int {
	cut := int(math.Floor(fraction * float64(n)))
	return min(max(cut, 0), n)
}

// RandomTrain returns the training mask of the random split of a log of n
// SERPs: position i trains iff the result is true at i.
func RandomTrain(n int, fraction float64, seed uint64) []bool {
	inTrain := make([]bool, n)
	for _, i := range RandomTrainPositions(n, fraction, seed) {
		inTrain[i] = true
	}
	return inTrain
}

// RandomTrainPositions returns the positions, in no particular order, of
// the TrainCut(n, fraction) SERPs that train under the random split: the
// one place that draws it, for RandomTrain and for the shard writers'
// bitmaps.
func RandomTrainPositions(n int, fraction float64, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0x6c6f7662656e6368)).Perm(n)[:TrainCut(n, fraction)]
}

// TimeSplit is the time split's rule for a log of known size: a user
// session whose first SERP lies before the cut (TrainCut) trains with all
// its SERPs; later user sessions test. The log keeps SERPs in time order
// within a user session and user sessions in order of their first SERP,
// so no user session is cut in two. K identifies a user session (an index
// or a hash of its ID).
type TimeSplit[K comparable] struct {
	cut     int64
	started map[K]struct{}
}

// NewTimeSplit returns the time split of a log of serps SERPs.
func NewTimeSplit[K comparable](serps int64, fraction float64) *TimeSplit[K] {
	return &TimeSplit[K]{cut: int64(TrainCut(int(serps), fraction)), started: make(map[K]struct{})}
}

// Cut is the position of the first SERP after the cut.
func (t *TimeSplit[K]) Cut() int64 { return t.cut }

// Start records that user session k has a SERP before the cut. Call it for
// every SERP before the cut (Before) before asking Train of a later one.
func (t *TimeSplit[K]) Start(k K) { t.started[k] = struct{}{} }

// Before reports whether position pos lies before the cut.
func (t *TimeSplit[K]) Before(pos int64) bool { return pos < t.cut }

// Train reports whether the SERP at position pos of user session k trains.
func (t *TimeSplit[K]) Train(pos int64, k K) bool {
	if pos < t.cut {
		return true
	}
	_, ok := t.started[k]
	return ok
}

// Source supplies a click log split into query shards: every SERP of a
// query is in the same shard, each shard keeps log order, and every SERP
// carries its train flag. The shards package implements it (a shard
// directory, or a log streamed as one shard) and outofcore.RunShards fits
// it.
type Source interface {
	// NumShards is the number of shards.
	NumShards() int
	// Info returns the number of SERPs of the whole log, how many train,
	// the longest SERP and the split that set the flags.
	Info() (serps, trainSERPs int64, maxRanks int, split Kind)
	// Scan calls fn for every SERP of shard i in log order; s is only
	// valid during the call.
	Scan(ctx context.Context, i int, fn func(pos int64, train bool, s *sessions.SERP) error) error
}
