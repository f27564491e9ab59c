package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// label then sample through the command line on a small log, relevance file
// and Turtle corpus.
func TestLabelSampleCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var ttl strings.Builder
	ttl.WriteString("@prefix ex: <http://ex.org/v#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
	for i := range 12 {
		fmt.Fprintf(&ttl, "ex:Person%d a owl:Class ; rdfs:label \"person kind %d\" .\n", i, i)
	}
	ttl.WriteString("ex:Event a owl:Class ; rdfs:label \"event\" .\n")
	corpus := filepath.Join(dir, "corpus.ttl")
	os.WriteFile(corpus, []byte(ttl.String()), 0o644)

	// Yandex log: "person" shown twice with the same 3 results, "event"
	// once with a short SERP, "kind" and "class" with full SERPs; every
	// query in a session with a click (labels come only from those).
	log := "s1\t0\tQ\tperson\t0\tex:Person0\tex:Person1\tex:Nope\n" +
		"s1\t1\tC\tex:Person0\n" +
		"s2\t0\tQ\tperson\t0\tex:Person0\tex:Person1\tex:Nope\n" +
		"s3\t0\tQ\tevent\t0\tex:Event\n" + "s3\t1\tC\tex:Event\n" +
		"s4\t0\tQ\tkind\t0\tex:Person2\tex:Person3\tex:Person4\n" + "s4\t1\tC\tex:Person2\n" +
		"s5\t0\tQ\tclass\t0\tex:Person5\tex:Event\tex:Person6\n" + "s5\t1\tC\tex:Person6\n"
	logPath := filepath.Join(dir, "log.tsv")
	os.WriteFile(logPath, []byte(log), 0o644)
	rel := "query\tdoc\trelevance\nperson\tex:Person0\t0.7\nperson\tex:Person1\t0.45\nperson\tex:Nope\t0.1\nevent\tex:Event\t0.9\nperson\tex:Person0\t0.2\n" +
		"kind\tex:Person2\t0.5\nkind\tex:Person3\t0.3\nkind\tex:Person4\t0.61\n" +
		"class\tex:Person5\t0.3\nclass\tex:Event\t0.3\nclass\tex:Person6\t0.3\n"
	relPath := filepath.Join(dir, "rel.tsv")
	os.WriteFile(relPath, []byte(rel), 0o644)

	labelsPath := filepath.Join(dir, "labels.csv")
	code, out, errs := runCLI(t, "-q", "label", "--relevance", relPath, "--sessions", logPath, "--serp-size", "3", "--out", labelsPath, "--json")
	if code != 0 {
		t.Fatalf("label: code %d: %s", code, errs)
	}
	var rep struct {
		LabelledQueries int `json:"labelled_queries"`
		RowSkips        struct {
			Counts map[string]int `json:"counts"`
		} `json:"row_skips"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Line 6 repeats (person, ex:Person0) with another value; event's
	// SERP is short so its row is not labelled.
	if rep.LabelledQueries != 3 || rep.RowSkips.Counts["conflicting_duplicate"] != 1 || rep.RowSkips.Counts["query_not_labelled"] != 1 {
		t.Errorf("label report %s", out)
	}
	q, _ := os.ReadFile(labelsPath + ".quarantine.tsv")
	if want := "file\tline\tfield\treason\tdetail\n" + relPath + "\t6\trelevance\tconflicting_duplicate\t"; !strings.HasPrefix(string(q), want) || strings.Count(string(q), "\n") != 2 {
		t.Errorf("quarantine %q", q)
	}
	b, _ := os.ReadFile(labelsPath)
	if want := "query,term,label,probability,confidence\nclass,ex:Person5,0,0.3,\nclass,ex:Event,0,0.3,\nclass,ex:Person6,0,0.3,\n" +
		"kind,ex:Person2,2,0.5,\nkind,ex:Person3,0,0.3,\nkind,ex:Person4,3,0.61,\n" +
		"person,ex:Person0,4,0.7,\nperson,ex:Person1,1,0.45,\nperson,ex:Nope,-2,0.1,\n"; string(b) != want {
		t.Errorf("labels.csv = %q, want %q", b, want)
	}

	// Expert agreement (CBRBench format: BOM, CR endings, no header).
	// ex:Nope is no corpus term but its prefix expands. Pairs (probability,
	// expert label): (0.7, 3), (0.45, 2), (0.1, 0): same order, r = tau = 1.
	expert := filepath.Join(dir, "expert.csv")
	os.WriteFile(expert, []byte("\xEF\xBB\xBFperson,http://ex.org/v#Person0,3,3\rperson,http://ex.org/v#Person1,1.5,2\rPerson,http://ex.org/v#Nope,0,0\r"), 0o644)
	code, out, errs = runCLI(t, "-q", "label", "--relevance", relPath, "--sessions", logPath, "--serp-size", "3", "--out", labelsPath,
		"--expert", expert, "--corpus", corpus, "--json")
	if code != 0 {
		t.Fatalf("label --expert: code %d: %s", code, errs)
	}
	var ag struct {
		Agreement struct {
			Pooled struct {
				Pairs   int      `json:"pairs"`
				Pearson *float64 `json:"pearson"`
				Kendall *float64 `json:"kendall_tau_b"`
			} `json:"pooled"`
			Unresolved int `json:"unresolved"`
		} `json:"agreement"`
	}
	if err := json.Unmarshal([]byte(out), &ag); err != nil {
		t.Fatal(err)
	}
	if p := ag.Agreement.Pooled; p.Pairs != 3 || p.Pearson == nil || *p.Pearson != 1 || p.Kendall == nil || *p.Kendall != 1 || ag.Agreement.Unresolved != 1 {
		t.Errorf("agreement %s", out)
	}

	gtPath := filepath.Join(dir, "gt.csv")
	code, out, errs = runCLI(t, "sample", "--labels", labelsPath, "--corpus", corpus, "--seed", "3", "--per-query", "6", "--out", gtPath)
	if code != 0 {
		t.Fatalf("sample: code %d: %s", code, errs)
	}
	if !strings.Contains(out, "labelled pairs unknown to the corpus: 1") {
		t.Errorf("sample output %s", out)
	}
	b, _ = os.ReadFile(gtPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// Budget 3 x 6 - 8 known labelled = 10 draws. "class" matches no
	// term (no label or local name has the word), so it keeps its 3;
	// "kind" (3 labelled) and "person" (2) each have 9 or 10 unlabelled
	// matches: level L gives (L-3) + (L-2) <= 10, L = 7, 4 + 5 = 9 draws,
	// and the last one goes to the query with the smaller key.
	if len(lines) != 1+18 {
		t.Errorf("ground truth %d lines: %q", len(lines), lines)
	}
	// The confidence column is empty: these labels have none.
	if lines[1] != "class,http://ex.org/v#Person5,0," || !strings.Contains(string(b), "person,http://ex.org/v#Person0,4,\nperson,http://ex.org/v#Person1,1,\n") {
		t.Errorf("ground truth %q", lines)
	}

	// features, export (3 folds) and validate.
	fPath, ds := filepath.Join(dir, "features.parquet"), filepath.Join(dir, "ds")
	if code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", gtPath, "--out", fPath); code != 0 {
		t.Fatalf("features: code %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gtPath, "--features", fPath, "--folds", "3", "--out", ds); code != 0 {
		t.Fatalf("export: code %d: %s", code, errs)
	}
	if code, out, errs := runCLI(t, "validate", "--allow-degenerate", ds); code != 0 || !strings.Contains(out, "valid (18 rows, 3 queries, 3 folds)") {
		t.Fatalf("validate: code %d: %s %s", code, out, errs)
	}
	if _, err := os.Stat(gtPath + ".report.json"); err != nil {
		t.Error(err)
	}
	if code, _, _ := runCLI(t, "label", "--relevance", relPath, "--sessions", logPath, "--out", labelsPath, "--thresholds", "0.5,0.4,0.6,0.7,0.8"); code != 2 {
		t.Errorf("bad thresholds: code %d, want 2", code)
	}
}

// label's LOVBench column compares like with like: its labels are those
// of first result pages, so the column holds LOVBench's shares of its
// labelled pairs (label 1: 60.04%, by hand from Table 4: 24.10% of 184,224
// pairs over 73,950 labelled), not Table 4's shares of labelled plus
// sampled pairs (24.10%).
func TestLabelComparesFirstPageShares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	os.WriteFile(logPath, []byte("s1\t0\tQ\tperson\t0\tex:A\tex:B\tex:C\ns1\t1\tC\tex:A\n"), 0o644)
	relPath := filepath.Join(dir, "rel.tsv")
	os.WriteFile(relPath, []byte("query\tdoc\trelevance\nperson\tex:A\t0.7\nperson\tex:B\t0.45\nperson\tex:C\t0.3\n"), 0o644)
	code, out, errs := runCLI(t, "label", "--relevance", relPath, "--sessions", logPath, "--serp-size", "3", "--out", filepath.Join(dir, "labels.csv"))
	if code != 0 {
		t.Fatalf("label: code %d: %s", code, errs)
	}
	want := map[string]string{"4": "0.85%", "3": "4.06%", "2": "18.09%", "1": "60.04%", "0": "16.77%", "-2": "0.15%"}
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && want[f[0]] != "" {
			seen++
			if f[3] != want[f[0]] {
				t.Errorf("label %s: LOVBench column %s, want %s (first-page pairs)\n%s", f[0], f[3], want[f[0]], out)
			}
		}
	}
	if seen != 6 || !strings.Contains(out, "first-page labels") {
		t.Errorf("label's table has %d of 6 label rows or no note on what it compares:\n%s", seen, out)
	}
}

// TestLabelConfidenceCLI: a relevance file with intervals gives each label
// its confidence in labels.csv. By hand: Beta(1, 1) is uniform, so label
// 4 (band [0.7, 1]) has 0.3 and label 0 (band [0.2, 0.45)) 0.25; Beta(2, 1)
// has CDF x^2, so label 1 (band [0.45, 0.5)) has 0.25 - 0.2025 = 0.0475.
func TestLabelConfidenceCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	os.WriteFile(logPath, []byte("s1\t0\tQ\tperson\t0\tex:P0\tex:P1\tex:P2\ns1\t1\tC\tex:P0\n"), 0o644)
	relPath := filepath.Join(dir, "rel.tsv")
	os.WriteFile(relPath, []byte("query\tdoc\trelevance\tlower\tupper\talpha\tbeta\n"+
		"person\tex:P0\t0.7\t0.05\t0.95\t1\t1\n"+
		"person\tex:P1\t0.47\t0.22\t0.97\t2\t1\n"+
		"person\tex:P2\t0.3\t0.05\t0.95\t1\t1\n"), 0o644)
	labelsPath := filepath.Join(dir, "labels.csv")
	if code, _, errs := runCLI(t, "-q", "label", "--relevance", relPath, "--sessions", logPath, "--serp-size", "3", "--out", labelsPath); code != 0 {
		t.Fatalf("label: code %d: %s", code, errs)
	}
	b, err := os.ReadFile(labelsPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"ex:P0": {4, 0.3}, "ex:P1": {1, 0.0475}, "ex:P2": {0, 0.25}}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("labels.csv:\n%s", b)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		w, ok := want[f[1]]
		grade, _ := strconv.ParseFloat(f[2], 64)
		conf, err := strconv.ParseFloat(f[4], 64)
		if !ok || err != nil || grade != w[0] || math.Abs(conf-w[1]) > 1e-12 {
			t.Errorf("row %q, want label %v confidence %v", l, w[0], w[1])
		}
	}
}
