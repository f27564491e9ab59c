package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/workdir"
)

// `report --out` naming a file of a work directory (a stage output, the
// work directory's marker, a file of a release) is refused as a usage
// error, exit 2, and writes nothing; a new file at the work directory's
// top (the default report.html) is not refused. A stage output written
// over behind lovbench's back is not trusted by the next demo: the stage
// runs again and its file is the stage's again, and the latest release
// (whose files are hard links of the stage outputs) is published anew
// rather than kept with "nothing changed".
func TestReportOutIntoWorkdirRefused(t *testing.T) {
	t.Parallel()
	// `-q demo --serps 300 --queries 60` on a fresh work directory (and a
	// rerun over its unchanged stages), shared with
	// TestDemoAndRunOutputLevels.
	d := sharedSmallDemo(t)
	w, demo := d.out, d.args
	if code, errs := d.fresh.code, d.fresh.stderr; code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	labels := filepath.Join(w, "stages", "label", "labels.csv")
	want := mustRead(t, labels)
	for _, out := range []string{
		labels,
		filepath.Join(w, "stages", "ingest", "sessions.parquet"),
		filepath.Join(w, workdir.MarkerFileName),
		filepath.Join(w, "releases", "latest", "report.html"),
		filepath.Join(w, "stages", "new.html"),
	} {
		before, _ := os.ReadFile(out)
		code, _, errs := runCLI(t, "report", "--workdir", w, "--out", out)
		if code != 2 || !strings.Contains(errs, "work directory") && !strings.Contains(errs, "published whole") {
			t.Errorf("report --out %s: exit %d (want 2): %s", out, code, errs)
		}
		if after, _ := os.ReadFile(out); string(after) != string(before) {
			t.Errorf("report --out %s wrote over it", out)
		}
	}
	if code, _, errs := runCLI(t, "report", "--workdir", w); code != 0 {
		t.Errorf("report into the work directory's report.html: exit %d: %s", code, errs)
	}
	// Written over in place (as a redirection or an editor would): the
	// release's hard link changes with it.
	if err := os.WriteFile(labels, []byte("<html>not labels</html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runCLI(t, demo[1:]...)
	if code != 0 {
		t.Fatalf("demo rerun: exit %d: %s", code, errs)
	}
	if strings.Contains(stdout, "nothing changed") || !strings.Contains(errs, "stage output changed") {
		t.Errorf("demo rerun over a changed stage output: stdout %q, stderr %q; want the stage redone and a release published", stdout, errs)
	}
	if got := mustRead(t, labels); got != want {
		t.Errorf("stages/label/labels.csv after the rerun is not the stage's output:\n%.80s", got)
	}
	if got := mustRead(t, filepath.Join(w, "releases", "latest", "labels.csv")); got != want {
		t.Errorf("releases/latest/labels.csv after the rerun is not the stage's output:\n%.80s", got)
	}
}

// `shard --out` over a directory of a user's files (a manifest.json and
// shard files of their own) is refused and leaves them as they were;
// over its own unchanged earlier output it is allowed, and re-sharding 8
// into 4 leaves none of the 8 files. An index edited to list a user's
// file with its size and SHA-256 does not get that file deleted.
func TestShardOutNeverLosesFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "sim.tsv")
	if code, _, stderr := runCLI(t, "simulate", "--model", "dbn", "--sessions", "300", "--queries", "20", "--seed", "2", "--out", logFile, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	user := filepath.Join(dir, "mine")
	os.MkdirAll(user, 0o755)
	os.WriteFile(filepath.Join(user, "manifest.json"), []byte(`{"mine":true}`), 0o644)
	os.WriteFile(filepath.Join(user, "shard-00000-of-00002.parquet"), []byte("my data"), 0o644)
	code, _, errs := runCLI(t, "-q", "shard", "--sessions", logFile, "--shards", "2", "--out", user)
	if code == 0 || !strings.Contains(errs, "not replacing") {
		t.Errorf("shard --out over a user's directory: exit %d: %s", code, errs)
	}
	if mustRead(t, filepath.Join(user, "manifest.json")) != `{"mine":true}` || mustRead(t, filepath.Join(user, "shard-00000-of-00002.parquet")) != "my data" {
		t.Error("the user's files were written over")
	}
	out := filepath.Join(dir, "shards")
	for _, n := range []string{"8", "4"} {
		if code, _, errs := runCLI(t, "-q", "shard", "--sessions", logFile, "--shards", n, "--out", out); code != 0 {
			t.Fatalf("shard --shards %s: exit %d: %s", n, code, errs)
		}
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(ents) != 6 || strings.Contains(strings.Join(names, " "), "of-00008") {
		t.Errorf("after re-sharding 8 into 4: %v, want 4 shards, the manifest and the index", names)
	}
	if _, err := os.Stat(filepath.Join(out, atomicfile.IndexFile)); err != nil {
		t.Fatal(err)
	}
	// A user's notes in the output, listed in an edited index.
	notes := filepath.Join(out, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	idx, err := atomicfile.MakeIndex(os.DirFS(out), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, atomicfile.IndexFile), idx, 0o644)
	if code, _, errs := runCLI(t, "-q", "shard", "--sessions", logFile, "--shards", "2", "--out", out); code == 0 || !strings.Contains(errs, "notes.txt") {
		t.Errorf("shard over an output whose index was edited to list a user's file: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("the user's notes.txt was deleted: %v", err)
	}
}
