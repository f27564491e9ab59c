package democorpus

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedCorpus(t *testing.T) {
	names := Names()
	if len(names) < 15 {
		t.Fatalf("embedded %d vocabularies, want at least 15", len(names))
	}
	var total int64
	for _, want := range []string{"foaf", "schema", "dcterms", "dcmitype", "vcard", "org", "prov", "locn", "gr", "skos", "time"} {
		found := false
		for _, n := range names {
			if n == want+".nq.gz" {
				found = true
			}
		}
		if !found {
			t.Errorf("vocabulary %s missing from the embedded corpus", want)
		}
	}
	for _, n := range names {
		b, err := fs.ReadFile(FS(), n)
		if err != nil {
			t.Fatal(err)
		}
		total += int64(len(b))
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if !bytes.Contains(text, []byte("> .\n")) {
			t.Errorf("%s does not look like N-Quads", n)
		}
		if !strings.Contains(Notice(), n) {
			t.Errorf("NOTICE does not name %s", n)
		}
	}
	if total > 3<<20 {
		t.Errorf("embedded corpus is %d bytes compressed, limit 3 MiB", total)
	}
}

func TestMaterialize(t *testing.T) {
	dir := t.TempDir()
	paths, err := Materialize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(Names()) {
		t.Fatalf("materialised %d files, want %d", len(paths), len(Names()))
	}
	for _, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := fs.ReadFile(FS(), filepath.Base(p))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the embedded file", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "NOTICE")); err != nil {
		t.Errorf("NOTICE not written: %v", err)
	}
}
