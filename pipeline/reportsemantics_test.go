package pipeline

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
		d, err := BuildReportData(ReportInputs{Title: "t", Dirs: map[string]string{StageExport: dir}})
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
// input file of the stage stamps with its SHA-256, and the LTR settings
// (iterations, permutations) recorded in the LTR stage's stamp, saying when
// they are not the rankers' defaults.
func TestReportStatesProvenance(t *testing.T) {
	t.Parallel()
	ing, ltrDir := t.TempDir(), t.TempDir()
	write := func(dir, s string) {
		if err := os.WriteFile(filepath.Join(dir, stampName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ing, `{"stage":"ingest","fingerprint":"f1","params":{},"inputs_sha256":{"logs/q.jsonl":"abc123"},"files_sha256":{}}`)
	write(ltrDir, `{"stage":"ltr","fingerprint":"f2","params":{"algorithms":["ranknet","adarank"],"configs":["all"],"iterations":30,"seed":7,"permutations":1000},"files_sha256":{}}`)
	d, err := BuildReportData(ReportInputs{Title: "t", Dirs: map[string]string{"some-stage": ing, StageLTR: ltrDir}})
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
