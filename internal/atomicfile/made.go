package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// StagingFile marks a directory that lovbench is building: the first file
// CreateDir writes into its new directory (and the pipeline into its
// staging directories), with a fixed content, removed right before the
// directory is published. It is the proof that a directory left by a
// killed run is lovbench's (ProveMade): a directory of the user's that is
// merely named like a staging one (".OUT.tmp-PID-*", "stages/.tmp-fit-1")
// does not carry it and is never deleted. At the root of an output it is
// no file of the output: indexes and stamps leave it out.
const StagingFile = ".lovbench-staging"

// stagingContent is what StagingFile holds.
const stagingContent = "lovbench: a directory being built by a lovbench run; it is removed, or published without this file, when the run ends\n"

// MarkStaging writes StagingFile into dir, a directory the caller just
// created.
func MarkStaging(dir string) error {
	return WriteBytes(filepath.Join(dir, StagingFile), []byte(stagingContent))
}

// UnmarkStaging removes dir's StagingFile, right before dir is published.
func UnmarkStaging(dir string) error {
	if err := os.Remove(filepath.Join(dir, StagingFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isStaging reports whether dir carries StagingFile with its content.
func isStaging(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, StagingFile))
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(stagingContent)) {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, StagingFile))
	return err == nil && bytes.Equal(b, []byte(stagingContent))
}

// ProveMade returns nil when the directory dir is provably one that
// lovbench built and may remove: it carries StagingFile (a staging
// directory a killed or failed run left), or it holds no file at all
// (directories only: nothing anyone could lose). Anything else,
// and a symbolic link, is a *RefusedError: a name alone ("stages/.tmp-1",
// ".out.old-12-3") or a list the user can edit proves nothing.
func ProveMade(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &RefusedError{fmt.Sprintf("%s is not a directory lovbench made", dir)}
	}
	if isStaging(dir) {
		return nil
	}
	holds := false
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			holds = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !holds {
		return nil
	}
	return &RefusedError{fmt.Sprintf("%s does not carry the %s lovbench writes into every directory it builds, so it may hold files that are not lovbench's: left in place", dir, StagingFile)}
}

// RemoveMade removes the directory dir if ProveMade proves it lovbench's,
// and returns ProveMade's error otherwise (dir is then left as it is).
func RemoveMade(dir string) error {
	if err := ProveMade(dir); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// allowedName reports whether rel, a slash path of an output (a directory
// when dir), is one the command writes: it matches one of the command's
// name patterns (path.Match, one per path element), or, for a directory,
// the leading elements of one. No patterns allow every name.
func allowedName(rel string, dir bool, names []string) bool {
	if len(names) == 0 {
		return true
	}
	elems := strings.Split(rel, "/")
	for _, p := range names {
		pe := strings.Split(p, "/")
		if len(pe) < len(elems) || len(pe) > len(elems) && !dir {
			continue
		}
		ok := true
		for i, e := range elems {
			if m, err := path.Match(pe[i], e); err != nil || !m {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// checkNames returns the entries of idx that the command with the name
// patterns names never writes.
func checkNames(idx *Index, names []string) []string {
	var bad []string
	for _, d := range idx.Dirs {
		if !allowedName(d, true, names) {
			bad = append(bad, d+"/")
		}
	}
	for _, f := range idx.Files {
		if f.Path != idx.Marker && !allowedName(f.Path, false, names) {
			bad = append(bad, f.Path)
		}
	}
	return bad
}

// removable returns an error unless this process may delete everything
// under dir: every directory in it writable and searchable (access(2)),
// so that replacing an output never publishes the new one and then fails
// to remove the old one (a read-only output directory is refused before
// anything changes).
func removable(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if err := syscall.Access(p, 0o2|0o1); err != nil { // W_OK|X_OK
			return fmt.Errorf("%s cannot be replaced: %s is not writable (%v), so the earlier output could not be removed; make it writable (chmod -R u+w) or choose another directory", dir, p, err)
		}
		return nil
	})
}

// lockDir takes an exclusive flock(2) on the directory dir itself (no file
// is written for it, and the kernel releases it when the process dies) and
// returns its release. Commits into one directory take it around their
// check-and-rename, so that two runs writing one output cannot both find
// the target as they left it and both publish.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// sameTarget returns an error when the target, which was prev (nil:
// missing) when the run started, is now another file or directory:
// another run wrote it meanwhile.
func sameTarget(target string, prev os.FileInfo) error {
	cur, err := os.Lstat(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err != nil {
		cur = nil
	}
	switch {
	case prev == nil && cur == nil:
		return nil
	case prev != nil && cur != nil && os.SameFile(prev, cur):
		return nil
	case prev == nil:
		return &ConflictError{fmt.Sprintf("%s was created by another run while this one ran (it did not exist when this run started): not replacing it; run again once the other run has finished", target)}
	default:
		return &ConflictError{fmt.Sprintf("%s was replaced or removed by another run while this one ran: not replacing it; run again once the other run has finished", target)}
	}
}

// ConflictError says that an output was written by another run between
// the start of this one and its commit: the later commit fails, nothing
// of it is published.
type ConflictError struct{ msg string }

func (e *ConflictError) Error() string { return e.msg }
