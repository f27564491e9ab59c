package main

import (
	"strings"
	"testing"
)

func TestVersionCommandAndFlag(t *testing.T) {
	t.Parallel()
	code1, out1, err1 := runCLI(t, "version")
	code2, out2, err2 := runCLI(t, "--version")
	if code1 != 0 || code2 != 0 {
		t.Fatalf("exit %d (%s), %d (%s)", code1, err1, code2, err2)
	}
	if !strings.HasPrefix(out1, "lovbench ") || !strings.Contains(out1, "revision ") || out1 != out2 {
		t.Errorf("version printed %q, --version %q", out1, out2)
	}
}
