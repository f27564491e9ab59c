package rdf

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// Format is an RDF serialisation that LoadPath reads.
type Format uint8

// The formats LoadPath recognises by file extension.
const (
	FormatUnknown  Format = iota
	FormatNQuads          // .nq
	FormatNTriples        // .nt
	FormatTurtle          // .ttl
)

// FormatOf returns the format named by path's extension, ignoring a
// trailing ".gz": .nq, .nt or .ttl.
func FormatOf(path string) Format {
	p := strings.ToLower(path)
	p = strings.TrimSuffix(p, ".gz")
	switch filepath.Ext(p) {
	case ".nq":
		return FormatNQuads
	case ".nt":
		return FormatNTriples
	case ".ttl":
		return FormatTurtle
	}
	return FormatUnknown
}

// Parse parses r in format f; see ParseNQuads, ParseNTriples, ParseTurtle.
func Parse(f Format, r io.Reader, name string, opts Options, fn func(Quad) error) (Stats, error) {
	switch f {
	case FormatNQuads:
		return ParseNQuads(r, name, opts, fn)
	case FormatNTriples:
		return ParseNTriples(r, name, opts, fn)
	case FormatTurtle:
		return ParseTurtle(r, name, opts, fn)
	}
	return Stats{}, fmt.Errorf("%s: unknown RDF format: %s", name, Unsupported(name))
}

// Unsupported says why a file whose FormatOf is FormatUnknown is not read:
// the format its extension names, if it is an RDF format this package has
// no parser for, and the formats it reads.
func Unsupported(path string) string {
	const want = "want .nq, .nt or .ttl, optionally .gz; convert other formats, e.g. with rapper or riot"
	p := strings.TrimSuffix(strings.ToLower(path), ".gz")
	switch filepath.Ext(p) {
	case ".owl", ".rdf", ".xml", ".rdfs", ".owx":
		return "RDF/XML or OWL/XML is not read (" + want + ")"
	case ".n3":
		return "Notation3 is not read (" + want + ")"
	case ".trig":
		return "TriG is not read (" + want + ")"
	case ".jsonld", ".json":
		return "JSON-LD is not read (" + want + ")"
	case ".trix", ".nquads", ".ntriples", ".turtle", ".omn", ".ofn":
		return "this RDF format or extension is not read (" + want + ")"
	}
	return "not an RDF file this reader parses (" + want + ")"
}

// SkippedFile is a file under a directory that Scan leaves out, with the
// reason (Unsupported).
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Files returns the files LoadPath would read for path, in order: path
// itself if it is a file, else every .nq, .nt and .ttl file (optionally
// ending in .gz) under the directory, recursively, in sorted path order.
// Scan also returns the files it leaves out.
func Files(path string) ([]string, error) {
	files, _, err := Scan(path)
	return files, err
}

// Scan returns what Files returns and, for a directory, every other file
// under it (skipped, with Unsupported's reason), in sorted path order, so
// that a caller can name each file it does not read.
func Scan(path string) (files []string, skipped []SkippedFile, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
		case FormatOf(p) != FormatUnknown:
			files = append(files, p)
		default:
			skipped = append(skipped, SkippedFile{Path: p, Reason: Unsupported(p)})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return files, skipped, nil
}

// LoadPath parses a file, or every .nq/.nt/.ttl file (each optionally
// gzip-compressed, which is detected by the gzip magic bytes, not the name)
// under a directory in sorted path order, and calls fn for each quad.
//
// Blank node labels are scoped per file: LoadPath prefixes every label with
// "f<k>." where k is the file's 0-based index in the list of files, so that
// _:b0 in two files are two nodes. When opts.Base is empty, each Turtle
// file's base IRI is its file:// URI (N-Triples and N-Quads files must then
// use absolute IRIs). The returned Stats sum over the files.
// ctx is checked between files and every 4096 statements.
func LoadPath(ctx context.Context, path string, opts Options, fn func(Quad) error) (Stats, error) {
	var total Stats
	files, err := Files(path)
	if err != nil {
		return total, err
	}
	for k, f := range files {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		st, err := loadFile(ctx, f, k, opts, fn)
		total.merge(st)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func loadFile(ctx context.Context, path string, k int, opts Options, fn func(Quad) error) (Stats, error) {
	format := FormatOf(path)
	if format == FormatUnknown {
		return Stats{}, fmt.Errorf("%s: unknown RDF format: %s", path, Unsupported(path))
	}
	r, err := textio.Open(path) // plain or gzip, by magic bytes; no BOM
	if err != nil {
		return Stats{}, err
	}
	defer r.Close()
	if opts.Base == "" && format == FormatTurtle {
		if abs, err := filepath.Abs(path); err == nil {
			opts.Base = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		}
	}
	scope := "f" + strconv.Itoa(k) + "."
	n := 0
	wrapped := func(q Quad) error {
		n++
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		scopeBlank(&q.S, scope)
		scopeBlank(&q.O, scope)
		scopeBlank(&q.G, scope)
		return fn(q)
	}
	st, err := Parse(format, r, path, opts, wrapped)
	if err != nil {
		return st, err
	}
	return st, nil
}

func scopeBlank(t *Term, scope string) {
	if t.Kind == Blank {
		t.Value = scope + t.Value
	}
}
