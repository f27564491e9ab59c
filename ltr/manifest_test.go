package ltr

import (
	"bytes"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ReadFolds takes the number of folds from the export's
// manifest.json: stale Fold4/Fold5 of an earlier 5-fold export beside a
// 3-fold manifest are not read, and a missing fold the manifest names is
// an error.
func TestReadFoldsFromManifest(t *testing.T) {
	dir := t.TempDir()
	ds, _ := Synthetic(SyntheticOptions{Queries: 25, DocsPerQuery: 4, Features: 9, Noise: 0.1, Seed: 1})
	for _, f := range MakeFolds(ds, 9) { // 5 folds on disk
		for part, d := range map[string]*Dataset{"train.txt": f.Train, "vali.txt": f.Vali, "test.txt": f.Test} {
			var b bytes.Buffer
			if err := WriteSVMLight(&b, d); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, f.Name, part)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, b.Bytes(), 0o644)
		}
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"program":"lovbench","parameters":{"folds":3,"seed":1}}`), 0o644)
	got, err := ReadFolds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Name != "Fold3" {
		t.Fatalf("%d folds, want the manifest's 3", len(got))
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"parameters":{"folds":6}}`), 0o644)
	if _, err := ReadFolds(dir); err == nil || !strings.Contains(err.Error(), "Fold6") {
		t.Errorf("manifest says 6 folds, 5 on disk: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"parameters":{"folds":"x"}}`), 0o644)
	if _, err := ReadFolds(dir); err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("bad manifest: %v", err)
	}
}

// TestFoldLayoutNames: the names of the LETOR layout (MSLR-WEB10K,
// LOVBench: Fold1/train.txt, vali.txt, test.txt) and the pattern export
// lists them under match each other.
func TestFoldLayoutNames(t *testing.T) {
	want := map[string]bool{"Fold1/train.txt": true, "Fold1/vali.txt": true, "Fold1/test.txt": true, "Fold5/test.txt": true}
	got := map[string]bool{FoldFile(5, SetTest): true}
	for _, s := range FoldSets() {
		got[FoldFile(1, s)] = true
	}
	if !maps.Equal(got, want) {
		t.Errorf("fold files %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for f := range got {
		if ok, err := path.Match(FoldFilesPattern, f); !ok || err != nil {
			t.Errorf("FoldFilesPattern %q does not match %s (%v)", FoldFilesPattern, f, err)
		}
	}
	for _, f := range []string{"Fold1.txt", "partitions/Fold1.txt", "Fold1/train.parquet"} {
		if ok, _ := path.Match(FoldFilesPattern, f); ok {
			t.Errorf("FoldFilesPattern %q matches %s", FoldFilesPattern, f)
		}
	}
}
