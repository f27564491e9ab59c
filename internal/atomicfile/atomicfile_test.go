package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestCommitPublishesAndAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "out.txt")
	if err := WriteBytes(p, []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	// A failing writer must leave the old content and no temp file behind.
	boom := errors.New("boom")
	err = WriteFile(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want boom, got %v", err)
	}
	got, _ = os.ReadFile(p)
	if string(got) != "hello\n" {
		t.Fatalf("old content replaced by %q", got)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Fatalf("temp files left behind: %v", ents)
	}
}

// TestSkipSync: a file committed unsynced is published whole under its
// name, over an earlier one, with no temporary file left beside it.
func TestSkipSync(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "scratch")
	for _, content := range []string{"first", "second, longer"} {
		f, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.SkipSync()
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		f.Abort() // after Commit: nothing
		if got, err := os.ReadFile(p); err != nil || string(got) != content {
			t.Fatalf("got %q, %v, want %q", got, err, content)
		}
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Fatalf("%d files in the directory (%v), want 1", len(ents), err)
	}
}

// An output file given as a symbolic link is written
// through; the link stays a link.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.csv"), filepath.Join(dir, "out.csv")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.csv", link)
	if err := WriteBytes(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the link's target holds %q", b)
	}
}

// TestSetPerm: a file published with SetPerm(0600) (the work directory's
// private PII key) has mode 0600, and without it 0644; both hold their
// content.
func TestSetPerm(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		set  bool
		want os.FileMode
	}{{"key", true, 0o600}, {"plain", false, 0o644}} {
		p := filepath.Join(dir, c.name)
		f, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.set {
			f.SetPerm(0o600)
		}
		f.WriteString("abc")
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.want {
			t.Errorf("%s: mode %v, want %v", c.name, st.Mode().Perm(), c.want)
		}
		if b, _ := os.ReadFile(p); string(b) != "abc" {
			t.Errorf("%s: content %q, want abc", c.name, b)
		}
	}
}

// BenchmarkWriteSmall writes a small file atomically (Create, a few
// hundred bytes, Commit), as a run does hundreds of times: the cost of a
// File's fixed part, its buffer included.
func BenchmarkWriteSmall(b *testing.B) {
	dir := b.TempDir()
	data := make([]byte, 300)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := WriteBytes(filepath.Join(dir, "f"+strconv.Itoa(i%64)), data); err != nil {
			b.Fatal(err)
		}
	}
}
