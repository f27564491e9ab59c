// Package democorpus embeds the default vocabulary corpus of lovbench: 16
// vocabularies (foaf, schema.org, DCMI terms, types and elements, vcard, org,
// prov, locn, GoodRelations, skos, OWL-Time, dcat, sioc, geo, doap) as
// gzipped N-Quads, one named graph per vocabulary, the LOV dump format of
// docs/method.md section 6. The demo (`lovbench demo`) simulates its search log over
// this corpus, so the binary needs no data files. Sources and licences are in
// the NOTICE file beside this source, which is embedded too. PrefixFile,
// prefixes.ttl, declares the vocabularies' prefixes as LOV names them
// (foaf, schema, dcterms, ...) and nothing else; Materialize writes it
// beside the vocabularies so that a corpus directory resolves prefixed
// names, and returns only the vocabularies' paths, the demo's corpus.
package democorpus

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

//go:embed data/*.nq.gz NOTICE prefixes.ttl
var files embed.FS

// PrefixFile is the name of the prefix declarations Materialize writes.
const PrefixFile = "prefixes.ttl"

// FS returns the corpus as a read-only file system whose root holds the
// *.nq.gz files and NOTICE.
func FS() fs.FS { return rootFS{} }

// rootFS exposes data/*.nq.gz and NOTICE at one root.
type rootFS struct{}

func (rootFS) Open(name string) (fs.File, error) {
	switch {
	case !fs.ValidPath(name):
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	case name == "NOTICE":
		return files.Open("NOTICE")
	case name == ".":
		return files.Open("data")
	}
	return files.Open("data/" + name)
}

// Names returns the file names of the embedded vocabularies (e.g.
// "foaf.nq.gz"), sorted.
func Names() []string {
	ents, err := files.ReadDir("data")
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Notice returns the text of the NOTICE file (sources and licences).
func Notice() string {
	b, err := files.ReadFile("NOTICE")
	if err != nil {
		return ""
	}
	return string(b)
}

// Materialize writes the embedded vocabularies, NOTICE and PrefixFile into
// dir (created if missing) and returns the paths of the vocabulary files,
// sorted (not PrefixFile's: it declares prefixes only, and the features of
// the directory equal those of the vocabulary files). Files are written
// atomically; existing identical files are rewritten harmlessly.
func Materialize(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("democorpus: %w", err)
	}
	var paths []string
	for _, name := range Names() {
		b, err := files.ReadFile("data/" + name)
		if err != nil {
			return nil, fmt.Errorf("democorpus: read embedded %s: %w", name, err)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.WriteBytes(p, b); err != nil {
			return nil, fmt.Errorf("democorpus: write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "NOTICE"), []byte(Notice())); err != nil {
		return nil, fmt.Errorf("democorpus: write NOTICE: %w", err)
	}
	b, err := files.ReadFile(PrefixFile)
	if err != nil {
		return nil, fmt.Errorf("democorpus: read embedded %s: %w", PrefixFile, err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, PrefixFile), b); err != nil {
		return nil, fmt.Errorf("democorpus: write %s: %w", PrefixFile, err)
	}
	return paths, nil
}
