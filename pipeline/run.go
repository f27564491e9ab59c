package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features/democorpus"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/report"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/workdir"
)

// ErrUnknownStage is returned (wrapped) for a --force naming no stage.
var ErrUnknownStage = errors.New("unknown stage")

// RunOptions controls Run.
type RunOptions struct {
	// Workdir overrides the configuration's work directory.
	Workdir string
	// Force lists stages to rerun even when unchanged ("all" for every one).
	Force []string
	// Now gives the release timestamp (default time.Now).
	Now func() time.Time
	// Log receives progress messages (default: discarded).
	Log *slog.Logger
	// Progress configures the progress bars of long stages (ingest,
	// features, ltr); the zero value shows none.
	Progress progress.Options
	// CrashAt, for crash tests only, names a point "STAGE:POINT" (see
	// CrashPoints) at which the process kills itself with SIGKILL.
	CrashAt string
	// AllowDegenerate publishes a dataset below DefaultMinimums; the
	// report then shows a warning banner. Without it such a run fails
	// (ErrDegenerate) and publishes nothing.
	AllowDegenerate bool
	// Remedy says, in the error of a dataset below the minimums, what
	// gives a larger one (demo: "more --serps and --queries"); empty, it
	// says a larger log or fewer folds (export.folds in the configuration).
	Remedy string
	// until, for the package's tests only, names the last stage to run:
	// the stages after it are left out and no release is published (a
	// test that checks the fit or the labels does not pay for features,
	// export and report).
	until string
}

// RunResult says what a run did.
type RunResult struct {
	Workdir string                `json:"workdir"`
	Stages  []workdir.StageResult `json:"stages"`
	// Release is the name of the release latest points at; Published says
	// whether this run created it (false: nothing changed).
	Release   string `json:"release"`
	Published bool   `json:"published"`
	// ReleaseDir is the release's directory and Report its report.html.
	ReleaseDir string `json:"release_dir"`
	Report     string `json:"report"`
}

// StageNames returns the names of the stages a configuration runs, in
// order.
func StageNames(cfg *Config) []string {
	r := &runner{cfg: cfg}
	var out []string
	for _, s := range r.stages() {
		out = append(out, s.Name)
	}
	return out
}

// Run runs the pipeline of cfg in its work directory: it takes the lock,
// runs (or skips) every stage, and publishes the dataset as a release.
func Run(ctx context.Context, cfg *Config, o RunOptions) (*RunResult, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	for _, d := range cfg.Deprecations {
		o.Log.Warn("configuration: " + d)
	}
	wd := cfg.Workdir
	if o.Workdir != "" {
		wd = o.Workdir
	}
	if wd == "" {
		return nil, errors.New("no work directory: set workdir in the configuration or pass --workdir")
	}
	r := &runner{cfg: cfg, progress: o.Progress, allowDegenerate: o.AllowDegenerate, remedy: o.Remedy, log: o.Log}
	stages := r.stages()
	force := map[string]bool{}
	for _, f := range o.Force {
		for _, name := range strings.Split(f, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			ok := name == "all"
			for _, s := range stages {
				ok = ok || s.Name == name
			}
			if !ok {
				return nil, fmt.Errorf("%w %q: the stages are %s (or all)", ErrUnknownStage, name, strings.Join(StageNames(cfg), ", "))
			}
			force[name] = true
		}
	}
	w, err := workdir.Open(wd, o.Log)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	w.CrashAt = o.CrashAt
	if len(cfg.Corpus.Paths) == 0 {
		paths, err := democorpus.Materialize(filepath.Join(wd, "corpus-embedded"))
		if err != nil {
			return nil, err
		}
		r.corpusPaths = paths
	} else if r.corpusPaths, r.corpusSkipped, err = expandCorpus(cfg.Corpus.Paths, o.Log); err != nil {
		return nil, err
	}
	// Session IDs of a real log are pseudonymised with the configured
	// salt, else with the work directory's private one (PIISaltFile); a
	// simulated log's IDs are counters and are kept.
	if cfg.Simulate == nil {
		if cfg.Log.PIISalt != "" {
			r.piiSalt = []byte(cfg.Log.PIISalt)
		} else if r.piiSalt, err = workdirSalt(wd); err != nil {
			return nil, err
		}
	}
	// Rebuild the stages now that the corpus files are known (their
	// content is part of the fingerprints).
	stages = r.stages()
	if o.until != "" {
		i := slices.IndexFunc(stages, func(s Stage) bool { return s.Name == o.until })
		if i < 0 {
			return nil, fmt.Errorf("%w %q", ErrUnknownStage, o.until)
		}
		stages = stages[:i+1]
	}
	res, err := w.RunStages(ctx, stages, force)
	out := &RunResult{Workdir: wd, Stages: res}
	if err != nil || o.until != "" {
		return out, err
	}
	fps := map[string]string{}
	dirs := map[string]string{}
	for _, s := range res {
		fps[s.Name] = s.Fingerprint
		dirs[s.Name] = s.Dir
	}
	// The export stage refuses a degenerate dataset when it runs; check
	// again in case it was skipped (built earlier with AllowDegenerate).
	if d := dirs[StageExport]; d != "" && !o.AllowDegenerate {
		problems, err := CheckMinimums(d, DefaultMinimums())
		if err != nil {
			return out, err
		}
		if len(problems) > 0 {
			return out, degenerateError(problems, o.Remedy)
		}
	}
	items := releaseItems(dirs)
	name, pub, err := w.Publish(items, fps, o.Now())
	if err != nil {
		return out, fmt.Errorf("publish release: %w", err)
	}
	out.Release, out.Published = name, pub
	out.ReleaseDir = filepath.Join(wd, "releases", name)
	if _, err := os.Stat(filepath.Join(out.ReleaseDir, ReportFile)); err == nil {
		out.Report = filepath.Join(out.ReleaseDir, ReportFile)
	}
	if pub {
		o.Log.Info("release published", "release", out.ReleaseDir)
	} else {
		o.Log.Info("nothing changed; latest release kept", "release", out.ReleaseDir)
	}
	return out, nil
}

// releaseItems lists what a release holds: the ground truth and labels at
// the top, the dataset files of the export stage under dataset/, the
// learning-to-rank results under ltr/, the click-model metrics and the
// report.
func releaseItems(dirs map[string]string) []workdir.ReleaseItem {
	var items []workdir.ReleaseItem
	add := func(stage, file, dst string) {
		if d := dirs[stage]; d != "" {
			p := filepath.Join(d, file)
			if _, err := os.Stat(p); err == nil {
				items = append(items, workdir.ReleaseItem{Src: p, Dst: dst})
			}
		}
	}
	add(StageSample, export.GroundTruthFile, export.GroundTruthFile)
	add(StageLabel, LabelsFile, LabelsFile)
	for _, f := range []string{labels.QueryOrderPath(LabelsFile), labels.PairOrderPath(LabelsFile)} {
		add(StageLabel, f, f)
	}
	add(StageFit, FitSummaryFile, "click_models.json")
	add(StageExport, ".", "dataset")
	add(StageLTR, ".", "ltr")
	add(StageReport, ReportFile, ReportFile)
	return items
}

// stages builds the configured stage list.
func (r *runner) stages() []Stage {
	var st []Stage
	sessDep, sessFile := "", ""
	if r.cfg.Simulate != nil {
		st = append(st, r.simulateStage())
	}
	st = append(st, r.ingestStage())
	sessDep, sessFile = StageIngest, sessions.ParquetName
	st = append(st, r.fitStage(sessDep, sessFile), r.labelStage(sessDep, sessFile), r.sampleStage(),
		r.featuresStage(), r.exportStage())
	if r.cfg.LTREnabled() {
		st = append(st, r.ltrStage())
	}
	st = append(st, r.reportStage(st))
	return st
}

// reportStage renders report.html (and report.json) from the outputs of
// the stages before it (package report).
func (r *runner) reportStage(before []Stage) Stage {
	var deps []string
	for _, s := range before {
		deps = append(deps, s.Name)
	}
	return Stage{
		Name: StageReport, Deps: deps, Params: r.cfg.Report,
		Run: func(ctx context.Context, env *StageEnv) error {
			cfg := reportConfig(env.Deps, deps, r.cfg.Report.Title, r.cfg.Labels.Thresholds)
			if r.cfg.Simulate != nil {
				cfg.Notes = append(cfg.Notes, simulationNote(*r.cfg.Simulate)+" Corpus: "+corpusNote(r.cfg)+".")
			}
			cfg.HTML, cfg.JSON = filepath.Join(env.Dir, report.FileHTML), filepath.Join(env.Dir, report.FileJSON)
			_, err := report.Run(ctx, cfg)
			return err
		},
	}
}

// reportConfig fills the report's Config from the stage output
// directories dirs (by stage name): the directories of the stages it
// reads, the log it analyses (the ingested sessions, or else the simulated
// log), the simulation's truth, the fingerprints of the stages named in
// order, and the input files and learning-to-rank settings their stamps
// record. The report stage and WorkdirReportConfig (lovbench report) both use it.
func reportConfig(dirs map[string]string, order []string, title string, thresholds []float64) report.Config {
	cfg := report.DefaultConfig()
	cfg.Title, cfg.Thresholds = title, thresholds
	cfg.Ingest, cfg.Fit, cfg.Label = dirs[StageIngest], dirs[StageFit], dirs[StageLabel]
	cfg.Sample, cfg.Export, cfg.LTR = dirs[StageSample], dirs[StageExport], dirs[StageLTR]
	if p := dirs[StageIngest]; p != "" {
		cfg.Sessions = filepath.Join(p, sessions.ParquetName)
	} else if p := dirs[StageSimulate]; p != "" {
		cfg.Sessions = filepath.Join(p, SimLogFile)
	}
	if p := dirs[StageSimulate]; p != "" {
		cfg.Truth = filepath.Join(p, TruthFile)
	}
	for _, name := range order {
		cfg.Stages = append(cfg.Stages, report.Stage{Name: name, Fingerprint: stampOf(dirs[name])})
	}
	// Input files and the ltr stage's settings, from the stamps (in
	// stage-name order; a later stage's hash of a file wins).
	var ltrParams json.RawMessage
	for _, name := range slices.Sorted(maps.Keys(dirs)) {
		var st Stamp
		if textio.ReadJSON(filepath.Join(dirs[name], stampName), &st) != nil {
			continue
		}
		for f, h := range st.Inputs {
			if cfg.Inputs == nil {
				cfg.Inputs = map[string]string{}
			}
			cfg.Inputs[f] = h
		}
		if name == StageLTR {
			ltrParams = st.Params
		}
	}
	var lc LTRConfig
	if ltrParams != nil && json.Unmarshal(ltrParams, &lc) == nil {
		cfg.LTRSettings = &report.LTRSettings{Algorithms: lc.Algorithms, Configs: lc.Configs, Iterations: lc.Iterations, Seed: lc.Seed, Permutations: lc.Permutations}
	}
	return cfg
}

func simulationNote(sc SimulateConfig) string {
	var extra string
	if e := sc.Examination; e != nil {
		extra += fmt.Sprintf(", examination %g at the first rank times %g per rank further down", e.First, e.Decay)
	}
	if sc.ReturnAfterClick > 0 {
		extra += fmt.Sprintf(", users coming back to the results page after a click with probability %g", sc.ReturnAfterClick)
	}
	return fmt.Sprintf("Simulated log: %d SERPs whose queries are drawn from a pool of %d queries of the corpus (Zipf exponent %g; not every query of the pool appears), clicks from %s%s (seed %d).",
		sc.Sessions, sc.Queries, sc.ZipfS, strings.ToUpper(sc.Model), extra, sc.Seed)
}

func corpusNote(cfg *Config) string {
	if len(cfg.Corpus.Paths) == 0 {
		return fmt.Sprintf("the %d embedded vocabularies", len(democorpus.Names()))
	}
	return strings.Join(cfg.Corpus.Paths, ", ")
}

// stampOf returns the fingerprint recorded in a stage directory.
func stampOf(dir string) string {
	var s Stamp
	if textio.ReadJSON(filepath.Join(dir, stampName), &s) != nil {
		return ""
	}
	return s.Fingerprint
}

// DemoProfile names a preset of the demo's simulated log.
type DemoProfile string

const (
	// DemoLOVBench is a log shaped like LOVBench's (the default): 2,000
	// SERPs whose queries are drawn from a pool of 400 by Zipf popularity
	// (220 distinct queries appear at seed 1, most seen once or twice), UBM with examination 0.8 at the first rank falling by 0.4 per
	// rank, users who always come back to the results page after a click,
	// and 25 ground-truth rows per query (Table 4: 184,224 over 7,395
	// queries). Its label shares come within 5 points of LOVBench's
	// Table 4; with so few clicks per result the labels follow the hidden
	// relevance only loosely (docs/pipeline.md).
	DemoLOVBench DemoProfile = "lovbench"
	// DemoDense is a log rich in clicks: 40,000 SERPs drawn from a pool of
	// 400 queries (all appear),
	// UBM with the simulator's default examination, 26 rows per query.
	// Its labels recover the hidden relevance well (Pearson about 0.9),
	// and its label shares are far from Table 4.
	DemoDense DemoProfile = "dense"
)

// ParseDemoProfile accepts lovbench and dense.
func ParseDemoProfile(s string) (DemoProfile, error) {
	switch p := DemoProfile(strings.ToLower(s)); p {
	case DemoLOVBench, DemoDense:
		return p, nil
	}
	return "", fmt.Errorf("unknown demo profile %q (want lovbench or dense)", s)
}

// DemoSize returns the profile's number of SERPs and queries.
func (p DemoProfile) DemoSize() (serps, queries int) {
	if p == DemoDense {
		return 40000, 400
	}
	return 2000, 400
}

// DemoConfig is the configuration of `lovbench demo`: a log simulated from
// UBM over the embedded corpus as the profile says (serps SERPs over
// queries queries; 0 means the profile's DemoSize), the LOVBench click
// models, default labels, and a small learning-to-rank experiment.
func DemoConfig(workdir string, profile DemoProfile, serps, queries int, seed uint64) *Config {
	ds, dq := profile.DemoSize()
	if serps == 0 {
		serps = ds
	}
	if queries == 0 {
		queries = dq
	}
	c := DefaultConfig()
	c.Workdir = workdir
	c.Simulate = &SimulateConfig{Sessions: serps, Queries: queries, Model: "ubm", Seed: seed, ZipfS: 1.1}
	if profile != DemoDense {
		c.Simulate.Examination = &ExaminationConfig{First: 0.8, Decay: 0.4}
		c.Simulate.ReturnAfterClick = 1
		c.Sampling.PerQuery = 25
	}
	c.Log.Format = "yandex"
	c.Sampling.Seed = seed
	c.Export.Seed = seed
	c.LTR.Seed = seed
	c.LTR.Iterations = 30
	c.LTR.Permutations = 1000
	c.Report.Title = "lovbench demo report"
	return &c
}

// WorkdirReportConfig fills the report's Config from the current stage outputs
// of a work directory (what `lovbench report` renders): the completed
// stages, the title of the run's report stage and the thresholds of its
// label stage (the defaults where they are not recorded). It takes no
// lock: stage outputs are only ever replaced by rename.
func WorkdirReportConfig(dir string) (report.Config, error) {
	if _, err := os.Stat(filepath.Join(dir, "stages")); err != nil {
		return report.Config{}, fmt.Errorf("%s is not a lovbench work directory (no stages/): %w", dir, err)
	}
	dirs, title, thresholds := map[string]string{}, DefaultConfig().Report.Title, DefaultConfig().Labels.Thresholds
	var order, notes []string
	for _, name := range []string{StageSimulate, StageIngest, StageFit, StageLabel, StageSample, StageFeatures, StageExport, StageLTR} {
		p := filepath.Join(dir, "stages", name)
		var s Stamp
		if textio.ReadJSON(filepath.Join(p, stampName), &s) != nil {
			continue
		}
		dirs[name] = p
		order = append(order, name)
		if name == StageSimulate {
			var sc SimulateConfig
			if json.Unmarshal(s.Params, &sc) == nil {
				notes = append(notes, simulationNote(sc))
			}
		}
		if name == StageLabel {
			var lc LabelConfig
			if json.Unmarshal(s.Params, &lc) == nil && len(lc.Thresholds) == 5 {
				thresholds = lc.Thresholds
			}
		}
	}
	var rs Stamp
	if textio.ReadJSON(filepath.Join(dir, "stages", StageReport, stampName), &rs) == nil {
		var rc ReportConfig
		if json.Unmarshal(rs.Params, &rc) == nil && rc.Title != "" {
			title = rc.Title
		}
	}
	if len(dirs) == 0 {
		return report.Config{}, fmt.Errorf("%s: no completed stage yet; run lovbench run or lovbench demo first", dir)
	}
	cfg := reportConfig(dirs, order, title, thresholds)
	cfg.Notes = notes
	return cfg, nil
}

// ReportFromWorkdir builds the report data from the current stage outputs
// of a work directory (WorkdirReportConfig, report.Build), without writing it.
func ReportFromWorkdir(dir string) (report.Data, error) {
	cfg, err := WorkdirReportConfig(dir)
	if err != nil {
		return report.Data{}, err
	}
	return report.Build(cfg)
}
