// Package testsize says at which size the long tests run: their small
// default, which still checks every property they guard (go test ./...
// within a minute on two cores), or their full size, which .ci/run runs
// once. LOVBENCH_FULL=1 in the environment selects the full size (an
// environment variable rather than a test flag, since go test ./... hands
// a flag to every package, and packages without it would fail). ToolDir
// is where the tests keep the executables they build, so that a rerun
// with unchanged sources does not link them again.
package testsize

import "os"

// EnvFull is the environment variable that selects the full size.
const EnvFull = "LOVBENCH_FULL"

// Full reports whether the long tests run at their full size
// (LOVBENCH_FULL=1).
func Full() bool { return os.Getenv(EnvFull) == "1" }

// Pick returns full at the full size and small otherwise.
func Pick[T any](small, full T) T {
	if Full() {
		return full
	}
	return small
}
