// Package rdf reads RDF 1.1 data for the lovbench corpus loader: N-Quads
// (W3C Recommendation "RDF 1.1 N-Quads", 25 February 2014), N-Triples
// ("RDF 1.1 N-Triples") and Turtle ("RDF 1.1 Turtle"), plain or
// gzip-compressed, from a file or a directory (docs/method.md section 6: the corpus
// is N-Quads, one named graph per vocabulary).
//
// The parsers are hand-written scanners that follow the EBNF grammars of
// those Recommendations production by production. They stream statements to
// a callback, allocate one string per term value and intern nothing: the
// consumer decides what to keep.
//
// In strict mode (the default) the first syntax error stops parsing and is
// returned as a *SyntaxError carrying the file name, 1-based line and 1-based
// column (counted in Unicode characters). In lenient mode (Options.Lenient)
// a bad statement is skipped, counted in Stats.Skipped and its error kept in
// Stats.Errors (the first MaxErrors of them).
//
// See docs/rdf.md for the choices the Recommendations leave open (blank node
// label scoping, relative IRIs without a base, language tag case).
package rdf

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind says what an RDF term is.
type Kind uint8

// The three kinds of RDF term. IRI is the zero value so that the zero Term
// is the default graph name (an IRI term with an empty value).
const (
	IRI Kind = iota
	Blank
	Literal
)

// String returns "IRI", "Blank" or "Literal".
func (k Kind) String() string {
	switch k {
	case IRI:
		return "IRI"
	case Blank:
		return "Blank"
	case Literal:
		return "Literal"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Well-known IRIs used by the parsers.
const (
	RDFNS      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	RDFType    = RDFNS + "type"
	RDFFirst   = RDFNS + "first"
	RDFRest    = RDFNS + "rest"
	RDFNil     = RDFNS + "nil"
	XSDNS      = "http://www.w3.org/2001/XMLSchema#"
	XSDInteger = XSDNS + "integer"
	XSDDecimal = XSDNS + "decimal"
	XSDDouble  = XSDNS + "double"
	XSDBoolean = XSDNS + "boolean"
	XSDString  = XSDNS + "string"
	RDFLangStr = RDFNS + "langString"
)

// Term is an RDF term.
//
// Value is the IRI text (resolved against the base, without the angle
// brackets), the blank node label (without "_:"), or the literal's lexical
// form (escapes decoded). Lang is the language tag of a language-tagged
// string, as written (not case-folded). Datatype is the datatype IRI of a
// typed literal; it is empty for simple literals and language-tagged strings.
type Term struct {
	Kind     Kind
	Value    string
	Lang     string
	Datatype string
}

// NewIRI returns an IRI term.
func NewIRI(iri string) Term { return Term{Kind: IRI, Value: iri} }

// NewBlank returns a blank node term with the given label (no "_:").
func NewBlank(label string) Term { return Term{Kind: Blank, Value: label} }

// NewLiteral returns a literal term; lang and datatype may be empty.
func NewLiteral(lexical, lang, datatype string) Term {
	return Term{Kind: Literal, Value: lexical, Lang: lang, Datatype: datatype}
}

// IsDefaultGraph reports whether t names the default graph (the zero Term).
func (t Term) IsDefaultGraph() bool { return t.Kind == IRI && t.Value == "" }

// String returns the term in N-Triples syntax: <iri>, _:label, or a quoted
// literal with @lang or ^^<datatype>. Characters that N-Triples does not
// allow literally are written as \uXXXX (IRIs) or ECHAR escapes (literals),
// so the result parses back to the same term.
func (t Term) String() string {
	var b strings.Builder
	t.appendTo(&b)
	return b.String()
}

func (t Term) appendTo(b *strings.Builder) {
	switch t.Kind {
	case Blank:
		b.WriteString("_:")
		b.WriteString(t.Value)
	case Literal:
		b.WriteByte('"')
		for i := 0; i < len(t.Value); i++ {
			switch c := t.Value[i]; c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		if t.Lang != "" {
			b.WriteByte('@')
			b.WriteString(t.Lang)
		} else if t.Datatype != "" {
			b.WriteString("^^")
			appendIRI(b, t.Datatype)
		}
	default:
		appendIRI(b, t.Value)
	}
}

func appendIRI(b *strings.Builder, s string) {
	b.WriteByte('<')
	for _, r := range s {
		if r < utf8.RuneSelf && !iriByteOK(byte(r)) {
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&15])
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('>')
}

const hexDigits = "0123456789ABCDEF"

// Quad is an RDF statement with its graph name. G is the zero Term (an IRI
// term with an empty value) for the default graph.
type Quad struct {
	S, P, O Term
	G       Term
}

// String returns the quad as one N-Quads line without the trailing newline:
// "S P O G ." or "S P O ." for the default graph.
func (q Quad) String() string {
	var b strings.Builder
	q.S.appendTo(&b)
	b.WriteByte(' ')
	q.P.appendTo(&b)
	b.WriteByte(' ')
	q.O.appendTo(&b)
	if !q.G.IsDefaultGraph() {
		b.WriteByte(' ')
		q.G.appendTo(&b)
	}
	b.WriteString(" .")
	return b.String()
}

// Options controls parsing.
type Options struct {
	// Lenient skips bad statements, counting them in Stats.Skipped and
	// keeping the first MaxErrors errors in Stats.Errors, instead of
	// stopping at the first error.
	Lenient bool
	// Base is the base IRI for resolving relative IRI references. Turtle
	// documents may change it with @base/BASE. N-Triples and N-Quads allow
	// only absolute IRIs; with a Base, relative ones are resolved instead of
	// rejected. LoadPath uses the file's file:// URI when Base is empty.
	Base string
}

// MaxErrors is the number of syntax errors kept in Stats.Errors in lenient
// mode; further errors are only counted in Stats.Skipped.
const MaxErrors = 100

// Stats summarises a parse.
type Stats struct {
	// Statements is the number of quads (or triples) delivered to the
	// callback.
	Statements int
	// Skipped is the number of statements skipped in lenient mode.
	Skipped int
	// Prefixes holds the @prefix/PREFIX declarations seen in Turtle input,
	// prefix (without the colon) to resolved namespace IRI. When a prefix
	// is declared again, the first declaration is kept. Nil when there were
	// none.
	Prefixes map[string]string
	// Errors holds the first MaxErrors syntax errors of lenient mode.
	Errors []SyntaxError
}

func (s *Stats) addError(e SyntaxError) {
	s.Skipped++
	if len(s.Errors) < MaxErrors {
		s.Errors = append(s.Errors, e)
	}
}

func (s *Stats) addPrefix(p, ns string) {
	if s.Prefixes == nil {
		s.Prefixes = make(map[string]string)
	}
	if _, ok := s.Prefixes[p]; !ok {
		s.Prefixes[p] = ns
	}
}

// merge adds o's counts, prefixes and errors to s.
func (s *Stats) merge(o Stats) {
	s.Statements += o.Statements
	s.Skipped += o.Skipped
	for p, ns := range o.Prefixes {
		s.addPrefix(p, ns)
	}
	for _, e := range o.Errors {
		if len(s.Errors) >= MaxErrors {
			break
		}
		s.Errors = append(s.Errors, e)
	}
}

// SyntaxError is a syntax error at a position in a named input. Line and
// Col are 1-based; Col counts Unicode characters.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: msg".
func (e *SyntaxError) Error() string {
	return e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
}
