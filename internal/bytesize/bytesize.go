// Package bytesize parses and formats memory sizes such as "4GiB" or
// "512MiB" (flags like fit --memory-limit and run-config keys), and holds
// the one rule every memory limit follows (ParseLimit).
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse reads a size: a non-negative number with an optional unit
// (case-insensitive): B; the binary units KiB, MiB, GiB, TiB (powers of
// 1024, as memory is counted in pages) and their one-letter shorthands K,
// M, G, T; or the SI units KB, MB, GB, TB, which are powers of 1000 as SI
// and IEC define them (1MB = 1,000,000 B, not 1 MiB: they were read as
// binary once, while the error message named only the binary units). A
// size that does not fit in an int64 (say 9e9G) and a non-zero size below
// one byte (say 0.0000001) are errors, not a wrapped or zero size.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsNaN(v) {
		return 0, fmt.Errorf("size %q: want a number with an optional unit such as 512MiB or 4GiB", s)
	}
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (want B; KiB, MiB, GiB, TiB, powers of 1024; or KB, MB, GB, TB, powers of 1000)", s, unit)
	}
	// 2^63 is the first float64 above math.MaxInt64.
	if b := v * mult; b >= 1<<63 {
		return 0, fmt.Errorf("size %q is too large (at most %s)", s, Format(math.MaxInt64))
	} else if b > 0 && b < 1 {
		return 0, fmt.Errorf("size %q is less than one byte", s)
	}
	return int64(v * mult), nil
}

// MinLimit is the smallest memory limit any stage can work in: every
// output file is written through a 1 MiB buffer (atomicfile.Create), so a
// stage that writes anything holds at least that much.
const MinLimit = 1 << 20

// ParseLimit reads a memory limit (fit's and label's --memory-limit, the
// run configuration's memory_limit) by the one rule they all follow: a size
// (Parse), 0 for no limit, otherwise at least MinLimit. A stage may need
// more for its input (fit: shards.MinMemoryLimit) and says so when it
// knows its input.
func ParseLimit(s string) (int64, error) {
	n, err := Parse(s)
	if err != nil {
		return 0, err
	}
	if n > 0 && n < MinLimit {
		return 0, fmt.Errorf("a memory limit of %s is too small: the smallest that can work is %s", Format(n), Format(MinLimit))
	}
	return n, nil
}

// Format writes n bytes in the largest binary unit (B, KiB, MiB, GiB, TiB)
// that n reaches, with one decimal above bytes, so that a non-zero size
// never reads as zero.
func Format(n int64) string {
	const units = "KMGT"
	if n < 1<<10 && n > -1<<10 {
		return strconv.FormatInt(n, 10) + "B"
	}
	f, u := float64(n)/(1<<10), 0
	for u < len(units)-1 && math.Abs(f) >= 1<<10 {
		f /= 1 << 10
		u++
	}
	return fmt.Sprintf("%.1f%ciB", f, units[u])
}
