package bytesize

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512mib": 512 << 20, "1.5G": 3 << 29, "100": 100, " 2 KiB ": 2048,
		"0": 0, "1e3": 1000, "7.9T": 8686141859430, "8388607T": 8388607 << 40} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for bad, msg := range map[string]string{"": "want a number", "GiB": "want a number", "-1G": "want a number",
		"4XB": "unknown unit", "1.2.3M": "want a number", "NaN": "want a number",
		// Overflow and rounding to zero: each used to mean "no limit".
		"9e9G": "too large", "8388608T": "too large", "1e300": "too large", "0.0000001": "less than one byte", "0.5B": "less than one byte"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Parse(%q): %v, want an error saying %q", bad, err, msg)
		}
	}
}

// A memory limit is 0 (none) or at least 1 MiB; the message prints both
// sizes in units that show them.
func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1MiB": 1 << 20, "64MiB": 64 << 20} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"1B": "a memory limit of 1B is too small: the smallest that can work is 1.0MiB",
		"64KiB": "of 64.0KiB is too small", "1048575": "of 1024.0KiB is too small", "9e9G": "too large"} {
		if _, err := ParseLimit(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseLimit(%q): %v, want %q", in, err, msg)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1: "1B", 1023: "1023B", 1024: "1.0KiB", 1536: "1.5KiB", 6876: "6.7KiB",
		1 << 20: "1.0MiB", 3 << 29: "1.5GiB", 5 << 40: "5.0TiB", 9223372036854775807: "8388608.0TiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

// The SI units are powers of 1000, as SI and IEC define them: 1MB is
// 1,000,000 bytes, not 1 MiB (1,048,576), so "--memory-limit 1MB" is below
// the 1 MiB minimum; an unknown unit's message names both families.
func TestParseSIUnits(t *testing.T) {
	for in, want := range map[string]int64{"1MB": 1000000, "1kB": 1000, "512MB": 512000000, "2GB": 2000000000, "1.5TB": 1500000000000, "1MiB": 1048576, "1M": 1048576} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := ParseLimit("1MB"); err == nil || !strings.Contains(err.Error(), "a memory limit of 976.6KiB is too small") {
		t.Errorf("ParseLimit(1MB): %v", err)
	}
	if _, err := Parse("4XB"); err == nil || !strings.Contains(err.Error(), "KB, MB, GB, TB, powers of 1000") {
		t.Errorf("Parse(4XB): %v", err)
	}
}
