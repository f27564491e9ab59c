package rdf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// roundTrip serialises quads with Quad.String and parses them back as
// N-Quads; the result must be identical (labels included).
func roundTrip(t *testing.T, qs []Quad) {
	t.Helper()
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(q.String())
		b.WriteByte('\n')
	}
	back, _, err := collect(t, nq(b.String()))
	if err != nil {
		t.Fatalf("re-serialisation does not parse: %v\n%s", err, b.String())
	}
	if len(qs) == 0 && len(back) == 0 {
		return
	}
	if !reflect.DeepEqual(back, qs) {
		t.Fatalf("round trip differs:\n%v\n%v", qs, back)
	}
}

func checkParseResult(t *testing.T, qs []Quad, st Stats, err error) {
	t.Helper()
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("non-syntax error %v", err)
		}
		if se.Line < 1 || se.Col < 1 {
			t.Fatalf("bad position %v", se)
		}
		return
	}
	if st.Statements != len(qs) {
		t.Fatalf("Statements %d, delivered %d", st.Statements, len(qs))
	}
	roundTrip(t, qs)
}

func FuzzNQuads(f *testing.F) {
	for _, s := range []string{
		"<http://e/s> <http://e/p> <http://e/o> <http://e/g> .\n",
		"_:a <http://e/p> \"x\\n\\u00E9\"@en-US .\r\n# c\n",
		"<http://e/s> <http://e/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> _:g .",
		"<http://e/\\u0073> <http://e/p> _:o.\r<http://e/s> <http://e/p> \"\" .",
		"<http://e/ s> <p> \"unterminated",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		qs, st, err := collect(t, nq(src))
		checkParseResult(t, qs, st, err)
		// Lenient mode never fails on syntax and accounts for every error.
		var n int
		lst, lerr := ParseNQuads(strings.NewReader(src), "f.nq", Options{Lenient: true}, func(Quad) error { n++; return nil })
		if lerr != nil || lst.Statements != n || len(lst.Errors) > MaxErrors || len(lst.Errors) > lst.Skipped {
			t.Fatalf("lenient: %v %+v", lerr, lst)
		}
		if err == nil && (lst.Skipped != 0 || n != len(qs)) {
			t.Fatalf("lenient disagrees with strict: %+v", lst)
		}
	})
}

func FuzzTurtle(f *testing.F) {
	for _, s := range []string{
		"@prefix p: <http://e/> . p:s a p:C ; p:q ( 1 2.5 -3e4 ) , [ p:r 'x'@en ] .",
		"BASE <http://e/b/> PREFIX : <#> <../s> :p \"\"\"long\n\"quoted\"\"\"\"^^:dt .",
		"_:b1 <p> _:a . [] <p> true, false .",
		"@prefix p: <http://e/> . p:a\\~b p:c%20d p:e.f .",
		"<s> <p> \"bad\\q\" .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var qs []Quad
		st, err := ParseTurtle(strings.NewReader(src), "f.ttl", Options{Base: "http://example.org/base/"}, func(q Quad) error {
			qs = append(qs, q)
			return nil
		})
		checkParseResult(t, qs, st, err)
		var n int
		lst, lerr := ParseTurtle(strings.NewReader(src), "f.ttl", Options{Lenient: true, Base: "http://example.org/base/"}, func(Quad) error { n++; return nil })
		if lerr != nil || lst.Statements != n || len(lst.Errors) > MaxErrors || len(lst.Errors) > lst.Skipped {
			t.Fatalf("lenient: %v %+v", lerr, lst)
		}
		if err == nil && (lst.Skipped != 0 || n != len(qs)) {
			t.Fatalf("lenient disagrees with strict: %+v", lst)
		}
	})
}
