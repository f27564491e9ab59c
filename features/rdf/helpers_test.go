package rdf

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// collect parses with parse and returns the quads.
func collect(t testing.TB, parse func(fn func(Quad) error) (Stats, error)) ([]Quad, Stats, error) {
	t.Helper()
	var qs []Quad
	st, err := parse(func(q Quad) error { qs = append(qs, q); return nil })
	return qs, st, err
}

func nq(src string) func(fn func(Quad) error) (Stats, error) {
	return func(fn func(Quad) error) (Stats, error) {
		return ParseNQuads(strings.NewReader(src), "test.nq", Options{}, fn)
	}
}

func nt(src string) func(fn func(Quad) error) (Stats, error) {
	return func(fn func(Quad) error) (Stats, error) {
		return ParseNTriples(strings.NewReader(src), "test.nt", Options{}, fn)
	}
}

func ttl(src, base string) func(fn func(Quad) error) (Stats, error) {
	return func(fn func(Quad) error) (Stats, error) {
		return ParseTurtle(strings.NewReader(src), "test.ttl", Options{Base: base}, fn)
	}
}

// lines renders quads as sorted N-Quads lines.
func lines(qs []Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.String()
	}
	sort.Strings(out)
	return out
}

// wantPos asserts that err is a *SyntaxError at file:line:col whose message
// contains msg.
func wantPos(t *testing.T, err error, file string, line, col int, msg string) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want SyntaxError at %d:%d, got %v", line, col, err)
	}
	if se.File != file || se.Line != line || se.Col != col || !strings.Contains(se.Msg, msg) {
		t.Fatalf("got %q, want %s:%d:%d containing %q", se.Error(), file, line, col, msg)
	}
}

// isomorphic reports whether two quad sets are equal up to a bijective
// renaming of blank nodes (RDF 1.1 Concepts 3.6, graph isomorphism), by
// backtracking over candidate mappings. Only for small test graphs.
func isomorphic(a, b []Quad) bool {
	if len(a) != len(b) {
		return false
	}
	blanks := func(qs []Quad) []string {
		seen := map[string]bool{}
		var out []string
		for _, q := range qs {
			for _, t := range []Term{q.S, q.O, q.G} {
				if t.Kind == Blank && !seen[t.Value] {
					seen[t.Value] = true
					out = append(out, t.Value)
				}
			}
		}
		return out
	}
	ba, bb := blanks(a), blanks(b)
	if len(ba) != len(bb) {
		return false
	}
	want := map[string]int{}
	for _, q := range b {
		want[q.String()]++
	}
	m := map[string]string{}
	used := map[string]bool{}
	apply := func(t Term) Term {
		if t.Kind == Blank {
			t.Value = m[t.Value]
		}
		return t
	}
	check := func() bool {
		got := map[string]int{}
		for _, q := range a {
			q.S, q.O, q.G = apply(q.S), apply(q.O), apply(q.G)
			got[q.String()]++
		}
		return fmt.Sprint(got) == fmt.Sprint(want)
	}
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(ba) {
			return check()
		}
		for _, c := range bb {
			if used[c] {
				continue
			}
			m[ba[i]], used[c] = c, true
			if try(i + 1) {
				return true
			}
			used[c] = false
		}
		delete(m, ba[i])
		return false
	}
	return try(0)
}
