package testsize

import (
	"os"
	"path/filepath"
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
