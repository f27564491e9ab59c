package clickmodels

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// Split methods for RunConfig.Split.
const (
	SplitSpec   = "spec"   // Split: first fraction of SERPs in file order
	SplitRandom = "random" // RandomSplit with RunConfig.Seed
	SplitTime   = "time"   // TimeSplit: whole user sessions by first SERP
)

// ParseSplit checks a split name: spec, random or time ("" is spec).
func ParseSplit(s string) (string, error) {
	switch s {
	case "":
		return SplitSpec, nil
	case SplitSpec, SplitRandom, SplitTime:
		return s, nil
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

// RunConfig describes a fit-and-evaluate run (the fit command).
type RunConfig struct {
	Kinds         []Kind
	TrainFraction float64 // default 0.75
	Split         string  // SplitSpec (default), SplitRandom or SplitTime
	Seed          uint64  // for SplitRandom
	Options               // fitting options
	// LoadDir, if set, loads <MODEL>_params.parquet or, without it,
	// <MODEL>_params.json from this directory instead of fitting
	// (fit_seconds is then 0).
	LoadDir string
	// ParamsFormat is the form of the parameter files written (default
	// ParamsAuto).
	ParamsFormat ParamsFileFormat
	// OnModel, if set, is called when a model starts fitting.
	OnModel func(k Kind)
	// OnShard, if set, is called by RunShards after each shard is
	// prepared, with the shards done and their number.
	OnShard func(done, total int)
	// MemoryLimit > 0 bounds the memory of RunShards (bytes; see
	// docs/scale.md); 0 means no bound.
	MemoryLimit int64
	// PreparedBudget bounds the estimated bytes of prepared shards that
	// RunShards holds in memory; the shards beyond it go to
	// prepared-shard files and are read back for every pass. 0 means a
	// quarter of MemoryLimit, or no bound without a MemoryLimit.
	PreparedBudget int64
	// Log, if set, receives progress messages with the memory in use.
	Log *slog.Logger
}

// Report is one model's entry of metrics.json.
type Report struct {
	Model         string `json:"model"`
	Split         string `json:"split"`
	TrainSessions int    `json:"train_sessions"`
	TrainRecords  int    `json:"train_distinct_serps"`
	Metrics
	// PerplexityGain[B] is Gain(this model, B) for every other model B of
	// the run.
	PerplexityGain map[string]float64 `json:"perplexity_gain_over"`
	Iterations     int                `json:"iterations"`
	Exact          bool               `json:"exact_estep,omitempty"`
	Loaded         bool               `json:"loaded,omitempty"`
	// FitSeconds is wall-clock time of Fit (not of Prepare, which all
	// models share: see PrepareSeconds). The only field that differs
	// between reruns.
	FitSeconds     float64 `json:"fit_seconds"`
	PrepareSeconds float64 `json:"prepare_seconds"`
	// Uncertainty says how the intervals of the relevance file were
	// obtained (absent without intervals).
	Uncertainty *UncertaintyReport `json:"uncertainty,omitempty"`
}

// runModels splits log, fits (or loads) every model of cfg and evaluates
// it on the test part.
func runModels(ctx context.Context, log *sessions.Log, cfg RunConfig) ([]*Model, []Report, error) {
	frac := cfg.TrainFraction
	if frac == 0 {
		frac = 0.75
	}
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("train fraction %v, want a value in (0, 1)", frac)
	}
	split := cfg.Split
	if split == "" {
		split = SplitSpec
	}
	var train, test *sessions.Log
	switch split {
	case SplitSpec:
		train, test = Split(log, frac)
	case SplitRandom:
		train, test = RandomSplit(log, frac, cfg.Seed)
	case SplitTime:
		train, test = TimeSplit(log, frac)
	default:
		return nil, nil, fmt.Errorf("unknown split %q (want %s, %s or %s)", split, SplitSpec, SplitRandom, SplitTime)
	}
	if train.Len() == 0 {
		return nil, nil, fmt.Errorf("no training sessions (log has %d)", log.Len())
	}
	if test.Len() == 0 {
		return nil, nil, fmt.Errorf("no test sessions whose query occurs in training (log has %d sessions)", log.Len())
	}
	ranks := DefaultRanks
	for i := 0; i < log.Len(); i++ {
		ranks = max(ranks, log.Ranks(i))
	}
	trainLen := train.Len()
	var d *Data
	var prepSec float64
	var pairOf []int32
	if cfg.LoadDir == "" {
		t0 := time.Now()
		var err error
		if d, err = Prepare(train, ranks); err != nil {
			return nil, nil, err
		}
		prepSec = time.Since(t0).Seconds()
		pairOf = testPairs(d, test)
	}
	// d holds what fitting needs: the SERP columns of the log and its
	// training part may be freed before the models are fitted.
	log, train = nil, nil
	reports := make([]Report, 0, len(cfg.Kinds))
	models := make([]*Model, 0, len(cfg.Kinds))
	for _, k := range cfg.Kinds {
		if cfg.OnModel != nil {
			cfg.OnModel(k)
		}
		rep := Report{Model: k.String(), Split: split, TrainSessions: trainLen}
		var m *Model
		if cfg.LoadDir != "" {
			var err error
			path := ParamsPath(cfg.LoadDir, k)
			if m, err = LoadModel(path); err != nil {
				return nil, nil, err
			}
			if m.Kind != k {
				return nil, nil, fmt.Errorf("%s: holds a %v model", path, m.Kind)
			}
			rep.Loaded = true
		} else {
			t0 := time.Now()
			var err error
			if m, err = Fit(ctx, d, k, cfg.Options); err != nil {
				return nil, nil, fmt.Errorf("fit %v: %w", k, err)
			}
			rep.FitSeconds = time.Since(t0).Seconds()
			rep.PrepareSeconds = prepSec
			rep.TrainRecords = d.Records()
		}
		var met Metrics
		var err error
		if d != nil {
			met, err = evaluatePrepared(m, test, pairOf)
		} else {
			met, err = Evaluate(m, test)
		}
		if err != nil {
			return nil, nil, err
		}
		rep.Metrics = met
		rep.Iterations = m.Iterations
		rep.Exact = m.Exact
		reports = append(reports, rep)
		models = append(models, m)
	}
	FinishReports(reports)
	return models, reports, nil
}

// Run splits log, fits (or loads) every model of cfg, evaluates it on the
// test part and writes to outDir: metrics.json (a JSON array of Report, in
// the order of cfg.Kinds), <MODEL>_relevance.tsv and <MODEL>_params.json,
// built beside outDir and published whole in its place (atomicfile.CreateDir:
// outDir must be missing, empty or an earlier fit output).
func Run(ctx context.Context, log *sessions.Log, cfg RunConfig, outDir string) ([]Report, error) {
	models, reports, err := runModels(ctx, log, cfg)
	if err != nil {
		return nil, err
	}
	// The files are written beside outDir and published whole, so no
	// file of an earlier fit with other models survives.
	dir, err := atomicfile.CreateDir(outDir, "metrics.json")
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	if err := writeRun(dir.Path(), models, reports, cfg.ParamsFormat); err != nil {
		return nil, err
	}
	return reports, dir.Commit()
}

// RunInto is Run writing into the existing directory dir, which its
// caller publishes (a pipeline stage's directory).
func RunInto(ctx context.Context, log *sessions.Log, cfg RunConfig, dir string) ([]Report, error) {
	models, reports, err := runModels(ctx, log, cfg)
	if err != nil {
		return nil, err
	}
	return reports, writeRun(dir, models, reports, cfg.ParamsFormat)
}

// writeRun writes every model's files and metrics.json into dir.
func writeRun(dir string, models []*Model, reports []Report, format ParamsFileFormat) error {
	for i, m := range models {
		unc, err := m.writeFiles(dir, format)
		if err != nil {
			return err
		}
		reports[i].Uncertainty = unc
	}
	return WriteMetrics(dir, reports)
}

// LoadModel reads a parameter file in either form: Parquet when path ends
// in .parquet, else JSON (plain or gzip).
func LoadModel(path string) (*Model, error) {
	if filepath.Ext(path) == ".parquet" {
		return readParquetModel(path)
	}
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadModel(f, path)
}
