package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Dir is an output directory built beside its target and published whole:
// a command writes every file into Path, then Commit replaces the target
// with it. A reader never sees a mix of an old and a new output (files of an
// earlier run with other parameters, such as Fold4/Fold5 of a 5-fold export
// under a 3-fold one, do not survive), and a command that fails or is killed
// leaves the target as it was and nothing inside it.
type Dir struct {
	target, tmp string
	done        bool
}

// tmpTag and oldTag mark the sibling directories of a Dir:
// ".<base>.tmp-<pid>-<random>" while it is built, ".<base>.old-<pid>-<random>"
// for the replaced output during Commit.
const (
	tmpTag = ".tmp-"
	oldTag = ".old-"
)

// CreateDir starts an output directory for target. The target must be
// missing, an empty directory, or a directory holding marker (a file every
// output of the command has, such as manifest.json): anything else is
// refused, so that a mistyped --out never replaces a directory of other
// files. Sibling directories that killed runs left (their process is gone)
// are removed first.
func CreateDir(target, marker string) (*Dir, error) {
	target = filepath.Clean(target)
	parent, base := filepath.Dir(target), filepath.Base(target)
	if base == "." || base == "/" || base == ".." {
		return nil, fmt.Errorf("%s: cannot be replaced as a whole; give a directory name", target)
	}
	if err := checkReplaceable(target, marker); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	removeStale(parent, base)
	tmp, err := os.MkdirTemp(parent, "."+base+tmpTag+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	return &Dir{target: target, tmp: tmp}, nil
}

// checkReplaceable returns an error unless target is missing, an empty
// directory or a directory holding marker.
func checkReplaceable(target, marker string) error {
	st, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", target)
	}
	ents, err := os.ReadDir(target)
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	if marker != "" {
		if _, err := os.Stat(filepath.Join(target, marker)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s is not empty and holds no %s, so it is not an earlier output of this command: not replacing it (remove it or choose another directory)", target, marker)
}

// removeStale removes the temporary and replaced siblings of base whose
// process no longer runs.
func removeStale(parent, base string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		var rest string
		switch {
		case strings.HasPrefix(name, "."+base+tmpTag):
			rest = strings.TrimPrefix(name, "."+base+tmpTag)
		case strings.HasPrefix(name, "."+base+oldTag):
			rest = strings.TrimPrefix(name, "."+base+oldTag)
		default:
			continue
		}
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || !e.IsDir() {
			continue
		}
		if pid != os.Getpid() && processGone(pid) {
			os.RemoveAll(filepath.Join(parent, name))
		}
	}
}

// processGone reports whether no process has the given ID.
func processGone(pid int) bool {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// Path returns the directory to write the output into.
func (d *Dir) Path() string { return d.tmp }

// Target returns the directory Commit publishes.
func (d *Dir) Target() string { return d.target }

// Commit replaces the target with the built directory, whose files were
// written with this package (so synced): the
// target is renamed aside, the new directory renamed into place, and the old
// one removed. A crash between the two renames leaves the old output in the
// ".old-" sibling (and no target); the next run removes it.
func (d *Dir) Commit() error {
	if d.done {
		return fmt.Errorf("commit %s: already committed or aborted", d.target)
	}
	d.done = true
	// The files inside were written (and synced) by this package.
	parent, base := filepath.Dir(d.target), filepath.Base(d.target)
	old := ""
	if _, err := os.Lstat(d.target); err == nil {
		old = filepath.Join(parent, "."+base+oldTag+strconv.Itoa(os.Getpid())+"-"+filepath.Base(d.tmp)[len(base)+len(tmpTag)+1:])
		if err := os.Rename(d.target, old); err != nil {
			os.RemoveAll(d.tmp)
			return fmt.Errorf("replace %s: %w", d.target, err)
		}
	}
	if err := os.Rename(d.tmp, d.target); err != nil {
		if old != "" {
			os.Rename(old, d.target)
		}
		os.RemoveAll(d.tmp)
		return fmt.Errorf("publish %s: %w", d.target, err)
	}
	syncDir(parent)
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the replaced %s: %w", d.target, err)
		}
	}
	return nil
}

// Abort removes the built directory; the target is left as it was. It does
// nothing after Commit.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	os.RemoveAll(d.tmp)
}
