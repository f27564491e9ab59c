package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/export"
)

// TestReportSaysFeatureSemantics: the report names the semantics recorded
// in the dataset's manifest.json.
func TestReportSaysFeatureSemantics(t *testing.T) {
	t.Parallel()
	for sem, want := range map[string]string{
		"reference": "reference semantics",
		"paper":     "paper semantics",
		"":          "",
	} {
		dir := t.TempDir()
		m := `{"program":"lovbench","version":"x","parameters":{"folds":5,"seed":1,"keep_junk":false`
		if sem != "" {
			m += `,"feature_semantics":"` + sem + `"`
		}
		m += `}}`
		if err := os.WriteFile(filepath.Join(dir, export.ManifestFile), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Build(Config{Title: "t", Export: dir})
		if err != nil {
			t.Fatal(err)
		}
		if d.FeatureSemantics != sem {
			t.Errorf("%q: FeatureSemantics = %q", sem, d.FeatureSemantics)
		}
		notes := strings.Join(d.Notes, " ")
		if want != "" && !strings.Contains(notes, want) || want == "" && strings.Contains(notes, "semantics") {
			t.Errorf("%q: notes %q, want one containing %q", sem, notes, want)
		}
	}
}

// TestReportStatesProvenance: the report names the program version, every
// input file of the stages with its SHA-256, and the LTR settings
// (iterations, permutations), saying when they are not the rankers'
// defaults.
func TestReportStatesProvenance(t *testing.T) {
	t.Parallel()
	d, err := Build(Config{Title: "t", Inputs: map[string]string{"logs/q.jsonl": "abc123"},
		LTRSettings: &LTRSettings{Algorithms: []string{"ranknet", "adarank"}, Configs: []string{"all"}, Iterations: 30, Seed: 7, Permutations: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, " ")
	for _, want := range []string{"Program: lovbench ", "logs/q.jsonl (SHA-256 abc123)", "ranknet, adarank", "30 iterations per ranker (not the rankers' defaults", "seed 7", "1000 permutations"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}
