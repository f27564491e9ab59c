// Package pipeline runs the whole LOVBench construction (LOVBench paper,
// sections 4 and 5: log cleaning, click models, graded labels, LETOR
// sampling, features, folds, learning to rank) as one reproducible,
// cron-safe job over a work directory. The demo's click log comes from the
// corpus-backed simulator of package corpussim, which the simulate stage
// runs.
//
// A run is a sequence of stages. Each stage's output directory is named by a
// fingerprint (SHA-256 of its parameters, the content of its input files and
// the fingerprints of the stages it reads), so an unchanged stage is skipped;
// each stage writes into a staging directory committed by rename, and the
// finished dataset is published as releases/TIMESTAMP with a releases/latest
// link swapped atomically. An flock(2) lock refuses concurrent runs on one
// work directory. The work directory and its releases are package
// workdir's; this package holds the stage graph and the run's
// configuration. See Config and Run; docs/pipeline.md describes the layout
// and the configuration file.
package pipeline
