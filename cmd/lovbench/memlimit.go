package main

import (
	"fmt"

	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/internal/membudget"
)

// setSoftLimit sets Go's soft memory limit for a --memory-limit of limit
// bytes (membudget.SetSoftLimit: the one place that does) and logs it; it
// returns the function that restores the previous one. Nothing for
// limit <= 0.
func setSoftLimit(a *app, limit int64) (restore func()) {
	if limit <= 0 {
		return func() {}
	}
	a.log.Info("memory limit", "limit", bytesize.Format(limit), "go_soft_limit_bytes", membudget.SoftLimit(limit))
	return membudget.SetSoftLimit(limit)
}

// checkProcessLimit refuses a memory limit the process cannot keep: the
// limit bounds the whole process (membudget.InUse, what the fit's log
// reports as memory_in_use), which holds several MiB (the program, the
// Go runtime and its buffers) before it reads a byte of the log, and a
// fit needs at least bytesize.MinLimit on top (more for a large log, which
// the fit checks when it knows the log: shards.MinMemoryLimit). A limit
// below that was accepted, and the fit exited 0 with a log showing more
// memory in use than the limit.
func checkProcessLimit(limit int64) error {
	if limit <= 0 {
		return nil
	}
	in := membudget.InUse()
	need := in + bytesize.MinLimit
	if limit >= need {
		return nil
	}
	const mib = 1 << 20
	return fmt.Errorf("a memory limit of %s is below what this process needs: it already holds %s (the program, the Go runtime and its buffers) before reading the log, and a fit needs at least %s more; give at least %dMiB (docs/scale.md)",
		bytesize.Format(limit), bytesize.Format(in), bytesize.Format(bytesize.MinLimit), (need+mib-1)/mib)
}
