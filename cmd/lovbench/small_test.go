package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/pipeline"
)

// writeExportInputs writes a ground truth and a features CSV (33 LOVBench
// feature columns) for queries q0..q(n-1) with 4 terms each; label(q, t)
// gives the labels.
func writeExportInputs(t *testing.T, dir string, n int, label func(q, t int) int) (gt, feats string) {
	t.Helper()
	var g, f strings.Builder
	g.WriteString("query,term,label\n")
	f.WriteString("query,term")
	for id := 1; id <= 33; id++ {
		f.WriteString("," + features.FeatureName(id))
	}
	f.WriteString("\n")
	for q := range n {
		for tm := range 4 {
			fmt.Fprintf(&g, "q%d,http://x.org/T%d,%d\n", q, tm, label(q, tm))
			fmt.Fprintf(&f, "q%d,http://x.org/T%d", q, tm)
			for j := range 33 {
				fmt.Fprintf(&f, ",%g", float64(q*tm+j)/7)
			}
			f.WriteString("\n")
		}
	}
	gt, feats = filepath.Join(dir, "gt.csv"), filepath.Join(dir, "f.csv")
	if err := os.WriteFile(gt, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(feats, []byte(f.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return gt, feats
}

// -q hides the summary of label, sample and export as it
// does for ingest, fit, features and ltr; without -q they print one.
func TestQuietHidesEverySummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.ttl")
	ttl := "@prefix ex: <http://ex.org/v#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
	for i := range 6 {
		ttl += fmt.Sprintf("ex:Person%d a owl:Class ; rdfs:label \"person kind %d\" .\n", i, i)
	}
	os.WriteFile(corpus, []byte(ttl), 0o644)
	logPath := filepath.Join(dir, "log.tsv")
	os.WriteFile(logPath, []byte("s1\t0\tQ\tperson\t0\tex:Person0\tex:Person1\tex:Person2\ns1\t1\tC\tex:Person0\n"), 0o644)
	relPath := filepath.Join(dir, "rel.tsv")
	os.WriteFile(relPath, []byte("query\tdoc\trelevance\nperson\tex:Person0\t0.7\nperson\tex:Person1\t0.45\nperson\tex:Person2\t0.3\n"), 0o644)
	gt, feats := writeExportInputs(t, dir, 10, func(q, tm int) int { return (q + tm) % 5 })
	cmds := map[string][]string{
		"label":  {"label", "--relevance", relPath, "--sessions", logPath, "--serp-size", "3", "--out", filepath.Join(dir, "labels.csv")},
		"sample": {"sample", "--labels", filepath.Join(dir, "labels.csv"), "--corpus", corpus, "--out", filepath.Join(dir, "sampled.csv")},
		"export": {"export", "--ground-truth", gt, "--features", feats, "--out", filepath.Join(dir, "ds")},
	}
	for _, name := range []string{"label", "sample", "export"} {
		code, out, errs := runCLI(t, cmds[name]...)
		if code != 0 || out == "" {
			t.Fatalf("%s: code %d, stdout %q: %s", name, code, out, errs)
		}
		code, out, errs = runCLI(t, append([]string{"-q"}, cmds[name]...)...)
		if code != 0 || out != "" {
			t.Errorf("%s -q: code %d, stdout %q (want nothing): %s", name, code, out, errs)
		}
	}
}

// Seeds are unsigned everywhere, demo's too.
func TestDemoSeedUnsigned(t *testing.T) {
	t.Parallel()
	code, _, errs := runCLI(t, "demo", "--out", filepath.Join(t.TempDir(), "d"), "--seed", "-1")
	if code != 2 || !strings.Contains(errs, "--seed") {
		t.Errorf("demo --seed -1: code %d (want 2): %s", code, errs)
	}
	if _, err := pipeline.ParseConfig([]byte("simulate: {sessions: 10, queries: 5, seed: -1}\n"), "c.yaml", "."); err == nil {
		t.Error("simulate.seed: -1 accepted in the run configuration")
	}
}

// The run configuration's spelling of Coordinate Ascent,
// coordascent, and the CLI's, ca, are accepted by both.
func TestCoordinateAscentSpellings(t *testing.T) {
	t.Parallel()
	for _, a := range []string{"ca", "coordascent"} {
		if _, err := pipeline.ParseConfig([]byte("simulate: {sessions: 10, queries: 5}\nltr: {algorithms: ["+a+"]}\n"), "c.yaml", "."); err != nil {
			t.Errorf("ltr.algorithms [%s]: %v", a, err)
		}
		dir := writeSyntheticFolds(t)
		if code, _, errs := runCLI(t, "-q", "ltr", "--data", dir, "--algorithms", a, "--configs", "LOVSimple", "--ca-restarts", "1", "--ca-iterations", "2", "--out", filepath.Join(t.TempDir(), "ltr")); code != 0 {
			t.Errorf("ltr --algorithms %s: code %d: %s", a, code, errs)
		}
	}
	if _, err := pipeline.ParseConfig([]byte("simulate: {sessions: 10, queries: 5}\nltr: {algorithms: [coordinateascnt]}\n"), "c.yaml", "."); err == nil || !strings.Contains(err.Error(), "ltr.algorithms") {
		t.Errorf("a misspelt algorithm is not refused when the configuration is read: %v", err)
	}
}

// No flag describes its range twice, as simulate's did
// ("(> 1) (> 1)", "(0 to 1) (in [0, 1])"): the range is appended by
// intVar/floatVar, so a usage text must not carry its own.
func TestFlagUsageStatesRangeOnce(t *testing.T) {
	t.Parallel()
	rangeGroup := `\([^()]*(>|<|\d to \d|in \[|in \()[^()]*\)`
	twice := regexp.MustCompile(rangeGroup + ` ` + rangeGroup)
	root := newRootCmd(&app{})
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if twice.MatchString(f.Usage) {
				t.Errorf("%s --%s: %q states its range twice", c.Name(), f.Name, f.Usage)
			}
		})
	}
}

// `stats` on an empty file exits 1 like every other reader.
func TestStatsEmptyInput(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "empty.tsv")
	os.WriteFile(p, nil, 0o644)
	if code, _, errs := runCLI(t, "stats", "--sessions", p); code != 1 || !strings.Contains(errs, "allow-empty") {
		t.Errorf("stats on an empty file: code %d (want 1): %s", code, errs)
	}
	if code, _, errs := runCLI(t, "--allow-empty", "stats", "--sessions", p); code != 0 {
		t.Errorf("stats --allow-empty on an empty file: code %d: %s", code, errs)
	}
}
