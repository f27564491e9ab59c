package ltr

import (
	"context"
	"path/filepath"
)

// FileResults is the ltr stage's results file (ResultsFile; the
// report reads its rows and verdict back).
const FileResults = "results.json"

// Config is one run of the ltr stage (`lovbench ltr`, the pipeline's
// ltr stage): the dataset's folds, the directory of the outputs and the
// experiment.
type Config struct {
	// Data is a dataset directory holding Fold1..FoldK (ReadFolds).
	Data string
	// Dir is the existing directory the results (FileResults,
	// <Ranker>_Results.csv) go to; the caller publishes it.
	Dir string
	// Models writes every trained model under Dir/models in
	// Experiment.ModelFormats.
	Models bool
	// Experiment is the experiment (RunExperiment); its ModelDir is
	// set by Run from Models.
	Experiment ExperimentOptions
}

// DefaultConfig returns the stage's defaults: the training parameters
// of DefaultOptions, DefaultPermutations assignments of the
// randomisation test, the saved models in every format.
func DefaultConfig() Config {
	return Config{Models: true, Experiment: ExperimentOptions{Train: DefaultOptions(), Permutations: DefaultPermutations}}
}

// Run reads the folds of cfg.Data, runs the experiment and writes its
// results (and, with cfg.Models, the models) into cfg.Dir. It returns the
// experiment's result, the stage's report, by value (docs/architecture.md,
// "The stage contract").
func Run(ctx context.Context, cfg Config) (Report, error) {
	res, err := run(ctx, cfg)
	if err != nil {
		return Report{}, err
	}
	return *res, nil
}

// Report is the ltr stage's report: the experiment's result, which it
// writes as FileResults.
type Report = ExperimentResult

// run is Run, with the result RunExperiment returns.
func run(ctx context.Context, cfg Config) (*ExperimentResult, error) {
	folds, err := ReadFolds(cfg.Data)
	if err != nil {
		return nil, err
	}
	opt := cfg.Experiment
	opt.ModelDir = ""
	if cfg.Models {
		opt.ModelDir = filepath.Join(cfg.Dir, "models")
	}
	if opt.Log != nil {
		opt.Log.Info("ltr starting", "folds", len(folds), "algorithms", len(opt.Algorithms), "configurations", len(opt.Configs), "workers", opt.Workers)
	}
	res, err := RunExperiment(ctx, folds, opt)
	if err != nil {
		return nil, err
	}
	return res, res.WriteResults(cfg.Dir)
}
