package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetCard: export writes README.md in the Hugging Face card layout
// (YAML front matter with license, task, size category and a config
// pointing at dataset.parquet; the datasheet sections), with the counts of
// the manifest (12 queries x 6 terms = 72 rows, 5 folds, 34 features, the
// 100K-less size category), listed in the manifest with its checksum;
// validate rejects a card that no longer agrees with the manifest even when
// its checksum is fixed.
func TestDatasetCard(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5, FeatureSemantics: "reference"})
	card, err := os.ReadFile(filepath.Join(dir, CardFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(card)
	if !strings.HasPrefix(s, "---\n") || strings.Count(s, "\n---\n") < 1 {
		t.Fatalf("no YAML front matter:\n%.300s", s)
	}
	for _, want := range []string{
		"license: other", "task_categories:\n- text-ranking", "size_categories:\n- n<1K",
		"configs:\n- config_name: default\n  data_files:\n  - split: all\n    path: dataset.parquet",
		"num_rows: 72", "num_queries: 12", "num_folds: 5", "num_features: 34",
		"## Motivation", "## Composition", "## Collection process", "## Preprocessing", "## Uses", "## Distribution", "## Maintenance",
		"72 (query, term) rows over 12 queries", "reference (what LOVBench's Java code computed",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("card lacks %q", want)
		}
	}
	m := readManifest(t, dir)
	found := false
	for _, o := range m.Outputs {
		found = found || o.Path == CardFile
	}
	if !found {
		t.Error("the card is not listed in the manifest")
	}
	v, err := Validate(context.Background(), dir)
	if err != nil || !v.Valid {
		t.Fatalf("dataset with its card rejected: %v %v", err, v.Problems)
	}
	// A card claiming other counts, checksum fixed: still rejected.
	os.WriteFile(filepath.Join(dir, CardFile), bytes.Replace(card, []byte("num_rows: 72"), []byte("num_rows: 73"), 1), 0o644)
	fixManifest(t, dir)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "does not agree with manifest.json") {
		t.Errorf("card disagreeing with the manifest accepted: %v", v.Problems)
	}
}
