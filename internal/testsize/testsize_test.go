package testsize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPick: only LOVBENCH_FULL=1 selects the full size.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"1", 6000}, {"", 1500}, {"0", 1500}, {"true", 1500}} {
		t.Setenv(EnvFull, c.env)
		if got := Pick(1500, 6000); got != c.want || Full() != (c.want == 6000) {
			t.Errorf("%s=%q: Pick = %d, Full = %v; want %d", EnvFull, c.env, got, Full(), c.want)
		}
	}
}

// TestToolDir: one directory per name and checkout, made, the same from a
// subdirectory of the checkout, different for another name.
func TestToolDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	a, err := ToolDir("a")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
		t.Fatalf("ToolDir did not make %s: %v", a, err)
	}
	b, _ := ToolDir("b")
	if a == b || filepath.Dir(a) != filepath.Dir(b) {
		t.Errorf("ToolDir(a) = %s, ToolDir(b) = %s: want siblings", a, b)
	}
	t.Chdir("..") // internal: the same checkout
	if a2, err := ToolDir("a"); err != nil || a2 != a {
		t.Errorf("from internal/: ToolDir(a) = %s, %v; want %s", a2, err, a)
	}
}

// TestRunWithMemoryTemp: a TMPDIR of the user's stands; without one the
// run sees a fresh directory under MemoryTempRoot when that is a tmpfs
// with room (else no TMPDIR), removed with TMPDIR afterwards; run's exit
// code is returned.
func TestRunWithMemoryTemp(t *testing.T) {
	var seen string
	var made bool
	look := func() int {
		seen = os.Getenv("TMPDIR")
		fi, err := os.Stat(seen)
		made = err == nil && fi.IsDir()
		return 3
	}
	t.Setenv("TMPDIR", "/somewhere")
	if code := RunWithMemoryTemp(look); code != 3 || seen != "/somewhere" {
		t.Errorf("with TMPDIR set: code %d, run saw TMPDIR %q; want 3, /somewhere", code, seen)
	}
	t.Setenv("TMPDIR", "")
	os.Unsetenv("TMPDIR")
	if code := RunWithMemoryTemp(look); code != 3 {
		t.Errorf("code %d, want 3", code)
	}
	free, tmpfs := memoryFSFree(MemoryTempRoot)
	t.Logf("%s: tmpfs %v, %d bytes free; the run saw TMPDIR %q", MemoryTempRoot, tmpfs, free, seen)
	if !tmpfs || free < MemoryTempMinFree {
		if seen != "" {
			t.Errorf("no roomy tmpfs at %s, yet the run saw TMPDIR %q", MemoryTempRoot, seen)
		}
		return
	}
	if filepath.Dir(seen) != MemoryTempRoot || !made {
		t.Errorf("the run saw TMPDIR %q (a directory: %v), want a new directory in %s", seen, made, MemoryTempRoot)
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("%s left after the run (%v)", seen, err)
	}
	if v, ok := os.LookupEnv("TMPDIR"); ok {
		t.Errorf("TMPDIR %q left set after the run", v)
	}
	if _, ok := memoryFSFree("/proc"); ok {
		t.Error("/proc taken for a tmpfs")
	}
}

// TestRunWithSharedTemp: run gets a new directory named after the prefix
// under the TMPDIR it sees, removed afterwards; its code is returned.
func TestRunWithSharedTemp(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var got, tmp string
	code := RunWithSharedTemp("shared-", func(dir string) int {
		got, tmp = dir, os.Getenv("TMPDIR")
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory during run (%v)", dir, err)
		}
		return 4
	})
	if code != 4 || filepath.Dir(got) != tmp || !strings.HasPrefix(filepath.Base(got), "shared-") {
		t.Errorf("code %d, directory %s; want 4 and shared-* in %s", code, got, tmp)
	}
	if _, err := os.Stat(got); !os.IsNotExist(err) {
		t.Errorf("%s left after the run (%v)", got, err)
	}
}
