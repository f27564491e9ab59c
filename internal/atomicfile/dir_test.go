package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// commitFiles publishes an output directory at target (marker "marker")
// holding the given files, each with its own name as content.
func commitFiles(t *testing.T, target string, files ...string) error {
	t.Helper()
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

// CreateDir + Commit replaces an earlier output whole; Abort leaves the
// target as it was and nothing beside it; a non-empty directory without the
// marker is refused.
func TestCreateDirReplacesWhole(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	write := func(files ...string) error { return commitFiles(t, target, files...) }
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

// A file a user added to an earlier output is never
// deleted by the next run: CreateDir refuses and names it, even when it was
// copied with its times preserved. Files of the earlier run that the new
// one does not write (Fold2 here) and leftover temporary files of a killed
// write do not block.
func TestCreateDirRefusesUnknownFiles(t *testing.T) {
	target := filepath.Join(t.TempDir(), "out")
	commit := func(files ...string) error { return commitFiles(t, target, files...) }
	// The marker first: Commit, not the write order, makes it the stamp.
	if err := commit("marker", "Fold1/a", "Fold2/a"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, ".marker.tmp-123"), []byte("partial"), 0o644)
	if err := commit("marker", "Fold1/a"); err != nil {
		t.Fatalf("rerun over an output with a leftover temporary file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "Fold2")); err == nil {
		t.Error("Fold2 of the earlier run survived")
	}
	old := time.Now().Add(-48 * time.Hour)
	os.WriteFile(filepath.Join(target, "notes.txt"), []byte("mine"), 0o644)
	os.Chtimes(filepath.Join(target, "notes.txt"), old, old) // as cp -p would
	os.MkdirAll(filepath.Join(target, "Fold1", "plots"), 0o755)
	os.WriteFile(filepath.Join(target, "Fold1", "plots", "p.png"), []byte("png"), 0o644)
	err := commit("marker")
	if err == nil || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "Fold1/plots/p.png") {
		t.Fatalf("rerun over user files: %v, want a refusal naming notes.txt and Fold1/plots/p.png", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "notes.txt")); string(b) != "mine" {
		t.Error("the user's file was touched")
	}
	if _, err := os.Stat(filepath.Join(target, "Fold1", "a")); err != nil {
		t.Error("the refused rerun changed the earlier output")
	}
	// A file of the output that the user edited is theirs now, too.
	os.RemoveAll(filepath.Join(target, "Fold1", "plots"))
	os.Remove(filepath.Join(target, "notes.txt"))
	if err := commit("marker", "Fold1/a"); err != nil {
		t.Fatalf("after removing the user's files: %v", err)
	}
	os.WriteFile(filepath.Join(target, "Fold1", "a"), []byte("edited"), 0o644)
	if err := commit("marker"); err == nil || !strings.Contains(err.Error(), "Fold1/a") {
		t.Errorf("rerun over an edited output file: %v", err)
	}
}

// An --out that is a symbolic link is written through:
// the directory it points to gets the new output and the link stays a
// link. A dangling link is refused with a message.
func TestCreateDirThroughSymlink(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	link := filepath.Join(parent, "link")
	os.Symlink("real", link)
	for i, content := range []string{"first", "second"} {
		d, err := CreateDir(link, "marker")
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		WriteBytes(filepath.Join(d.Path(), "marker"), []byte(content))
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("run %d: %s is no longer a symbolic link", i, link)
		}
		if b, _ := os.ReadFile(filepath.Join(real, "marker")); string(b) != content {
			t.Errorf("run %d: the link's target holds %q, want %q", i, b, content)
		}
	}
	dangling := filepath.Join(parent, "dangling")
	os.Symlink("missing/deeper", dangling)
	if _, err := CreateDir(dangling, "marker"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("dangling link: %v", err)
	}
}
