package export

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadPID returns the ID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.ProcessState.Pid()
}

// A 3-fold export into the directory of a 5-fold one
// leaves no Fold4/Fold5 behind, and the directory validates.
func TestExportReplacesEarlierExport(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 3, 33)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	out := filepath.Join(t.TempDir(), "dataset")
	for _, folds := range []int{5, 3} {
		if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Folds: folds, Seed: 1}}); err != nil {
			t.Fatalf("%d folds: %v", folds, err)
		}
	}
	for _, stale := range []string{"Fold4", "Fold5"} {
		if _, err := os.Stat(filepath.Join(out, stale)); err == nil {
			t.Errorf("%s of the 5-fold export is still there", stale)
		}
	}
	v, err := Validate(context.Background(), out)
	if err != nil || !v.Valid || v.Folds != 3 {
		t.Errorf("valid %v folds %d: %v %v", v.Valid, v.Folds, err, v.Problems)
	}
}

// Temporary files a killed export left inside the
// directory, and a killed run's staging directory beside it, are gone after
// the next successful export; a directory of other files is not replaced.
func TestExportLeavesNoTempFiles(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 3, 33)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	parent := t.TempDir()
	out := filepath.Join(parent, "dataset")
	run := func() error {
		_, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 1}})
		return err
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	// What a SIGKILL during atomicfile writes leaves: a temporary file in
	// the target, and a staging directory beside it of a dead process.
	inside := filepath.Join(out, "Fold1", ".train.txt.tmp-123456")
	os.WriteFile(inside, []byte("partial"), 0o644)
	beside := filepath.Join(parent, ".dataset.tmp-"+strconv.Itoa(deadPID(t))+"-999")
	os.MkdirAll(filepath.Join(beside, "Fold1"), 0o755)
	if err := run(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{inside, beside} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived a successful export", p)
		}
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 || ents[0].Name() != "dataset" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside the dataset: %v, want only dataset", names)
	}
	v, err := Validate(context.Background(), out)
	if err != nil || !v.Valid {
		t.Errorf("invalid: %v %v", err, v.Problems)
	}

	// A non-empty directory that is not a dataset is refused and kept.
	other := filepath.Join(parent, "home")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "thesis.tex"), []byte("x"), 0o644)
	_, err = Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: other, Options: Options{Seed: 1}})
	if err == nil || !strings.Contains(err.Error(), "not replacing") {
		t.Errorf("export over a directory of other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "thesis.tex")); err != nil {
		t.Errorf("the other directory was touched: %v", err)
	}
	// A failed export (bad features file) leaves no directory.
	failed := filepath.Join(parent, "failed")
	os.WriteFile(fp, []byte("query,term\n"), 0o644)
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: failed, Options: Options{Seed: 1}}); err == nil {
		t.Fatal("bad features: no error")
	}
	if _, err := os.Stat(failed); err == nil {
		t.Error("a failed export left its --out directory")
	}
}
