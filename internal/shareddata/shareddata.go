// Package shareddata locates the project's reference data (the directory
// named shared beside the repository: papers, the vocabulary corpus,
// PyClick outputs). It exists on developer and CI machines
// only, never on a user's, so tests that need it skip with a clear message
// when it is absent. Nothing outside tests may use this package.
package shareddata

import (
	"os"
	"path/filepath"
)

// Root returns the shared directory: $LOVBENCH_SHARED if set, else the
// directory "shared" beside the module root (found by walking up from the
// working directory to go.mod). ok is false when it does not exist.
func Root() (dir string, ok bool) {
	if d := os.Getenv("LOVBENCH_SHARED"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, true
		}
		return d, false
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			st, err := os.Stat(s)
			return s, err == nil && st.IsDir()
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// TB is the part of testing.TB that Path uses (*testing.T and *testing.B
// have it), so that this package does not import testing.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
}

// Path returns the shared path made of parts, or skips the test with a
// message saying what is missing.
func Path(t TB, parts ...string) string {
	t.Helper()
	root, ok := Root()
	if !ok {
		t.Skipf("shared reference data not found (looked for %q; set LOVBENCH_SHARED): it exists only on developer and CI machines", root)
	}
	p := filepath.Join(append([]string{root}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared reference file %s missing: %v", p, err)
	}
	return p
}
