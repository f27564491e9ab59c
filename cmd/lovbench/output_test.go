package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// demo prints nothing with -q (errors only), a few lines by default (the
// release and the report, no stage table, no log lines), and the stage
// table and every stage's log, down to the EM iterations, with -v. That
// run -q prints nothing, on a fresh work directory and over unchanged
// stages, is checked on TestRunFitsAsFit's run.
func TestDemoAndRunOutputLevels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := []string{"demo", "--serps", "300", "--queries", "60"}
	// -q on a fresh work directory: every stage runs, nothing is printed.
	// (The run `-q demo --serps 300 --queries 60` and its rerun are shared
	// with TestReportOutIntoWorkdirRefused.)
	q := sharedSmallDemo(t)
	code, out, errs := q.fresh.code, q.fresh.stdout, q.fresh.stderr
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("demo -q: code %d, stdout %q, stderr %q (want nothing)", code, out, errs)
	}
	// -q over unchanged stages ("nothing changed" is not printed either).
	code, out, errs = q.rerun.code, q.rerun.stdout, q.rerun.stderr
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("demo -q rerun: code %d, stdout %q, stderr %q (want nothing)", code, out, errs)
	}
	// Default: a few lines, none of them a log line or a stage row.
	code, out, errs = runCLI(t, append(small, "--out", filepath.Join(dir, "d"))...)
	if code != 0 {
		t.Fatalf("demo: code %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("demo wrote to stderr by default: %q", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > 3 || !strings.Contains(out, "published release") || !strings.Contains(out, "report.html") {
		t.Errorf("demo's default output is %d lines, want at most 3 naming the release and the report:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "simulate ") || strings.HasPrefix(l, "ltr ") {
			t.Errorf("demo prints the stage table by default: %q", l)
		}
	}
	// -v: the stage table and the log, EM iterations included; on a
	// smaller log, below a benchmark's minimums (published with
	// --allow-degenerate, whose warning joins the log): what -v prints
	// does not depend on the size (0.35 CPU-s less than 300 SERPs).
	code, out, errs = runCLI(t, "-v", "demo", "--serps", "100", "--queries", "20", "--allow-degenerate", "--out", filepath.Join(dir, "v"))
	if code != 0 {
		t.Fatalf("demo -v: code %d: %s", code, errs)
	}
	for _, want := range []string{"simulate  ran", "ltr       ran", "published release"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo -v: stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`msg="stage running"`, `msg="EM iteration"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("demo -v: log lacks %s", want)
		}
	}
}
