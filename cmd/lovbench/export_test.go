package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export then validate through the command line: a fresh directory is valid
// (exit 0), a tampered one is not (exit 1), and bad flags are usage errors.
func TestExportValidateCLI(t *testing.T) {
	dir := t.TempDir()
	var gt, feats strings.Builder
	gt.WriteString("query,term,label\n")
	feats.WriteString("query,term")
	for _, n := range []string{"Boolean_Match_T", "LOV_Match_T", "LOV_Match_O", "Text_Relevancy_T", "Class_Match_O",
		"Property_Match_O", "Query_Length_Q", "PageRank_OwlImports_O", "PageRank_ImplicitImports_O", "PageRank_Voaf_O",
		"Hub_T", "Max_Hub_O", "Min_Hub_O", "Betweenness_T", "Betweenness_O",
		"Semantic_Similarity_O", "TF_T", "IDF_T", "TF_IDF_T", "TF_O",
		"IDF_O", "TF_IDF_O", "BM25_T", "BM25_O", "VSM_O",
		"Subclasses_T", "Superclasses_T", "Relations_T", "Siblings_T", "Density_T",
		"Density_O", "Subproperties_T", "Superproperties_T"} {
		feats.WriteString("," + n)
	}
	feats.WriteString("\n")
	for q := range 10 {
		for tm := range 4 {
			fmt.Fprintf(&gt, "q%d,http://x.org/T%d,%d\n", q, tm, (q+tm)%5)
			fmt.Fprintf(&feats, "q%d,http://x.org/T%d", q, tm)
			for j := range 33 {
				fmt.Fprintf(&feats, ",%g", float64(q*tm+j)/7)
			}
			feats.WriteString("\n")
		}
	}
	gtp, fp, out := filepath.Join(dir, "gt.csv"), filepath.Join(dir, "f.csv"), filepath.Join(dir, "ds")
	os.WriteFile(gtp, []byte(gt.String()), 0o644)
	os.WriteFile(fp, []byte(feats.String()), 0o644)
	if code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gtp, "--features", fp, "--seed", "2", "--out", out); code != 0 {
		t.Fatalf("export: code %d: %s", code, errs)
	}
	if code, stdout, errs := runCLI(t, "validate", out); code != 0 || !strings.Contains(stdout, "valid (40 rows, 10 queries, 5 folds)") {
		t.Fatalf("validate: code %d: %s %s", code, stdout, errs)
	}
	os.WriteFile(filepath.Join(out, "qrels.txt"), []byte("1 0 x 1\n"), 0o644)
	if code, stdout, _ := runCLI(t, "validate", out); code != 1 || !strings.Contains(stdout, "qrels.txt: SHA-256") {
		t.Errorf("tampered: code %d: %s", code, stdout)
	}
	if code, _, _ := runCLI(t, "export", "--ground-truth", gtp, "--features", fp, "--out", out, "--folds", "2"); code != 2 {
		t.Errorf("--folds 2: code %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "validate"); code != 2 {
		t.Errorf("validate without DIR: code %d, want 2", code)
	}
}
