package rdf

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

// countStatementLines counts the non-blank, non-comment lines of a gzipped
// N-Quads file: an independent count of its statements (one per line).
func countStatementLines(t testing.TB, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// Every vocabulary of the shared corpus parses strictly, with one statement
// per non-comment line, and keeps its triples in a named graph; every quad
// of the corpus, written back with Quad.String, parses to the identical
// quad.
func TestSharedVocabulariesParseStrict(t *testing.T) {
	dir := refdata.Path(t, "vocabularies")
	files, err := filepath.Glob(filepath.Join(dir, "*.nq.gz"))
	if err != nil {
		t.Fatal(err)
	}
	vocabularies := 0
	total, totalLines := 0, 0
	for _, f := range files {
		named, unnamed := 0, 0
		st, err := LoadPath(context.Background(), f, Options{}, func(q Quad) error {
			if q.G.IsDefaultGraph() {
				unnamed++
			} else {
				named++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if st.Skipped != 0 || st.Statements == 0 {
			t.Fatalf("%s: %+v", f, st)
		}
		lines := countStatementLines(t, f)
		if st.Statements != lines {
			t.Errorf("%s: %d statements, %d statement lines", filepath.Base(f), st.Statements, lines)
		}
		total += st.Statements
		totalLines += lines
		if filepath.Base(f) == "_index.nq.gz" {
			continue // the prefix index lives in the default graph
		}
		vocabularies++
		if named == 0 || unnamed != 0 {
			t.Errorf("%s: %d quads in named graphs, %d in the default graph", filepath.Base(f), named, unnamed)
		}
	}
	if vocabularies != 83 {
		t.Errorf("%d vocabulary files, docs/method.md section 6 says 83", vocabularies)
	}
	// The whole directory through LoadPath gives the same total, and every
	// quad, written back with Quad.String, parses to the identical quad.
	// (The round trip rides on this pass, which reads the corpus anyway:
	// a test of its own read it once more, about 0.6 CPU-s.)
	var buf strings.Builder
	var orig []Quad
	flush := func() {
		i := 0
		_, err := ParseNQuads(strings.NewReader(buf.String()), "roundtrip.nq", Options{}, func(q Quad) error {
			if q != orig[i] {
				t.Fatalf("round trip: %v became %v", orig[i], q)
			}
			i++
			return nil
		})
		if err != nil || i != len(orig) {
			t.Fatalf("round trip: %v after %d of %d", err, i, len(orig))
		}
		buf.Reset()
		orig = orig[:0]
	}
	st, err := LoadPath(context.Background(), dir, Options{}, func(q Quad) error {
		orig = append(orig, q)
		buf.WriteString(q.String())
		buf.WriteByte('\n')
		if len(orig) == 10000 {
			flush()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	flush()
	if st.Statements != total || total != totalLines {
		t.Fatalf("directory: %d statements, per file sum %d, lines %d", st.Statements, total, totalLines)
	}
	t.Logf("%d files, %d statements", len(files), total)
}

// A Turtle document and its hand-written N-Triples equivalent (with blank
// nodes, a nested property list and a collection) give isomorphic graphs.
func TestTurtleMatchesNTriples(t *testing.T) {
	const turtle = `@prefix ex: <http://example.org/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@base <http://example.org/> .

ex:Person a rdfs:Class ;
    rdfs:label "Person"@en, "Personne"@fr ;
    rdfs:comment """A human
being.""" ;
    ex:members ( ex:alice ex:bob ) ;
    ex:address [ ex:city "Paris" ; ex:zip "75001"^^xsd:string ] .
<people/alice> ex:age 42 ; ex:knows _:someone .
_:someone ex:height 1.80 ; ex:ok true .
`
	const ntriples = `<http://example.org/ns#Person> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2000/01/rdf-schema#Class> .
<http://example.org/ns#Person> <http://www.w3.org/2000/01/rdf-schema#label> "Person"@en .
<http://example.org/ns#Person> <http://www.w3.org/2000/01/rdf-schema#label> "Personne"@fr .
<http://example.org/ns#Person> <http://www.w3.org/2000/01/rdf-schema#comment> "A human\nbeing." .
<http://example.org/ns#Person> <http://example.org/ns#members> _:l1 .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://example.org/ns#alice> .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://example.org/ns#bob> .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .
<http://example.org/ns#Person> <http://example.org/ns#address> _:addr .
_:addr <http://example.org/ns#city> "Paris" .
_:addr <http://example.org/ns#zip> "75001"^^<http://www.w3.org/2001/XMLSchema#string> .
<http://example.org/people/alice> <http://example.org/ns#age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/people/alice> <http://example.org/ns#knows> _:x .
_:x <http://example.org/ns#height> "1.80"^^<http://www.w3.org/2001/XMLSchema#decimal> .
_:x <http://example.org/ns#ok> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
`
	a, _, err := collect(t, ttl(turtle, ""))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := collect(t, nt(ntriples))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 16 || !isomorphic(a, b) {
		t.Fatalf("turtle:\n%s\nntriples:\n%s", strings.Join(lines(a), "\n"), strings.Join(lines(b), "\n"))
	}
}

func writeGz(t *testing.T, path, content string) {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(content))
	w.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPathDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	// Gzip is detected by magic bytes: b.nq is compressed without ".gz".
	writeGz(t, filepath.Join(dir, "b.nq"), "_:x <http://e/p> <http://e/o> <http://e/g1> .\n")
	os.WriteFile(filepath.Join(dir, "a.nt"), []byte("_:x <http://e/p> <http://e/o> .\n"), 0o644)
	writeGz(t, filepath.Join(dir, "sub", "c.ttl.gz"), "@prefix e: <http://e/> . <rel> e:p e:o .\n")
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not rdf"), 0o644)

	var got []Quad
	st, err := LoadPath(context.Background(), dir, Options{}, func(q Quad) error {
		got = append(got, q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Statements != 3 || len(got) != 3 {
		t.Fatalf("stats %+v", st)
	}
	// Sorted order: a.nt, b.nq, sub/c.ttl.gz. The two _:x are different nodes.
	if got[0].S != NewBlank("f0.x") || got[1].S != NewBlank("f1.x") || got[1].G != NewIRI("http://e/g1") {
		t.Fatalf("blank scoping or order: %v", got[:2])
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "sub", "c.ttl.gz"))
	if want := "file://" + filepath.ToSlash(filepath.Dir(abs)) + "/rel"; got[2].S.Value != want {
		t.Fatalf("turtle base: got %s, want %s", got[2].S.Value, want)
	}
	if st.Prefixes["e"] != "http://e/" {
		t.Fatalf("prefixes %v", st.Prefixes)
	}
}

func TestLoadPathErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.nq")
	os.WriteFile(bad, []byte("<http://e/s> <http://e/p> <http://e/o> .\n<http://e/s> <http://e/p> .\n"), 0o644)
	_, err := LoadPath(context.Background(), bad, Options{}, func(Quad) error { return nil })
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != bad || se.Line != 2 || se.Col != 27 {
		t.Fatalf("got %v", err)
	}
	st, err := LoadPath(context.Background(), bad, Options{Lenient: true}, func(Quad) error { return nil })
	if err != nil || st.Statements != 1 || st.Skipped != 1 {
		t.Fatalf("lenient: %v %+v", err, st)
	}
	other := filepath.Join(dir, "x.rdf")
	os.WriteFile(other, []byte("<rdf/>"), 0o644)
	if _, err := LoadPath(context.Background(), other, Options{}, func(Quad) error { return nil }); err == nil || !strings.Contains(err.Error(), "unknown RDF format") {
		t.Fatalf("unknown format: %v", err)
	}
	if _, err := LoadPath(context.Background(), filepath.Join(dir, "missing.nq"), Options{}, func(Quad) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadPath(ctx, bad, Options{}, func(Quad) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	// A truncated gzip stream is an I/O error naming the file.
	gz := filepath.Join(dir, "t.nq.gz")
	writeGz(t, gz, strings.Repeat("<http://e/s> <http://e/p> <http://e/o> .\n", 1000))
	data, _ := os.ReadFile(gz)
	os.WriteFile(gz, data[:len(data)/2], 0o644)
	if _, err := LoadPath(context.Background(), gz, Options{}, func(Quad) error { return nil }); err == nil || !strings.Contains(err.Error(), gz) {
		t.Fatalf("truncated gzip: %v", err)
	}
}

func TestFormatOf(t *testing.T) {
	for p, want := range map[string]Format{"a.nq": FormatNQuads, "a.NT.gz": FormatNTriples, "dir/a.ttl": FormatTurtle, "a.rdf": FormatUnknown, "nq": FormatUnknown} {
		if got := FormatOf(p); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestScanNamesFilesNotRead: Scan returns the files LoadPath reads and
// every other file of the directory with the reason it is not read (the
// format its extension names, when there is no parser for it).
func TestScanNamesFilesNotRead(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.ttl", "b.owl", "c.n3", "d.jsonld", "e.trig", "f.txt", "g.nt.gz", "h.rdf.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, skipped, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "a.ttl" || filepath.Base(files[1]) != "g.nt.gz" {
		t.Errorf("files %v", files)
	}
	want := map[string]string{"b.owl": "RDF/XML", "c.n3": "Notation3", "d.jsonld": "JSON-LD", "e.trig": "TriG",
		"f.txt": "not an RDF file", "h.rdf.gz": "RDF/XML"}
	if len(skipped) != len(want) {
		t.Errorf("skipped %v", skipped)
	}
	for _, s := range skipped {
		if w := want[filepath.Base(s.Path)]; w == "" || !strings.Contains(s.Reason, w) {
			t.Errorf("%s skipped because %q, want %q", s.Path, s.Reason, w)
		}
	}
	// Given by name, such a file is an error saying the same.
	if _, err := LoadPath(context.Background(), filepath.Join(dir, "b.owl"), Options{}, func(Quad) error { return nil }); err == nil || !strings.Contains(err.Error(), "RDF/XML") {
		t.Errorf("b.owl given by name: %v", err)
	}
}
