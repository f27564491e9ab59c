package pipeline

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExampleConfigParses(t *testing.T) {
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
		{"simulate: {sessions: 10, queries: 5, zipf_s: 0.5}\n", "zipf_s"},
		{"log: {path: a}\nclick_models: {iterations: nope}\n", "line 2"},
		{"log: {path: a}\nfeatures: {semantics: java}\n", "features.semantics"},
	} {
		_, err := ParseConfig([]byte(tc.yaml), "cfg.yaml", "/tmp")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cfg.yaml") {
			t.Errorf("%q: err = %v, want one naming cfg.yaml and containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestConfigFeatureSemantics: features.semantics defaults to reference
// (issue 10) and is part of the features stage's parameters, hence of its
// fingerprint.
func TestConfigFeatureSemantics(t *testing.T) {
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
