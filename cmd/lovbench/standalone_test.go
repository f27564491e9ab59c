package main

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The project stands alone: the reference notes and data
// that exist on developer machines only are never cited where a user reads:
// docs/, README.md, examples/, beam/README.md, and the Go sources other than
// tests and the bench/ programs (help texts, error messages, doc comments).
func TestUserFacingTextCitesNoReferenceFiles(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	forbidden := []string{"SPEC.md", "../shared", "/work/shared"}
	// The layout of the shared folder, cited without its root: the
	// papers' notes, the published results, the reference outputs and
	// the LOV data (not the repository's own testdata/lov/).
	layout := regexp.MustCompile(`(^|[^\w/.-])(papers/[\w.-]+\.md|data/lovbench-results|reference/(pyclick|ranklib|lovbench-java|trec_eval)|data/lov/|data/vocabularies)`)
	userFacing := func(rel string) bool {
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "README.md", rel == "beam/README.md":
			return true
		case strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"):
			return true
		case strings.HasPrefix(rel, "examples/"):
			return true
		case strings.HasSuffix(rel, ".go"):
			return !strings.HasSuffix(rel, "_test.go") && !strings.HasPrefix(rel, "bench/")
		}
		return false
	}
	// The layout's paths all hold one of these: a line without any
	// cannot match it, and is not given to the regular expression.
	layoutHints := []string{"papers/", "data/", "reference/"}
	buf := make([]byte, 1<<20) // one scanner buffer for every file
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !userFacing(rel) {
			return nil
		}
		checked++
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(buf, 1<<24)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			for _, bad := range forbidden {
				if strings.Contains(line, bad) {
					t.Errorf("%s:%d mentions %s, which users do not have; cite docs/method.md or the LOVBench paper", filepath.ToSlash(rel), n, bad)
				}
			}
			if !slices.ContainsFunc(layoutHints, func(h string) bool { return strings.Contains(line, h) }) {
				continue
			}
			if m := layout.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d cites %s, a folder users do not have; cite the paper, its section or table, or a file in the repository", filepath.ToSlash(rel), n, m[2])
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("checked only %d files; the walk missed the sources", checked)
	}
}

// No compiled program is committed (item 7: a 3.5 MB `scale`
// binary was), and the binaries that `go build` writes at the root are
// ignored.
func TestNoCommittedBinaries(t *testing.T) {
	t.Parallel()
	gitbin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found; cannot list the committed files")
	}
	root, _ := filepath.Abs("../..")
	out, err := exec.Command(gitbin, "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v); nothing to check", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b := make([]byte, 4)
		fh, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		n, _ := fh.Read(b)
		fh.Close()
		head := string(b[:n])
		if head == "\x7fELF" || head == "\xcf\xfa\xed\xfe" || head == "\xfe\xed\xfa\xcf" || strings.HasPrefix(head, "MZ") {
			t.Errorf("%s is a compiled program; remove it from git (build outputs are ignored)", f)
		}
	}
	for _, f := range []string{"lovbench", "scale", "lovbench-beam", "beam/lovbench-beam", "cmd/lovbench/lovbench.test"} {
		if err := exec.Command(gitbin, "-C", root, "check-ignore", "-q", f).Run(); err != nil {
			t.Errorf("%s (a build output) is not ignored by .gitignore", f)
		}
	}
}
