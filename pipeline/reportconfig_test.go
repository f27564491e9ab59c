package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/report"
)

// TestReportConfigReadsStamps: the report's Config takes every input file
// of the stage stamps with its SHA-256 and the LTR settings recorded in the
// ltr stage's stamp (the stamps as a run writes them, by hand here), and
// the report states them.
func TestReportConfigReadsStamps(t *testing.T) {
	t.Parallel()
	ing, ltrDir := t.TempDir(), t.TempDir()
	write := func(dir, s string) {
		if err := os.WriteFile(filepath.Join(dir, stampName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ing, `{"stage":"ingest","fingerprint":"f1","params":{},"inputs_sha256":{"logs/q.jsonl":"abc123"},"files_sha256":{}}`)
	write(ltrDir, `{"stage":"ltr","fingerprint":"f2","params":{"algorithms":["ranknet","adarank"],"configs":["all"],"iterations":30,"seed":7,"permutations":1000},"files_sha256":{}}`)
	cfg := reportConfig(map[string]string{"some-stage": ing, StageLTR: ltrDir}, []string{"some-stage", StageLTR}, "t", nil)
	if want := map[string]string{"logs/q.jsonl": "abc123"}; !reflect.DeepEqual(cfg.Inputs, want) {
		t.Errorf("inputs %v, want %v", cfg.Inputs, want)
	}
	want := report.LTRSettings{Algorithms: []string{"ranknet", "adarank"}, Configs: []string{"all"}, Iterations: 30, Seed: 7, Permutations: 1000}
	if cfg.LTRSettings == nil || !reflect.DeepEqual(*cfg.LTRSettings, want) {
		t.Errorf("ltr settings %+v, want %+v", cfg.LTRSettings, want)
	}
	if len(cfg.Stages) != 2 || cfg.Stages[0].Fingerprint != "f1" || cfg.Stages[1].Fingerprint != "f2" || cfg.LTR != ltrDir {
		t.Errorf("stages %+v, ltr dir %q", cfg.Stages, cfg.LTR)
	}
	d, err := report.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, " ")
	for _, w := range []string{"logs/q.jsonl (SHA-256 abc123)", "30 iterations per ranker (not the rankers' defaults", "seed 7", "1000 permutations"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q lack %q", notes, w)
		}
	}
}
