package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Arg is a file or directory named on a command line, with the flag that
// named it (for messages).
type Arg struct {
	Flag, Path string
}

// OverlapError says that an output would write over an input.
type OverlapError struct{ msg string }

func (e *OverlapError) Error() string { return e.msg }

// WorkdirFile is the file that makes a directory a work directory of
// lovbench run and demo (package pipeline writes it and reads it).
const WorkdirFile = ".lovbench-workdir.json"

// CheckOutputs returns an *OverlapError when an output would write over an
// input, so that a command can refuse before it reads anything: an output
// inside a directory that lovbench published whole (one holding IndexFile:
// writing into it would change an output its index lists) or inside a
// work directory (one holding WorkdirFile; only a new top-level file that
// is not hidden, such as report.html, may be written there: stages/ and
// releases/ belong to the pipeline, which checks them against their
// stamps), an output
// that is the same file or directory as an input (same device and inode:
// through a symbolic link or a hard link too), an output directory that
// contains an input (replacing the directory would delete it), or two
// outputs that are the same file (or, missing, the same path). Empty paths
// and "-" (standard input or output) are skipped; an output that does not
// exist yet can be no input. It does not open any file.
func CheckOutputs(inputs, outputs []Arg) error {
	type resolved struct {
		Arg
		st   os.FileInfo
		real string // absolute, every link resolved
	}
	resolve := func(args []Arg) []resolved {
		var out []resolved
		for _, a := range args {
			if a.Path == "" || a.Path == "-" {
				continue
			}
			st, err := os.Stat(a.Path)
			if err != nil {
				// Missing: compared with the other outputs by its path only.
				abs, _ := filepath.Abs(a.Path)
				out = append(out, resolved{a, nil, abs})
				continue
			}
			real, err := filepath.EvalSymlinks(a.Path)
			if err == nil {
				real, err = filepath.Abs(real)
			}
			if err != nil {
				real = ""
			}
			out = append(out, resolved{a, st, real})
		}
		return out
	}
	for _, o := range outputs {
		if o.Path == "" || o.Path == "-" {
			continue
		}
		if err := checkInside(o); err != nil {
			return err
		}
	}
	ins, outs := resolve(inputs), resolve(outputs)
	name := func(a Arg) string { return a.Flag + " " + a.Path }
	for i, o := range outs {
		for _, o2 := range outs[i+1:] {
			if o.st != nil && o2.st != nil && os.SameFile(o.st, o2.st) || (o.st == nil || o2.st == nil) && o.real == o2.real {
				return &OverlapError{fmt.Sprintf("%s and %s are the same file: give each output its own name", name(o.Arg), name(o2.Arg))}
			}
		}
		if o.st == nil {
			continue
		}
		for _, in := range ins {
			if in.st == nil {
				continue // a missing input: its command says so
			}
			switch {
			case os.SameFile(o.st, in.st) && o.st.IsDir():
				return &OverlapError{fmt.Sprintf("%s is the input %s: an output cannot replace an input; give another output directory", name(o.Arg), name(in.Arg))}
			case os.SameFile(o.st, in.st):
				return &OverlapError{fmt.Sprintf("%s is the same file as the input %s: writing it would destroy the input; give another output file", name(o.Arg), name(in.Arg))}
			case o.st.IsDir() && o.real != "" && in.real != "" && strings.HasPrefix(in.real, strings.TrimSuffix(o.real, string(filepath.Separator))+string(filepath.Separator)):
				return &OverlapError{fmt.Sprintf("%s is a directory that holds the input %s: replacing the directory would delete the input; give another output directory", name(o.Arg), name(in.Arg))}
			}
		}
	}
	return nil
}

// checkInside refuses an output inside a published output directory or a
// work directory (CheckOutputs), looked up along both the path as given
// and the path with every link resolved (W/stages/label is a link).
func checkInside(o Arg) error {
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil
	}
	for _, p := range []string{abs, resolveExisting(abs)} {
		st, statErr := os.Stat(p)
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			if _, err := os.Lstat(filepath.Join(dir, IndexFile)); err == nil {
				return &OverlapError{fmt.Sprintf("%s %s is inside %s, an output directory lovbench published whole (it holds %s): writing into it would change that output; give a path outside it", o.Flag, o.Path, dir, IndexFile)}
			}
			if _, err := os.Lstat(filepath.Join(dir, WorkdirFile)); err == nil {
				rel, _ := filepath.Rel(dir, p)
				if strings.ContainsRune(rel, filepath.Separator) || strings.HasPrefix(rel, ".") || statErr == nil && st.IsDir() {
					return &OverlapError{fmt.Sprintf("%s %s is a file of the work directory %s (%s): writing it would break that work directory; give a path outside it (or a new file at its top, like report.html)", o.Flag, o.Path, dir, filepath.ToSlash(rel))}
				}
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return nil
}

// resolveExisting returns abs with every link of its longest existing
// prefix resolved, and the rest as given.
func resolveExisting(abs string) string {
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
