package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// Corpus mode draws SERPs from the embedded corpus: every result is a term
// URI of one of its vocabularies, every SERP has --serp-length results, and
// the same seed gives the same bytes.
func TestSimulateCorpusMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out1, out2 := filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv")
	for _, out := range []string{out1, out2} {
		if code, _, stderr := runCLI(t, "simulate", "-q", "--model", "ubm", "--corpus", "embedded",
			"--sessions", "300", "--queries", "20", "--seed", "7", "--out", out); code != 0 {
			t.Fatalf("simulate: exit %d: %s", code, stderr)
		}
	}
	a, _ := os.ReadFile(out1)
	b, _ := os.ReadFile(out2)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different logs")
	}
	log, st, err := sessions.ReadYandex(bytes.NewReader(a), out1, true)
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() != 300 || st.Queries != 300 {
		t.Fatalf("%d SERPs, want 300", log.Len())
	}
	if log.Queries.Len() > 20 {
		t.Fatalf("%d distinct queries, at most 20 asked for", log.Queries.Len())
	}
	for i := 0; i < log.Len(); i++ {
		if log.Ranks(i) != 10 {
			t.Fatalf("SERP %d has %d results, want 10", i, log.Ranks(i))
		}
	}
	for _, d := range log.Docs.Names {
		if !strings.HasPrefix(d, "http://") && !strings.HasPrefix(d, "https://") {
			t.Fatalf("result %q is not a term URI", d)
		}
	}
}
