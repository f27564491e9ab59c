package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	if code, out, _ := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "lovbench") {
		t.Fatalf("--help: code %d, out %q", code, out)
	}
	if code, _, _ := runCLI(t, "no-such-command"); code != 2 {
		t.Fatalf("unknown command: code %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "stats", "--no-such-flag"); code != 2 {
		t.Fatalf("unknown flag: code %d, want 2", code)
	}
}

// Every command documents its purpose and shows an example.
func TestEveryCommandHasShortAndExample(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&app{})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Short == "" {
			t.Errorf("%s: no Short", c.Name())
		}
		if c.Example == "" {
			t.Errorf("%s: no Example", c.Name())
		}
	}
}
