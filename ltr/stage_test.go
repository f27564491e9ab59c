package ltr

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunStage: the stage reads the folds of a dataset directory, writes
// results.json with the verdict on NDCG@10 and one results table per
// ranker, and the models only when asked.
func TestRunStage(t *testing.T) {
	data := t.TempDir()
	writeSyntheticFolds(t, data)
	for _, models := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Data, cfg.Dir, cfg.Models = data, t.TempDir(), models
		set, err := NewFeatureSet("1-8")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Experiment.Algorithms, cfg.Experiment.Configs = []Algorithm{AdaRank}, []FeatureSet{set}
		cfg.Experiment.Train.AdaRank.Rounds = 3
		cfg.Experiment.Permutations = 20
		cfg.Experiment.BaselineFeature = 9
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		var rf ResultsFile
		b, err := os.ReadFile(filepath.Join(cfg.Dir, "results.json"))
		if err != nil || json.Unmarshal(b, &rf) != nil {
			t.Fatalf("results.json: %v", err)
		}
		if rf.Verdict.Measure != "NDCG@10" || len(rf.Rows) == 0 {
			t.Errorf("results.json: verdict on %q, %d rows", rf.Verdict.Measure, len(rf.Rows))
		}
		if _, err := os.Stat(filepath.Join(cfg.Dir, "AdaRank_Results.csv")); err != nil {
			t.Error(err)
		}
		ents, _ := os.ReadDir(filepath.Join(cfg.Dir, "models"))
		if want := map[bool]int{false: 0, true: 5}[models]; len(ents) != want {
			t.Errorf("models %v: %d files under models/, want %d", models, len(ents), want)
		}
	}
}
