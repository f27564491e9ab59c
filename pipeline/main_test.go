package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testTemp is the directory the package's shared test fixtures (the
// lovbench binary, the default demo's work directory) are made in;
// TestMain removes it after the tests.
var testTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lovbench-pipeline-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTemp = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// defaultDemo is one run of `lovbench demo` with its defaults (the
// README's first command), shared by the tests that check its outputs
// (TestDemoEndToEnd, TestReportFiguresFromFullData) instead of each
// running the whole demo again.
type defaultDemo struct {
	wd   string        // the work directory
	res  RunResult     // what demo --json printed
	wall time.Duration // the run's wall time
}

var (
	demoOnce sync.Once
	demo     defaultDemo
	demoErr  error
)

// sharedDemo runs `lovbench demo --out DIR --json --quiet` once per test
// binary run and returns it. Tests must not change the work directory's
// outputs (a rerun that changes nothing is fine).
func sharedDemo(t *testing.T) defaultDemo {
	t.Helper()
	bin := lovbenchBinary(t)
	demoOnce.Do(func() {
		wd := filepath.Join(testTemp, "demo")
		start := time.Now()
		cmd := exec.Command(bin, "demo", "--out", wd, "--json", "--quiet")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			demoErr = fmt.Errorf("demo: %v\n%s", err, stderr.String())
			return
		}
		d := defaultDemo{wd: wd, wall: time.Since(start)}
		if err := json.Unmarshal(out, &d.res); err != nil {
			demoErr = fmt.Errorf("demo --json: %v\n%s", err, out)
			return
		}
		demo = d
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demo
}
