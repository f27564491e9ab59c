package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CreateDir + Commit replaces an earlier output whole; Abort leaves the
// target as it was and nothing beside it; a non-empty directory without the
// marker is refused.
func TestCreateDirReplacesWhole(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	write := func(files ...string) error {
		d, err := CreateDir(target, "marker")
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := WriteBytes(filepath.Join(d.Path(), f), []byte(f)); err != nil {
				t.Fatal(err)
			}
		}
		return d.Commit()
	}
	if err := write("marker", "a", "sub/b"); err != nil {
		t.Fatal(err)
	}
	if err := write("marker", "c"); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(target, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(target, p)
			got = append(got, rel)
		}
		return nil
	})
	if strings.Join(got, ",") != "c,marker" {
		t.Errorf("after the second commit: %v, want c and marker only", got)
	}
	d, err := CreateDir(target, "marker")
	if err != nil {
		t.Fatal(err)
	}
	WriteBytes(filepath.Join(d.Path(), "x"), []byte("x"))
	d.Abort()
	if _, err := os.Stat(filepath.Join(target, "c")); err != nil {
		t.Error("Abort changed the target")
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("beside the target after Abort: %v", ents)
	}
	other := filepath.Join(parent, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), nil, 0o644)
	if _, err := CreateDir(other, "marker"); err == nil || !strings.Contains(err.Error(), "not replacing") {
		t.Errorf("directory of other files: %v", err)
	}
	if _, err := CreateDir(filepath.Join(parent, "file"), "marker"); err != nil {
		t.Errorf("missing target: %v", err)
	}
	os.WriteFile(filepath.Join(parent, "plain"), nil, 0o644)
	if _, err := CreateDir(filepath.Join(parent, "plain"), "marker"); err == nil {
		t.Error("a file as target: no error")
	}
}
