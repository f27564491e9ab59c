package main

import (
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
