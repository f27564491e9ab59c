package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
)

func TestExampleConfigParses(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(filepath.Join("..", "examples", "lovbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultConfig()
	if c.Log.Format != "yandex" || !filepath.IsAbs(c.Log.Path) || !strings.HasSuffix(c.Log.Path, "Terms.txt.gz") {
		t.Errorf("log: %+v", c.Log)
	}
	if c.ClickModels.Iterations != def.ClickModels.Iterations || c.Sampling.PerQuery != def.Sampling.PerQuery ||
		c.Export.Folds != def.Export.Folds || c.Labels.SERPSize != def.Labels.SERPSize || !c.LTREnabled() {
		t.Errorf("the example's values differ from the defaults it documents: %+v", c)
	}
	if !strings.HasSuffix(c.Workdir, "lovbench-work") || !filepath.IsAbs(c.Workdir) {
		t.Errorf("workdir %q", c.Workdir)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"log: {path: a.tsv}\nclick_model: {}\n", "field click_model not found"},
		{"", "set exactly one of"},
		{"log: {path: a}\nsimulate: {sessions: 1, queries: 1}\n", "exactly one"},
		{"log: {path: a, format: lov}\n", "format yandex"},
		{"log: {queries: q}\n", "both queries and clicks"},
		{"log: {path: a}\nclick_models: {select: cm}\n", "click_models.select"},
		{"log: {path: a}\nlabels: {thresholds: [0.5, 0.4, 0.6, 0.7, 0.8]}\n", "not increasing"},
		{"log: {path: a}\nlabels: {thresholds: [0.5]}\n", "want 5"},
		{"log: {path: a}\nexport: {folds: 2}\n", "export.folds"},
		{"log: {path: a}\nexport: {min_confidence: 1.5}\n", "export.min_confidence"},
		{"log: {path: a}\nexport: {min_confidence: -0.1}\n", "export.min_confidence"},
		{"log: {path: a}\nexport: {keep_confident: 1.5}\n", "export.keep_confident"},
		{"log: {path: a}\nexport: {keep_confident: 0.5, min_confidence: 0.5}\n", "export.keep_confident excludes"},
		{"log: {path: a}\nexport: {keep_confident: 0.5, min_query_agreement: 0.5}\n", "export.keep_confident excludes"},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 1.5}\n", "export.keep_agreeing_queries"},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, keep_confident: 0.5}\n", "export.keep_agreeing_queries excludes"},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, min_confidence: 0.5}\n", "export.keep_agreeing_queries excludes"},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, agreeing_share_tolerance: 1}\n", "export.agreeing_share_tolerance: share tolerance 1 is not in (0, 1)"},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, agreeing_share_tolerance: -0.01}\n", "export.agreeing_share_tolerance: share tolerance -0.01 is not in (0, 1)"},
		{"log: {path: a}\nexport: {agreeing_share_tolerance: 0.05}\n", "export.agreeing_share_tolerance applies to export.keep_agreeing_queries only"},
		{"log: {path: a}\nclick_models: {gibbs_subset_serps: 0}\n", "click_models.gibbs_subset_serps: subset of 0 training SERPs: want a positive number"},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs-subset, gibbs_subset_serps: -5}\n", "click_models.gibbs_subset_serps: subset of -5 training SERPs: want a positive number"},
		{"log: {path: a}\nclick_models: {intervals_from: counts, gibbs_subset_serps: 1000}\n", "click_models.gibbs_subset_serps) applies to intervals from gibbs-subset"},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs, gibbs_subset_serps: 50000}\n", "and to auto where it picks the subset: not to gibbs"},
		{"log: {path: a}\nclick_models: {no_intervals: true, gibbs_subset_serps: 1000}\n", "with --no-intervals (no_intervals) auto runs no sampler"},
		{"log: {path: a}\nclick_models: {estimator: pyclick, gibbs_subset_serps: 1000}\n", "(--estimator pyclick) auto takes the counts"},
		{"simulate: {sessions: 10, queries: 5, zipf_s: 0.5}\n", "zipf_s"},
		{"log: {path: a}\nclick_models: {iterations: nope}\n", "line 2"},
		{"log: {path: a}\nfeatures: {semantics: java}\n", "features.semantics"},
		{"log: {path: a}\nclick_models: {estimator: pyclick, empirical_prior: true}\n", "click_models.empirical_prior needs estimator exact"},
		{"simulate: {sessions: 10, queries: 5, model: dbn, examination: {first: 0.5, decay: 0.4}}\n", "DBN has no examination"},
		{"simulate: {sessions: 10, queries: 5, examination: {first: 0, decay: 0.4}}\n", "simulate.examination"},
		{"simulate: {sessions: 10, queries: 5, examination: {first: 0.5, decay: 1.2}}\n", "simulate.examination"},
		{"simulate: {sessions: 10, queries: 5, return_after_click: 1.5}\n", "simulate.return_after_click"},
		{"log: {path: a}\nclick_models: {memory_limit: 9e9G}\n", "click_models.memory_limit: size \"9e9G\" is too large"},
		{"log: {path: a}\nclick_models: {memory_limit: 0.0000001}\n", "click_models.memory_limit: size \"0.0000001\" is less than one byte"},
		{"log: {path: a}\nclick_models: {memory_limit: 1B}\n", "click_models.memory_limit: a memory limit of 1B is too small: the smallest that can work is 1.0MiB"},
		{"log: {path: a}\nmemory_limit: 1B\n", "memory_limit: a memory limit of 1B is too small: the smallest that can work is 1.0MiB"},
		{"log: {path: a}\nmemory_limit: 2GiB\nclick_models: {memory_limit: 1GiB}\n", "click_models.memory_limit and memory_limit both given"},
		{"log: {path: a}\nclick_models: {intervals_from: bootstrap}\n", "click_models.intervals_from: unknown interval method \"bootstrap\""},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs, no_intervals: true}\n", "--no-intervals (no_intervals)"},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs, estimator: pyclick}\n", "needs the exact estimator"},
	} {
		_, err := ParseConfig([]byte(tc.yaml), "cfg.yaml", "/tmp")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cfg.yaml") {
			t.Errorf("%q: err = %v, want one naming cfg.yaml and containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestConfigEmpiricalPrior: click_models.empirical_prior reaches the fit
// as fit --empirical-prior does (Options.EmpiricalPrior), off when left
// out, so a run can fit what lovbench fit --empirical-prior fits.
func TestConfigEmpiricalPrior(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want bool
	}{
		{"log: {path: a}\n", false},
		{"log: {path: a}\nclick_models: {empirical_prior: true}\n", true},
	} {
		_, rc := parseFit(t, tc.yaml)
		if rc.Options.EmpiricalPrior != tc.want {
			t.Errorf("%q: Options.EmpiricalPrior = %v, want %v", tc.yaml, rc.Options.EmpiricalPrior, tc.want)
		}
	}
}

// parseFit parses a configuration and returns it with its click-model fit.
func parseFit(t *testing.T, yaml string) (*Config, clickmodels.RunConfig) {
	t.Helper()
	c, err := ParseConfig([]byte(yaml), "cfg.yaml", "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.ClickModels.RunConfig()
	if err != nil {
		t.Fatal(err)
	}
	return c, rc
}

// TestConfigIntervalsFrom: click_models.intervals_from reaches the fit as
// fit --intervals-from does (Options.Intervals), the default's auto
// when left out, gibbs with memory_limit too.
func TestConfigIntervalsFrom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want clickmodels.IntervalMethod
	}{
		{"log: {path: a}\n", "auto"},
		{"log: {path: a}\nclick_models: {intervals_from: AUTO}\n", "auto"},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs}\n", "gibbs"},
		// With a memory limit too: the sampler runs out of core.
		{"log: {path: a}\nmemory_limit: 2GiB\nclick_models: {intervals_from: gibbs}\n", "gibbs"},
		{"log: {path: a}\nclick_models: {intervals_from: Counts}\n", "counts"},
	} {
		c, rc := parseFit(t, tc.yaml)
		if rc.Options.Intervals != tc.want {
			t.Errorf("%q: Options.Intervals = %q, want %q", tc.yaml, rc.Options.Intervals, tc.want)
		}
		// The default's stays out of the fit stage's parameters (its
		// fingerprint), as before the key existed.
		b, err := json.Marshal(c.ClickModels)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(b), "intervals_from"); has != (tc.want != "auto") {
			t.Errorf("%q: the fit stage's parameters %s", tc.yaml, b)
		}
	}
}

// TestConfigGibbsSubsetSERPs: click_models.gibbs_subset_serps reaches
// the fit as fit --gibbs-subset-serps does (Options.SubsetSERPs), with
// intervals_from gibbs-subset or auto; left out or written as the
// default (50,000), the fit stage's parameters are those of 5e5da1f,
// before the key existed, so their fingerprint is too.
func TestConfigGibbsSubsetSERPs(t *testing.T) {
	t.Parallel()
	const before = `{"models":["dctr","dbn","ubm"],"select":"best","estimator":"exact","iterations":0,"train_fraction":0.75,"split":"spec","seed":1,"interval":0.9}`
	const subset = `{"models":["dctr","dbn","ubm"],"select":"best","estimator":"exact","iterations":0,"train_fraction":0.75,"split":"spec","seed":1,"interval":0.9,"intervals_from":"gibbs-subset"}`
	for _, tc := range []struct {
		yaml   string
		serps  float64
		params string
	}{
		{"log: {path: a}\n", 0, before},
		{"log: {path: a}\nclick_models: {gibbs_subset_serps: 50000}\n", 0, before},
		{"log: {path: a}\nclick_models: {gibbs_subset_serps: 20000}\n", 20000, strings.TrimSuffix(before, "}") + `,"gibbs_subset_serps":20000}`},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs-subset}\n", 0, subset},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs-subset, gibbs_subset_serps: 50000}\n", 0, subset},
		{"log: {path: a}\nclick_models: {intervals_from: gibbs-subset, gibbs_subset_serps: 120000}\n", 120000, strings.TrimSuffix(subset, "}") + `,"gibbs_subset_serps":120000}`},
	} {
		c, rc := parseFit(t, tc.yaml)
		if rc.Options.SubsetSERPs != tc.serps {
			t.Errorf("%q: Options.SubsetSERPs = %v, want %v", tc.yaml, rc.Options.SubsetSERPs, tc.serps)
		}
		if b, _ := json.Marshal(c.ClickModels); string(b) != tc.params {
			t.Errorf("%q: the fit stage's parameters %s, want %s", tc.yaml, b, tc.params)
		}
	}
}

// TestConfigFeatureSemantics: features.semantics defaults to reference
// and is part of the features stage's parameters, hence of its
// fingerprint.
func TestConfigFeatureSemantics(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig([]byte("log: {path: a}\n"), "cfg.yaml", "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	if c.Features.Semantics != "reference" {
		t.Errorf("default features.semantics = %q, want reference", c.Features.Semantics)
	}
	p, err := ParseConfig([]byte("log: {path: a}\nfeatures: {semantics: paper}\n"), "cfg.yaml", "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{cfg: p}
	if st := r.featuresStage(); st.Params.(FeatureConfig).Semantics != "paper" {
		t.Errorf("features stage params %+v, want semantics paper", st.Params)
	}
}

// A section with only some keys set takes the defaults
// (DefaultConfig, as examples/lovbench.yaml lists them) for the others.
func TestPartialSectionsTakeDefaults(t *testing.T) {
	t.Parallel()
	text := "workdir: w\nlog: {path: x.tsv}\nclick_models: {iterations: 5}\nlabels: {serp_size: 15}\n" +
		"sampling: {seed: 7}\nexport: {folds: 3}\nltr: {algorithms: [lambdamart]}\n"
	c, err := ParseConfig([]byte(text), "c.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.ClickModels.Iterations != 5 || strings.Join(c.ClickModels.Models, ",") != "dctr,dbn,ubm" || c.ClickModels.Select != "best" || c.ClickModels.TrainFraction != 0.75 {
		t.Errorf("click_models %+v", c.ClickModels)
	}
	if c.Labels.SERPSize != 15 || len(c.Labels.Thresholds) != 5 || c.Labels.Thresholds[4] != 0.7 {
		t.Errorf("labels %+v", c.Labels)
	}
	if c.Sampling.Seed != 7 || c.Sampling.PerQuery != 26 {
		t.Errorf("sampling %+v", c.Sampling)
	}
	if c.Export.Folds != 3 || c.Export.Seed != 1 {
		t.Errorf("export %+v", c.Export)
	}
	if strings.Join(c.LTR.Algorithms, ",") != "lambdamart" || strings.Join(c.LTR.Configs, ",") != "all" || c.LTR.Seed != 1 || c.LTR.Permutations != 10000 {
		t.Errorf("ltr %+v", c.LTR)
	}
	if c.Log.Kind != "term" || c.Features.List != "1-34" {
		t.Errorf("log %+v features %+v", c.Log, c.Features)
	}
	// The simulate section, off by default, takes the defaults the example
	// file shows for the keys it leaves out: queries 150, model ubm, seed
	// 1, zipf_s 1.1.
	c, err = ParseConfig([]byte("workdir: w\nsimulate: {sessions: 500}\n"), "c.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Simulate; s.Sessions != 500 || s.Queries != 150 || s.Model != "ubm" || s.Seed != 1 || s.ZipfS != 1.1 {
		t.Errorf("simulate %+v", *s)
	}
}

// export.min_confidence is read from the configuration and is part of the
// export stage's parameters only when set, so configurations without it keep
// their fingerprints.
func TestConfigMinConfidence(t *testing.T) {
	c, err := ParseConfig([]byte("log: {path: a}\nexport: {min_confidence: 0.8}\n"), "cfg.yaml", "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	if c.Export.MinConfidence != 0.8 {
		t.Errorf("min_confidence %v", c.Export.MinConfidence)
	}
	b, _ := json.Marshal(c.Export)
	if !strings.Contains(string(b), `"min_confidence":0.8`) {
		t.Errorf("JSON %s", b)
	}
	b, _ = json.Marshal(DefaultConfig().Export)
	if string(b) != `{"folds":5,"seed":1,"keep_junk":false}` {
		t.Errorf("default export JSON %s: the fingerprint of runs without min_confidence changed", b)
	}
}

// export.agreeing_share_tolerance is part of the export stage's
// parameters only when it is not the default (0.01, written or not), so
// configurations that leave it at the default keep their fingerprints.
func TestConfigAgreeingShareTolerance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want string
	}{
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5}\n", `{"folds":5,"seed":1,"keep_junk":false,"keep_agreeing_queries":0.5}`},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, agreeing_share_tolerance: 0.01}\n", `{"folds":5,"seed":1,"keep_junk":false,"keep_agreeing_queries":0.5}`},
		{"log: {path: a}\nexport: {keep_agreeing_queries: 0.5, agreeing_share_tolerance: 0.02}\n", `{"folds":5,"seed":1,"keep_junk":false,"keep_agreeing_queries":0.5,"agreeing_share_tolerance":0.02}`},
		{"log: {path: a}\nexport: {agreeing_share_tolerance: 0.01}\n", `{"folds":5,"seed":1,"keep_junk":false}`},
	} {
		c, err := ParseConfig([]byte(tc.yaml), "cfg.yaml", "/tmp")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if b, _ := json.Marshal(c.Export); string(b) != tc.want {
			t.Errorf("%q: export parameters %s, want %s", tc.yaml, b, tc.want)
		}
	}
}

// A configuration is one YAML document: a second one (after "---") is
// refused with its line, not ignored; an empty one after a trailing "---"
// is nothing. A bad features.list is caught when the configuration is
// read, before any stage runs (it was caught by the features stage, after
// ingest, fit, label and sample).
func TestConfigOneDocumentAndFeatureList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"log: {path: a}\n---\nlog: {path: b}\n", "cfg.yaml: line 3: a second YAML document"},
		{"log: {path: a}\nfeatures: {list: 1-40}\n", "cfg.yaml: features.list"},
		{"log: {path: a}\nfeatures: {list: nope}\n", "cfg.yaml: features.list"},
	} {
		if _, err := ParseConfig([]byte(tc.yaml), "cfg.yaml", "/tmp"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	if c, err := ParseConfig([]byte("log: {path: a}\n---\n"), "cfg.yaml", "/tmp"); err != nil || c.Log.Path != "/tmp/a" {
		t.Errorf("a trailing ---: %v", err)
	}
}

// TestConfigMemoryLimit: the memory limit is a top-level key, the whole
// run's (3GiB = 3 * 2^30 = 3221225472 bytes); the old key
// click_models.memory_limit is still read, moved to the top level with a
// deprecation warning, and no longer part of the click-model section
// (the fit stage's parameters).
func TestConfigMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml       string
		deprecated bool
	}{
		{"log: {path: a}\nmemory_limit: 3GiB\n", false},
		{"log: {path: a}\nclick_models: {memory_limit: 3GiB}\n", true},
	} {
		c, err := ParseConfig([]byte(tc.yaml), "cfg.yaml", "/tmp")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		n, err := c.MemoryLimitBytes()
		if err != nil || n != 3221225472 {
			t.Errorf("%q: limit %d, %v; want 3221225472 bytes", tc.yaml, n, err)
		}
		if c.ClickModels.MemoryLimit != "" {
			t.Errorf("%q: click_models.memory_limit kept (%q)", tc.yaml, c.ClickModels.MemoryLimit)
		}
		if got := len(c.Deprecations) == 1 && strings.Contains(c.Deprecations[0], "top-level key memory_limit"); got != tc.deprecated {
			t.Errorf("%q: deprecations %q, want a warning naming the new key: %v", tc.yaml, c.Deprecations, tc.deprecated)
		}
	}
}

// TestRunLogsDeprecation: Run logs the warning of the deprecated
// click_models.memory_limit before anything else (here it then stops:
// no work directory).
func TestRunLogsDeprecation(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig([]byte("log: {path: a}\nclick_models: {memory_limit: 3GiB}\n"), "cfg.yaml", "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Run(context.Background(), c, RunOptions{Log: slog.New(slog.NewTextHandler(&buf, nil))}); err == nil {
		t.Fatal("a run without a work directory ran")
	}
	if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "click_models.memory_limit is deprecated") {
		t.Errorf("log %q, want the deprecation warning", buf.String())
	}
}

// TestConfigDropClickless: log.drop_clickless reaches the ingest stage's
// parameters (so its fingerprint), true or false; the default keeps the
// sessions without a click and says so in the fingerprint too.
func TestConfigDropClickless(t *testing.T) {
	params := func(yaml string) string {
		c, err := ParseConfig([]byte(yaml), "cfg.yaml", "/tmp")
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal((&runner{cfg: c}).ingestStage().Params)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := params("log: {path: a, drop_clickless: true}\n"); !strings.Contains(got, `"drop_clickless":true`) {
		t.Errorf("drop_clickless: true: ingest parameters %s", got)
	}
	if got := params("log: {path: a}\n"); !strings.Contains(got, `"drop_clickless":false`) {
		t.Errorf("default: ingest parameters %s", got)
	}
}
