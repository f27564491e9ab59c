package pipeline

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
)

// TestExpandCorpusNamesFilesNotRead: a corpus directory's files are the
// ones the corpus reader parses (rdf.Scan, one rule for features and the
// pipeline): a backup "v.nq.bak" is not read as N-Quads (the old rule
// took any name containing ".nq" and then failed on it), and it and an
// RDF/XML file are named in a warning each and returned for the features
// stage's report.
func TestExpandCorpusNamesFilesNotRead(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"v.nq", "v.nq.bak", "w.owl", "sub/x.ttl.gz"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	files, skipped, err := expandCorpus([]string{dir}, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "sub/x.ttl.gz"), filepath.Join(dir, "v.nq")}; strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", files, want)
	}
	if len(skipped) != 2 || skipped[0].Path != filepath.Join(dir, "v.nq.bak") || skipped[1].Path != filepath.Join(dir, "w.owl") ||
		!strings.Contains(skipped[1].Reason, "RDF/XML") {
		t.Errorf("skipped %v", skipped)
	}
	for _, w := range []string{"v.nq.bak", "w.owl", "corpus file not read"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, log.String())
		}
	}
}

// TestFeaturesReportCounts: the features stage's report lists the files
// not read (the pipeline's listing first, then Load's), the vocabularies
// named by their file only, and the features constant over the pairs.
func TestFeaturesReportCounts(t *testing.T) {
	st := features.LoadStats{Files: 3, Statements: 40, Vocabularies: 2, Terms: 5,
		Names: []features.SourceName{
			{Source: "file:///c/a.ttl", Name: "http://a.org/", Rule: features.NamedByOntology, Vocabulary: true},
			{Source: "file:///c/b.ttl", Name: "file:///c/b.ttl", Rule: features.NamedByFile, Why: "several", Vocabulary: true},
			{Source: "file:///c/idx.ttl", Name: "file:///c/idx.ttl", Rule: features.NamedByFile, Why: "metadata"},
		},
		SkippedFiles: []features.SkippedFile{{Path: "/c/y.rdf", Reason: "RDF/XML"}}}
	tab := &features.Table{Features: []int{1, 7}, Rows: []features.Row{{Values: []float64{1, 2}}, {Values: []float64{0, 2}}}}
	fr := newFeaturesReport(st, []features.SkippedFile{{Path: "/c/x.owl", Reason: "RDF/XML"}}, tab)
	if len(fr.FilesNotRead) != 2 || fr.FilesNotRead[0].Path != "/c/x.owl" || fr.FilesNotRead[1].Path != "/c/y.rdf" {
		t.Errorf("files not read %v", fr.FilesNotRead)
	}
	if len(fr.NamedByFile) != 1 || fr.NamedByFile[0].Source != "file:///c/b.ttl" {
		t.Errorf("named by file %v, want only the vocabulary b.ttl", fr.NamedByFile)
	}
	if len(fr.Constant) != 1 || fr.Constant[0] != (features.Constant{Name: "Query_Length_Q", Value: 2}) {
		t.Errorf("constant %v, want Query_Length_Q = 2", fr.Constant)
	}
}
