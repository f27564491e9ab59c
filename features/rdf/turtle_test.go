package rdf

import (
	"reflect"
	"strings"
	"testing"
)

// Positive Turtle cases reconstructed from the RDF 1.1 Turtle grammar and
// the W3C Turtle test suite families (IRI_*, prefixed_*, sparql_*, bnode_*,
// collection_*, LITERAL_*, numeric_*, ...). The expected triples are written
// out in N-Triples and compared up to blank node renaming.
func TestTurtlePositive(t *testing.T) {
	const x = "http://www.w3.org/2001/XMLSchema#"
	cases := []struct {
		name string
		src  string
		want string // N-Triples
	}{
		{"empty", "", ""},
		{"comment only", "# nothing\n  ", ""},
		{"IRI triple", "<http://a.example/s> <http://a.example/p> <http://a.example/o> .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"IRI with four digit escape", `<http://a.example/\u0073> <http://a.example/p> <http://a.example/o> .`,
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"IRI with eight digit escape", `<http://a.example/\U00000073> <http://a.example/p> <http://a.example/o> .`,
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"prefixed names", "@prefix p: <http://a.example/> .\np:s p:p p:o .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"empty prefix", "@prefix : <http://a.example/> .\n:s :p :o .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"prefix only name", "@prefix p: <http://a.example/s> .\np: <http://a.example/p> <http://a.example/o> .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"prefix with dot in middle", "@prefix e.g: <http://a.example/> .\ne.g:s e.g:p e.g:o .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"local name escapes", `@prefix p: <http://a.example/> . p:s p:p p:\~\.\-\!\$\&\'\(\)\*\+\,\;\=\/\?\#\@\_\%AA .`,
			"<http://a.example/s> <http://a.example/p> <http://a.example/~.-!$&'()*+,;=/?#@_%AA> ."},
		{"local name with percent", "@prefix p: <http://a.example/> . p:s p:p p:a%20b .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/a%20b> ."},
		{"local name with dot, colon, leading digit", "@prefix p: <http://a.example/> . p:a.b p:0 p:c:d .",
			"<http://a.example/a.b> <http://a.example/0> <http://a.example/c:d> ."},
		{"local name trailing dot ends statement", "@prefix p: <http://a.example/> . p:s p:p p:o.",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"sparql PREFIX and BASE, any case", "PREFIX p: <http://a.example/>\nbase <http://b.example/>\np:s <p> p:o .",
			"<http://a.example/s> <http://b.example/p> <http://a.example/o> ."},
		{"@base relative", "@base <http://a.example/dir/file> .\n<s> <#p> <../o> .",
			"<http://a.example/dir/s> <http://a.example/dir/file#p> <http://a.example/o> ."},
		{"@base itself relative", "@base <http://a.example/x/> . @base <y/> . <s> <p> <> .",
			"<http://a.example/x/y/s> <http://a.example/x/y/p> <http://a.example/x/y/> ."},
		{"prefix namespace relative to base", "@base <http://a.example/> . @prefix p: <ns#> . p:s p:p p:o .",
			"<http://a.example/ns#s> <http://a.example/ns#p> <http://a.example/ns#o> ."},
		{"a keyword", "<http://a.example/s> a <http://a.example/C> .",
			"<http://a.example/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://a.example/C> ."},
		{"predicate object list with trailing semicolons", "<http://a.example/s> <http://a.example/p1> <http://a.example/o1> ;; <http://a.example/p2> <http://a.example/o2> ; .",
			"<http://a.example/s> <http://a.example/p1> <http://a.example/o1> .\n<http://a.example/s> <http://a.example/p2> <http://a.example/o2> ."},
		{"object list", "<http://a.example/s> <http://a.example/p> <http://a.example/o1>, <http://a.example/o2> , <http://a.example/o3>.",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o1> .\n<http://a.example/s> <http://a.example/p> <http://a.example/o2> .\n<http://a.example/s> <http://a.example/p> <http://a.example/o3> ."},
		{"labelled blank nodes", "_:a <http://a.example/p> _:b . _:b <http://a.example/p> _:a .",
			"_:x <http://a.example/p> _:y .\n_:y <http://a.example/p> _:x ."},
		{"anon subject", "[] <http://a.example/p> <http://a.example/o> .",
			"_:x <http://a.example/p> <http://a.example/o> ."},
		{"anon with whitespace as object", "<http://a.example/s> <http://a.example/p> [ \n ] .",
			"<http://a.example/s> <http://a.example/p> _:x ."},
		{"blank node property list alone", "[ <http://a.example/p> <http://a.example/o> ] .",
			"_:x <http://a.example/p> <http://a.example/o> ."},
		{"blank node property list subject with more", "[ <http://a.example/p> <http://a.example/o> ] <http://a.example/q> <http://a.example/r> .",
			"_:x <http://a.example/p> <http://a.example/o> .\n_:x <http://a.example/q> <http://a.example/r> ."},
		{"nested blank node property lists", "<http://a.example/s> <http://a.example/p> [ <http://a.example/q> [ <http://a.example/r> <http://a.example/o> ] ] .",
			"<http://a.example/s> <http://a.example/p> _:x .\n_:x <http://a.example/q> _:y .\n_:y <http://a.example/r> <http://a.example/o> ."},
		{"empty collection", "<http://a.example/s> <http://a.example/p> () .",
			"<http://a.example/s> <http://a.example/p> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> ."},
		{"collection object", "<http://a.example/s> <http://a.example/p> (<http://a.example/a> \"b\") .",
			"<http://a.example/s> <http://a.example/p> _:l1 .\n" +
				"_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://a.example/a> .\n" +
				"_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .\n" +
				"_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"b\" .\n" +
				"_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> ."},
		{"collection subject, nested", "(1 ()) <http://a.example/p> <http://a.example/o> .",
			"_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"1\"^^<" + x + "integer> .\n" +
				"_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .\n" +
				"_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n" +
				"_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n" +
				"_:l1 <http://a.example/p> <http://a.example/o> ."},
		{"four string forms", `<http://a.example/s> <http://a.example/p> "a", 'b', """c
"d""e""", '''f'g''h''' .`,
			"<http://a.example/s> <http://a.example/p> \"a\" .\n<http://a.example/s> <http://a.example/p> \"b\" .\n" +
				"<http://a.example/s> <http://a.example/p> \"c\\n\\\"d\\\"\\\"e\" .\n<http://a.example/s> <http://a.example/p> \"f'g''h\" ."},
		{"empty strings", `<http://a.example/s> <http://a.example/p> "", '', """""", '''''' .`,
			"<http://a.example/s> <http://a.example/p> \"\" ."}, // four times the same triple
		{"escapes in strings", `<http://a.example/s> <http://a.example/p> '\t\b\n\r\f\"\'\\\u00E9\U0001F600' .`,
			"<http://a.example/s> <http://a.example/p> \"\t\b\\n\\r\f\\\"'\\\\é😀\" ."},
		{"lang and datatype", "@prefix xsd: <" + x + "> . <http://a.example/s> <http://a.example/p> \"x\"@en-US, \"y\"^^xsd:string, \"z\"^^<http://a.example/dt> .",
			"<http://a.example/s> <http://a.example/p> \"x\"@en-US .\n<http://a.example/s> <http://a.example/p> \"y\"^^<" + x + "string> .\n<http://a.example/s> <http://a.example/p> \"z\"^^<http://a.example/dt> ."},
		{"numbers and booleans", "<http://a.example/s> <http://a.example/p> 1, -2, +3, 4.5, .5, -0.0, 1e3, 1.5E-2, 2.e1, .1e+1, true, false .",
			"<http://a.example/s> <http://a.example/p> \"1\"^^<" + x + "integer> .\n" +
				"<http://a.example/s> <http://a.example/p> \"-2\"^^<" + x + "integer> .\n" +
				"<http://a.example/s> <http://a.example/p> \"+3\"^^<" + x + "integer> .\n" +
				"<http://a.example/s> <http://a.example/p> \"4.5\"^^<" + x + "decimal> .\n" +
				"<http://a.example/s> <http://a.example/p> \".5\"^^<" + x + "decimal> .\n" +
				"<http://a.example/s> <http://a.example/p> \"-0.0\"^^<" + x + "decimal> .\n" +
				"<http://a.example/s> <http://a.example/p> \"1e3\"^^<" + x + "double> .\n" +
				"<http://a.example/s> <http://a.example/p> \"1.5E-2\"^^<" + x + "double> .\n" +
				"<http://a.example/s> <http://a.example/p> \"2.e1\"^^<" + x + "double> .\n" +
				"<http://a.example/s> <http://a.example/p> \".1e+1\"^^<" + x + "double> .\n" +
				"<http://a.example/s> <http://a.example/p> \"true\"^^<" + x + "boolean> .\n" +
				"<http://a.example/s> <http://a.example/p> \"false\"^^<" + x + "boolean> ."},
		{"integer directly before final dot", "<http://a.example/s> <http://a.example/p> 1.",
			"<http://a.example/s> <http://a.example/p> \"1\"^^<" + x + "integer> ."},
		{"boolean and a directly before final dot", "<http://a.example/s> <http://a.example/p> true.\n@prefix a.b: <http://a.example/> .\n<http://a.example/s> a.b:q false.",
			"<http://a.example/s> <http://a.example/p> \"true\"^^<" + x + "boolean> .\n<http://a.example/s> <http://a.example/q> \"false\"^^<" + x + "boolean> ."},
		{"true as prefix name", "@prefix true: <http://a.example/> . true:s true:p true: .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/> ."},
		{"statement over lines with comments", "<http://a.example/s> # subject\n <http://a.example/p> # predicate\n\t<http://a.example/o> # object\n . # end",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"local names with colons", "@prefix : <http://a.example/> . :s:1 :p:1 :::3 .",
			"<http://a.example/s:1> <http://a.example/p:1> <http://a.example/::3> ."},
		{"local name with leading underscore and non-leading extras", "@prefix p: <http://a.example/> . p:_s p:p p:a\u00B7\u0300\u036F\u203F.\u2040 .",
			"<http://a.example/_s> <http://a.example/p> <http://a.example/a\u00B7\u0300\u036F\u203F.\u2040> ."},
		// prefix_with_PN_CHARS_BASE_character_boundaries: the first and last
		// character of every PN_CHARS_BASE range.
		{"PN_CHARS_BASE boundaries in prefix", "@prefix AZaz\u00C0\u00D6\u00D8\u00F6\u00F8\u02FF\u0370\u037D\u037F\u1FFF\u200C\u200D\u2070\u218F\u2C00\u2FEF\u3001\uD7FF\uF900\uFDCF\uFDF0\uFFFD\U00010000\U000EFFFF: <http://a.example/> .\n" +
			"<http://a.example/s> <http://a.example/p> AZaz\u00C0\u00D6\u00D8\u00F6\u00F8\u02FF\u0370\u037D\u037F\u1FFF\u200C\u200D\u2070\u218F\u2C00\u2FEF\u3001\uD7FF\uF900\uFDCF\uFDF0\uFFFD\U00010000\U000EFFFF:o .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
		{"blank labels starting with digit and underscore, with dots", "_:0b <http://a.example/p> _:_b.0 .",
			"_:x <http://a.example/p> _:y ."},
		{"empty collection subject", "() <http://a.example/p> <http://a.example/o> .",
			"<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> <http://a.example/p> <http://a.example/o> ."},
		{"long string with escaped quotes and backslash", `<http://a.example/s> <http://a.example/p> '''\'''\\''' .`,
			"<http://a.example/s> <http://a.example/p> \"'''\\\\\" ."},
		{"byte order mark", "\uFEFF<http://a.example/s> <http://a.example/p> <http://a.example/o> .",
			"<http://a.example/s> <http://a.example/p> <http://a.example/o> ."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, st, err := collect(t, ttl(c.src, ""))
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := collect(t, nt(c.want))
			if err != nil {
				t.Fatalf("expected N-Triples does not parse: %v", err)
			}
			if c.name == "empty strings" {
				want = append(want, want[0], want[0], want[0])
			}
			if !isomorphic(got, want) {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines(got), "\n"), strings.Join(lines(want), "\n"))
			}
			if st.Statements != len(want) {
				t.Fatalf("Statements = %d, want %d", st.Statements, len(want))
			}
		})
	}
}

func TestTurtleNestingLimit(t *testing.T) {
	ok := "<http://a.example/s> <http://a.example/p> " + strings.Repeat("(", MaxNesting) + strings.Repeat(")", MaxNesting) + " ."
	got, _, err := collect(t, ttl(ok, ""))
	// Each non-empty level makes 2 triples (first, rest); the innermost
	// () is rdf:nil; plus the outer triple: 2*(MaxNesting-1) + 1.
	if err != nil || len(got) != 2*(MaxNesting-1)+1 {
		t.Fatalf("%d deep: %v, %d triples", MaxNesting, err, len(got))
	}
	deep := "<http://a.example/s> <http://a.example/p> " + strings.Repeat("[<http://a.example/p> ", MaxNesting+1)
	_, _, err = collect(t, ttl(deep, ""))
	// The (MaxNesting+1)-th '[' starts at 43 + MaxNesting*22.
	wantPos(t, err, "test.ttl", 1, 43+MaxNesting*22, "nested more than")
}

func TestTurtlePrefixesReported(t *testing.T) {
	src := "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\nPREFIX dc: <http://purl.org/dc/terms/>\n@prefix foaf: <http://example/other/> .\n"
	_, st, err := collect(t, ttl(src, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"foaf": "http://xmlns.com/foaf/0.1/", "dc": "http://purl.org/dc/terms/"}
	if !reflect.DeepEqual(st.Prefixes, want) {
		t.Fatalf("prefixes %v", st.Prefixes)
	}
}

func TestTurtleRedefinedPrefixApplies(t *testing.T) {
	src := "@prefix p: <http://a.example/1/> . p:s p:p p:o . @prefix p: <http://a.example/2/> . p:s p:p p:o ."
	got, _, err := collect(t, ttl(src, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].S.Value != "http://a.example/1/s" || got[1].S.Value != "http://a.example/2/s" {
		t.Fatalf("got %v", got)
	}
}

func TestTurtleBlankLabelsDoNotCollide(t *testing.T) {
	// _:b0 written in the document and the node made by [] must differ.
	got, _, err := collect(t, ttl("_:b0 <http://a.example/p> [] .", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].S.Kind != Blank || got[0].O.Kind != Blank || got[0].S.Value == got[0].O.Value {
		t.Fatalf("got %v", got)
	}
}

// Negative Turtle syntax cases (turtle-syntax-bad-*). Columns are 1-based
// characters, counted by hand.
func TestTurtleNegative(t *testing.T) {
	const s, p = "<http://a.example/s>", "<http://a.example/p>" // 20 characters each; object starts at col 43
	cases := []struct {
		name      string
		src       string
		line, col int
		msg       string
	}{
		{"missing final dot", s + " " + p + " <http://a.example/o>", 1, 63, "expected '.'"},
		{"missing dot between statements", s + " " + p + " <http://a.example/o>\n" + s + " " + p + " <http://a.example/o> .", 2, 1, "expected '.'"},
		{"undefined prefix", "@prefix p: <http://a.example/> .\nq:s p:p p:o .", 2, 1, `undefined prefix "q:"`},
		{"literal subject", `"s" ` + p + " <http://a.example/o> .", 1, 1, "literal cannot be the subject"},
		{"number subject", "1 " + p + " <http://a.example/o> .", 1, 1, "literal cannot be the subject"},
		{"literal predicate", s + ` "p" <http://a.example/o> .`, 1, 22, "literal cannot be a predicate"},
		{"blank predicate", s + " [] <http://a.example/o> .", 1, 22, "cannot be a predicate"},
		{"a as subject", "a " + p + " <http://a.example/o> .", 1, 1, "unexpected word"},
		{"space in IRI", "<http://a.example/ s> " + p + " <http://a.example/o> .", 1, 19, "not allowed in IRI"},
		{"bad uchar in IRI", `<http://a.example/\u00ZZ11> ` + p + " <http://a.example/o> .", 1, 23, "bad hex digit"},
		{"relative IRI without base", "<s> " + p + " <http://a.example/o> .", 1, 1, "no base IRI"},
		{"unterminated short string", s + " " + p + " \"abc\n\" .", 1, 43, "unterminated string"},
		{"unterminated long string", s + " " + p + " '''abc\n\n", 1, 43, "unterminated long string"},
		{"bad string escape", s + " " + p + ` "a\qb" .`, 1, 45, "bad escape"},
		{"bad local escape", "@prefix p: <http://a.example/> .\np:s p:p p:a\\b .", 2, 12, "bad escape in local name"},
		{"bad percent escape", "@prefix p: <http://a.example/> .\np:s p:p p:a%2 .", 2, 12, "bad percent escape"},
		{"lang tag with leading dash", s + " " + p + ` "x"@-en .`, 1, 46, "bad language tag"},
		{"lang tag trailing dash", s + " " + p + ` "x"@en- .`, 1, 49, "bad language tag"},
		{"lang tag with underscore", s + " " + p + ` "x"@en_US .`, 1, 49, "bad language tag"},
		{"prefix without colon", "@prefix p <http://a.example/> .", 1, 9, "ending in ':'"},
		{"@prefix without dot", "@prefix p: <http://a.example/>\n" + s + " " + p + " <http://a.example/o> .", 2, 1, "expected '.' at the end of @prefix"},
		{"unknown directive", "@keywords a .", 1, 1, "unknown directive"},
		{"missing comma between objects", s + " " + p + ` "a" "b" .`, 1, 47, "expected '.'"},
		{"unterminated property list", s + " " + p + " [ " + p + " <http://a.example/o> .", 1, 87, "expected ']'"},
		{"unterminated collection", s + " " + p + " ( 1 2", 1, 43, "unterminated collection"},
		{"bad exponent", s + " " + p + " 1e .", 1, 44, "bad exponent"},
		{"sign without digits", s + " " + p + " - .", 1, 43, "expected a number"},
		{"single caret", s + " " + p + ` "x"^<http://a.example/dt> .`, 1, 46, "'^^'"},
		{"blank node label bad start", "_:-x " + p + " <http://a.example/o> .", 1, 3, "bad blank node label"},
		{"error column after multibyte", "@prefix p: <http://a.example/> .\np:é p:p \"x\" ;", 2, 14, "expected '.'"},
		{"dangling comma", s + " " + p + " <http://a.example/o> , .", 1, 66, "expected an object"},
		{"collection without predicate", "( 1 ) .", 1, 7, "expected a predicate"},
		{"anon without predicate", "[] .", 1, 4, "expected a predicate"},
		{"a as object", s + " " + p + " a .", 1, 43, "unexpected word"},
		{"undefined empty prefix", ":s " + p + " <http://a.example/o> .", 1, 1, `undefined prefix ":"`},
		{"langtag and datatype", s + " " + p + ` "v"@en^^<http://a.example/dt> .`, 1, 49, "expected '.'"},
		{"blank label ending in dot as whole statement", "_:b1. " + p + " <http://a.example/o> .", 1, 5, "expected a predicate"},
		{"local name starting with dash", "@prefix : <http://a.example/> . :s :p :-o .", 1, 40, "expected '.'"},
		{"prefix ending in dot", "@prefix eg. : <http://a.example/> .", 1, 9, "ending in ':'"},
		{"number with dot in anon", "@prefix : <http://a.example/> . :s :p [ :p1 27. ] .", 1, 47, "expected ']'"},
		{"pname with tilde", "@prefix : <http://a.example/> . :a~b :p :o .", 1, 35, "expected a predicate"},
		{"mismatched quotes", s + " " + p + ` 'abc" .`, 1, 43, "unterminated string"},
		{"blank label as predicate", s + " _:p <http://a.example/o> .", 1, 22, "cannot be a predicate"},
		{"N-Quads graph in Turtle", s + " " + p + " <http://a.example/o> <http://a.example/g> .", 1, 64, "expected '.'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := collect(t, ttl(c.src, ""))
			wantPos(t, err, "test.ttl", c.line, c.col, c.msg)
		})
	}
}

func TestTurtleLenientSkipsWholeStatement(t *testing.T) {
	src := "@prefix p: <http://a.example/> .\n" +
		"p:s1 p:p p:o1 .\n" +
		"p:s2 p:p p:o2 ; p:q \"bad\\z\" ; p:r p:o3 .\n" + // skipped whole, incl. the p:p triple
		"p:s3 p:p \"it's . fine\", 'x. y' .\n" +
		"p:s4 p:p undefined:x .\n" +
		"p:s5 p:p p:o5 .\n"
	var got []Quad
	st, err := ParseTurtle(strings.NewReader(src), "l.ttl", Options{Lenient: true}, func(q Quad) error {
		got = append(got, q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, q := range got {
		subjects = append(subjects, strings.TrimPrefix(q.S.Value, "http://a.example/"))
	}
	if want := []string{"s1", "s3", "s3", "s5"}; !reflect.DeepEqual(subjects, want) {
		t.Fatalf("subjects %v, want %v", subjects, want)
	}
	if st.Statements != 4 || st.Skipped != 2 || len(st.Errors) != 2 {
		t.Fatalf("stats %+v", st)
	}
	// Line 3: the backslash of "bad\z" is character 25; line 5: "undefined:" at 10.
	if e := st.Errors[0]; e.Line != 3 || e.Col != 25 {
		t.Fatalf("first error %s", e.Error())
	}
	if e := st.Errors[1]; e.Line != 5 || e.Col != 10 {
		t.Fatalf("second error %s", e.Error())
	}
}

// RFC 3986 section 5.4 reference resolution examples, base
// "http://a/b/c/d;p?q": every normal (5.4.1) and abnormal (5.4.2) example.
func TestResolveRFC3986Examples(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	cases := [][2]string{
		{"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"}, {"g/", "http://a/b/c/g/"},
		{"/g", "http://a/g"}, {"//g", "http://g"}, {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
		{"#s", "http://a/b/c/d;p?q#s"}, {"g#s", "http://a/b/c/g#s"}, {"g?y#s", "http://a/b/c/g?y#s"},
		{";x", "http://a/b/c/;x"}, {"g;x", "http://a/b/c/g;x"}, {"g;x?y#s", "http://a/b/c/g;x?y#s"},
		{"", "http://a/b/c/d;p?q"}, {".", "http://a/b/c/"}, {"./", "http://a/b/c/"}, {"..", "http://a/b/"},
		{"../", "http://a/b/"}, {"../g", "http://a/b/g"}, {"../..", "http://a/"}, {"../../", "http://a/"},
		{"../../g", "http://a/g"},
		{"../../../g", "http://a/g"}, {"../../../../g", "http://a/g"}, {"/./g", "http://a/g"},
		{"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."}, {".g", "http://a/b/c/.g"}, {"g..", "http://a/b/c/g.."},
		{"..g", "http://a/b/c/..g"}, {"./../g", "http://a/b/g"}, {"./g/.", "http://a/b/c/g/"},
		{"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"}, {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
		{"g;x=1/../y", "http://a/b/c/y"}, {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
		{"g#s/./x", "http://a/b/c/g#s/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"},
	}
	for _, c := range cases {
		if got := Resolve(base, c[0]); got != c[1] {
			t.Errorf("Resolve(%q) = %q, want %q", c[0], got, c[1])
		}
	}
	// A base with an authority and empty path merges to "/g" (5.2.3).
	if got := Resolve("http://a", "g"); got != "http://a/g" {
		t.Errorf("empty base path: %q", got)
	}
}
