package clickmodels

import "math/rand/v2"

// TrainCut is the number of training SERPs of the spec and random splits
// of a log of n SERPs: floor(fraction x n), clamped to [0, n]. Under the
// spec split (Split) the SERPs at positions below TrainCut train.
func TrainCut(n int, fraction float64) int { return cutPoint(n, fraction) }

// RandomTrain returns the training mask of RandomSplit for a log of n
// SERPs: position i trains iff the result is true at i. Engines that place
// SERPs without holding the log (the Beam pipeline) use it to give every
// SERP the flag RandomSplit would.
func RandomTrain(n int, fraction float64, seed uint64) []bool {
	inTrain := make([]bool, n)
	for _, i := range RandomTrainPositions(n, fraction, seed) {
		inTrain[i] = true
	}
	return inTrain
}

// RandomTrainPositions returns the positions, in no particular order, of
// the TrainCut(n, fraction) SERPs that train under RandomSplit: the one
// place that draws the random split, for RandomTrain and for shards'
// bitmap.
func RandomTrainPositions(n int, fraction float64, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0x6c6f7662656e6368)).Perm(n)[:cutPoint(n, fraction)]
}
