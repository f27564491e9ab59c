package pipeline

import (
	"maps"
	"slices"

	"github.com/lovbench/lovbench/workdir"
)

// The stage graph's names for package workdir's types, which the stage
// definitions of this package use throughout.
type (
	// Stage is one step of the pipeline (workdir.Stage).
	Stage = workdir.Stage
	// StageEnv is what a running stage gets (workdir.StageEnv).
	StageEnv = workdir.StageEnv
	// Stamp is a committed stage's fingerprint record (workdir.Stamp).
	Stamp = workdir.Stamp
)

// stampName is the stamp file of a stage directory (workdir.StampFile).
const stampName = workdir.StampFile

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
