package testsize

import (
	"fmt"
	"os"
)

// MemoryTempRoot is the memory file system RunWithMemoryTemp puts a test
// binary's temporary files on, and MemoryTempMinFree the room it must
// have left (a package's tests hold a few hundred MB at once at most).
const (
	MemoryTempRoot    = "/dev/shm"
	MemoryTempMinFree = 4 << 30
)

// RunWithMemoryTemp runs a package's tests (run is testing.M's Run, or a
// TestMain's body that ends with it) with TMPDIR pointed at a fresh
// directory on the memory file system MemoryTempRoot, for the test
// process and every process it starts (t.TempDir and os.MkdirTemp read
// TMPDIR), and removes that directory afterwards; it returns run's exit
// code. The tests' work directories then cost no disk: on an ext4 without
// a journal, as on the project's 2-core machine, every file created
// scans past the inodes deleted in the last minutes and every fsync waits
// for the disk, which took about a quarter of the CPU and half the wall
// time of the packages that write whole runs (docs/benchmarks.md). The
// tests' files and checks are the same on either file system. Nothing
// changes when TMPDIR is set (the user's choice stands: TMPDIR=/tmp keeps
// the files on disk), when MemoryTempRoot is not a memory file system
// (tmpfs) or has less than MemoryTempMinFree left (a container's default
// 64 MB /dev/shm), or off Linux.
func RunWithMemoryTemp(run func() int) int {
	if os.Getenv("TMPDIR") != "" {
		return run()
	}
	if free, ok := memoryFSFree(MemoryTempRoot); !ok || free < MemoryTempMinFree {
		return run()
	}
	dir, err := os.MkdirTemp(MemoryTempRoot, "lovbench-test-")
	if err != nil {
		return run()
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, "testsize:", err)
		return 1
	}
	defer os.Unsetenv("TMPDIR")
	return run()
}

// RunWithSharedTemp is RunWithMemoryTemp that also makes a directory for
// a package's shared test fixtures (its name starting with prefix, under
// the TMPDIR the tests get), hands it to run and removes it afterwards.
func RunWithSharedTemp(prefix string, run func(dir string) int) int {
	return RunWithMemoryTemp(func() int {
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsize:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		return run(dir)
	})
}
