package pipeline

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
