package atomicfile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// deadPID returns the ID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skipf("no process to take a dead pid from: %v", err)
	}
	return c.Process.Pid
}

// siblings lists the entries of parent other than keep.
func siblings(t *testing.T, parent string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
outer:
	for _, e := range ents {
		for _, k := range keep {
			if e.Name() == k {
				continue outer
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// Directories named like the siblings a killed CreateDir leaves
// (".out.tmp-PID-*", ".out.old-PID-*", PID a process that is gone) are
// removed only when they prove to be lovbench's: a ".tmp-" one carrying
// StagingFile, an ".old-" one holding exactly what its index lists. A
// user's directory of that name, with the user's files, is left alone.
func TestStaleSiblingsNeedProof(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	pid := strconv.Itoa(deadPID(t))
	user := []string{".out.tmp-" + pid + "-1", ".out.old-" + pid + "-2"}
	for _, u := range user {
		os.MkdirAll(filepath.Join(parent, u), 0o755)
		os.WriteFile(filepath.Join(parent, u, "thesis.tex"), []byte("mine"), 0o644)
	}
	// What killed runs of lovbench leave: a staging directory, and an
	// earlier output renamed aside.
	staging := ".out.tmp-" + pid + "-3"
	os.MkdirAll(filepath.Join(parent, staging), 0o755)
	MarkStaging(filepath.Join(parent, staging))
	os.WriteFile(filepath.Join(parent, staging, "partial"), []byte("half"), 0o644)
	if err := commitFiles(t, filepath.Join(parent, "x"), "marker", "a"); err != nil {
		t.Fatal(err)
	}
	old := ".out.old-" + pid + "-4"
	os.Rename(filepath.Join(parent, "x"), filepath.Join(parent, old))
	if err := commitFiles(t, target, "marker", "a"); err != nil {
		t.Fatal(err)
	}
	for _, u := range user {
		if b, err := os.ReadFile(filepath.Join(parent, u, "thesis.tex")); err != nil || string(b) != "mine" {
			t.Errorf("the user's %s was deleted: %v", u, err)
		}
	}
	for _, m := range []string{staging, old} {
		if _, err := os.Stat(filepath.Join(parent, m)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, left by a killed run, was not removed", m)
		}
	}
}

// An index edited to list a user's file with its size and SHA-256 does
// not get the file deleted: the command's names say what it writes, and
// notes.txt is none of them.
func TestEditedIndexNotTrusted(t *testing.T) {
	target := filepath.Join(t.TempDir(), "out")
	commit := func(files ...string) error {
		d, err := CreateDir(target, "marker", "part-*")
		if err != nil {
			return err
		}
		for _, f := range files {
			WriteBytes(filepath.Join(d.Path(), f), []byte(f))
		}
		return d.Commit()
	}
	if err := commit("marker", "part-1"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, "notes.txt"), []byte("mine"), 0o644)
	idx, err := MakeIndex(os.DirFS(target), "marker")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, IndexFile), idx, 0o644)
	var re *RefusedError
	if err := commit("marker", "part-2"); !errors.As(err, &re) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("rerun over an output whose index lists a user's file: %v, want a refusal naming notes.txt", err)
	}
	if b, err := os.ReadFile(filepath.Join(target, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt was deleted: %v", err)
	}
}

// asUnprivileged reruns the calling test in a child process as the user
// nobody when this process runs as root, for whom a read-only directory
// is not read-only; it returns false when the child ran it (the caller
// returns), true when the caller should run the test itself.
func asUnprivileged(t *testing.T) bool {
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv("ATOMICFILE_TEST_CHILD") != "" {
		t.Fatal("the child still runs as root")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "atomicfile-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "atomicfile.test")
	in, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err == nil {
		_, err = io.Copy(out, in)
		out.Close()
	}
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	c.Dir = dir
	c.Env = append(os.Environ(), "ATOMICFILE_TEST_CHILD=1", "TMPDIR=/tmp")
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := c.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot start a process as user nobody here (%v): the test needs a user whose permissions hold", err)
	}
	if err != nil {
		t.Fatalf("the test as user nobody: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "--- PASS: "+t.Name()) {
		t.Fatalf("the test as user nobody did not pass:\n%s", b)
	}
	return false
}

// Rerunning into an output directory that became read-only (the
// directory itself, or a subdirectory) publishes nothing: the earlier
// output stays as it was and nothing is left beside it (no hidden
// ".out.old-*" or ".out.tmp-*").
func TestReadOnlyTargetNothingPublished(t *testing.T) {
	if !asUnprivileged(t) {
		return
	}
	for _, ro := range []string{".", "sub"} {
		parent := t.TempDir()
		target := filepath.Join(parent, "out")
		if err := commitFiles(t, target, "marker", "a", "sub/b"); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(target, ro), 0o555)
		err := commitFiles(t, target, "marker", "c")
		os.Chmod(filepath.Join(target, ro), 0o755)
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only %s: %v, want an error saying what is not writable", ro, err)
		}
		if b, err := os.ReadFile(filepath.Join(target, "a")); err != nil || string(b) != "a" {
			t.Errorf("read-only %s: the earlier output was replaced: %v", ro, err)
		}
		if s := siblings(t, parent, "out"); len(s) != 0 {
			t.Errorf("read-only %s: left beside the output: %v", ro, s)
		}
	}
}

// Two runs writing one output at the same time do not both succeed: the
// first to commit publishes, the other fails with a *ConflictError and
// publishes nothing; the same for a single file. Both writers run here
// in one process, interleaved as two processes would be.
func TestConcurrentWritersOneWins(t *testing.T) {
	for _, existing := range []bool{false, true} {
		parent := t.TempDir()
		target := filepath.Join(parent, "out")
		if existing {
			if err := commitFiles(t, target, "marker", "first"); err != nil {
				t.Fatal(err)
			}
		}
		d1, err1 := CreateDir(target, "marker")
		d2, err2 := CreateDir(target, "marker")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		WriteBytes(filepath.Join(d1.Path(), "marker"), []byte("one"))
		WriteBytes(filepath.Join(d2.Path(), "marker"), []byte("two"))
		if err := d1.Commit(); err != nil {
			t.Fatal(err)
		}
		var ce *ConflictError
		if err := d2.Commit(); !errors.As(err, &ce) {
			t.Errorf("existing=%v: the second writer's commit: %v, want a *ConflictError", existing, err)
		}
		if b, _ := os.ReadFile(filepath.Join(target, "marker")); string(b) != "one" {
			t.Errorf("existing=%v: the output holds %q, want the first commit's", existing, b)
		}
		if s := siblings(t, parent, "out"); len(s) != 0 {
			t.Errorf("existing=%v: left beside the output: %v", existing, s)
		}
		file := filepath.Join(parent, "f.csv")
		if existing {
			os.WriteFile(file, []byte("before"), 0o644)
		}
		f1, _ := Create(file)
		f2, _ := Create(file)
		f1.WriteString("one")
		f2.WriteString("two")
		if err := f1.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := f2.Commit(); !errors.As(err, &ce) {
			t.Errorf("existing=%v: the second writer of a file: %v, want a *ConflictError", existing, err)
		}
		if b, _ := os.ReadFile(file); string(b) != "one" {
			t.Errorf("existing=%v: the file holds %q, want the first commit's", existing, b)
		}
		if s := siblings(t, parent, "out", "f.csv"); len(s) != 0 {
			t.Errorf("existing=%v: left beside the file: %v", existing, s)
		}
	}
}

// An output inside a published output directory, or inside a work
// directory other than a new top-level file, is refused, through links
// too; outputs beside them are not.
func TestCheckOutputsInsideOutputs(t *testing.T) {
	dir := t.TempDir()
	pub := filepath.Join(dir, "dataset")
	if err := commitFiles(t, pub, "marker", "Fold1/a"); err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(dir, "w")
	os.MkdirAll(filepath.Join(w, "stages", "label.1"), 0o755)
	os.WriteFile(filepath.Join(w, ".lovbench-workdir.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(w, "stages", "label.1", "labels.csv"), []byte("q"), 0o644)
	os.Symlink("label.1", filepath.Join(w, "stages", "label"))
	os.Symlink(filepath.Join(w, "stages"), filepath.Join(dir, "st"))
	for _, c := range []struct {
		out  string
		want string // "" for no error
	}{
		{filepath.Join(pub, "notes.csv"), "published whole"},
		{filepath.Join(pub, "Fold1", "a"), "published whole"},
		{filepath.Join(pub, "new", "deep.csv"), "published whole"},
		{filepath.Join(w, "stages", "label", "labels.csv"), "work directory"},
		{filepath.Join(dir, "st", "label", "labels.csv"), "work directory"},
		{filepath.Join(w, ".lovbench-workdir.json"), "work directory"},
		{filepath.Join(w, "stages"), "work directory"},
		{filepath.Join(w, "report.html"), ""},
		{filepath.Join(dir, "dataset2"), ""},
		{pub, ""}, // replaced whole by CreateDir's own rule
	} {
		err := CheckOutputs(nil, []Arg{{"--out", c.out}})
		var oe *OverlapError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.out, err)
		case c.want != "" && (!errors.As(err, &oe) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an OverlapError saying %q", c.out, err, c.want)
		}
	}
}
