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
	names               []string
	// prev is the target when the run started (nil: missing), which
	// Commit finds again or fails (another run wrote it meanwhile).
	prev os.FileInfo
	// keepStaging: the target is a staging directory of an outer
	// command (it holds only StagingFile), so the published directory
	// stays marked as one.
	keepStaging bool
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
// replaced and the link kept. The command's names, path.Match patterns of
// the slash paths it writes (say "shard-*.parquet"), are what its index
// may list: an index that lists anything else (edited to list a user's
// file with its size and SHA-256) is refused, never trusted for a
// deletion; without names the index is checked on content alone.
//
// Sibling directories that killed runs left (their process is gone) are
// removed first, but only those that prove to be lovbench's: a ".tmp-"
// one that carries StagingFile (ProveMade), an ".old-" one (or a ".tmp-"
// one killed while it was published) that holds exactly what its index
// lists, as a target would to be replaced. A directory of the user's
// that is merely named like them is left alone.
func CreateDir(target, marker string, names ...string) (*Dir, error) {
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
	if err := checkReplaceable(target, marker, names...); err != nil {
		return nil, err
	}
	prev, err := os.Lstat(target)
	if err != nil {
		prev = nil
	}
	keep := prev != nil && isStaging(target)
	if prev != nil {
		if err := removable(target); err != nil {
			return nil, &RefusedError{err.Error()}
		}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	removeStale(parent, base, marker, names)
	tmp, err := os.MkdirTemp(parent, "."+base+tmpTag+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	if err := MarkStaging(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	return &Dir{target: target, tmp: tmp, marker: marker, names: names, prev: prev, keepStaging: keep}, nil
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
// process no longer runs and that prove to be lovbench's: a staging
// directory (ProveMade), or an output exactly as its index lists it under
// the command's marker and names.
func removeStale(parent, base, marker string, names []string) {
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
		if pid == os.Getpid() || !processGone(pid) {
			continue
		}
		p := filepath.Join(parent, name)
		if ProveMade(p) == nil {
			os.RemoveAll(p)
			continue
		}
		if _, err := os.Lstat(filepath.Join(p, IndexFile)); err == nil && checkReplaceable(p, marker, names...) == nil {
			os.RemoveAll(p)
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
// written with this package (so synced): the target is renamed aside, the
// new directory renamed into place, and the old one removed. A crash
// between the two renames leaves the old output in the ".old-" sibling
// (and no target); the next run removes it.
//
// Nothing is published when the target cannot be replaced whole: when it
// became read-only (an old output that could not be removed would be left
// beside the new one), or when another run wrote it since CreateDir (two
// runs writing one output: the first to commit wins, the other fails with
// a *ConflictError). The check and the renames hold an flock(2) on the
// parent directory (lockDir), so no two commits interleave.
func (d *Dir) Commit() error {
	if d.done {
		return fmt.Errorf("commit %s: already committed or aborted", d.target)
	}
	d.done = true
	parent, base := filepath.Dir(d.target), filepath.Base(d.target)
	fail := func(format string, err error) error {
		os.RemoveAll(d.tmp)
		var re *RefusedError
		var ce *ConflictError
		if errors.As(err, &re) || errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf(format, d.target, err)
	}
	unlock, err := lockDir(parent)
	if err != nil {
		return fail("publish %s: %w", err)
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	if err := sameTarget(d.target, d.prev); err != nil {
		return fail("publish %s: %w", err)
	}
	if d.prev != nil {
		if err := removable(d.target); err != nil {
			return fail("publish %s: %w", &RefusedError{err.Error()})
		}
	}
	// The files inside were written (and synced) by this package; the
	// index of them all, written last, is what a later CreateDir checks
	// the directory against.
	if err := writeIndex(d.tmp, d.marker); err != nil {
		return fail("publish %s: %w", err)
	}
	if !d.keepStaging {
		if err := UnmarkStaging(d.tmp); err != nil {
			return fail("publish %s: %w", err)
		}
	}
	old := ""
	if d.prev != nil {
		old = filepath.Join(parent, "."+base+oldTag+strconv.Itoa(os.Getpid())+"-"+filepath.Base(d.tmp)[len(base)+len(tmpTag)+1:])
		if err := os.Rename(d.target, old); err != nil {
			return fail("replace %s: %w", err)
		}
	}
	if err := os.Rename(d.tmp, d.target); err != nil {
		if old != "" {
			os.Rename(old, d.target)
		}
		return fail("publish %s: %w", err)
	}
	SyncDir(parent)
	// Published; the old output is removed without holding up other
	// commits into parent.
	unlock()
	locked = false
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the replaced %s (left in %s): %w", d.target, old, err)
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
