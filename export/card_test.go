package export

import (
	"bytes"
	"context"
	"github.com/lovbench/lovbench/labels"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetCard: export writes README.md in the Hugging Face card layout
// (YAML front matter with license, task, size category, configs and
// dataset_info; the datasheet sections), with the counts of the manifest
// (12 queries x 6 terms = 72 rows, 5 folds, the 1K-less size category),
// listed in the manifest with its checksum; validate rejects a card that
// no longer agrees with the manifest even when its checksum is fixed.
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
		"configs:\n- config_name: all\n  data_files:\n  - split: full\n    path: dataset.parquet\n  default: true\n",
		"- config_name: all\n  features:\n  - name: query\n    dtype: string\n", "  splits:\n  - name: full\n    num_examples: 72\n",
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
	os.WriteFile(filepath.Join(dir, CardFile), bytes.Replace(card, []byte("72 (query, term) rows"), []byte("73 (query, term) rows"), 1), 0o644)
	fixManifest(t, dir)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "does not agree with manifest.json") {
		t.Errorf("card disagreeing with the manifest accepted: %v", v.Problems)
	}
}

// TestDatasetCardProvenance: the ingest and label reports and the run
// configuration passed in Options.Provenance reach the manifest and the
// card's "Collection process" and "Preprocessing" sections as tables (a
// "|" in a value stays inside its cell), and validate still agrees.
func TestDatasetCardProvenance(t *testing.T) {
	pv := &Provenance{
		Collection:    []Fact{{"input events", "157379"}, {"dropped: rule1_session_without_click", "619"}},
		Labelling:     []Fact{{"labels from", "UBM (selected by best test log-likelihood)"}, {"thresholds (junk, 0, 1, 2, 3, 4)", "0.2,0.45,0.5,0.6,0.7"}},
		Configuration: []Fact{{"sampling", "26 rows | query"}},
	}
	dir, _, _ := buildDir(t, Options{Seed: 5, FeatureSemantics: "reference", Provenance: pv})
	card, err := os.ReadFile(filepath.Join(dir, CardFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(card)
	collection := s[strings.Index(s, "## Collection process"):strings.Index(s, "## Preprocessing")]
	preprocessing := s[strings.Index(s, "## Preprocessing"):strings.Index(s, "## Uses")]
	for _, c := range []struct{ section, want string }{
		{collection, "| dropped: rule1_session_without_click | 619 |"},
		{collection, "| input events | 157379 |"},
		{preprocessing, "| labels from | UBM (selected by best test log-likelihood) |"},
		{preprocessing, "| thresholds (junk, 0, 1, 2, 3, 4) | 0.2,0.45,0.5,0.6,0.7 |"},
		{preprocessing, `| sampling | 26 rows \| query |`},
	} {
		if !strings.Contains(c.section, c.want) {
			t.Errorf("section lacks %q:\n%s", c.want, c.section)
		}
	}
	m := readManifest(t, dir)
	if m.Provenance == nil || len(m.Provenance.Collection) != 2 || m.Provenance.Configuration[0].Value != "26 rows | query" {
		t.Errorf("manifest provenance %+v", m.Provenance)
	}
	if v, err := Validate(context.Background(), dir); err != nil || !v.Valid {
		t.Fatalf("dataset with provenance rejected: %v %v", err, v.Problems)
	}
}

// The card says that a null confidence marks a sampled term (label 0) and
// that the column leaks the label, with the counts of the rows: in
// testInput's 12 queries x 6 terms, terms 4 and 5 have no confidence (24
// rows), and their labels are [4 3 2 1 0 0 0 -2][(q+t)%8], label 0 for 11
// of them (q+t mod 8 in 4..6: t=4 with q%8 in {0,1,2}, t=5 with q%8 in
// {7,0,1}; q in 0..11 gives 6 and 5).
func TestCardSaysConfidenceLeaksLabel(t *testing.T) {
	dir, gt, _ := buildDir(t, Options{Seed: 5})
	null, null0 := 0, 0
	for _, r := range gt {
		if r.Confidence == labels.NoConfidence {
			null++
			if r.Label == 0 {
				null0++
			}
		}
	}
	if null != 24 || null0 != 11 {
		t.Fatalf("test input: %d rows without confidence, %d label 0; want 24 and 11", null, null0)
	}
	card, err := os.ReadFile(filepath.Join(dir, CardFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"A null `confidence` marks a term that sampling added as a non-relevant match, whose label is always 0",
		"here 24 rows have none, 11 of them label 0",
		"it leaks the label",
	} {
		if !strings.Contains(string(card), want) {
			t.Errorf("card lacks %q", want)
		}
	}
}
