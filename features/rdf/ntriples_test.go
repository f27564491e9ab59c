package rdf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Positive cases reconstructed from the RDF 1.1 N-Triples and N-Quads
// grammars (the W3C test suites' nt-syntax-* and nq-syntax-* families). Each
// expected quad is written out as a Term literal.
func TestNTriplesPositive(t *testing.T) {
	ex := func(s string) Term { return NewIRI("http://example/" + s) }
	cases := []struct {
		name string
		src  string
		want []Quad
	}{
		{"empty file", "", nil},
		{"only comment", "# a comment\n", nil},
		{"blank lines and comment", "\n\n  \t\n#c\n", nil},
		{"uri triple", "<http://example/s> <http://example/p> <http://example/o> .\n",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}}},
		{"minimal whitespace", "<http://example/s><http://example/p><http://example/o>.",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}}},
		{"minimal whitespace literal", `<http://example/s><http://example/p>"x"@en.`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("x", "en", "")}}},
		{"tabs and comment after dot", "<http://example/s>\t<http://example/p>\t<http://example/o>\t.\t# done\n",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}}},
		{"blank subject and object", "_:a <http://example/p> _:b1 .",
			[]Quad{{S: NewBlank("a"), P: ex("p"), O: NewBlank("b1")}}},
		{"blank label with dots and dash", "_:a.b-c <http://example/p> _:0x .",
			[]Quad{{S: NewBlank("a.b-c"), P: ex("p"), O: NewBlank("0x")}}},
		{"blank label then dot without space", "_:s <http://example/p> _:o.",
			[]Quad{{S: NewBlank("s"), P: ex("p"), O: NewBlank("o")}}},
		{"plain literal", `<http://example/s> <http://example/p> "hello" .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("hello", "", "")}}},
		{"empty literal", `<http://example/s> <http://example/p> "" .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("", "", "")}}},
		{"lang literal with subtags", `<http://example/s> <http://example/p> "chat"@en-GB-x-1 .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("chat", "en-GB-x-1", "")}}},
		{"typed literal", `<http://example/s> <http://example/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("1", "", XSDInteger)}}},
		// ECHAR ::= '\' [tbnrf"'\] -> TAB, BS, LF, CR, FF, '"', "'", '\'.
		{"all echars", `<http://example/s> <http://example/p> "\t\b\n\r\f\"\'\\" .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("\t\b\n\r\f\"'\\", "", "")}}},
		// \u00E9 is é, \U0001F600 is 😀 (U+1F600).
		{"uchar in literal", `<http://example/s> <http://example/p> "caf\u00E9 \U0001F600" .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("café 😀", "", "")}}},
		{"uchar in IRI", `<http://example/\u0073> <http://example/p> <http://example/\U0000006F> .`,
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}}},
		{"raw unicode", "<http://example/ü> <http://example/p> \"日本語\"@ja .",
			[]Quad{{S: ex("ü"), P: ex("p"), O: NewLiteral("日本語", "ja", "")}}},
		{"CRLF line ends", "<http://example/s> <http://example/p> <http://example/o> .\r\n<http://example/s> <http://example/p> <http://example/o2> .\r\n",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}, {S: ex("s"), P: ex("p"), O: ex("o2")}}},
		{"lone CR line ends", "<http://example/s> <http://example/p> <http://example/o> .\r<http://example/s> <http://example/p> <http://example/o2> .",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}, {S: ex("s"), P: ex("p"), O: ex("o2")}}},
		// literal_ascii_boundaries: raw NUL, TAB, VT, FF, SO, DEL are allowed.
		{"literal ASCII boundaries", "<http://example/s> <http://example/p> \"\x00\t\x0B\x0C\x0E&([]\x7F\" .",
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("\x00\t\x0B\x0C\x0E&([]\x7F", "", "")}}},
		// literal_with_UTF8_boundaries: the first and last code points of each UTF-8 length.
		{"literal UTF-8 boundaries", "<http://example/s> <http://example/p> \"\u0080\u07FF\u0800\u0FFF\u1000\uCFFF\uD000\uD7FF\uE000\uFFFD\U00010000\U0003FFFD\U00040000\U000FFFFD\U00100000\U0010FFFD\" .",
			[]Quad{{S: ex("s"), P: ex("p"), O: NewLiteral("\u0080\u07FF\u0800\u0FFF\u1000\uCFFF\uD000\uD7FF\uE000\uFFFD\U00010000\U0003FFFD\U00040000\U000FFFFD\U00100000\U0010FFFD", "", "")}}},
		{"comment right after dot", "<http://example/s> <http://example/p> <http://example/o> .#c",
			[]Quad{{S: ex("s"), P: ex("p"), O: ex("o")}}},
		{"IRI with allowed punctuation", "<http://example/a?b=c&d#e~f> <http://example/p> <urn:x-y:z> .",
			[]Quad{{S: ex("a?b=c&d#e~f"), P: ex("p"), O: NewIRI("urn:x-y:z")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, parse := range []func(string) func(func(Quad) error) (Stats, error){nt, nq} {
				got, st, err := collect(t, parse(c.src))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("got  %v\nwant %v", got, c.want)
				}
				if st.Statements != len(c.want) || st.Skipped != 0 {
					t.Fatalf("stats %+v", st)
				}
			}
		})
	}
}

func TestNQuadsGraphs(t *testing.T) {
	src := "<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n" +
		"<http://example/s> <http://example/p> \"x\"@en _:g .\n" +
		"<http://example/s> <http://example/p> <http://example/o> .\n"
	got, _, err := collect(t, nq(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Quad{
		{S: NewIRI("http://example/s"), P: NewIRI("http://example/p"), O: NewIRI("http://example/o"), G: NewIRI("http://example/g")},
		{S: NewIRI("http://example/s"), P: NewIRI("http://example/p"), O: NewLiteral("x", "en", ""), G: NewBlank("g")},
		{S: NewIRI("http://example/s"), P: NewIRI("http://example/p"), O: NewIRI("http://example/o")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if !got[2].G.IsDefaultGraph() || got[0].G.IsDefaultGraph() {
		t.Fatal("default graph detection")
	}
}

// Negative syntax cases (nt-syntax-bad-*, nq-syntax-bad-*). Columns are
// 1-based character positions, counted by hand in the comment beside each.
func TestNTriplesNegative(t *testing.T) {
	const s, p = "<http://example/s>", "<http://example/p>" // 18 characters each
	cases := []struct {
		name      string
		quads     bool
		src       string
		line, col int
		msg       string
	}{
		// '<' is character 1, "http://example/" characters 2-16, the space 17.
		{"space in IRI", false, "<http://example/ space> " + p + " <http://example/o> .", 1, 17, "not allowed in IRI"},
		{"lt in IRI", false, "<http://example/a<b> " + p + " <http://example/o> .", 1, 18, "not allowed in IRI"},
		{"brace in IRI", false, "<http://example/{a}> " + p + " <http://example/o> .", 1, 17, "not allowed in IRI"},
		{"unterminated IRI", false, s + " " + p + " <http://example/o", 1, 39, "unterminated IRI"},
		{"relative IRI", false, s + " " + p + " <o> .", 1, 39, "relative IRI"},
		// \u00ZZ: backslash at col 17 of the first IRI, 'Z' at col 21.
		{"bad uchar hex", false, `<http://example/\u00ZZ11> ` + p + " <http://example/o> .", 1, 21, "bad hex digit"},
		{"uchar encodes space", false, `<http://example/\u0020> ` + p + " <http://example/o> .", 1, 17, "not allowed in an IRI"},
		{"surrogate escape", false, s + " " + p + ` "\uD800" .`, 1, 40, "not a Unicode scalar value"},
		{"bad string escape", false, s + " " + p + ` "a\zb" .`, 1, 41, `bad escape`},
		{"unterminated string", false, s + " " + p + ` "abc .`, 1, 39, "unterminated string"},
		{"string across lines", false, s + " " + p + " \"abc\n\" .", 1, 39, "unterminated string"},
		// "x"@1: '@' at col 42.
		{"lang tag starts with digit", false, s + " " + p + ` "x"@1 .`, 1, 42, "bad language tag"},
		{"lang tag trailing dash", false, s + " " + p + ` "x"@en- .`, 1, 45, "bad language tag"},
		{"single caret", false, s + " " + p + ` "x"^<http://example/dt> .`, 1, 42, "'^^'"},
		{"missing dot", false, s + " " + p + " <http://example/o>", 1, 57, "expected '.'"},
		{"missing dot then second line", false, "\n" + s + " " + p + " <http://example/o> <http://example/o2> .", 2, 58, "fourth term"},
		{"literal subject", false, `"s" ` + p + " <http://example/o> .", 1, 1, "literal cannot be the subject"},
		{"literal predicate", false, s + ` "p" <http://example/o> .`, 1, 20, "expected predicate IRI"},
		{"blank predicate", false, s + " _:p <http://example/o> .", 1, 20, "expected predicate IRI"},
		{"garbage after dot", false, s + " " + p + " <http://example/o> . x", 1, 60, "after '.'"},
		{"bad blank label", false, "_:-a " + p + " <http://example/o> .", 1, 3, "bad blank node label"},
		{"turtle prefixed name", false, "ex:s " + p + " <http://example/o> .", 1, 1, "expected subject"},
		{"turtle numeric object", false, s + " " + p + " 1 .", 1, 39, "expected object"},
		{"turtle long string", false, s + " " + p + ` """x""" .`, 1, 41, "expected '.'"},
		{"nq literal graph", true, s + " " + p + ` <http://example/o> "g" .`, 1, 58, "expected '.'"},
		{"nq five terms", true, s + " " + p + " <http://example/o> <http://example/g> <http://example/h> .", 1, 77, "expected '.'"},
		{"invalid utf8 in literal", false, s + " " + p + " \"a\xffb\" .", 1, 41, "invalid UTF-8"},
		{"turtle @prefix", false, "@prefix : <http://example/> .", 1, 1, "expected subject"},
		{"turtle @base", false, "@base <http://example/> .", 1, 1, "expected subject"},
		{"turtle object list", false, s + " " + p + " <http://example/o>, <http://example/o2> .", 1, 57, "expected '.'"},
		{"turtle predicate list", false, s + " " + p + " <http://example/o>; " + p + " <http://example/o2> .", 1, 57, "expected '.'"},
		{"escape \\a", false, s + " " + p + ` "\a" .`, 1, 40, "bad escape"},
		{"nq graph IRI with space", true, s + " " + p + " <http://example/o> <http://example/g h> .", 1, 75, "not allowed in IRI"},
		{"error on third line", false, "# c\n" + s + " " + p + " <http://example/o> .\n" + s + " " + p + " <http://example/o> ;", 3, 58, "expected '.'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.quads {
				_, _, err = collect(t, nq(c.src))
				wantPos(t, err, "test.nq", c.line, c.col, c.msg)
			} else {
				_, _, err = collect(t, nt(c.src))
				wantPos(t, err, "test.nt", c.line, c.col, c.msg)
			}
		})
	}
}

func TestNTriplesColumnCountsCharacters(t *testing.T) {
	// "ü" is two bytes but one character: the bad space is character 18.
	_, _, err := collect(t, nt("<http://example/ü x> <http://example/p> <http://example/o> ."))
	wantPos(t, err, "test.nt", 1, 18, "not allowed in IRI")
}

func TestNTriplesBaseResolvesRelative(t *testing.T) {
	var got []Quad
	_, err := ParseNTriples(strings.NewReader("<s> <p> <../o> ."), "x.nt", Options{Base: "http://example/a/b"}, func(q Quad) error {
		got = append(got, q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Quad{S: NewIRI("http://example/a/s"), P: NewIRI("http://example/a/p"), O: NewIRI("http://example/o")}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %v", got)
	}
}

func TestNQuadsLenient(t *testing.T) {
	src := "<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n" +
		"<http://example/s> <http://example/p> \"bad\\q\" .\n" +
		"<http://example/s> <http://example/p> <http://example/o2> .\n" +
		"garbage\n" +
		"<http://example/s> <http://example/p> <http://example/o3> .\n"
	var got []Quad
	st, err := ParseNQuads(strings.NewReader(src), "l.nq", Options{Lenient: true}, func(q Quad) error {
		got = append(got, q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Statements != 3 || len(got) != 3 || st.Skipped != 2 || len(st.Errors) != 2 {
		t.Fatalf("stats %+v, %d quads", st, len(got))
	}
	// Line 2: the backslash is at col 43 (s=18, space, p=18, space, quote, b, a, d).
	if e := st.Errors[0]; e.Line != 2 || e.Col != 43 || e.File != "l.nq" {
		t.Fatalf("first error %v", e.Error())
	}
	if e := st.Errors[1]; e.Line != 4 || e.Col != 1 {
		t.Fatalf("second error %v", e.Error())
	}
	if got[2].O.Value != "http://example/o3" {
		t.Fatalf("last quad %v", got[2])
	}
}

func TestLenientErrorCap(t *testing.T) {
	src := strings.Repeat("bad line\n", MaxErrors+50) + "<http://example/s> <http://example/p> <http://example/o> .\n"
	st, err := ParseNTriples(strings.NewReader(src), "cap.nt", Options{Lenient: true}, func(Quad) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != MaxErrors+50 || len(st.Errors) != MaxErrors || st.Statements != 1 {
		t.Fatalf("skipped %d errors %d statements %d", st.Skipped, len(st.Errors), st.Statements)
	}
	if st.Errors[MaxErrors-1].Line != MaxErrors {
		t.Fatalf("last kept error at line %d", st.Errors[MaxErrors-1].Line)
	}
}

func TestCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	src := strings.Repeat("<http://example/s> <http://example/p> <http://example/o> .\n", 5)
	st, err := ParseNTriples(strings.NewReader(src), "x.nt", Options{}, func(Quad) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 || st.Statements != 1 {
		t.Fatalf("err %v n %d stats %+v", err, n, st)
	}
}

func TestLongLine(t *testing.T) {
	// A literal longer than the 64 KiB read buffer.
	long := strings.Repeat("abcdefgh", 20000)
	src := "<http://example/s> <http://example/p> \"" + long + "\" .\n<http://example/s> <http://example/p> \"x\" ."
	got, _, err := collect(t, nt(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].O.Value != long || got[1].O.Value != "x" {
		t.Fatalf("got %d quads", len(got))
	}
}

func TestTermString(t *testing.T) {
	cases := []struct {
		t    Term
		want string
	}{
		{NewIRI("http://example/s"), "<http://example/s>"},
		{NewIRI("http://example/a b"), `<http://example/a\u0020b>`},
		{NewBlank("x1"), "_:x1"},
		{NewLiteral("a\"b\\c\nd\re", "", ""), `"a\"b\\c\nd\re"`},
		{NewLiteral("chat", "fr", ""), `"chat"@fr`},
		{NewLiteral("1", "", XSDInteger), `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`},
	}
	for _, c := range cases {
		if got := c.t.String(); got != c.want {
			t.Errorf("%#v.String() = %s, want %s", c.t, got, c.want)
		}
	}
	q := Quad{S: NewIRI("http://e/s"), P: NewIRI("http://e/p"), O: NewBlank("o"), G: NewIRI("http://e/g")}
	if got := q.String(); got != "<http://e/s> <http://e/p> _:o <http://e/g> ." {
		t.Errorf("quad string %s", got)
	}
	q.G = Term{}
	if got := q.String(); got != "<http://e/s> <http://e/p> _:o ." {
		t.Errorf("triple string %s", got)
	}
}
