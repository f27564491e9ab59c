package refdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fatalTB records Fatalf instead of stopping the test.
type fatalTB struct{ msg string }

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	if f.msg == "" {
		f.msg = fmt.Sprintf(format, args...)
	}
}

// Path finds the data from this package's directory and from a directory
// below it (the walk up to the repository root), and a missing file is a
// failure naming it, never a skip.
func TestPath(t *testing.T) {
	p := Path(t, "pyclick", "golden_ubm6k.tsv")
	if filepath.Base(filepath.Dir(p)) != "pyclick" {
		t.Errorf("Path = %s", p)
	}
	var f fatalTB
	Path(&f, "pyclick", "no-such.tsv")
	if !strings.Contains(f.msg, filepath.Join("internal", "refdata", "testdata", "pyclick", "no-such.tsv")+" missing") {
		t.Errorf("missing file: %q", f.msg)
	}
	want, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("testdata", "pyclick", "golden_ubm6k"))
	if got := Path(t, "pyclick", "golden_ubm6k.tsv"); got != want {
		t.Errorf("from below: Path = %s, want %s", got, want)
	}
}

// Every data set says where it came from and under which licence, and
// carries the licence file where its source has one.
func TestProvenance(t *testing.T) {
	sets, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	licensed := map[string]bool{"lovbench": true, "vocabularies": true, "lov": true}
	for _, s := range sets {
		dir := filepath.Join("testdata", s.Name())
		b, err := os.ReadFile(filepath.Join(dir, "PROVENANCE.md"))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if !strings.Contains(string(b), "## Licence") {
			t.Errorf("%s/PROVENANCE.md has no Licence section", dir)
		}
		lic, _ := filepath.Glob(filepath.Join(dir, "LICENSE*"))
		if licensed[s.Name()] != (len(lic) == 1) {
			t.Errorf("%s: licence files %v", dir, lic)
		}
		delete(licensed, s.Name())
	}
	if len(licensed) != 0 {
		t.Errorf("data sets missing: %v", licensed)
	}
}
