package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
)

// ingestStage cleans the log (package ingest; docs/method.md section 2): the
// configured Yandex or LOV log, or the simulated log of the simulate stage.
func (r *runner) ingestStage() Stage {
	lc := r.cfg.Log
	// Parameters without the paths: the inputs count by content.
	// The salt counts by a keyed digest (saltID), never in clear; a
	// simulated log keeps its IDs and adds nothing, so its fingerprint is
	// unchanged.
	// drop_clickless is always in the parameters: the default changed
	// (issue 36), so outputs made before it are not reused.
	var params any = struct {
		Format        string `json:"format"`
		Kind          string `json:"kind"`
		DropClickless bool   `json:"drop_clickless"`
	}{lc.Format, lc.Kind, lc.DropClickless}
	if r.piiSalt != nil {
		params = struct {
			Format        string `json:"format"`
			Kind          string `json:"kind"`
			DropClickless bool   `json:"drop_clickless"`
			SaltID        string `json:"pii_salt_id"`
		}{lc.Format, lc.Kind, lc.DropClickless, saltID(r.piiSalt)}
	}
	st := Stage{Name: StageIngest, Params: params, Inputs: map[string]string{}}
	if r.cfg.Simulate != nil {
		st.Deps = []string{StageSimulate}
	} else if lc.Format == ingest.FormatYandex {
		st.Inputs["log"] = lc.Path
	} else {
		st.Inputs["queries"], st.Inputs["clicks"] = lc.Queries, lc.Clicks
	}
	if lc.PIIBlacklist != "" {
		st.Inputs["pii_blacklist"] = lc.PIIBlacklist
	}
	st.Run = func(ctx context.Context, env *StageEnv) error {
		// AllowEmpty: the stage checks an empty result itself, below.
		o := ingest.DefaultConfig()
		o.Format, o.Kind, o.OutDir, o.Logger, o.Progress, o.AllowEmpty = lc.Format, lc.Kind, env.Dir, env.Log, r.progress, true
		o.PIISalt, o.KeepSessionIDs = r.piiSalt, r.piiSalt == nil
		o.DropClickless = lc.DropClickless
		switch {
		case r.cfg.Simulate != nil:
			o.Format, o.Log = ingest.FormatYandex, env.Dep(StageSimulate, SimLogFile)
		case lc.Format == ingest.FormatYandex:
			o.Log = lc.Path
		default:
			o.Queries, o.Clicks = lc.Queries, lc.Clicks
		}
		if lc.PIIBlacklist != "" {
			bl, err := readLines(lc.PIIBlacklist)
			if err != nil {
				return err
			}
			o.Blacklist = bl
		}
		rep, err := ingest.Run(ctx, o)
		if err != nil {
			return err
		}
		env.Log.Info("ingested", "input_events", rep.InputEvents, "kept_queries", rep.KeptQueries, "kept_clicks", rep.KeptClicks,
			"serps_of_sessions_with_click", rep.SERPsWithClickSession, "serps_of_sessions_without_click", rep.SERPsWithoutClickSession)
		if rep.KeptQueries == 0 {
			return fmt.Errorf("the cleaned log is empty (%d input events, all dropped or quarantined; see %s)", rep.InputEvents, filepath.Join(env.Dir, ingest.ReportFile))
		}
		return nil
	}
	return st
}

// readLines reads the non-empty lines of a file.
func readLines(path string) ([]string, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// featuresStage computes the features of every ground-truth pair (package
// features; LOVBench Table 3).
func (r *runner) featuresStage() Stage {
	fc := r.cfg.Features
	return Stage{
		Name: StageFeatures, Deps: []string{StageSample}, Params: fc, Inputs: r.featuresInputs(),
		Run: func(ctx context.Context, env *StageEnv) error {
			ids, err := features.ParseFeatureList(fc.List)
			if err != nil {
				return fmt.Errorf("features.list: %w", err)
			}
			c, err := r.loadCorpus(ctx)
			if err != nil {
				return err
			}
			cfg := features.DefaultConfig()
			cfg.Corpus, cfg.NotRead = c, r.corpusSkipped
			cfg.Pairs, cfg.Features = env.Dep(StageSample, export.GroundTruthFile), ids
			cfg.Out, cfg.Report = filepath.Join(env.Dir, features.FileFeatures), filepath.Join(env.Dir, features.FileReport)
			// Constant features are logged as information: the report's
			// banner is the run's warning (and the stage's report keeps
			// the list), so that the demo's Min_Hub_O, 0 everywhere under
			// the reference semantics, does not break a quiet run.
			cfg.Log, cfg.ConstantLevel, cfg.Progress = env.Log, slog.LevelInfo, r.progress
			_, err = features.Run(ctx, cfg)
			return err
		},
	}
}

// featuresInputs are the corpus inputs plus the files of the corpus
// directories not read: the stage's report lists them, so a change among
// them reruns it.
func (r *runner) featuresInputs() map[string]string {
	m := r.corpusInputs()
	for i, f := range r.corpusSkipped {
		m["corpus-not-read/"+strconv.Itoa(i)+"/"+filepath.Base(f.Path)] = f.Path
	}
	return m
}

// exportStage writes the dataset files (package export; docs/method.md section 7).
func (r *runner) exportStage() Stage {
	ec := r.cfg.Export
	return Stage{
		Name: StageExport, Deps: []string{StageIngest, StageFit, StageLabel, StageSample, StageFeatures}, Params: ec,
		Run: func(ctx context.Context, env *StageEnv) error {
			pv, err := Provenance(env.Dep(StageIngest, ingest.ReportFile), env.Dep(StageFit, FitSummaryFile), env.Dep(StageLabel, labels.FileReport), r.cfg)
			if err != nil {
				return err
			}
			cfg := export.DefaultConfig()
			cfg.GroundTruth, cfg.Features = env.Dep(StageSample, export.GroundTruthFile), env.Dep(StageFeatures, features.FileFeatures)
			cfg.Out, cfg.QueryOrder = env.Dir, labels.QueryOrderPath(env.Dep(StageLabel, LabelsFile))
			o := &cfg.Options
			o.Folds, o.Seed, o.KeepJunk, o.FeatureSemantics = ec.Folds, uint64(ec.Seed), ec.KeepJunk, r.cfg.Features.Semantics
			o.Provenance, o.Publication, o.MinConfidence, o.MinQueryAgreement, o.KeepConfident, o.KeepAgreeing = pv, r.cfg.publication(), ec.MinConfidence, ec.MinQueryAgreement, ec.KeepConfident, ec.KeepAgreeing
			o.ShareTolerance = ec.AgreeingShareTolerance
			m, err := export.Run(ctx, cfg)
			if err != nil {
				return err
			}
			env.Log.Info("dataset exported", "rows", m.Rows, "queries", m.Queries)
			v, err := export.Validate(ctx, env.Dir)
			if err != nil {
				return fmt.Errorf("validate the exported dataset: %w", err)
			}
			if !v.Valid {
				return fmt.Errorf("the exported dataset fails validation (%s): %s", textio.Count(len(v.Problems)+v.More, "problem", "problems"), strings.Join(v.Problems, "; "))
			}
			problems, err := CheckMinimums(env.Dir, DefaultMinimums())
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				if !r.allowDegenerate {
					return degenerateError(problems, r.remedy)
				}
				env.Log.Warn("dataset below the minimums, published because of --allow-degenerate", "problems", strings.Join(problems, "; "))
			}
			return nil
		},
	}
}

// ltrStage runs the learning-to-rank experiment over the folds (package
// ltr; LOVBench Table 6).
func (r *runner) ltrStage() Stage {
	lc := r.cfg.LTR
	return Stage{
		Name: StageLTR, Deps: []string{StageExport}, Params: lc,
		Run: func(ctx context.Context, env *StageEnv) error {
			var algs []ltr.Algorithm
			for _, a := range lc.Algorithms {
				alg, err := ltr.ParseAlgorithm(a)
				if err != nil {
					return fmt.Errorf("ltr.algorithms: %w", err)
				}
				algs = append(algs, alg)
			}
			cfgs, err := ltr.SelectConfigs(strings.Join(lc.Configs, ","))
			if err != nil {
				return fmt.Errorf("ltr.configs: %w", err)
			}
			cfg := ltr.DefaultConfig()
			cfg.Data, cfg.Dir, cfg.Models = env.Deps[StageExport], env.Dir, false
			e := &cfg.Experiment
			e.Train.Seed = uint64(lc.Seed)
			if lc.Iterations > 0 {
				e.Train.RankNet.Epochs = lc.Iterations
				e.Train.AdaRank.Rounds = lc.Iterations
				e.Train.LambdaMART.Trees = lc.Iterations
				e.Train.CA.MaxIter = lc.Iterations
			}
			e.Algorithms, e.Configs, e.Workers, e.Permutations = algs, cfgs, runtime.GOMAXPROCS(0), lc.Permutations
			e.Log, e.Progress = env.Log, r.progress
			_, err = ltr.Run(ctx, cfg)
			return err
		},
	}
}
