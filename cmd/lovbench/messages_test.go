package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// A negative seed is a usage error that says what a seed is, not
// strconv's message; every seed flag of every command says the same.
func TestSeedFlagMessage(t *testing.T) {
	t.Parallel()
	code, _, errs := runCLI(t, "demo", "--out", filepath.Join(t.TempDir(), "d"), "--seed", "-1")
	if code != 2 || strings.Contains(errs, "strconv") || !strings.Contains(errs, `"--seed"`) || !strings.Contains(errs, "whole number from 0 to 18446744073709551615") {
		t.Errorf("demo --seed -1: code %d (want 2): %s", code, errs)
	}
	root := newRootCmd(&app{})
	n := 0
	for _, c := range root.Commands() {
		if f := c.Flags().Lookup("seed"); f != nil {
			n++
			if err := f.Value.Set("-1"); err == nil || strings.Contains(err.Error(), "strconv") {
				t.Errorf("%s --seed -1: %v", c.Name(), err)
			}
		}
	}
	if n < 8 {
		t.Errorf("only %d commands have --seed", n)
	}
}

// A flag's help shows at most one default: simulate --examination states
// its defaults per model in words and has no "(default [])" after them.
func TestFlagHelpShowsOneDefault(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&app{})
	for _, c := range root.Commands() {
		for _, line := range strings.Split(c.Flags().FlagUsages(), "\n") {
			if strings.Count(line, "(default") > 1 || strings.Contains(line, "(default [])") {
				t.Errorf("%s: %q shows two defaults", c.Name(), strings.TrimSpace(line))
			}
		}
	}
}

// The help of a flag does not offer a value the flag rejects: demo's
// --serps and --queries said "0: the profile's" and refused 0.
func TestFlagHelpValuesAccepted(t *testing.T) {
	t.Parallel()
	zero := regexp.MustCompile(`\(0[:=]`)
	root := newRootCmd(&app{})
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if zero.MatchString(f.Usage) {
				if err := f.Value.Set("0"); err != nil {
					t.Errorf("%s --%s: help offers 0 (%q) but 0 is rejected: %v", c.Name(), f.Name, f.Usage, err)
				}
			}
		})
	}
}

// validate counts its problems in English: "1 problem", not "1 problems".
func TestValidateCountsProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gtp, fp := writeExportInputs(t, dir, 10, func(q, tm int) int { return (q + tm) % 5 })
	out := filepath.Join(dir, "ds")
	if code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gtp, "--features", fp, "--out", out); code != 0 {
		t.Fatalf("export: code %d: %s", code, errs)
	}
	// One problem: a file the manifest does not list.
	if err := os.WriteFile(filepath.Join(out, "extra.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runCLI(t, "validate", out)
	if code != 1 || strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(errs, "is invalid: 1 problem\n") {
		t.Errorf("validate with one problem: code %d (want 1), message %q (want it to end \"is invalid: 1 problem\"), listed:\n%s", code, errs, stdout)
	}
	// Several: that one and a tampered qrels.txt.
	if err := os.WriteFile(filepath.Join(out, "qrels.txt"), []byte("1 0 x 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs = runCLI(t, "validate", out)
	if n := strings.Count(stdout, "\n"); code != 1 || n < 2 || !strings.HasSuffix(errs, fmt.Sprintf("is invalid: %d problems\n", n)) {
		t.Errorf("validate with several problems: code %d, message %q, listed:\n%s", code, errs, stdout)
	}
}

// demo has no folds flag, so its "too small" message does not offer one.
func TestDemoTooSmallMessage(t *testing.T) {
	t.Parallel()
	d := sharedTooSmallDemo(t) // shared with TestDemoBelowMinimums
	code, errs := d.code, d.stderr
	if code != 1 || !strings.Contains(errs, "--serps") {
		t.Fatalf("demo --serps 10: code %d (want 1): %s", code, errs)
	}
	if strings.Contains(errs, "folds") {
		t.Errorf("demo's message suggests folds, which demo cannot change: %s", errs)
	}
}
