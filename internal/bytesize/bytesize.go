// Package bytesize parses and formats memory sizes such as "4GiB" or
// "512MB" (flags like fit --memory-limit and run-config keys).
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a size: a non-negative number with an optional unit B, K/KB/
// KiB, M/MB/MiB, G/GB/GiB or T/TB/TiB (case-insensitive). All units are
// binary (1 KB = 1 KiB = 1024 B), as memory is counted in pages.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit such as 512MiB or 4GiB", s)
	}
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KiB, MiB, GiB or TiB)", s, unit)
	}
	return int64(v * mult), nil
}

// Format writes n bytes in MiB or GiB with one decimal.
func Format(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}
