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
	target, tmp, marker string
	done                bool
}

// tmpTag and oldTag mark the sibling directories of a Dir:
// ".<base>.tmp-<pid>-<random>" while it is built, ".<base>.old-<pid>-<random>"
// for the replaced output during Commit.
const (
	tmpTag = ".tmp-"
	oldTag = ".old-"
)

// CreateDir starts an output directory for target. The target must be
// missing, an empty directory, or an earlier output of the command that is
// exactly as the command left it: Commit writes IndexFile, which lists every
// file of the output with its size and SHA-256 and names the command's
// marker (a file every output of the command has, such as manifest.json),
// and a target is replaced only when it holds exactly the listed files
// (the index aside), each with its recorded size and content. Time stamps
// play no part: a copy, a touch or a checkout that resets them changes
// nothing, and a file that was added, changed or removed is seen whatever
// its times. Anything else is refused with an error listing what differs,
// so that a rerun never deletes a file a user put there. A target that is
// a symbolic link is written through: the directory it points to is
// replaced and the link kept. Sibling directories that killed runs left
// (their process is gone) are removed first.
func CreateDir(target, marker string) (*Dir, error) {
	target = filepath.Clean(target)
	if st, err := os.Lstat(target); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		real, err := resolveLink(target)
		if err != nil {
			dest, _ := os.Readlink(target)
			return nil, fmt.Errorf("%s is a symbolic link to %s, which cannot be followed (%v): create that directory or give another --out", target, dest, err)
		}
		target = real
	}
	parent, base := filepath.Dir(target), filepath.Base(target)
	if base == "." || base == "/" || base == ".." || parent == target {
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
	return &Dir{target: target, tmp: tmp, marker: marker}, nil
}

// resolveLink returns the path the symbolic link link points to, with every
// link resolved. The last element may be missing (it is then created), its
// parent must exist.
func resolveLink(link string) (string, error) {
	if real, err := filepath.EvalSymlinks(link); err == nil {
		return real, nil
	}
	dest, err := os.Readlink(link)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(filepath.Dir(link), dest)
	}
	if _, err := os.Lstat(dest); err == nil {
		return "", fmt.Errorf("%s: a chain of links that does not resolve", dest)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dest))
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(dest)), nil
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
	// The files inside were written (and synced) by this package; the
	// index of them all, written last, is what a later CreateDir checks
	// the directory against.
	if err := writeIndex(d.tmp, d.marker); err != nil {
		os.RemoveAll(d.tmp)
		return fmt.Errorf("publish %s: %w", d.target, err)
	}
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
