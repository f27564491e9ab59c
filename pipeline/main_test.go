package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lovbench/lovbench/internal/testsize"
)

// testTemp is the directory the package's shared test fixtures (the
// lovbench binary, the default demo's work directory) are made in;
// TestMain removes it after the tests.
var testTemp string

func TestMain(m *testing.M) {
	// Temporary files on a memory file system when the machine has one
	// with room (testsize.RunWithMemoryTemp).
	os.Exit(testsize.RunWithSharedTemp("lovbench-pipeline-test-", func(dir string) int {
		testTemp = dir
		return m.Run()
	}))
}

// defaultDemo is one run of the demo's configuration, shared by the tests
// that check its outputs (TestDemoEndToEnd, TestReportFiguresFromFullData)
// instead of each running the whole demo again.
type defaultDemo struct {
	wd   string        // the work directory
	res  RunResult     // what the run returned (demo --json at the full size)
	wall time.Duration // the run's wall time
	// again runs the same demo once more over wd and returns its result.
	again func() (RunResult, error)
}

var (
	demoOnce sync.Once
	demo     defaultDemo
	demoErr  error
)

// lightDemoLTR is the learning-to-rank part of the shared demo at the
// default size: 5 training iterations instead of the demo's 30. Everything
// before it (simulation, fit, labels, sample, features, export) and the
// rest of the stage (2 rankers x 6 configurations x 5 folds, the baseline,
// 1,000 permutations: small enough p-values that some rankers are
// significantly worse, a sentence TestReportFiguresFromFullData checks)
// are the demo's own, so the label shares, the recovery and the report's
// figures the tests check are the demo's; results.json holds the same
// rows, recomputed by TestReportFiguresFromFullData whatever their values.
func lightDemoLTR(c *Config) {
	c.LTR.Iterations = 5
}

// sharedDemo runs the demo once per test binary run and returns it. Tests
// must not change the work directory's outputs (a rerun that changes
// nothing is fine). At the full size (LOVBENCH_FULL=1) it is `lovbench
// demo --out DIR --json --quiet` with every default, the README's first
// command, as the built binary: the full size adds the claim that the
// demo's own learning-to-rank settings (30 iterations, 1,000
// permutations) and its command line run end to end and rerun unchanged.
// At the default size it is the demo's configuration (DemoConfig, as
// `lovbench demo` builds it) run in-process, with lightDemoLTR; the demo
// command's line and output are cmd/lovbench's tests'.
func sharedDemo(t *testing.T) defaultDemo {
	t.Helper()
	var bin string
	if testsize.Full() {
		bin = lovbenchBinary(t)
	}
	demoOnce.Do(func() {
		wd := filepath.Join(testTemp, "demo")
		start := time.Now()
		var run func() (RunResult, error)
		if testsize.Full() {
			run = func() (RunResult, error) {
				var res RunResult
				cmd := exec.Command(bin, "demo", "--out", wd, "--json", "--quiet")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					return res, fmt.Errorf("demo: %v\n%s", err, stderr.String())
				}
				if err := json.Unmarshal(out, &res); err != nil {
					return res, fmt.Errorf("demo --json: %v\n%s", err, out)
				}
				return res, nil
			}
		} else {
			run = func() (RunResult, error) {
				cfg := DemoConfig(wd, DemoLOVBench, 0, 0, 1)
				lightDemoLTR(cfg)
				res, err := Run(context.Background(), cfg, RunOptions{})
				if err != nil {
					return RunResult{}, fmt.Errorf("the demo's configuration: %v", err)
				}
				return *res, nil
			}
		}
		res, err := run()
		if err != nil {
			demoErr = err
			return
		}
		demo = defaultDemo{wd: wd, res: res, wall: time.Since(start), again: run}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demo
}
