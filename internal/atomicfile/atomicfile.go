// Package atomicfile writes files so that a reader never sees a partial file:
// the content goes to a temporary file in the target's directory, is synced,
// and is then renamed over the target. A crash leaves either the old file or
// the new one, never a mix (POSIX rename semantics). Output directories are
// built beside their target and published whole (CreateDir), and replace an
// earlier output only when it holds exactly the files its index lists
// (IndexFile); CheckOutputs refuses outputs that would write over inputs.
//
// It is the one home of lovbench's rule for outputs: no command writes
// over, or deletes, what it cannot prove it made.
//
//   - No write into a directory lovbench did not make for this output:
//     CheckOutputs refuses an output inside a published output directory
//     (one holding IndexFile) or inside a work directory (one holding
//     WorkdirFile; only a new, not hidden top-level file such as
//     report.html may be written there). Commands call it before reading.
//   - An output directory replaces only the command's own earlier output,
//     unchanged: every file its IndexFile lists, with size and SHA-256, and
//     nothing else (CreateDir, CheckReplaceable). The index is a file the
//     user can edit, so it is not trusted alone: each command names the
//     files it writes (CreateDir's names, path.Match patterns), and an
//     index listing anything else is refused.
//   - Nothing is deleted on its name. A directory lovbench builds carries
//     StagingFile from its creation until it is published; a stale
//     ".OUT.tmp-PID-*" or ".OUT.old-PID-*" sibling is removed only if it
//     carries it (ProveMade) or holds exactly what its index lists under
//     the command's names. (A killed build's partial files cannot be
//     proven one by one: no list of them exists before the index is
//     written; the marker proves the directory is lovbench's.) The
//     pipeline holds its stage outputs to the same rule through their
//     stamps (package workdir).
//   - Read-only or contested targets publish nothing: a target that cannot
//     be removed whole (a read-only directory in it; access(2)) is refused
//     before anything changes, and a target that another run wrote since
//     this one started makes Commit fail with a *ConflictError. The check
//     and the renames hold an flock(2) on the parent directory (lockDir):
//     of two concurrent writers exactly one succeeds, no lock file is
//     written beside the user's files, and a killed run leaves no lock.
//     (An exclusive lock for the whole run, taken at the start, would tell
//     the loser sooner but needs a lock file in the user's directory that
//     a kill leaves behind.)
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written atomically. Write to it, then call Commit to
// publish it under its final name, or Abort to discard it. Abort after Commit
// is a no-op, so `defer f.Abort()` is the usual pattern.
type File struct {
	path string
	tmp  *os.File
	buf  *bufio.Writer
	// prev is the file at path when Create ran (nil: missing); Commit
	// fails if another run replaced it meanwhile (sameTarget).
	prev os.FileInfo
	// perm is the published file's permission (0644 unless SetPerm).
	perm os.FileMode
	// noSync: Commit does not sync (SkipSync).
	noSync bool
	done   bool
}

// Create starts writing path atomically. The parent directory is created if
// missing. The temporary file lives beside path so that the final rename stays
// on one file system. A path that is a symbolic link is written through: the
// file it points to is replaced and the link kept.
func Create(path string) (*File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		real, err := resolveLink(path)
		if err != nil {
			return nil, fmt.Errorf("create %s: a symbolic link that cannot be followed: %w", path, err)
		}
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	prev, err := os.Lstat(path)
	if err != nil {
		prev = nil
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{path: path, tmp: tmp, buf: bufio.NewWriterSize(tmp, bufferSize), prev: prev, perm: 0o644}, nil
}

// bufferSize is a File's write buffer: 64 KiB. A run writes hundreds of
// small files, and each buffer is allocated and zeroed whole (1 MiB each
// cost a run about 2% of its CPU, and the garbage collector more); a
// write at least as large as the buffer goes to the file unbuffered.
const bufferSize = 64 << 10

// SetPerm sets the permission the file is published with (0644 unless
// set), e.g. 0600 for a private key: the temporary file is created 0600,
// so the content is never readable by others on its way.
func (f *File) SetPerm(perm os.FileMode) { f.perm = perm }

// SkipSync makes Commit publish the file without syncing it or its
// directory: still whole or not at all for every reader (the rename),
// but not durable across a crash of the machine. It is for scratch files
// that a run writes many of, reads back within itself and removes before
// it ends, so that a crash loses them with the run (lovbench-beam's
// Gibbs chain files), where a sync would cost a disk write each.
func (f *File) SkipSync() { f.noSync = true }

// Write implements io.Writer (buffered).
func (f *File) Write(p []byte) (int, error) { return f.buf.Write(p) }

// WriteString writes s (buffered).
func (f *File) WriteString(s string) (int, error) { return f.buf.WriteString(s) }

// Name returns the final path of the file.
func (f *File) Name() string { return f.path }

// Commit flushes, syncs and renames the temporary file to its final name, then
// syncs the directory so the rename itself is durable. When another run
// wrote the file since Create (two runs writing one output), nothing is
// published and the error is a *ConflictError: the check and the rename
// hold an flock(2) on the directory (lockDir), so of two concurrent
// writers exactly one succeeds.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already committed or aborted", f.path)
	}
	f.done = true
	if err := f.buf.Flush(); err != nil {
		f.cleanup()
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := f.tmp.Chmod(f.perm); err != nil {
		f.cleanup()
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if !f.noSync {
		if err := f.tmp.Sync(); err != nil {
			f.cleanup()
			return fmt.Errorf("sync %s: %w", f.path, err)
		}
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("close %s: %w", f.path, err)
	}
	unlock, err := lockDir(filepath.Dir(f.path))
	if err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	defer unlock()
	if err := sameTarget(f.path, f.prev); err != nil {
		os.Remove(f.tmp.Name())
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("rename %s: %w", f.path, err)
	}
	if f.noSync {
		return nil
	}
	return SyncDir(filepath.Dir(f.path))
}

// Abort discards the temporary file. It is safe to call after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.cleanup()
}

func (f *File) cleanup() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// WriteFile writes path atomically with the content produced by fn.
func WriteFile(path string, fn func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fn(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SyncDir fsyncs the directory dir, so that a rename into it is durable:
// the one home of that step for lovbench (the files here, CreateDir, and
// the pipeline's work directory). It is best effort: a directory that
// cannot be opened or synced (not supported everywhere) is not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // directory sync is best effort (not supported everywhere)
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

// SyncTree fsyncs every file and directory under dir, so that a rename of
// dir publishes durable content (the pipeline's stage outputs and
// releases). A walk or open error is returned; the syncs themselves are
// best effort, as in SyncDir.
func SyncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		_ = f.Sync()
		return f.Close()
	})
}
