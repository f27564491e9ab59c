package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testTemp is the directory the package's shared test fixtures are made
// in; TestMain removes it after the tests.
var testTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lovbench-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTemp = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tooSmallDemo is one run of `lovbench -q demo --profile dense --serps 10
// --out DIR` on a fresh DIR, a log too small for a benchmark, shared by
// the tests of its message (TestDemoTooSmallMessage) and of what comes
// after it in DIR (TestDemoBelowMinimums).
type tooSmallDemo struct {
	out       string // the work directory (later tests may change it)
	code      int    // the exit status
	stdout    string
	stderr    string
	published bool // whether releases/latest existed right after the run
}

var (
	tooSmallOnce sync.Once
	tooSmall     tooSmallDemo
)

// sharedTooSmallDemo runs the too-small dense demo once per test binary
// run and returns what it did.
func sharedTooSmallDemo(t *testing.T) tooSmallDemo {
	t.Helper()
	tooSmallOnce.Do(func() {
		out := filepath.Join(testTemp, "too-small-demo")
		code, stdout, stderr := runCLI(t, "-q", "demo", "--profile", "dense", "--serps", "10", "--out", out)
		_, err := os.Stat(filepath.Join(out, "releases", "latest"))
		tooSmall = tooSmallDemo{out: out, code: code, stdout: stdout, stderr: stderr, published: err == nil}
	})
	return tooSmall
}
