package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file a user adds to an earlier output of export,
// ingest, fit or ltr is not deleted by a rerun, even when the command's
// index file was touched after it (a checkout, an editor, a copy that
// resets times): the command exits 1 naming it, and the file and the
// earlier output are left as they were.
func TestRerunKeepsUserFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gt, feats := writeExportInputs(t, dir, 10, func(q, tm int) int { return (q + tm) % 5 })
	logFile := filepath.Join(dir, "sim.tsv")
	if code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--sessions", "300", "--queries", "20", "--out", logFile); code != 0 {
		t.Fatalf("simulate: %d: %s", code, errs)
	}
	folds := writeSyntheticFolds(t)
	lov := "../../ingest/testdata/lov/"
	commands := map[string]func(out string) []string{
		"export": func(out string) []string {
			return []string{"export", "--ground-truth", gt, "--features", feats, "--out", out}
		},
		"ingest": func(out string) []string {
			return []string{"ingest", "--format", "lov", "--queries", lov + "queries.jsonl", "--clicks", lov + "clicks.jsonl", "--pii-salt", "s", "--out", out}
		},
		"fit": func(out string) []string {
			return []string{"fit", "--log", logFile, "--models", "dctr", "--iterations", "2", "--out", out}
		},
		"ltr": func(out string) []string {
			return []string{"ltr", "--data", folds, "--algorithms", "ca", "--configs", "LOVSimple", "--ca-restarts", "1", "--ca-iterations", "2", "--permutations", "10", "--out", out}
		},
	}
	for name, args := range commands {
		out := filepath.Join(dir, name+"-out")
		for i := range 2 { // a plain rerun replaces the output
			if code, _, errs := runCLI(t, append([]string{"-q"}, args(out)...)...); code != 0 {
				t.Fatalf("%s run %d: %d: %s", name, i, code, errs)
			}
		}
		notes := filepath.Join(out, "notes.txt")
		os.WriteFile(notes, []byte("my notes"), 0o644)
		past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		os.Chtimes(notes, past, past)
		index := map[string]string{"export": "manifest.json", "ingest": "report.json", "fit": "metrics.json", "ltr": "results.json"}[name]
		if err := os.Chtimes(filepath.Join(out, index), future, future); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, append([]string{"-q"}, args(out)...)...)
		if code != 1 || !strings.Contains(errs, "notes.txt") {
			t.Errorf("%s over an output with a user's file: code %d (want 1): %s", name, code, errs)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "my notes" {
			t.Errorf("%s: the user's file is gone or changed: %v", name, err)
		}
	}
}

// An --out that is a symbolic link is written through:
// the directory it points to gets the output, the link stays.
func TestOutSymlinkWrittenThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gt, feats := writeExportInputs(t, dir, 10, func(q, tm int) int { return (q + tm) % 5 })
	real, link := filepath.Join(dir, "datasets", "v1"), filepath.Join(dir, "current")
	os.MkdirAll(filepath.Dir(real), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for i, seed := range []string{"1", "2"} {
		if code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gt, "--features", feats, "--seed", seed, "--out", link); code != 0 {
			t.Fatalf("export %d through a link: %d: %s", i, code, errs)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("export %d: --out is no longer a symbolic link", i)
		}
		b, err := os.ReadFile(filepath.Join(real, "manifest.json"))
		if err != nil || !strings.Contains(string(b), `"seed": `+seed) {
			t.Errorf("export %d: the link's target does not hold the new output (seed %s): %v", i, seed, err)
		}
	}
}

// `demo --out` into a directory of the user's files and
// run --workdir / are refused (exit 1) before anything is written.
func TestDemoAndRunRefuseForeignWorkdirs(t *testing.T) {
	t.Parallel()
	user := t.TempDir()
	os.WriteFile(filepath.Join(user, "thesis.tex"), []byte("x"), 0o644)
	if code, _, errs := runCLI(t, "-q", "demo", "--out", user, "--serps", "200", "--queries", "20"); code != 1 || !strings.Contains(errs, "not a lovbench work directory") {
		t.Errorf("demo --out into a user's directory: code %d: %s", code, errs)
	}
	if ents, _ := os.ReadDir(user); len(ents) != 1 {
		t.Errorf("demo wrote into the refused directory: %v", ents)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("simulate: {sessions: 100, queries: 10}\n"), 0o644)
	if code, _, errs := runCLI(t, "-q", "run", "--config", cfg, "--workdir", "/"); code != 1 || !strings.Contains(errs, "root of the file system") {
		t.Errorf("run --workdir /: code %d: %s", code, errs)
	}
}

// `demo --profile dense --serps 10` does not publish a benchmark that
// cannot mean anything: exit 1 naming what is missing; with
// --allow-degenerate it is published and the report carries a warning
// banner; a later run without the flag does not publish it again.
func TestDemoBelowMinimums(t *testing.T) {
	t.Parallel()
	first := sharedTooSmallDemo(t) // the first run, on a fresh work directory
	out := first.out
	if code, errs := first.code, first.stderr; code != 1 || !strings.Contains(errs, "test set has") || !strings.Contains(errs, "--allow-degenerate") {
		t.Fatalf("demo --serps 10: code %d (want 1): %s", code, errs)
	}
	if first.published {
		t.Error("a release was published")
	}
	code, stdout, errs := runCLI(t, "-q", "demo", "--profile", "dense", "--serps", "10", "--out", out, "--allow-degenerate")
	if code != 0 {
		t.Fatalf("demo --serps 10 --allow-degenerate: code %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "releases", "latest", "report.html"))
	if err != nil {
		t.Fatalf("%v (%s)", err, stdout)
	}
	if !strings.Contains(string(b), `class="warning"`) || !strings.Contains(string(b), "--allow-degenerate") {
		t.Error("the report of a degenerate dataset has no warning banner")
	}
	if code, _, errs := runCLI(t, "-q", "demo", "--profile", "dense", "--serps", "10", "--out", out); code != 1 || !strings.Contains(errs, "test set has") {
		t.Errorf("rerun without --allow-degenerate over unchanged stages: code %d (want 1): %s", code, errs)
	}
}

// An output that is an input (the same file, through a link, or a
// directory holding it) is a usage error, exit 2, before anything is read:
// the input is left as it was.
func TestOutputIsInputRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	content := []byte("query,term,label\nperson,http://xmlns.com/foaf/0.1/Person,3\n")
	os.WriteFile(in, content, 0o644)
	os.Symlink("in.csv", filepath.Join(dir, "link.csv"))
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	inSub := filepath.Join(sub, "log.tsv")
	os.WriteFile(inSub, content, 0o644)
	for _, args := range [][]string{
		{"sample", "--labels", in, "--corpus", "embedded", "--out", in},
		{"sample", "--labels", in, "--corpus", "embedded", "--out", filepath.Join(dir, "link.csv")},
		{"features", "--corpus", "embedded", "--pairs", in, "--out", in},
		{"label", "--relevance", in, "--sessions", inSub, "--out", in},
		{"label", "--relevance", inSub, "--sessions", inSub, "--out", filepath.Join(dir, "l.csv"), "--quarantine", inSub},
		{"rank", "--model", inSub, "--data", in, "--out", filepath.Join(dir, "link.csv")},
		{"fit", "--sessions", sub, "--out", sub},
		{"fit", "--log", inSub, "--out", dir},
		{"ingest", "--format", "yandex", "--log", inSub, "--out", sub},
		{"export", "--ground-truth", in, "--features", inSub, "--out", dir},
		{"ltr", "--data", sub, "--out", sub},
		{"shard", "--sessions", inSub, "--out", sub},
		{"simulate", "--model", "ubm", "--out", in, "--truth", in},
		{"eval", "--qrels", in, "--run", inSub, "--per-query", in},
	} {
		code, _, errs := runCLI(t, append([]string{"-q"}, args...)...)
		if code != 2 || !strings.Contains(errs, "input") && !strings.Contains(errs, "same file") {
			t.Errorf("%v: code %d (want 2): %s", args, code, errs)
		}
		for _, p := range []string{in, inSub} {
			if b, err := os.ReadFile(p); err != nil || string(b) != string(content) {
				t.Fatalf("%v: the input %s was changed or removed (%v)", args, p, err)
			}
		}
	}
}
