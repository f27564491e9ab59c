package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulate on a small corpus of the user's own says what it needs: a SERP
// length the corpus can fill, not "is the corpus empty?". The corpus has
// four terms; "person" is a word of three labels (Person, Person name,
// person age), so the longest full SERP is 3 terms.
func TestSimulateSmallCorpusNamesSERPLength(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "mine.ttl")
	ttl := `@prefix ex: <http://example.org/mine#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://example.org/mine> a owl:Ontology .
ex:Person a owl:Class ; rdfs:label "Person" .
ex:name a owl:DatatypeProperty ; rdfs:label "Person name" .
ex:age a owl:DatatypeProperty ; rdfs:label "person age" .
ex:Animal a owl:Class ; rdfs:label "Animal" .
`
	if err := os.WriteFile(corpus, []byte(ttl), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "log.tsv")
	code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--corpus", corpus, "--sessions", "20", "--queries", "1", "--out", out)
	if code != 1 || strings.Contains(errs, "is the corpus empty") || !strings.Contains(errs, "--serp-length") || !strings.Contains(errs, "at most 3") {
		t.Fatalf("simulate --corpus mine: code %d (want 1): %s", code, errs)
	}
	if code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--corpus", corpus, "--serp-length", "3", "--sessions", "20", "--queries", "1", "--out", out); code != 0 {
		t.Fatalf("simulate --serp-length 3: code %d: %s", code, errs)
	}
}

// label --help and sample --help name the columns of the files as they are
// written: the header of a labels CSV that label writes (read back from
// the file, below) and of a ground truth, never the old four columns of
// labels without their confidence.
func TestHelpListsRealColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log.tsv")
	rel := filepath.Join(dir, "rel.tsv")
	// One SERP of query 7 with three results, a click on the first; the
	// relevance of fit's format for each.
	if err := os.WriteFile(log, []byte("1\t0\tQ\t7\t0\ta:x\tb:y\tc:z\n1\t5\tC\ta:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rel, []byte("query\tdoc\trelevance\n7\ta:x\t0.9\n7\tb:y\t0.5\n7\tc:z\t0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "labels.csv")
	if code, _, errs := runCLI(t, "-q", "label", "--relevance", rel, "--sessions", log, "--serp-size", "3", "--out", out); code != 0 {
		t.Fatalf("label: code %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	written := strings.SplitN(string(b), "\n", 2)[0]
	if written != "query,term,label,probability,confidence" {
		t.Fatalf("labels.csv header %q", written)
	}
	old := "query,term,label,probability)"
	for _, c := range []string{"label", "sample"} {
		code, help, _ := runCLI(t, c, "--help")
		if code != 0 || !strings.Contains(help, written) || strings.Contains(help, old) {
			t.Errorf("%s --help: code %d, names %s: %v, the old columns: %v", c, code, written, strings.Contains(help, written), strings.Contains(help, old))
		}
	}
	if _, help, _ := runCLI(t, "sample", "--help"); !strings.Contains(help, "query,term,label,confidence") {
		t.Errorf("sample --help does not name the ground truth's columns")
	}
}

// lovbench alone prints the usage and exits 2 (a usage error), as an
// unknown command does; --help still exits 0.
func TestNoCommandIsUsageError(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t)
	if code != 2 || out != "" || !strings.Contains(errs, "Available Commands:") || !strings.Contains(errs, "a command is needed") {
		t.Errorf("lovbench alone: code %d (want 2), stdout %q, stderr %q", code, out, errs)
	}
	if code, out, _ := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "Available Commands:") {
		t.Errorf("lovbench --help: code %d", code)
	}
}

// run with a wrong configuration is a usage error (exit 2), found before
// any stage runs: nothing is written into the work directory.
func TestRunConfigErrorExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wd := filepath.Join(dir, "wd")
	for name, yaml := range map[string]string{
		"unknown.yaml":  "log: {path: a.tsv}\nclick_model: {}\n",
		"two.yaml":      "simulate: {sessions: 10, queries: 5}\n---\nsimulate: {sessions: 20, queries: 5}\n",
		"features.yaml": "simulate: {sessions: 10, queries: 5}\nfeatures: {list: 1-99}\n",
	} {
		cfg := filepath.Join(dir, name)
		if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "-q", "run", "--config", cfg, "--workdir", wd)
		if code != 2 || !strings.Contains(errs, name) {
			t.Errorf("%s: code %d (want 2): %s", name, code, errs)
		}
		if _, err := os.Stat(wd); !os.IsNotExist(err) {
			t.Errorf("%s: the work directory was made: %v", name, err)
		}
	}
}

// The demo's "400 queries" is the pool its SERPs' queries are drawn from
// by Zipf popularity, not the queries its log holds (2,000 SERPs of the
// default profile show 220 of them at seed 1: counted in the demo's
// stages/simulate/log.yandex.tsv with awk '$3=="Q"{print $4}' | sort -u):
// demo --help says so, and no longer says "SERPs over 400 queries".
func TestDemoHelpSaysQueryPool(t *testing.T) {
	t.Parallel()
	code, help, _ := runCLI(t, "demo", "--help")
	flat := strings.Join(strings.Fields(help), " ")
	if code != 0 || strings.Contains(flat, "SERPs over 400") || !strings.Contains(flat, "drawn from a pool of 400 by Zipf popularity (220 distinct queries appear at seed 1)") {
		t.Errorf("demo --help: code %d:\n%s", code, help)
	}
}

// fit --memory-limit 1MiB: the limit bounds the process, which holds more
// than that before it reads the log (the program and the Go runtime; 5.4
// MiB for the lovbench binary, and a test binary holds more), so the
// limit is refused as a usage error naming what the process holds; it
// exited 0 before, its log showing 9.3 MiB in use. A limit the process
// can keep (1 GiB) fits.
func TestFitMemoryLimitBelowProcess(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.tsv")
	if code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--sessions", "300", "--queries", "20", "--out", log); code != 0 {
		t.Fatalf("simulate: code %d: %s", code, errs)
	}
	out := filepath.Join(dir, "fit")
	code, _, errs := runCLI(t, "-q", "fit", "--log", log, "--models", "dctr", "--memory-limit", "1MiB", "--out", out)
	if code != 2 || !strings.Contains(errs, "a memory limit of 1.0MiB is below what this process needs: it already holds") {
		t.Errorf("fit --memory-limit 1MiB: code %d (want 2): %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused fit wrote %s: %v", out, err)
	}
	if code, _, errs := runCLI(t, "-q", "fit", "--log", log, "--models", "dctr", "--memory-limit", "1GiB", "--out", out); code != 0 {
		t.Errorf("fit --memory-limit 1GiB: code %d: %s", code, errs)
	}
}

// label --out DIR and sample --out DIR, DIR an existing directory, are
// usage errors before any work that say to name a file, not the system's
// "rename ...: file exists" after the whole stage (exit 1 before).
func TestFileOutputIsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// label's inputs are sound (one SERP of three results and their
	// relevance), so only the output is wrong.
	if err := os.WriteFile(filepath.Join(dir, "log.tsv"), []byte("1\t0\tQ\t7\t0\ta:x\tb:y\tc:z\n1\t5\tC\ta:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rel.tsv"), []byte("query\tdoc\trelevance\n7\ta:x\t0.9\n7\tb:y\t0.5\n7\tc:z\t0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"label", "--relevance", filepath.Join(dir, "rel.tsv"), "--sessions", filepath.Join(dir, "log.tsv"), "--serp-size", "3", "--out", out},
		{"sample", "--labels", filepath.Join(dir, "labels.csv"), "--corpus", filepath.Join(dir, "c.ttl"), "--out", out},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Contains(errs, "file exists") || !strings.Contains(errs, "--out "+out+" is a directory; give the name of the file to write") {
			t.Errorf("%s --out DIR: code %d (want 2): %s", args[0], code, errs)
		}
	}
}
