package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output that is an input (by name, through a symbolic or a hard link),
// an output directory holding an input, and two outputs naming one file
// are refused; distinct files, missing outputs and "-" are not.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "l.csv")
	os.WriteFile(in, []byte("query,term,label\n"), 0o644)
	os.Symlink("l.csv", filepath.Join(dir, "link.csv"))
	os.Link(in, filepath.Join(dir, "hard.csv"))
	os.MkdirAll(filepath.Join(dir, "sess", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "sess", "deep", "s.parquet"), nil, 0o644)
	os.Symlink(filepath.Join(dir, "sess"), filepath.Join(dir, "sesslink"))
	ins := []Arg{{"--labels", in}, {"--sessions", filepath.Join(dir, "sesslink", "deep", "s.parquet")}}
	for _, c := range []struct {
		out  []Arg
		want string // "" for no error
	}{
		{[]Arg{{"--out", in}}, "--out " + in + " is the same file as the input --labels"},
		{[]Arg{{"--out", filepath.Join(dir, ".", "l.csv")}}, "same file"},
		{[]Arg{{"--out", filepath.Join(dir, "link.csv")}}, "same file"},
		{[]Arg{{"--out", filepath.Join(dir, "hard.csv")}}, "same file"},
		{[]Arg{{"--out", filepath.Join(dir, "sess")}}, "is a directory that holds the input --sessions"},
		{[]Arg{{"--out", dir}}, "is a directory that holds the input --labels"},
		{[]Arg{{"--out", filepath.Join(dir, "g.csv")}, {"--report", filepath.Join(dir, "g.csv")}}, "are the same file"},
		{[]Arg{{"--out", filepath.Join(dir, "g.csv")}, {"--report", filepath.Join(dir, "g.json")}}, ""},
		{[]Arg{{"--out", filepath.Join(dir, "sess", "deep", "other")}}, ""},
		{[]Arg{{"--out", "-"}, {"--report", ""}}, ""},
	} {
		err := CheckOutputs(ins, c.out)
		var oe *OverlapError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.out, err)
		case c.want != "" && (!errors.As(err, &oe) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want an OverlapError saying %q", c.out, err, c.want)
		}
	}
}
