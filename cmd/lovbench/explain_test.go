package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features/democorpus"
)

// TestExplainCommand: explain prints the features of one pair with their
// inputs, as text and as JSON, and refuses an unknown term.
func TestExplainCommand(t *testing.T) {
	t.Parallel()
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

// A prefixed name whose prefix the corpus does not declare: explain and
// features say so and name the ways out (--prefixes, the full IRI), not
// that the term is missing. With the prefix declared (a LOV prefix file,
// or the demo corpus directory's prefixes.ttl) the same name resolves.
func TestUndeclaredPrefixMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "v.nq")
	if err := os.WriteFile(corpus, []byte(cliCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := filepath.Join(dir, "pairs.csv")
	os.WriteFile(pairs, []byte("query,term\ndog,zz:Dog\n"), 0o644)
	for name, args := range map[string][]string{
		"explain":  {"explain", "--corpus", corpus, "--query", "dog", "--term", "zz:Dog"},
		"features": {"features", "--corpus", corpus, "--pairs", pairs, "--out", filepath.Join(dir, "f.csv")},
	} {
		code, _, errs := runCLI(t, append([]string{"-q"}, args...)...)
		if code != 1 || !strings.Contains(errs, `prefix "zz:" is not declared`) || !strings.Contains(errs, "--prefixes") || !strings.Contains(errs, "full IRI") {
			t.Errorf("%s with an undeclared prefix: code %d (want 1), message lacks the cause or the fix: %s", name, code, errs)
		}
		if strings.Contains(errs, "zz:Dog is not in the corpus") || strings.Contains(errs, "term not in the corpus") {
			t.Errorf("%s: the message still blames a missing term: %s", name, errs)
		}
	}
	// --unknown zero keeps going and its warning gives the same reason.
	code, _, errs := runCLI(t, "features", "--corpus", corpus, "--pairs", pairs, "--out", filepath.Join(dir, "f.csv"), "--unknown", "zero")
	if code != 0 || !strings.Contains(errs, `prefix \"zz:\" is not declared`) {
		t.Errorf("features --unknown zero: code %d, warning lacks the reason: %s", code, errs)
	}
	// The same name with the prefix declared in a LOV prefix file.
	lov := filepath.Join(dir, "prefixes.json")
	os.WriteFile(lov, []byte(`{"results":{"bindings":[{"vocabPrefix":{"value":"zz"},"vocabURI":{"value":"http://v.org/"},"termPrefix":{"value":"http://v.org/"}}]}}`), 0o644)
	if code, out, errs := runCLI(t, "explain", "--corpus", corpus, "--prefixes", lov, "--query", "dog", "--term", "zz:Dog"); code != 0 || !strings.Contains(out, "term http://v.org/Dog") {
		t.Errorf("explain with --prefixes: code %d: %s%s", code, out, errs)
	}
	// A declared prefix whose expansion is no term: the message names the
	// expansion.
	if code, _, errs := runCLI(t, "explain", "--corpus", corpus, "--prefixes", lov, "--query", "dog", "--term", "zz:Horse"); code != 1 || !strings.Contains(errs, `expands to "http://v.org/Horse", which is not in the corpus`) {
		t.Errorf("explain zz:Horse: code %d: %s", code, errs)
	}
}

// The README's explain line works on the demo's corpus directory: the
// directory declares the embedded vocabularies' prefixes (prefixes.ttl).
func TestExplainFoafPersonOnDemoCorpus(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "corpus-embedded")
	if _, err := democorpus.Materialize(dir); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "explain", "--corpus", dir, "--query", "person", "--term", "foaf:Person")
	if code != 0 || !strings.Contains(out, "term http://xmlns.com/foaf/0.1/Person (class, reference semantics)") {
		t.Errorf("explain --term foaf:Person on the demo corpus: code %d: %s%s", code, out, errs)
	}
}
