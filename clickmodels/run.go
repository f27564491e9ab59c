package clickmodels

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// RunConfig describes a fit-and-evaluate run (the fit command).
type RunConfig struct {
	Kinds         []Kind
	TrainFraction float64    // default split.DefaultTrainFraction
	Split         split.Kind // split.Spec (Split, the default), split.Random (RandomSplit) or split.Time (TimeSplit)
	Seed          uint64     // for split.Random
	Options                  // fitting options
	// LoadDir, if set, loads <MODEL>_params.parquet or, without it,
	// <MODEL>_params.json from this directory instead of fitting
	// (fit_seconds is then 0).
	LoadDir string
	// ParamsFormat is the form of the parameter files written (default
	// ParamsAuto).
	ParamsFormat ParamsFileFormat
	// OnModel, if set, is called when a model starts fitting.
	OnModel func(k Kind)
	// OnShard, if set, is called by outofcore.RunShards after each shard is
	// prepared, with the shards done and their number.
	OnShard func(done, total int)
	// MemoryLimit is the memory limit (bytes) the budgets of the fit were
	// computed from (internal/membudget), reported in the progress log
	// beside the memory in use; 0: none. It bounds nothing itself.
	MemoryLimit int64
	// PreparedBudget bounds the estimated bytes of prepared shards that
	// outofcore.RunShards holds in memory; the shards beyond it go to
	// prepared-shard files and are read back for every pass. 0 means no
	// bound. Under a memory limit the caller sets it from the limit's
	// budget (fit.Run: membudget.Fit.PreparedHeld).
	PreparedBudget int64
	// GibbsSubsetBudget bounds what the sampler on a subset of the
	// queries holds (GibbsSubsetBytes summed over the shards):
	// outofcore.RunShards refuses a fit over it once the shards are
	// prepared, before EM. 0 means no bound; under a memory limit
	// fit.Run sets it (membudget.Fit.GibbsSubset).
	GibbsSubsetBudget int64
	// Log, if set, receives progress messages with the memory in use.
	Log *slog.Logger
	// IdentificationInfo logs a disconnected identifiability graph
	// (LogIdentification) at level Info instead of Warn: for callers that
	// show it elsewhere (the pipeline's report).
	IdentificationInfo bool
	// NoMetricsFile: the fit's reports are only returned, not written to
	// MetricsFile (RunConfig.WriteMetrics decides it for every engine).
	// The pipeline's fit stage sets it: it writes its own summary, without
	// the timings that make MetricsFile differ from run to run.
	NoMetricsFile bool
}

// Report is one model's entry of metrics.json.
type Report struct {
	Model         string     `json:"model"`
	Split         split.Kind `json:"split"`
	TrainSessions int        `json:"train_sessions"`
	TrainRecords  int        `json:"train_distinct_serps"`
	Metrics
	// PerplexityGain[B] is Gain(this model, B) for every other model B of
	// the run.
	PerplexityGain map[string]float64 `json:"perplexity_gain_over"`
	Iterations     int                `json:"iterations"`
	Exact          bool               `json:"exact_estep,omitempty"`
	PSCMAuthors    bool               `json:"pscm_authors,omitempty"`
	// EmpiricalPrior: fitted with Options.EmpiricalPrior, which changes
	// DBN, SDBN, DCM and CCM under the exact estimator (Model.EmpiricalPrior).
	EmpiricalPrior bool `json:"empirical_prior,omitempty"`
	Loaded         bool `json:"loaded,omitempty"`
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
	frac, err := split.TrainFraction(cfg.TrainFraction)
	if err != nil {
		return nil, nil, err
	}
	kind, err := split.Parse(string(cfg.Split))
	if err != nil {
		return nil, nil, err
	}
	var train, test *sessions.Log
	switch kind {
	case split.Spec:
		train, test = Split(log, frac)
	case split.Random:
		train, test = RandomSplit(log, frac, cfg.Seed)
	case split.Time:
		train, test = TimeSplit(log, frac)
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
	cfg.Options = cfg.Options.ResolveIntervals(int64(trainLen))
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
		rep := Report{Model: k.String(), Split: kind, TrainSessions: trainLen}
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
		rep.PSCMAuthors = m.PSCMAuthors
		rep.EmpiricalPrior = m.EmpiricalPrior
		reports = append(reports, rep)
		models = append(models, m)
	}
	FinishReports(reports)
	return models, reports, nil
}

// OutputNames are the name patterns of a fit output directory's files
// besides metrics.json (atomicfile.CreateDir's names): what its index may
// list, the files of each model (<MODEL>_relevance.tsv,
// <MODEL>_params.json or .parquet, and any <MODEL>_* file of that shape).
var OutputNames = []string{"*_*.tsv", "*_*.json", "*_*.parquet"}

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
	dir, err := atomicfile.CreateDir(outDir, MetricsFile, OutputNames...)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	if err := writeRun(dir.Path(), models, reports, cfg); err != nil {
		return nil, err
	}
	LogIdentification(cfg.Log, cfg.IdentificationInfo, reports)
	return reports, dir.Commit()
}

// RunInto is Run writing into the existing directory dir, which its
// caller publishes (a pipeline stage's directory).
func RunInto(ctx context.Context, log *sessions.Log, cfg RunConfig, dir string) ([]Report, error) {
	models, reports, err := runModels(ctx, log, cfg)
	if err != nil {
		return nil, err
	}
	if err := writeRun(dir, models, reports, cfg); err != nil {
		return nil, err
	}
	LogIdentification(cfg.Log, cfg.IdentificationInfo, reports)
	return reports, nil
}

// writeRun writes every model's files and, as cfg says, metrics.json
// into dir.
func writeRun(dir string, models []*Model, reports []Report, cfg RunConfig) error {
	for i, m := range models {
		unc, err := m.WriteFilesReport(dir, cfg.ParamsFormat)
		if err != nil {
			return err
		}
		reports[i].Uncertainty = unc
	}
	return cfg.WriteMetrics(dir, reports)
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

// FinishReports fills every report's PerplexityGain over the others.
func FinishReports(reports []Report) {
	for i := range reports {
		reports[i].PerplexityGain = map[string]float64{}
		for j := range reports {
			if i != j {
				reports[i].PerplexityGain[reports[j].Model] = Gain(reports[i].Perplexity, reports[j].Perplexity)
			}
		}
	}
}

// RelevanceFile names the relevance file of a model (Kind.String, as
// Report.Model): <MODEL>_relevance.tsv, the one place the name is built.
func RelevanceFile(model string) string { return model + "_relevance.tsv" }

// MetricsFile is the file of the fit's reports (WriteMetrics): a JSON
// array of Report, timings included.
const MetricsFile = "metrics.json"

// WriteMetrics writes outDir/MetricsFile for a fit run with c, that is
// unless c.NoMetricsFile: the one place every engine (Run, RunInto,
// outofcore.RunShards) decides whether a fit writes the file.
func (c RunConfig) WriteMetrics(outDir string, reports []Report) error {
	if c.NoMetricsFile {
		return nil
	}
	return WriteMetrics(outDir, reports)
}

// WriteMetrics writes outDir/MetricsFile as Run does.
func WriteMetrics(outDir string, reports []Report) error {
	return atomicfile.WriteFile(filepath.Join(outDir, MetricsFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(reports)
	})
}
