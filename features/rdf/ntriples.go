package rdf

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/lovbench/lovbench/internal/textio"
)

// ParseNQuads parses an RDF 1.1 N-Quads document from r and calls fn for
// each statement, in document order. name is used in error messages. A
// statement without a graph label is in the default graph (Quad.G is the
// zero Term). An error returned by fn stops parsing and is returned as is.
func ParseNQuads(r io.Reader, name string, opts Options, fn func(Quad) error) (Stats, error) {
	return parseLines(r, name, opts, true, fn)
}

// ParseNTriples parses an RDF 1.1 N-Triples document from r and calls fn
// for each triple (Quad.G is the zero Term, the default graph). A fourth
// term (graph label) is a syntax error.
func ParseNTriples(r io.Reader, name string, opts Options, fn func(Quad) error) (Stats, error) {
	return parseLines(r, name, opts, false, fn)
}

// lineParser parses one N-Triples/N-Quads statement per line.
type lineParser struct {
	scanner
	quads bool
	base  string
	// previous subject, predicate and graph IRIs, reused when repeated
	prevS, prevP, prevG, prevDT string
}

func parseLines(r io.Reader, name string, opts Options, quads bool, fn func(Quad) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	p := lineParser{quads: quads, base: opts.Base}
	p.ntLabels = true
	var long []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return st, fmt.Errorf("%s: %w", name, err)
		}
		if len(line) == 0 && err == io.EOF {
			return st, nil
		}
		// EOL ::= [#xD#xA]+ : a lone carriage return also ends a line.
		for len(line) > 0 {
			seg := line
			rest := []byte(nil)
			for k, c := range line {
				if c == '\r' {
					if k+1 < len(line) && line[k+1] == '\n' {
						seg, rest = line[:k], nil
					} else {
						seg, rest = line[:k], line[k+1:]
					}
					break
				}
				if c == '\n' {
					seg = line[:k]
					break
				}
			}
			lineNo++
			q, ok, perr := p.statement(seg)
			if perr != nil {
				se := SyntaxError{File: name, Line: lineNo, Col: utf8.RuneCount(seg[:min(perr.off, len(seg))]) + 1, Msg: perr.msg}
				if !opts.Lenient {
					return st, &se
				}
				st.addError(se)
			} else if ok {
				if ferr := fn(q); ferr != nil {
					return st, ferr
				}
				st.Statements++
			}
			line = rest
		}
		if err == io.EOF {
			return st, nil
		}
	}
}

func (p *lineParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t') {
		p.i++
	}
}

// statement parses one line. ok is false for a blank or comment-only line.
func (p *lineParser) statement(line []byte) (q Quad, ok bool, e *posErr) {
	p.b, p.i = line, 0
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] == '#' {
		return q, false, nil
	}
	// subject ::= IRIREF | BLANK_NODE_LABEL
	switch p.b[p.i] {
	case '<':
		q.S, e = p.iri(p.prevS)
		p.prevS = q.S.Value
	case '_':
		q.S, e = p.blank()
	case '"':
		return q, false, p.errAt(p.i, "a literal cannot be the subject")
	default:
		return q, false, p.errAt(p.i, "expected subject (IRI or blank node), found %s", p.describe(p.i))
	}
	if e != nil {
		return q, false, e
	}
	p.ws()
	// predicate ::= IRIREF
	if p.i >= len(p.b) || p.b[p.i] != '<' {
		return q, false, p.errAt(p.i, "expected predicate IRI, found %s", p.describe(p.i))
	}
	if q.P, e = p.iri(p.prevP); e != nil {
		return q, false, e
	}
	p.prevP = q.P.Value
	p.ws()
	// object ::= IRIREF | BLANK_NODE_LABEL | literal
	if p.i >= len(p.b) {
		return q, false, p.errAt(p.i, "expected object, found end of line")
	}
	switch p.b[p.i] {
	case '<':
		q.O, e = p.iri("")
	case '_':
		q.O, e = p.blank()
	case '"':
		q.O, e = p.literal()
	default:
		return q, false, p.errAt(p.i, "expected object (IRI, blank node or literal), found %s", p.describe(p.i))
	}
	if e != nil {
		return q, false, e
	}
	p.ws()
	// graphLabel ::= IRIREF | BLANK_NODE_LABEL (N-Quads only)
	if p.i < len(p.b) && (p.b[p.i] == '<' || p.b[p.i] == '_') {
		if !p.quads {
			return q, false, p.errAt(p.i, "N-Triples statement has a fourth term (graph labels are N-Quads only); expected '.'")
		}
		if p.b[p.i] == '<' {
			q.G, e = p.iri(p.prevG)
			p.prevG = q.G.Value
		} else {
			q.G, e = p.blank()
		}
		if e != nil {
			return q, false, e
		}
		p.ws()
	}
	if p.i >= len(p.b) || p.b[p.i] != '.' {
		return q, false, p.errAt(p.i, "expected '.' at end of statement, found %s", p.describe(p.i))
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] != '#' {
		return q, false, p.errAt(p.i, "unexpected %s after '.': one statement per line", p.describe(p.i))
	}
	return q, true, nil
}

func (p *lineParser) iri(prev string) (Term, *posErr) {
	at := p.i
	v, e := p.iriRef(prev)
	if e != nil {
		return Term{}, e
	}
	if !hasScheme(v) {
		if p.base == "" {
			return Term{}, p.errAt(at, "relative IRI %s: N-Triples and N-Quads require absolute IRIs", textio.Quote(v))
		}
		v = Resolve(p.base, v)
	}
	return Term{Kind: IRI, Value: v}, nil
}

func (p *lineParser) blank() (Term, *posErr) {
	v, e := p.blankLabel()
	if e != nil {
		return Term{}, e
	}
	return Term{Kind: Blank, Value: v}, nil
}

// literal ::= STRING_LITERAL_QUOTE ('^^' IRIREF | LANGTAG)?
func (p *lineParser) literal() (Term, *posErr) {
	v, e := p.shortString('"')
	if e != nil {
		return Term{}, e
	}
	t := Term{Kind: Literal, Value: v}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '@':
			t.Lang, e = p.langTag()
		case '^':
			if p.i+1 >= len(p.b) || p.b[p.i+1] != '^' {
				return t, p.errAt(p.i, "expected '^^' before the datatype IRI")
			}
			p.i += 2
			if p.i >= len(p.b) || p.b[p.i] != '<' {
				return t, p.errAt(p.i, "expected datatype IRI after '^^', found %s", p.describe(p.i))
			}
			var dt Term
			dt, e = p.iri(p.prevDT)
			p.prevDT = dt.Value
			t.Datatype = dt.Value
		}
	}
	return t, e
}
