package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
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
		if err == nil && !e.IsDir() && e.Name() != IndexFile {
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

// A file a user added to an earlier output is never deleted by the next
// run, whatever the time stamps say: CreateDir refuses and names it, even
// when it was copied with its times preserved or the marker was touched
// (or edited) after it. Files of the earlier run that the new one does not
// write (Fold2 here) do not block.
func TestCreateDirRefusesUnknownFiles(t *testing.T) {
	target := filepath.Join(t.TempDir(), "out")
	commit := func(files ...string) error { return commitFiles(t, target, files...) }
	if err := commit("marker", "Fold1/a", "Fold2/a"); err != nil {
		t.Fatal(err)
	}
	// What a killed atomic write of a listed file leaves is the command's;
	// a name of that shape beside no listed file is not.
	os.WriteFile(filepath.Join(target, "Fold1", ".a.tmp-123"), []byte("partial"), 0o644)
	os.WriteFile(filepath.Join(target, ".notes.tmp-1"), []byte("mine"), 0o644)
	if err := commit("marker", "Fold1/a"); err == nil || !strings.Contains(err.Error(), "(added: .notes.tmp-1)") {
		t.Fatalf("rerun over a user's file named like a temporary one: %v", err)
	}
	os.Remove(filepath.Join(target, ".notes.tmp-1"))
	if err := commit("marker", "Fold1/a"); err != nil {
		t.Fatalf("rerun over an unchanged output with a leftover temporary file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "Fold2")); err == nil {
		t.Error("Fold2 of the earlier run survived")
	}
	old := time.Now().Add(-48 * time.Hour)
	os.WriteFile(filepath.Join(target, "results.csv"), []byte("mine"), 0o644)
	os.Chtimes(filepath.Join(target, "results.csv"), old, old) // as cp -p would
	// The marker touched after the user's file (a checkout, an editor, a
	// copy that resets times): on time stamps alone, results.csv would
	// look older than the output and be deleted.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(target, "marker"), future, future)
	os.MkdirAll(filepath.Join(target, "Fold1", "plots"), 0o755)
	os.WriteFile(filepath.Join(target, "Fold1", "plots", "p.png"), []byte("png"), 0o644)
	err := commit("marker")
	if err == nil || !strings.Contains(err.Error(), "added: Fold1/plots/, results.csv") {
		t.Fatalf("rerun over user files: %v, want a refusal naming Fold1/plots/ and results.csv as added", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "results.csv")); string(b) != "mine" {
		t.Error("the user's file was touched")
	}
	if _, err := os.Stat(filepath.Join(target, "Fold1", "a")); err != nil {
		t.Error("the refused rerun changed the earlier output")
	}
	os.RemoveAll(filepath.Join(target, "Fold1", "plots"))
	os.Remove(filepath.Join(target, "results.csv"))
	if err := commit("marker", "Fold1/a", "Fold1/b"); err != nil {
		t.Fatalf("after removing the user's files: %v", err)
	}
	// A file of the output that the user edited is theirs now, even with
	// its size and times kept; so is an edited marker. A removed file
	// blocks too: the directory is not as the command left it.
	fa := filepath.Join(target, "Fold1", "a")
	st, _ := os.Stat(fa)
	os.WriteFile(fa, []byte("FOLD1/A"), 0o644)
	os.Chtimes(fa, st.ModTime(), st.ModTime())
	os.WriteFile(filepath.Join(target, "marker"), []byte("edited"), 0o644)
	os.Remove(filepath.Join(target, "Fold1", "b"))
	if err := commit("marker"); err == nil || !strings.Contains(err.Error(), "changed: Fold1/a, marker; missing: Fold1/b") {
		t.Errorf("rerun over an edited output: %v", err)
	}
}

// An output written before the index (marker, no IndexFile) is refused with
// a message saying why and what to do; so is another command's output and
// an unreadable index.
func TestCreateDirRefusesUnindexed(t *testing.T) {
	parent := t.TempDir()
	legacy := filepath.Join(parent, "legacy")
	os.MkdirAll(legacy, 0o755)
	os.WriteFile(filepath.Join(legacy, "marker"), nil, 0o644)
	if _, err := CreateDir(legacy, "marker"); err == nil || !strings.Contains(err.Error(), "earlier lovbench") {
		t.Errorf("output without %s: %v", IndexFile, err)
	}
	other := filepath.Join(parent, "other")
	d, err := CreateDir(other, "metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	WriteBytes(filepath.Join(d.Path(), "metrics.json"), []byte("[]"))
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateDir(other, "marker"); err == nil || !strings.Contains(err.Error(), "another command") {
		t.Errorf("another command's output: %v", err)
	}
	os.WriteFile(filepath.Join(other, IndexFile), []byte(`{"marker":"metrics.json","files":[{"path":"../x","bytes":0,"sha256":""}]}`), 0o644)
	if _, err := CreateDir(other, "metrics.json"); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("index with a path outside: %v", err)
	}
}

// The index is the same bytes for the same files, whatever the order they
// were written in, and lists sizes and SHA-256 sums computed by hand
// (sha256 of "a" and of "sub/b", as `printf a | sha256sum` gives).
func TestIndexContent(t *testing.T) {
	var got [2][]byte
	for i, order := range [][]string{{"marker", "sub/b", "a"}, {"a", "marker", "sub/b"}} {
		target := filepath.Join(t.TempDir(), "out")
		if err := commitFiles(t, target, order...); err != nil {
			t.Fatal(err)
		}
		got[i], _ = os.ReadFile(filepath.Join(target, IndexFile))
	}
	if string(got[0]) != string(got[1]) {
		t.Errorf("the index depends on the write order:\n%s\n%s", got[0], got[1])
	}
	want := `{
  "marker": "marker",
  "dirs": [
    "sub"
  ],
  "files": [
    {
      "path": "a",
      "bytes": 1,
      "sha256": "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
    },
    {
      "path": "marker",
      "bytes": 6,
      "sha256": "ed5b8120601641c516d02ed9dc643a59648524248d5e2af877da39ea253c723e"
    },
    {
      "path": "sub/b",
      "bytes": 5,
      "sha256": "bd60e19f4a7bdcfa342ec1ce89d658dc5d69de49908a7913fab09ab53fd96a66"
    }
  ]
}
`
	if string(got[0]) != want {
		t.Errorf("index:\n%s\nwant:\n%s", got[0], want)
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

// BenchmarkCommitIndex measures what the index costs a published output:
// hashing every file at Commit and again when the next run checks the
// directory (CreateDir over it), for an output of 64 MiB in 8 files.
func BenchmarkCommitIndex(b *testing.B) {
	target := filepath.Join(b.TempDir(), "out")
	chunk := make([]byte, 8<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	b.SetBytes(8 * int64(len(chunk)))
	for b.Loop() {
		d, err := CreateDir(target, "marker")
		if err != nil {
			b.Fatal(err)
		}
		for i := range 8 {
			if err := WriteBytes(filepath.Join(d.Path(), "f"+strconv.Itoa(i)), chunk); err != nil {
				b.Fatal(err)
			}
		}
		if err := d.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexCheck measures the check alone: checkReplaceable over a
// published output of 64 MiB in 8 files (every file read and hashed).
func BenchmarkIndexCheck(b *testing.B) {
	target := filepath.Join(b.TempDir(), "out")
	d, err := CreateDir(target, "marker")
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 8<<20)
	for i := range 8 {
		if err := WriteBytes(filepath.Join(d.Path(), "f"+strconv.Itoa(i)), chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Commit(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(8 * int64(len(chunk)))
	for b.Loop() {
		if err := checkReplaceable(target, "marker"); err != nil {
			b.Fatal(err)
		}
	}
}
