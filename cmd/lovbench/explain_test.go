package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainCommand: explain prints the features of one pair with their
// inputs, as text and as JSON, and refuses an unknown term.
func TestExplainCommand(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "v.nq")
	if err := os.WriteFile(corpus, []byte(cliCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "explain", "--corpus", corpus, "--query", "dog dog", "--term", "v:Dog")
	if code != 0 {
		t.Fatalf("explain: code %d: %s", code, errs)
	}
	// "dog dog" against v:Dog: Boolean_Match_T 1, both words in the
	// local name, Query_Length_Q 2 (repeats count), one exact class
	// label "Dog" per word: Class_Match_O 2 x 0.6.
	for _, want := range []string{"term http://v.org/Dog (class, reference semantics)", " 1 Boolean_Match_T = 1\n",
		" 4 Text_Relevancy_T = 2\n", `word "dog": in the local name "dog"`, " 7 Query_Length_Q = 2\n",
		" 5 Class_Match_O = 1.2\n", "ClassMatchMeasure.java:40"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, "explain", "--corpus", corpus, "--query", "dog", "--term", "http://v.org/Cat", "--json", "--semantics", "paper")
	if code != 0 {
		t.Fatalf("explain --json: code %d: %s", code, errs)
	}
	var ex struct {
		Term      string
		Semantics string
		Features  []struct {
			ID    int
			Value float64
		}
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Term != "http://v.org/Cat" || ex.Semantics != "paper" || len(ex.Features) != 34 || ex.Features[0].Value != 0 {
		t.Errorf("json: %+v", ex)
	}
	if code, _, errs := runCLI(t, "explain", "--corpus", corpus, "--query", "dog", "--term", "v:Horse"); code != 1 || !strings.Contains(errs, "not in the corpus") {
		t.Errorf("unknown term: code %d: %s", code, errs)
	}
	if code, _, _ := runCLI(t, "explain", "--corpus", corpus); code != 2 {
		t.Errorf("no --term: code %d, want 2", code)
	}
}
