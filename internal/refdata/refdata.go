// Package refdata locates the reference data that lovbench's tests check
// their results against: PyClick's outputs on a simulated click log (the
// click models, LOVBench paper section 4.2), CBRBench's expert judgments
// and LOVBench's published agreement with them (section 4.2.3), LOVBench's
// feature list, configurations and learning-to-rank results (sections 5.1
// and 6), the vocabulary corpus the features are computed on (section 5.1)
// and LOV's prefix list. The files live in this package's testdata/
// directory, each set with its licence and a PROVENANCE.md saying where it
// came from and how it was made, so that every test runs from a fresh clone
// of the repository.
//
// Only tests and the bench/ programs use this package.
package refdata

import (
	"errors"
	"os"
	"path/filepath"
)

// rel is the data directory relative to the repository root.
var rel = filepath.Join("internal", "refdata", "testdata")

// Dir returns the reference data directory, found by walking up from the
// working directory to the repository root (a test runs in its package's
// directory, a bench program usually at the root; the beam/ module lives
// inside the repository too).
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, rel)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("reference data directory " + rel + " not found above " + wd + ": run from inside the lovbench repository")
		}
	}
}

// TB is the part of testing.TB that Path uses (*testing.T and *testing.B
// have it), so that this package does not import testing.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Path returns the reference file or directory made of parts under Dir.
// The data is part of the repository, so a missing file fails the test
// rather than skipping it.
func Path(t TB, parts ...string) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatalf("%v", err)
		return ""
	}
	p := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("reference data %s missing: %v", filepath.Join(append([]string{rel}, parts...)...), err)
	}
	return p
}
