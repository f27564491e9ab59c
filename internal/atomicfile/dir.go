package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
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
// missing, an empty directory, or an earlier output of the command: a
// directory holding marker (a file every output of the command has, such as
// manifest.json) and no file that was added or changed after that output
// was published. Commit stamps the marker after every other file is
// written, so a file whose status-change time (ctime, which no copy or
// touch can set back) is later than the marker's is not the command's.
// Anything else is refused with an error listing those files, so that a
// rerun never deletes a file a user put there. A target that is a symbolic
// link is written through: the directory it points to is replaced and the
// link kept. Sibling directories that killed runs left (their process is
// gone) are removed first.
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

// checkReplaceable returns an error unless target is missing, an empty
// directory, or a directory holding marker and no file changed after it
// (temporary files of a killed write aside).
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
	if _, err := os.Stat(filepath.Join(target, marker)); marker == "" || err != nil {
		return fmt.Errorf("%s is not empty and holds no %s, so it is not an earlier output of this command: not replacing it (remove it or choose another directory)", target, marker)
	}
	stamp, err := changeTime(filepath.Join(target, marker))
	if err != nil {
		return err
	}
	unknown, err := newerFiles(target, stamp)
	if err != nil {
		return err
	}
	if len(unknown) == 0 {
		return nil
	}
	const show = 10
	list := strings.Join(unknown[:min(show, len(unknown))], ", ")
	if len(unknown) > show {
		list += fmt.Sprintf(" and %d more", len(unknown)-show)
	}
	return fmt.Errorf("%s is an earlier output of this command, but these files were added or changed after it was written: %s; not replacing it, which would delete them (move them elsewhere, or choose another directory)", target, list)
}

// newerFiles lists, as slash paths relative to dir, the files (any entry
// but a directory) under dir whose change time is after stamp, other than
// temporary files that a killed atomic write left.
func newerFiles(dir string, stamp time.Time) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || isTempName(d.Name()) {
			return nil
		}
		ct, err := changeTime(p)
		if err != nil {
			return err
		}
		if ct.After(stamp) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// isTempName reports whether name is a temporary file of Create
// (".<base>.tmp-<random>").
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpTag)
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

// stampLast sets the times of dir/marker to now and then waits until the
// file-system clock, which is coarse (a few milliseconds on Linux file
// systems, a second on some others), has moved past its change time, so
// that any file written afterwards has a strictly later one. It waits at
// most 2.5 s; a file system whose clock is coarser than that only loses
// the distinction for files written within the same tick. A missing marker
// is not stamped.
func stampLast(dir, marker string) error {
	mp := filepath.Join(dir, marker)
	now := time.Now()
	if err := os.Chtimes(mp, now, now); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	stamp, err := changeTime(mp)
	if err != nil {
		return err
	}
	probe := filepath.Join(dir, "."+marker+tmpTag+"clock")
	defer os.Remove(probe)
	for deadline := time.Now().Add(2500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		os.Remove(probe)
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			return err
		}
		ct, err := changeTime(probe)
		if err != nil {
			return err
		}
		if ct.After(stamp) {
			return nil
		}
	}
	return nil
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
	// The files inside were written (and synced) by this package.
	// Stamp the marker last: every file of this output changed before it
	// (see CreateDir).
	if d.marker != "" {
		if err := stampLast(d.tmp, d.marker); err != nil {
			os.RemoveAll(d.tmp)
			return fmt.Errorf("publish %s: %w", d.target, err)
		}
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
