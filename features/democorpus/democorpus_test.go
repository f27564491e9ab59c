package democorpus

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
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

// The materialised directory resolves the vocabularies' prefixed names
// (foaf:Person, as in the README's explain line), which the vocabulary
// files alone do not declare; and prefixes.ttl changes no feature value:
// the directory and the vocabulary files give the same table, in both
// semantics.
func TestMaterializedPrefixes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := Materialize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PrefixFile)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, sem := range []features.Semantics{features.SemanticsReference, features.SemanticsPaper} {
		withDir, err := features.Load(ctx, []string{dir}, features.LoadOptions{Semantics: sem})
		if err != nil {
			t.Fatal(err)
		}
		vocabs, err := features.Load(ctx, paths, features.LoadOptions{Semantics: sem})
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{
			"foaf:Person":       "http://xmlns.com/foaf/0.1/Person",
			"schema:Person":     "http://schema.org/Person",
			"dcterms:title":     "http://purl.org/dc/terms/title",
			"skos:Concept":      "http://www.w3.org/2004/02/skos/core#Concept",
			"gr:BusinessEntity": "http://purl.org/goodrelations/v1#BusinessEntity",
			"vcard:Individual":  "http://www.w3.org/2006/vcard/ns#Individual",
			"dce:creator":       "http://purl.org/dc/elements/1.1/creator",
			"prov:Entity":       "http://www.w3.org/ns/prov#Entity",
			"time:Instant":      "http://www.w3.org/2006/time#Instant",
			"org:Organization":  "http://www.w3.org/ns/org#Organization",
			"gsp:Feature":       "http://www.opengis.net/ont/geosparql#Feature",
			"dctype:Dataset":    "http://purl.org/dc/dcmitype/Dataset",
		} {
			if got, ok := withDir.Resolve(name); !ok || got != want {
				t.Errorf("%s: directory resolves %s to %q (%v), want %s", sem, name, got, ok, want)
			}
		}
		if _, ok := vocabs.Resolve("foaf:Person"); ok {
			t.Errorf("%s: the vocabulary files alone resolve foaf:Person; prefixes.ttl is not needed", sem)
		}
		var pairs []features.Pair
		for i, term := range vocabs.Terms() {
			if i%7 == 0 {
				for _, q := range []string{"person", "name of organization", "date", "address"} {
					pairs = append(pairs, features.Pair{Query: q, Term: term, Line: len(pairs) + 2})
				}
			}
		}
		var a, b bytes.Buffer
		for _, x := range []struct {
			c   *features.Corpus
			out *bytes.Buffer
		}{{withDir, &a}, {vocabs, &b}} {
			tab, _, err := x.c.Extract(ctx, pairs, features.ExtractOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tab.WriteCSV(x.out); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: the features of %d pairs differ between the directory and the vocabulary files", sem, len(pairs))
		}
	}
}
