//go:build !lovbench_crashtest

package main

// testCrashAt is "" outside crash-test builds (see crashpoint.go).
func testCrashAt() string { return "" }
