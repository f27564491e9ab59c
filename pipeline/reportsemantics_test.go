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
