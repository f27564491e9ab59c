package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

func writeEvalFiles(t *testing.T) (dir, qrels, runA, runB string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"q":     "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 e1 1\nq2 0 e2 2\n",
		"a.run": "q1 Q0 d3 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d1 3 1 a\nq2 Q0 e1 1 1 a\n",
		"b.run": "q1 Q0 d1 1 5 b\nq1 Q0 d3 2 4 b\nq2 Q0 e2 1 3 b\nq2 Q0 e1 2 2 b\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "q"), filepath.Join(dir, "a.run"), filepath.Join(dir, "b.run")
}

// P@1 of run a: q1 ranks d3 (grade 0) first, q2 ranks e1 (grade 1): 0.5.
// MRR: q1 first relevant at rank 2, q2 at rank 1: (1/2 + 1)/2 = 0.75.
func TestEvalJSON(t *testing.T) {
	t.Parallel()
	dir, q, a, _ := writeEvalFiles(t)
	pq := filepath.Join(dir, "pq.tsv")
	code, out, errOut := runCLI(t, "eval", "--qrels", q, "--run", a, "--measures", "p@1,mrr", "--json", "--per-query", pq)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var got struct {
		Mean     map[string]float64            `json:"mean"`
		PerQuery map[string]map[string]float64 `json:"per_query"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Mean["p@1"] != 0.5 || got.Mean["mrr"] != 0.75 || got.PerQuery["q1"]["mrr"] != 0.5 {
		t.Errorf("json %+v", got)
	}
	b, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), a+"\tmrr\tq1\t0.5\n") {
		t.Errorf("per-query file:\n%s", b)
	}
}

func TestEvalCompareText(t *testing.T) {
	t.Parallel()
	_, q, a, b := writeEvalFiles(t)
	code, out, errOut := runCLI(t, "eval", "--qrels", q, "--run", a, "--run", b, "--measures", "ndcg@10,awp", "--sensitivity")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	for _, want := range []string{"p(wilcoxon)", "p(rand)", "sensitivity", "gain settings"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	dir, q, a, _ := writeEvalFiles(t)
	bad := filepath.Join(dir, "bad.run")
	os.WriteFile(bad, []byte("q1 Q0 d1 1 x a\n"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"eval", "--run", a}, 2, "--qrels"},
		{[]string{"eval", "--qrels", q, "--run", a, "--measures", "ndcg@zero"}, 2, "--measures"},
		{[]string{"eval", "--qrels", q, "--run", a, "--gain", "cubic"}, 2, "--gain"},
		{[]string{"eval", "--qrels", q, "--run", a, "--discount", "logb:1"}, 2, "--discount"},
		{[]string{"eval", "--qrels", q, "--run", a, "--measures", "rp@10"}, 1, "--corpus"},
		{[]string{"eval", "--qrels", q, "--run", bad}, 1, bad + ":1: field score"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: code %d, stderr %q; want code %d mentioning %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

// Relaxed precision and recall over the FOAF hierarchy of the shared
// corpus: foaf:Person is a direct sub-class of foaf:Agent. Relevant:
// Person and name; retrieved: Agent, foaf:name (a prefixed name, resolved
// with the LOV prefix file) and Document. Best match Agent-Person
// (symmetric 0.5) and name-name (1): omega = 1.5, rp@3 = 1.5/3 = 0.5,
// rr@3 = 1.5/2 = 0.75. With the effort proximity Agent-Person is 0.4
// (the relevant term is a sub-class of the retrieved one): omega = 1.4,
// rp@3 = 0.4667, rr@3 = 0.7.
func TestEvalRelaxedWithCorpus(t *testing.T) {
	foaf := refdata.Path(t, "vocabularies", "foaf.nq.gz")
	prefixes := refdata.Path(t, "lov", "lov_prefixes_2019-08-06.json.gz")
	dir := t.TempDir()
	q, r := filepath.Join(dir, "q"), filepath.Join(dir, "r")
	os.WriteFile(q, []byte("q1 0 http://xmlns.com/foaf/0.1/Person 3\nq1 0 http://xmlns.com/foaf/0.1/name 2\n"), 0o644)
	os.WriteFile(r, []byte("q1 Q0 http://xmlns.com/foaf/0.1/Agent 1 3 a\nq1 Q0 foaf:name 2 2 a\nq1 Q0 http://xmlns.com/foaf/0.1/Document 3 1 a\n"), 0o644)
	for prox, want := range map[string][2]float64{"symmetric": {0.5, 0.75}, "effort": {1.4 / 3, 0.7}} {
		code, out, errOut := runCLI(t, "eval", "-q", "--json", "--qrels", q, "--run", r, "--measures", "rp@3,rr@3",
			"--corpus", foaf, "--prefixes", prefixes, "--proximity", prox)
		if code != 0 {
			t.Fatalf("code %d: %s", code, errOut)
		}
		var got struct {
			Mean map[string]float64 `json:"mean"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Mean["rp@3"]-want[0]) > 1e-9 || math.Abs(got.Mean["rr@3"]-want[1]) > 1e-9 {
			t.Errorf("%s: rp@3 = %v rr@3 = %v, want %v", prox, got.Mean["rp@3"], got.Mean["rr@3"], want)
		}
	}
}

// --ties on a run whose two q1 documents with grades 1 and 0 are tied at
// the top: P@1 of q1 is 0 pessimistic, 1 optimistic, 1/2 on average
// (q2: e2, grade 2, alone at the top: 1).
func TestEvalTies(t *testing.T) {
	t.Parallel()
	dir, q, _, _ := writeEvalFiles(t)
	run := filepath.Join(dir, "tied.run")
	os.WriteFile(run, []byte("q1 Q0 d2 1 5 t\nq1 Q0 d3 2 5 t\nq2 Q0 e2 1 3 t\n"), 0o644)
	for ties, want := range map[string]float64{"docid": 0.5, "pessimistic": 0.5, "optimistic": 1, "average": 0.75} {
		code, out, errOut := runCLI(t, "eval", "--qrels", q, "--run", run, "--measures", "p@1", "--ties", ties, "--json")
		if code != 0 {
			t.Fatalf("--ties %s: code %d: %s", ties, code, errOut)
		}
		var got struct {
			Mean map[string]float64 `json:"mean"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Mean["p@1"]-want) > 1e-12 {
			t.Errorf("--ties %s: P@1 %v, want %v", ties, got.Mean["p@1"], want)
		}
	}
	if code, _, errOut := runCLI(t, "eval", "--qrels", q, "--run", run, "--ties", "random"); code != 2 || !strings.Contains(errOut, "--ties") {
		t.Errorf("--ties random: code %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "eval", "--qrels", q, "--run", run, "--measures", "awp", "--ties", "average"); code != 1 || !strings.Contains(errOut, "measure awp") {
		t.Errorf("--ties average with awp: code %d, %s", code, errOut)
	}
}

// Six queries, each with a relevant x and a non-relevant y. Run b (the
// baseline chosen with --baseline) ranks x first everywhere: P@1 = 1 on
// every query. Run a ranks y first everywhere: d = -1 six times, and of the
// 2^6 sign assignments only all-minus and all-plus reach |sum| = 6, so the
// exact randomisation p is 2/64 = 0.03125. Run c misses one query: d =
// (0,0,0,0,0,-1), every assignment reaches |sum| = 1, p = 1. Holm over the
// two comparisons: 0.03125 * 2 = 0.0625 and max(0.0625, 1 * 1) = 1; a is
// not significantly worse after Holm at 0.05, but is without correction.
func TestEvalBaselineAndCorrection(t *testing.T) {
	dir := t.TempDir()
	var q, a, b, c strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&q, "q%d 0 x%d 1\nq%d 0 y%d 0\n", i, i, i, i)
		fmt.Fprintf(&a, "q%d Q0 y%d 1 2 a\nq%d Q0 x%d 2 1 a\n", i, i, i, i)
		fmt.Fprintf(&b, "q%d Q0 x%d 1 2 b\nq%d Q0 y%d 2 1 b\n", i, i, i, i)
		if i == 6 {
			fmt.Fprintf(&c, "q%d Q0 y%d 1 2 c\nq%d Q0 x%d 2 1 c\n", i, i, i, i)
		} else {
			fmt.Fprintf(&c, "q%d Q0 x%d 1 2 c\nq%d Q0 y%d 2 1 c\n", i, i, i, i)
		}
	}
	paths := map[string]string{}
	for n, s := range map[string]string{"q": q.String(), "a.run": a.String(), "b.run": b.String(), "c.run": c.String()} {
		paths[n] = filepath.Join(dir, n)
		if err := os.WriteFile(paths[n], []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"eval", "--qrels", paths["q"], "--run", paths["a.run"], "--run", paths["b.run"], "--run", paths["c.run"], "--measures", "p@1", "--baseline", paths["b.run"]}
	code, out, errOut := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var rep struct {
		Comparisons []struct {
			Baseline, Run      string
			Diff               float64
			PRand              float64  `json:"p_randomisation"`
			PAdj               float64  `json:"p_randomisation_adjusted"`
			CILow              float64  `json:"ci_low"`
			Effect             *float64 `json:"effect_size"`
			Wins, Ties, Losses int
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(rep.Comparisons) != 2 {
		t.Fatalf("%d comparisons:\n%s", len(rep.Comparisons), out)
	}
	want := map[string][5]float64{paths["a.run"]: {-1, 0.03125, 0.0625, 0, 6}, paths["c.run"]: {-1.0 / 6, 1, 1, 5, 1}}
	for _, cm := range rep.Comparisons {
		w, ok := want[cm.Run]
		if cm.Baseline != paths["b.run"] || !ok {
			t.Errorf("comparison of %s against %s", cm.Run, cm.Baseline)
			continue
		}
		if math.Abs(cm.Diff-w[0]) > 1e-12 || cm.PRand != w[1] || cm.PAdj != w[2] || cm.Ties != int(w[3]) || cm.Losses != int(w[4]) || cm.Wins != 0 {
			t.Errorf("%s: %+v, want diff %v p %v adjusted %v ties %v losses %v", cm.Run, cm, w[0], w[1], w[2], w[3], w[4])
		}
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "p(holm)") || !strings.Contains(out, "0/0/6") || strings.Contains(out, "worse") {
		t.Errorf("code %d, text output:\n%s%s", code, out, errOut)
	}
	// Without correction a's p of 0.03125 is significant.
	code, out, _ = runCLI(t, append(args, "--correction", "none")...)
	if code != 0 || !strings.Contains(out, "p(uncorrected)") || !strings.Contains(out, "worse") {
		t.Errorf("code %d, --correction none:\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, append(args[:len(args)-1], "nope.run")...); code != 2 || !strings.Contains(errOut, "--baseline") {
		t.Errorf("unknown baseline: code %d %s", code, errOut)
	}
}

// An unknown --correction is a usage error naming the flag, in ltr as in
// eval.
func TestCorrectionFlagChecked(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"ltr", "--data", dir, "--out", filepath.Join(dir, "out"), "--correction", "bh"},
		{"eval", "--qrels", filepath.Join(dir, "q"), "--run", filepath.Join(dir, "a.run"), "--correction", "bh"}} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "--correction") || !strings.Contains(errOut, "holm, bonferroni or none") {
			t.Errorf("%s --correction bh: code %d, %s", args[0], code, errOut)
		}
	}
}
