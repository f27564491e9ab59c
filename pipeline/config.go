package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/report"
	"github.com/lovbench/lovbench/sampling"
	"github.com/lovbench/lovbench/sessions/split"
)

// Config is the configuration of `lovbench run` (a YAML file; every field is
// documented in examples/lovbench.yaml). Relative paths are relative to the
// configuration file's directory.
type Config struct {
	// Workdir is the work directory (overridden by --workdir).
	Workdir string `yaml:"workdir" json:"workdir"`
	// MemoryLimit, e.g. "3GiB", is the whole run's memory: Go's soft
	// memory limit of the process (membudget.SetSoftLimit, set by the
	// command for the run) and the budget within which the fit stage
	// fits out of core (docs/scale.md); empty: no limit, in memory.
	// Outputs are the same. It was click_models.memory_limit, which is
	// still read, with a deprecation warning (Deprecations).
	MemoryLimit string `yaml:"memory_limit" json:"memory_limit,omitempty"`
	// Log is the search log. Exactly one of Log.Path (Yandex format),
	// Log.Queries+Log.Clicks (LOV raw events) or Simulate must be set.
	Log LogConfig `yaml:"log" json:"log"`
	// Simulate, when set, synthesises the log from the corpus instead.
	Simulate *SimulateConfig `yaml:"simulate" json:"simulate,omitempty"`
	// Corpus lists vocabulary files or directories (N-Quads, N-Triples,
	// Turtle, plain or gzip); empty means the embedded demo corpus.
	Corpus CorpusConfig `yaml:"corpus" json:"corpus"`
	// ClickModels configures the click-model stage.
	ClickModels ClickModelConfig `yaml:"click_models" json:"click_models"`
	// Labels configures the labelling stage.
	Labels LabelConfig `yaml:"labels" json:"labels"`
	// Sampling configures LETOR sampling.
	Sampling SamplingConfig `yaml:"sampling" json:"sampling"`
	// Features selects the features to extract.
	Features FeatureConfig `yaml:"features" json:"features"`
	// Export configures the dataset files.
	Export ExportConfig `yaml:"export" json:"export"`
	// LTR configures the learning-to-rank experiment.
	LTR LTRConfig `yaml:"ltr" json:"ltr"`
	// Report configures the HTML report.
	Report ReportConfig `yaml:"report" json:"report"`

	// Deprecations are the warnings about deprecated keys the file used
	// (ParseConfig); Run logs them.
	Deprecations []string `yaml:"-" json:"-"`

	// dir is the configuration file's directory.
	dir string
	// memoryLimitKey is the key MemoryLimit was read from, for errors.
	memoryLimitKey string
}

// LogConfig names the search log.
type LogConfig struct {
	// Format is "yandex" or "lov".
	Format string `yaml:"format" json:"format"`
	// Path is the Yandex-format log (plain or gzip).
	Path string `yaml:"path" json:"path,omitempty"`
	// Queries and Clicks are the LOV raw query and click event files.
	Queries string `yaml:"queries" json:"queries,omitempty"`
	Clicks  string `yaml:"clicks" json:"clicks,omitempty"`
	// Kind is "term" or "vocab" (LOV logs).
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// PIIBlacklist is an optional file of blacklisted queries, one a line.
	PIIBlacklist string `yaml:"pii_blacklist" json:"pii_blacklist,omitempty"`
	// PIISalt is the key of the session-ID pseudonymisation
	// (ingest.Config.PIISalt). Empty: the work directory's private key
	// (PIISaltFile). Never written to any output (json:"-"); the ingest
	// fingerprint holds only a keyed digest of it.
	PIISalt string `yaml:"pii_salt" json:"-"`
	// DropClickless drops the sessions without a click for the click
	// models too, as LOVBench's rule 1 does (ingest --drop-clickless;
	// ingest.Config.DropClickless). By default they are kept as evidence
	// for the click models, and labels still come only from sessions with
	// a click. It applies to a simulated log as well.
	DropClickless bool `yaml:"drop_clickless" json:"drop_clickless,omitempty"`
}

// SimulateConfig synthesises a log over the corpus (see corpussim.Source).
type SimulateConfig struct {
	Sessions int    `yaml:"sessions" json:"sessions"`
	Queries  int    `yaml:"queries" json:"queries"`
	Model    string `yaml:"model" json:"model"`
	Seed     uint64 `yaml:"seed" json:"seed"`
	// ZipfS is the exponent of the query popularity.
	ZipfS float64 `yaml:"zipf_s" json:"zipf_s"`
	// Examination, when set, replaces the examination probabilities of
	// the simulating model (UBM or PBM; sim.ExaminationGlobal).
	Examination *ExaminationConfig `yaml:"examination,omitempty" json:"examination,omitempty"`
	// ReturnAfterClick is the probability that a user comes back to the
	// results page after a click, which logs the page again
	// (sim.Config.ReturnAfterClick); 0 never.
	ReturnAfterClick float64 `yaml:"return_after_click,omitempty" json:"return_after_click,omitempty"`
}

// ExaminationConfig sets geometric examination probabilities: First at
// the first rank (for UBM: at the rank after the previous click), times
// Decay for every rank further down.
type ExaminationConfig struct {
	First float64 `yaml:"first" json:"first"`
	Decay float64 `yaml:"decay" json:"decay"`
}

// CorpusConfig names the vocabulary corpus.
type CorpusConfig struct {
	Paths    []string `yaml:"paths" json:"paths,omitempty"`
	Lenient  bool     `yaml:"lenient" json:"lenient"`
	Prefixes string   `yaml:"prefixes" json:"prefixes,omitempty"`
}

// ClickModelConfig configures click-model fitting.
type ClickModelConfig struct {
	// Models to fit (PyClick names, case-insensitive).
	Models []string `yaml:"models" json:"models"`
	// Select is "best" (best test log-likelihood) or a model name.
	Select string `yaml:"select" json:"select"`
	// Estimator is the EM estimator (clickmodels.ParseEstimator): exact
	// (the default) or pyclick.
	Estimator string `yaml:"estimator" json:"estimator"`
	// Iterations caps EM (exact) or fixes its number (pyclick); 0: the
	// estimator's (clickmodels.Estimator.Options).
	Iterations    int     `yaml:"iterations" json:"iterations"`
	TrainFraction float64 `yaml:"train_fraction" json:"train_fraction"`
	// The options below are those of lovbench fit, with the same
	// defaults when left out (fit --help).
	//
	// Split is fit --split: spec (file order, the default), random
	// (seeded by Seed) or time.
	Split string `yaml:"split" json:"split"`
	Seed  uint64 `yaml:"seed" json:"seed"`
	// Tolerance is fit --tolerance; left out, the estimator's.
	Tolerance *float64 `yaml:"tolerance" json:"tolerance,omitempty"`
	// Accelerate is fit --accelerate (SQUAREM); left out, the
	// estimator's (exact: true); false runs plain EM.
	Accelerate *bool `yaml:"accelerate" json:"accelerate,omitempty"`
	// Interval is fit --interval, the level of the relevance intervals
	// (clickmodels.DefaultLevel); NoIntervals is fit --no-intervals,
	// which leaves Interval unused.
	Interval    float64 `yaml:"interval" json:"interval,omitempty"`
	NoIntervals bool    `yaml:"no_intervals" json:"no_intervals,omitempty"`
	// IntervalsFrom is fit --intervals-from (clickmodels.IntervalMethod):
	// auto (left out: the default; the Gibbs sampler up to
	// clickmodels.AutoGibbsTrainSERPs training SERPs, the counts above),
	// counts, or gibbs, DBN's and SDBN's intervals from the Gibbs sampler.
	IntervalsFrom string `yaml:"intervals_from" json:"intervals_from,omitempty"`
	// GibbsSubsetSERPs is fit --gibbs-subset-serps, the training SERPs
	// of the subset of queries intervals_from gibbs-subset (or auto, where
	// it picks gibbs-subset) runs the sampler on, positive; left out, the
	// default clickmodels.GibbsSubsetSERPs, as which validate also writes
	// that number, so the stage fingerprint is the same however the
	// default is written.
	GibbsSubsetSERPs *int `yaml:"gibbs_subset_serps" json:"gibbs_subset_serps,omitempty"`
	// ParamsFormat is fit --params-format: auto (the default), json or
	// parquet.
	ParamsFormat string `yaml:"params_format" json:"params_format,omitempty"`
	// PSCMAuthors is fit --pscm-authors.
	PSCMAuthors bool `yaml:"pscm_authors" json:"pscm_authors,omitempty"`
	// EmpiricalPrior is fit --empirical-prior (exact estimator only).
	EmpiricalPrior bool `yaml:"empirical_prior" json:"empirical_prior,omitempty"`
	// Workers is fit --workers (0: all CPUs); the outputs do not depend
	// on it, so it is not in the fingerprint.
	Workers int `yaml:"workers" json:"-"`
	// MemoryLimit is the deprecated place of the run's memory limit,
	// which bounds the whole run, not the click models: ParseConfig moves
	// it to Config.MemoryLimit with a warning (docs/pipeline.md).
	MemoryLimit string `yaml:"memory_limit" json:"-"`
}

// FitOptions returns the EM options of c: its estimator's
// (clickmodels.Estimator.Options), with Iterations when set.
func (c ClickModelConfig) FitOptions() (clickmodels.Options, error) {
	est, err := clickmodels.ParseEstimator(c.Estimator)
	if err != nil {
		return clickmodels.Options{}, fmt.Errorf("click_models.estimator: %w", err)
	}
	opt := est.Options()
	if c.Iterations > 0 {
		opt.Iterations = c.Iterations
	}
	if c.Tolerance != nil {
		opt.Tolerance = *c.Tolerance
	}
	if c.Accelerate != nil {
		opt.Accelerate = *c.Accelerate
	}
	if err := est.CheckEmpiricalPrior(c.EmpiricalPrior); err != nil {
		return clickmodels.Options{}, fmt.Errorf("click_models.empirical_prior %w", err)
	}
	if opt.Intervals, err = clickmodels.ParseIntervalMethod(c.IntervalsFrom); err != nil {
		return clickmodels.Options{}, fmt.Errorf("click_models.intervals_from: %w", err)
	}
	opt.Level, opt.NoIntervals, opt.PSCMAuthors, opt.EmpiricalPrior, opt.Workers = c.Interval, c.NoIntervals, c.PSCMAuthors, c.EmpiricalPrior, c.Workers
	if n := c.GibbsSubsetSERPs; n != nil {
		if err := clickmodels.CheckSubsetSERPs(float64(*n)); err != nil {
			return clickmodels.Options{}, fmt.Errorf("click_models.gibbs_subset_serps: %w", err)
		}
		opt.SubsetSERPs = float64(*n)
	}
	return opt, nil
}

// RunConfig returns the click-model fit of c, option for option what
// lovbench fit runs with the same flags (the kinds, the split, the EM
// options, the parameter files).
func (c ClickModelConfig) RunConfig() (clickmodels.RunConfig, error) {
	var rc clickmodels.RunConfig
	for _, name := range c.Models {
		kind, err := clickmodels.ParseKind(name)
		if err != nil {
			return rc, fmt.Errorf("click_models.models: %w", err)
		}
		rc.Kinds = append(rc.Kinds, kind)
	}
	opt, err := c.FitOptions()
	if err != nil {
		return rc, err
	}
	if rc.Split, err = split.Parse(c.Split); err != nil {
		return rc, fmt.Errorf("click_models.split: %w", err)
	}
	if rc.ParamsFormat, err = clickmodels.ParseParamsFileFormat(c.ParamsFormat); err != nil {
		return rc, fmt.Errorf("click_models.params_format: %w", err)
	}
	rc.Options, rc.TrainFraction, rc.Seed = opt, c.TrainFraction, c.Seed
	return rc, nil
}

// LabelConfig configures labelling.
type LabelConfig struct {
	// Thresholds are the five probability cut points (docs/method.md section 4).
	Thresholds []float64 `yaml:"thresholds" json:"thresholds"`
	SERPSize   int       `yaml:"serp_size" json:"serp_size"`
	// Expert is an optional CBRBench-format expert judgment file.
	Expert string `yaml:"expert" json:"expert,omitempty"`
}

// SamplingConfig configures LETOR sampling.
type SamplingConfig struct {
	PerQuery float64 `yaml:"per_query" json:"per_query"`
	Seed     uint64  `yaml:"seed" json:"seed"`
}

// FeatureConfig selects features.
type FeatureConfig struct {
	// List is a feature list such as "1-33,34".
	List string `yaml:"list" json:"list"`
	// Semantics is "reference" (LOVBench's Java, the default) or "paper"
	// (the formulas as printed); see features.Semantics.
	Semantics string `yaml:"semantics" json:"semantics"`
}

// ExportConfig configures the dataset files.
type ExportConfig struct {
	Folds    int    `yaml:"folds" json:"folds"`
	Seed     uint64 `yaml:"seed" json:"seed"`
	KeepJunk bool   `yaml:"keep_junk" json:"keep_junk"`
	// LogLicense and CorpusLicense are the licences of the search log and
	// the corpus (a Hugging Face licence identifier or free text), for
	// the card, LICENSE.md and croissant.json; empty: not stated (the
	// embedded demo corpus states its own, DemoCorpusLicense).
	LogLicense    string `yaml:"log_license,omitempty" json:"log_license,omitempty"`
	CorpusLicense string `yaml:"corpus_license,omitempty" json:"corpus_license,omitempty"`
	// URL, Creator and DatePublished (YYYY-MM-DD) are the publication
	// facts croissant.json needs; empty: not published yet.
	URL           string `yaml:"url,omitempty" json:"url,omitempty"`
	Creator       string `yaml:"creator,omitempty" json:"creator,omitempty"`
	DatePublished string `yaml:"date_published,omitempty" json:"date_published,omitempty"`
	// DatasetVersion is the dataset's version, MAJOR.MINOR.PATCH, for
	// croissant.json; empty: not stated.
	DatasetVersion string `yaml:"dataset_version,omitempty" json:"dataset_version,omitempty"`
	// MinConfidence builds the dataset from the labels whose confidence is
	// at least this (`lovbench export --min-confidence`); 0 keeps all.
	// Omitted from the JSON form when 0, so the stage fingerprint of a
	// configuration without it is unchanged.
	MinConfidence float64 `yaml:"min_confidence" json:"min_confidence,omitempty"`
	// MinQueryAgreement builds the dataset from the queries whose labels'
	// order has an expected agreement with the true order of at least this
	// (`lovbench export --min-query-agreement`, with the label stage's
	// labels.query_order.csv); 0 keeps all. Omitted when 0, as
	// MinConfidence.
	MinQueryAgreement float64 `yaml:"min_query_agreement" json:"min_query_agreement,omitempty"`
	// KeepConfident builds the dataset from the most confident fraction
	// KeepConfident of each label's rows, keeping the label shares
	// (`lovbench export --keep-confident`; labels.Selection's stratified
	// mode); 0 is off. It excludes MinConfidence and MinQueryAgreement.
	// Omitted when 0, as MinConfidence.
	KeepConfident float64 `yaml:"keep_confident" json:"keep_confident,omitempty"`
	// KeepAgreeing builds the dataset from this fraction of the queries
	// with an expected agreement, whole, the most agreeing whose rows keep
	// every label's share within its bound under AgreeingShareTolerance
	// (`lovbench export --keep-agreeing-queries`; labels.Selection's
	// agreeing mode, with the label stage's labels.query_order.csv); 0 is
	// off. It excludes the other filters. Omitted when 0, as
	// MinConfidence.
	KeepAgreeing float64 `yaml:"keep_agreeing_queries" json:"keep_agreeing_queries,omitempty"`
	// AgreeingShareTolerance is KeepAgreeing's share tolerance, in (0, 1)
	// (`lovbench export --agreeing-share-tolerance`); 0 or absent is the
	// default, labels.ShareTolerance, which Validate writes as 0, so the
	// stage fingerprint is the same however the default is written.
	AgreeingShareTolerance float64 `yaml:"agreeing_share_tolerance" json:"agreeing_share_tolerance,omitempty"`
}

// LTRConfig configures the learning-to-rank experiment.
type LTRConfig struct {
	// Enabled runs the experiment (default true).
	Enabled    *bool    `yaml:"enabled" json:"enabled,omitempty"`
	Algorithms []string `yaml:"algorithms" json:"algorithms"`
	Configs    []string `yaml:"configs" json:"configs"`
	// Iterations bounds training epochs/rounds (0 = the algorithm's default).
	Iterations int    `yaml:"iterations" json:"iterations"`
	Seed       uint64 `yaml:"seed" json:"seed"`
	// Permutations of the randomisation test against the baseline.
	Permutations int `yaml:"permutations" json:"permutations"`
}

// ReportConfig configures the report.
type ReportConfig struct {
	Title string `yaml:"title" json:"title"`
}

// DefaultConfig returns the defaults every missing field takes, built
// from the constants of the packages that own them (ingest's kind and
// full term SERP, labels' thresholds, sampling's size per query, the
// click models' estimator and split, features' semantics).
func DefaultConfig() Config {
	th := labels.DefaultThresholds()
	return Config{
		Log: LogConfig{Kind: ingest.KindTerm},
		ClickModels: ClickModelConfig{Models: strings.Split(clickmodels.DefaultModels, ","), Select: fit.SelectBest, Estimator: string(clickmodels.DefaultEstimator), TrainFraction: split.DefaultTrainFraction,
			Split: string(split.Spec), Seed: split.DefaultSeed, Interval: clickmodels.DefaultLevel},
		Labels:   LabelConfig{Thresholds: th[:], SERPSize: labels.DefaultSERPSize},
		Sampling: SamplingConfig{PerQuery: sampling.DefaultPerQuery, Seed: sampling.DefaultSeed},
		Features: FeatureConfig{List: features.DefaultFeatureList, Semantics: string(features.DefaultSemantics)},
		Export:   ExportConfig{Folds: export.DefaultFolds, Seed: export.DefaultSeed},
		LTR:      LTRConfig{Algorithms: []string{"ranknet", "adarank"}, Configs: []string{"all"}, Seed: 1, Permutations: ltr.DefaultPermutations},
		Report:   ReportConfig{Title: report.DefaultTitle},
	}
}

// DefaultSimulateConfig is the simulate section's defaults, as
// examples/lovbench.yaml lists them; keys a simulate section leaves out take
// these values.
func DefaultSimulateConfig() SimulateConfig {
	return SimulateConfig{Sessions: 3000, Queries: 150, Model: "ubm", Seed: 1, ZipfS: 1.1}
}

// UnmarshalYAML decodes a simulate section over DefaultSimulateConfig (the
// section is a pointer, off by default, so the decoder would otherwise
// start from zero values), rejecting unknown keys as the rest of the file
// does.
func (s *SimulateConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		known := map[string]bool{}
		t := reflect.TypeOf(SimulateConfig{})
		for i := 0; i < t.NumField(); i++ {
			known[strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]] = true
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !known[k.Value] {
				return fmt.Errorf("line %d: field %s not found in simulate", k.Line, k.Value)
			}
		}
	}
	type plain SimulateConfig
	p := plain(DefaultSimulateConfig())
	if err := n.Decode(&p); err != nil {
		return err
	}
	*s = SimulateConfig(p)
	return nil
}

// MemoryLimitBytes is MemoryLimit in bytes, 0 if empty: the one place
// the configuration's limit is parsed (LoadConfig checks it; the fit stage
// and the command that sets Go's soft limit use it).
func (c *Config) MemoryLimitBytes() (int64, error) {
	if c.MemoryLimit == "" {
		return 0, nil
	}
	n, err := bytesize.ParseLimit(c.MemoryLimit)
	if err != nil {
		key := c.memoryLimitKey
		if key == "" {
			key = "memory_limit"
		}
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return n, nil
}

// moveDeprecated moves the value of click_models.memory_limit, the old
// place of the run's memory limit, to memory_limit with a warning in
// Deprecations; both given is an error.
func (c *Config) moveDeprecated() error {
	if c.ClickModels.MemoryLimit == "" {
		return nil
	}
	if c.MemoryLimit != "" {
		return fmt.Errorf("click_models.memory_limit and memory_limit both given: the memory limit is the whole run's, give only the top-level memory_limit")
	}
	c.MemoryLimit, c.ClickModels.MemoryLimit = c.ClickModels.MemoryLimit, ""
	c.memoryLimitKey = "click_models.memory_limit"
	c.Deprecations = append(c.Deprecations, "click_models.memory_limit is deprecated: the memory limit bounds the whole run; write it as the top-level key memory_limit")
	return nil
}

// LoadConfig reads and validates a configuration file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(b, path, filepath.Dir(abs))
}

// ParseConfig parses YAML configuration text. name is used in errors; dir
// is the directory relative paths are resolved against.
func ParseConfig(data []byte, name, dir string) (*Config, error) {
	c := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// One configuration per file: a second YAML document (after "---")
	// would otherwise be ignored without a word.
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		if len(more.Content) > 0 && !(more.Content[0].Kind == yaml.ScalarNode && more.Content[0].Tag == "!!null") {
			return nil, fmt.Errorf("%s: line %d: a second YAML document; a configuration is one document (remove the \"---\" and merge the settings, or split the file)", name, more.Content[0].Line)
		}
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	c.dir = dir
	if err := c.moveDeprecated(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c.resolvePaths()
	return &c, nil
}

func (c *Config) validate() error {
	hasLOV := c.Log.Queries != "" || c.Log.Clicks != ""
	n := 0
	if c.Log.Path != "" {
		n++
	}
	if hasLOV {
		n++
	}
	if c.Simulate != nil {
		n++
	}
	if n != 1 {
		return errors.New("set exactly one of log.path (Yandex log), log.queries+log.clicks (LOV events) or simulate")
	}
	switch {
	case c.Log.Path != "":
		if c.Log.Format == "" {
			c.Log.Format = "yandex"
		}
		if c.Log.Format != "yandex" {
			return fmt.Errorf("log.format: %q with log.path; log.path is a Yandex log (format yandex)", c.Log.Format)
		}
	case hasLOV:
		if c.Log.Format == "" {
			c.Log.Format = "lov"
		}
		if c.Log.Format != "lov" || c.Log.Queries == "" || c.Log.Clicks == "" {
			return errors.New("log: LOV logs need format lov with both queries and clicks")
		}
	}
	if c.Log.Kind != "term" && c.Log.Kind != "vocab" {
		return fmt.Errorf("log.kind: %q, want term or vocab", c.Log.Kind)
	}
	if s := c.Simulate; s != nil {
		if s.Sessions <= 0 || s.Queries <= 0 {
			return errors.New("simulate: sessions and queries must be positive")
		}
		if s.Model == "" {
			s.Model = "ubm"
		}
		if s.ZipfS == 0 {
			s.ZipfS = 1.1
		}
		if s.ZipfS <= 1 {
			return fmt.Errorf("simulate.zipf_s: %g, must be above 1", s.ZipfS)
		}
		if _, err := s.global(); err != nil {
			return err
		}
		if !(s.ReturnAfterClick >= 0 && s.ReturnAfterClick <= 1) {
			return fmt.Errorf("simulate.return_after_click: %g, must be 0 to 1", s.ReturnAfterClick)
		}
	}
	if len(c.ClickModels.Models) == 0 {
		return errors.New("click_models.models: empty")
	}
	for i, m := range c.ClickModels.Models {
		c.ClickModels.Models[i] = strings.ToLower(m)
	}
	c.ClickModels.Select = strings.ToLower(c.ClickModels.Select)
	// intervals_from by its canonical name, the default's left empty: the
	// same fit has one fingerprint however the key is written.
	if m, err := clickmodels.ParseIntervalMethod(c.ClickModels.IntervalsFrom); err == nil {
		c.ClickModels.IntervalsFrom = string(m)
		if m == clickmodels.IntervalsAuto {
			c.ClickModels.IntervalsFrom = ""
		}
	}
	if c.ClickModels.Select != fit.SelectBest {
		found := false
		for _, m := range c.ClickModels.Models {
			found = found || m == c.ClickModels.Select
		}
		if !found {
			return fmt.Errorf("click_models.select: %q is neither best nor one of models %v", c.ClickModels.Select, c.ClickModels.Models)
		}
	}
	if c.ClickModels.Iterations < 0 {
		return fmt.Errorf("click_models.iterations: %d, must not be negative (0: the estimator's)", c.ClickModels.Iterations)
	}
	// The models, the estimator, the split and the parameter files.
	if _, err := c.ClickModels.RunConfig(); err != nil {
		return err
	}
	if t := c.ClickModels.Tolerance; t != nil && !(*t >= 0) {
		return fmt.Errorf("click_models.tolerance: %g, must not be negative", *t)
	}
	if !c.ClickModels.NoIntervals {
		if err := clickmodels.CheckLevel(c.ClickModels.Interval); err != nil {
			return fmt.Errorf("click_models.interval: %w (no_intervals: true fits without intervals)", err)
		}
	}
	if c.ClickModels.Workers < 0 {
		return fmt.Errorf("click_models.workers: %d, must not be negative (0: all CPUs)", c.ClickModels.Workers)
	}
	if err := split.CheckTrainFraction(c.ClickModels.TrainFraction); err != nil {
		return fmt.Errorf("click_models.train_fraction: %w", err)
	}
	limit, err := c.MemoryLimitBytes()
	if err != nil {
		return err
	}
	// What the fit stage's fit.Run would refuse (the Gibbs sampler's
	// intervals with options it cannot take), before any stage runs.
	if rc, err := c.ClickModels.RunConfig(); err == nil {
		rc.MemoryLimit = limit
		if err := fit.Check(fit.Config{RunConfig: rc}); err != nil {
			return fmt.Errorf("click_models: %w", err)
		}
	}
	// gibbs_subset_serps written as the default is the default left
	// out (checked above with the method, as fit checks the flag).
	if n := c.ClickModels.GibbsSubsetSERPs; n != nil && *n == clickmodels.GibbsSubsetSERPs {
		c.ClickModels.GibbsSubsetSERPs = nil
	}
	if len(c.Labels.Thresholds) != 5 {
		return fmt.Errorf("labels.thresholds: %d values, want 5", len(c.Labels.Thresholds))
	}
	for i := 1; i < 5; i++ {
		if c.Labels.Thresholds[i] < c.Labels.Thresholds[i-1] {
			return fmt.Errorf("labels.thresholds: not increasing at %g", c.Labels.Thresholds[i])
		}
	}
	if c.Labels.SERPSize <= 0 {
		return fmt.Errorf("labels.serp_size: %d, must be positive", c.Labels.SERPSize)
	}
	if !(c.Sampling.PerQuery > 0) || math.IsInf(c.Sampling.PerQuery, 0) {
		return fmt.Errorf("sampling.per_query: %g, must be a positive number", c.Sampling.PerQuery)
	}
	sem, err := features.ParseSemantics(c.Features.Semantics)
	if err != nil {
		return fmt.Errorf("features.semantics: %w", err)
	}
	c.Features.Semantics = string(sem)
	// The feature list is checked here, before any stage runs, not by the
	// features stage after ingest, fit, label and sample.
	if _, err := features.ParseFeatureList(c.Features.List); err != nil {
		return fmt.Errorf("features.list: %w", err)
	}
	if c.Export.Folds < export.MinFolds {
		return fmt.Errorf("export.folds: %d, need at least %d (train, validation, test)", c.Export.Folds, export.MinFolds)
	}
	if err := c.publication().Check(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if mc := c.Export.MinConfidence; math.IsNaN(mc) || mc < 0 || mc > 1 {
		return fmt.Errorf("export.min_confidence: %v, must be in [0, 1] (0 keeps every label)", mc)
	}
	if ma := c.Export.MinQueryAgreement; math.IsNaN(ma) || ma < 0 || ma > 1 {
		return fmt.Errorf("export.min_query_agreement: %v, must be in [0, 1] (0 keeps every query)", ma)
	}
	if kc := c.Export.KeepConfident; math.IsNaN(kc) || kc < 0 || kc > 1 {
		return fmt.Errorf("export.keep_confident: %v, must be in [0, 1] (0 is off)", kc)
	}
	if c.Export.KeepConfident > 0 && (c.Export.MinConfidence > 0 || c.Export.MinQueryAgreement > 0) {
		return fmt.Errorf("export.keep_confident excludes export.min_confidence and export.min_query_agreement")
	}
	if ka := c.Export.KeepAgreeing; math.IsNaN(ka) || ka < 0 || ka > 1 {
		return fmt.Errorf("export.keep_agreeing_queries: %v, must be in [0, 1] (0 is off)", ka)
	}
	if c.Export.KeepAgreeing > 0 && (c.Export.MinConfidence > 0 || c.Export.MinQueryAgreement > 0 || c.Export.KeepConfident > 0) {
		return fmt.Errorf("export.keep_agreeing_queries excludes export.min_confidence, export.min_query_agreement and export.keep_confident")
	}
	if c.Export.AgreeingShareTolerance == labels.ShareTolerance {
		c.Export.AgreeingShareTolerance = 0
	}
	if st := c.Export.AgreeingShareTolerance; st != 0 {
		if err := labels.CheckShareTolerance(st); err != nil {
			return fmt.Errorf("export.agreeing_share_tolerance: %w (absent: the default %v)", err, labels.ShareTolerance)
		}
		if c.Export.KeepAgreeing == 0 {
			return fmt.Errorf("export.agreeing_share_tolerance applies to export.keep_agreeing_queries only")
		}
	}
	if c.LTR.Permutations <= 0 {
		return fmt.Errorf("ltr.permutations: %d, must be positive", c.LTR.Permutations)
	}
	if c.LTR.Iterations < 0 {
		return fmt.Errorf("ltr.iterations: %d, must not be negative", c.LTR.Iterations)
	}
	if c.LTREnabled() {
		for _, a := range c.LTR.Algorithms {
			if _, err := ltr.ParseAlgorithm(a); err != nil {
				return fmt.Errorf("ltr.algorithms: %w", err)
			}
		}
	}
	return nil
}

func (c *Config) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

func (c *Config) resolvePaths() {
	c.Log.Path = c.abs(c.Log.Path)
	c.Log.Queries = c.abs(c.Log.Queries)
	c.Log.Clicks = c.abs(c.Log.Clicks)
	c.Log.PIIBlacklist = c.abs(c.Log.PIIBlacklist)
	for i, p := range c.Corpus.Paths {
		c.Corpus.Paths[i] = c.abs(p)
	}
	c.Corpus.Prefixes = c.abs(c.Corpus.Prefixes)
	c.Labels.Expert = c.abs(c.Labels.Expert)
	if c.Workdir != "" {
		c.Workdir = c.abs(c.Workdir)
	}
}

// LTREnabled reports whether the learning-to-rank stage runs.
func (c *Config) LTREnabled() bool { return c.LTR.Enabled == nil || *c.LTR.Enabled }

// global returns the simulating model's global parameters: nil (the
// defaults, sim.DefaultGlobal) unless Examination is set.
func (s *SimulateConfig) global() ([]float64, error) {
	if s.Examination == nil {
		return nil, nil
	}
	kind, err := clickmodels.ParseKind(s.Model)
	if err != nil {
		return nil, fmt.Errorf("simulate.model: %w", err)
	}
	g, err := sim.ExaminationGlobal(kind, clickmodels.DefaultRanks, s.Examination.First, s.Examination.Decay)
	if err != nil {
		return nil, fmt.Errorf("simulate.%w", err)
	}
	return g, nil
}
