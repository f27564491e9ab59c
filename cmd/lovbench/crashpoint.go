//go:build lovbench_crashtest

package main

import "os"

// testCrashAt is the crash point of pipeline.RunOptions.CrashAt, read from
// LOVBENCH_TEST_CRASH_AT. Only a binary built with the lovbench_crashtest
// tag (the kill-and-rerun tests in pipeline/e2e_test.go build one) reads
// it: the released program has no way to kill itself.
func testCrashAt() string { return os.Getenv("LOVBENCH_TEST_CRASH_AT") }
