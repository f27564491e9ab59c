package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export then validate through the command line: a fresh directory is valid
// (exit 0), a tampered one is not (exit 1), and bad flags are usage errors.
func TestExportValidateCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gtp, fp := writeExportInputs(t, dir, 10, func(q, tm int) int { return (q + tm) % 5 })
	out := filepath.Join(dir, "ds")
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
