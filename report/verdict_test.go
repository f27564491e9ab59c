package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/ltr"
)

// TestReportReadsStoredVerdict: the report shows the verdict the ltr stage
// stored in results.json, not one decided again from the rows. The file
// here stores a best ranker that its (empty) rows could not give: a report
// that decided again would show none.
func TestReportReadsStoredVerdict(t *testing.T) {
	dir := t.TempDir()
	stored := ltr.Verdict{Measure: ltr.VerdictMeasure, Correction: "holm", Alpha: 0.05, Baseline: 0.25,
		Best: &ltr.VerdictRow{Ranker: "stored ranker", Configuration: "all", Value: 0.5}, Learned: 1, Better: 1}
	rf := ltr.ResultsFile{Significance: ltr.SignificanceMethod{Correction: "holm", Alpha: 0.05}, Verdict: stored}
	b, err := json.Marshal(rf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ltr.FileResults), b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Build(Config{LTR: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d.LTRVerdict == nil || d.LTRVerdict.Best == nil || d.LTRVerdict.Best.Ranker != "stored ranker" || d.LTRVerdict.Baseline != 0.25 {
		t.Fatalf("report verdict %+v, want the stored one %+v", d.LTRVerdict, stored)
	}
}
