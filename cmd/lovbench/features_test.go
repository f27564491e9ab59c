package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/pqfile"
)

const cliCorpus = `<http://v.org/Dog> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://v.org/> .
<http://v.org/Dog> <http://www.w3.org/2000/01/rdf-schema#label> "Dog" <http://v.org/> .
<http://v.org/Cat> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://v.org/> .
<http://v.org/Cat> <http://www.w3.org/2000/01/rdf-schema#label> "Cat" <http://v.org/> .
<http://v.org/> <http://purl.org/vocab/vann/preferredNamespacePrefix> "v" <http://v.org/> .
<http://v.org/> <http://purl.org/vocab/vann/preferredNamespaceUri> "http://v.org/" <http://v.org/> .
`

func TestFeaturesAndSearchCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "v.nq")
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(corpus, []byte(cliCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pairs, []byte("query,term\ndog,v:Dog\ndog,http://v.org/Cat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "f.csv")
	if code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", out, "--features", "1,7"); code != 0 {
		t.Fatalf("features: code %d: %s", code, errs)
	}
	got, _ := os.ReadFile(out)
	want := "query,term,Boolean_Match_T,Query_Length_Q\ndog,http://v.org/Dog,1,1\ndog,http://v.org/Cat,0,1\n"
	if string(got) != want {
		t.Errorf("features CSV:\n%s\nwant\n%s", got, want)
	}
	pq := filepath.Join(dir, "f.parquet")
	if code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", pq); code != 0 {
		t.Fatalf("features parquet: code %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(pq); len(b) < 8 || string(b[:4]) != "PAR1" {
		t.Error("parquet output lacks the PAR1 magic")
	}
	if code, _, _ := runCLI(t, "features", "--corpus", corpus, "--pairs", pairs, "--out", filepath.Join(dir, "x.txt")); code != 2 {
		t.Errorf("bad --out extension: code %d, want 2", code)
	}
	os.WriteFile(pairs, []byte("query,term\ndog,v:Zebra\n"), 0o644)
	if code, _, errs := runCLI(t, "features", "--corpus", corpus, "--pairs", pairs, "--out", out); code != 1 || !strings.Contains(errs, "pairs.csv:2: field term") {
		t.Errorf("unknown term: code %d, stderr %q", code, errs)
	}
	code, stdout, errs := runCLI(t, "search", "--corpus", corpus, "--by", "label", "cat")
	if code != 0 || !strings.Contains(stdout, "v:Cat\thttp://v.org/Cat") || strings.Contains(stdout, "Dog") {
		t.Errorf("search: code %d, stdout %q, stderr %q", code, stdout, errs)
	}
	if code, _, _ := runCLI(t, "search", "--corpus", corpus, "--by", "nope", "cat"); code != 2 {
		t.Errorf("bad --by: code %d, want 2", code)
	}
}

// TestFeaturesSemanticsFlag: --semantics reference (default) and paper
// differ where the Java does: the query "do" is a substring of "Dog"
// (TextRelevancy.java) but no word of it; a bad value is a usage error.
func TestFeaturesSemanticsFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "v.nq")
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(corpus, []byte(cliCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pairs, []byte("query,term\ndo do,v:Dog\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "do do,http://v.org/Dog,2,2\n"},
		{[]string{"--semantics", "reference"}, "do do,http://v.org/Dog,2,2\n"},
		{[]string{"--semantics", "paper"}, "do do,http://v.org/Dog,0,1\n"},
	} {
		out := filepath.Join(dir, "f.csv")
		args := append([]string{"-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", out, "--features", "4,7"}, tc.args...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: code %d: %s", tc.args, code, errs)
		}
		got, _ := os.ReadFile(out)
		if want := "query,term,Text_Relevancy_T,Query_Length_Q\n" + tc.want; string(got) != want {
			t.Errorf("%v:\n%s\nwant\n%s", tc.args, got, want)
		}
	}
	if code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", filepath.Join(dir, "x.csv"), "--semantics", "java"); code != 2 || !strings.Contains(errs, "--semantics") {
		t.Errorf("--semantics java: code %d, stderr %q; want 2 naming the flag", code, errs)
	}
}

// TestFeaturesRecordOriginForExport: features --semantics paper writes
// its semantics, the corpus digest (the SHA-256 of the corpus file's
// SHA-256 and a newline, as docs/features.md defines it) and the version
// into the Parquet file; export takes them into the manifest and refuses
// --feature-semantics reference, naming both semantics (exit 1).
func TestFeaturesRecordOriginForExport(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "v.nq")
	pairs := filepath.Join(dir, "pairs.csv")
	gt := filepath.Join(dir, "gt.csv")
	os.WriteFile(corpus, []byte(cliCorpus), 0o644)
	os.WriteFile(pairs, []byte("query,term\ndo do,v:Dog\ndog,v:Dog\nanimal,v:Dog\n"), 0o644)
	os.WriteFile(gt, []byte("query,term,label\ndo do,http://v.org/Dog,1\ndog,http://v.org/Dog,2\nanimal,http://v.org/Dog,0\n"), 0o644)
	fp := filepath.Join(dir, "f.parquet")
	if code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", fp, "--semantics", "paper"); code != 0 {
		t.Fatalf("features: code %d: %s", code, errs)
	}
	file := sha256.Sum256([]byte(cliCorpus))
	digest := sha256.Sum256([]byte(hex.EncodeToString(file[:]) + "\n"))
	tab, err := pqfile.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Meta[features.MetaSemantics] != "paper" || tab.Meta[features.MetaCorpusSHA256] != hex.EncodeToString(digest[:]) || tab.Meta[features.MetaVersion] == "" {
		t.Errorf("metadata %v, want paper and corpus %x", tab.Meta, digest)
	}
	out := filepath.Join(dir, "ds")
	code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gt, "--features", fp, "--folds", "3", "--out", out, "--feature-semantics", "reference")
	if code != 1 || !strings.Contains(errs, `"reference" were stated`) || !strings.Contains(errs, `with "paper" semantics`) {
		t.Errorf("export --feature-semantics reference: code %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, "-q", "export", "--ground-truth", gt, "--features", fp, "--folds", "3", "--out", out); code != 0 {
		t.Fatalf("export: code %d: %s", code, errs)
	}
	m, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if !strings.Contains(string(m), `"feature_semantics": "paper"`) || !strings.Contains(string(m), hex.EncodeToString(digest[:])) {
		t.Errorf("manifest lacks the features' origin:\n%s", m)
	}
}

// TestFeaturesNamesFilesNotReadAndConstants: a corpus directory with files
// of formats the reader does not parse (RDF/XML, Notation3, a README) and
// --unknown zero still runs, but names every file it skipped and why; the
// features constant over the pairs (here every query is one word, so
// Query_Length_Q is 1 in every row) are named in a warning.
func TestFeaturesNamesFilesNotReadAndConstants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	os.Mkdir(corpus, 0o755)
	files := map[string]string{
		"v.nq":       cliCorpus,
		"extra.owl":  `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>`,
		"more.n3":    "@prefix : <http://n.org/> . { :a :b :c } => { :a :d :c } .\n",
		"README.txt": "my vocabularies\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(corpus, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pairs := filepath.Join(dir, "pairs.csv")
	os.WriteFile(pairs, []byte("query,term\ndog,v:Dog\ndog,http://v.org/Cat\ncat,v:Zebra\n"), 0o644)
	out := filepath.Join(dir, "f.csv")
	code, _, errs := runCLI(t, "-q", "features", "--corpus", corpus, "--pairs", pairs, "--out", out, "--features", "1,7,8", "--unknown", "zero")
	if code != 0 {
		t.Fatalf("features: code %d: %s", code, errs)
	}
	for _, want := range []string{
		"extra.owl", "RDF/XML or OWL/XML is not read",
		"more.n3", "Notation3 is not read",
		"README.txt", "not an RDF file this reader parses",
		"corpus files not read", "count=3",
		"constant features", "Query_Length_Q = 1", "PageRank_OwlImports_O = 0",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "Boolean_Match_T =") {
		t.Errorf("Boolean_Match_T varies (1, 0, 0) but is called constant:\n%s", errs)
	}
}
