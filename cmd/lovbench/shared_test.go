package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lovbench/lovbench/features/democorpus"
	"github.com/lovbench/lovbench/internal/testsize"
)

// testTemp is the directory the package's shared test fixtures are made
// in; TestMain removes it after the tests.
var testTemp string

func TestMain(m *testing.M) {
	// Temporary files on a memory file system when the machine has one
	// with room (testsize.RunWithMemoryTemp).
	os.Exit(testsize.RunWithSharedTemp("lovbench-cmd-test-", func(dir string) int {
		testTemp = dir
		return m.Run()
	}))
}

// smallCorpus writes the embedded demo corpus without schema.org, half
// its bytes and most of its load time, to dir, for the tests whose checks
// do not depend on the corpus (as pipeline's e2e tests do); and without
// its NOTICE, which a run's corpus reader would warn of (not RDF) where a
// test wants a quiet run.
func smallCorpus(t *testing.T, dir string) {
	t.Helper()
	if _, err := democorpus.Materialize(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"schema.nq.gz", "NOTICE"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

// tooSmallDemo is one run of `lovbench -q demo --profile dense --serps 10
// --out DIR` on a fresh DIR, a log too small for a benchmark, shared by
// the tests of its message (TestDemoTooSmallMessage) and of what comes
// after it in DIR (TestDemoBelowMinimums).
type tooSmallDemo struct {
	out string // the work directory (later tests may change it)
	cliResult
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
		d := tooSmallDemo{out: out}
		d.code, d.stdout, d.stderr = runCLI(t, "-q", "demo", "--profile", "dense", "--serps", "10", "--out", out)
		_, err := os.Stat(filepath.Join(out, "releases", "latest"))
		d.published = err == nil
		tooSmall = d
	})
	return tooSmall
}

// cliResult is what one lovbench command did.
type cliResult struct {
	code           int
	stdout, stderr string
}

// smallDemo is `lovbench -q demo --serps 300 --queries 60 --out DIR` on a
// fresh DIR and then once more over its unchanged stages, shared by
// TestDemoAndRunOutputLevels (what -q prints on both runs) and
// TestReportOutIntoWorkdirRefused (which works in DIR after them).
type smallDemo struct {
	out   string   // the work directory (later tests may change it)
	args  []string // the command's arguments, -q and --out DIR included
	fresh cliResult
	rerun cliResult
}

var (
	smallDemoOnce sync.Once
	smallDemoRun  smallDemo
)

// sharedSmallDemo runs the small demo and its rerun once per test binary
// run and returns what they did.
func sharedSmallDemo(t *testing.T) smallDemo {
	t.Helper()
	smallDemoOnce.Do(func() {
		out := filepath.Join(testTemp, "small-demo")
		d := smallDemo{out: out, args: []string{"-q", "demo", "--serps", "300", "--queries", "60", "--out", out}}
		d.fresh.code, d.fresh.stdout, d.fresh.stderr = runCLI(t, d.args...)
		d.rerun.code, d.rerun.stdout, d.rerun.stderr = runCLI(t, d.args...)
		smallDemoRun = d
	})
	return smallDemoRun
}
