package rdf

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/lovbench/lovbench/internal/textio"
)

// ParseTurtle parses an RDF 1.1 Turtle document from r and calls fn for each
// triple (Quad.G is the zero Term, the default graph). name is used in error
// messages. The document is read into memory first (Turtle statements may
// span any number of lines); the triples of a statement are delivered when
// its final '.' has been read, so in lenient mode a bad statement is skipped
// whole.
//
// Relative IRIs are resolved against opts.Base, changed by @base/BASE; a
// relative IRI with no base is a syntax error. Blank nodes made by [] and
// collections are labelled "b<n>"; a label written in the document is kept
// unless it starts with 'b', in which case it gets one more 'b' ("_:b1"
// becomes "bb1"), so the two never collide.
func ParseTurtle(r io.Reader, name string, opts Options, fn func(Quad) error) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	t := &turtle{name: name, opts: opts, base: opts.Base, fn: fn, prefixes: map[string]string{}}
	t.b = data
	// A UTF-8 byte order mark is not Turtle, but editors write one.
	if len(t.b) >= 3 && t.b[0] == 0xEF && t.b[1] == 0xBB && t.b[2] == 0xBF {
		t.i = 3
	}
	err = t.run()
	return t.st, err
}

type turtle struct {
	scanner
	name     string
	opts     Options
	base     string
	prefixes map[string]string
	bnodes   int
	depth    int // nesting of [ ] and ( ), bounded by MaxNesting
	pending  []Quad
	fn       func(Quad) error
	st       Stats

	// incremental line counting for error positions
	lcOff, lcLine, lcStart int
}

func (t *turtle) run() error {
	for {
		t.ws()
		if t.i >= len(t.b) {
			return nil
		}
		start := t.i
		if e := t.statement(); e != nil {
			t.pending = t.pending[:0]
			if !t.opts.Lenient {
				se := t.syntaxError(e)
				return &se
			}
			if len(t.st.Errors) < MaxErrors {
				t.st.addError(t.syntaxError(e))
			} else {
				t.st.Skipped++
			}
			t.recover(start)
			continue
		}
		for _, q := range t.pending {
			if err := t.fn(q); err != nil {
				return err
			}
			t.st.Statements++
		}
		t.pending = t.pending[:0]
	}
}

// syntaxError converts a byte offset to line and column. Errors come in
// increasing offset order, so counting resumes from the previous one.
func (t *turtle) syntaxError(e *posErr) SyntaxError {
	off := min(e.off, len(t.b))
	if off < t.lcOff || t.lcLine == 0 {
		t.lcOff, t.lcLine, t.lcStart = 0, 1, 0
	}
	for k := t.lcOff; k < off; k++ {
		switch t.b[k] {
		case '\n':
			t.lcLine++
			t.lcStart = k + 1
		case '\r':
			if k+1 < len(t.b) && t.b[k+1] == '\n' {
				continue
			}
			t.lcLine++
			t.lcStart = k + 1
		}
	}
	t.lcOff = off
	return SyntaxError{File: t.name, Line: t.lcLine, Col: utf8.RuneCount(t.b[t.lcStart:off]) + 1, Msg: e.msg}
}

// recover moves past the end of the bad statement that began at start: the
// next '.' outside strings, IRIs and comments that is not part of a name or
// number.
func (t *turtle) recover(start int) {
	b := t.b
	j := start
	for j < len(b) {
		switch c := b[j]; c {
		case '#':
			for j < len(b) && b[j] != '\n' && b[j] != '\r' {
				j++
			}
		case '"', '\'':
			if j+2 < len(b) && b[j+1] == c && b[j+2] == c {
				j += 3
				for j < len(b) && !(b[j] == c && j+2 < len(b) && b[j+1] == c && b[j+2] == c) {
					if b[j] == '\\' {
						j++
					}
					j++
				}
				j += 3
			} else {
				j++
				for j < len(b) && b[j] != c && b[j] != '\n' && b[j] != '\r' {
					if b[j] == '\\' {
						j++
					}
					j++
				}
				j++
			}
		case '<':
			k := j + 1
			for k < len(b) && iriByteOK(b[k]) {
				k++
			}
			if k < len(b) && b[k] == '>' {
				j = k + 1
			} else {
				j++
			}
		case '.':
			r, _ := t.runeAt(j + 1)
			if !(isPNChars(r) || r == ':') {
				t.i = j + 1
				return
			}
			j++
		default:
			j++
		}
	}
	t.i = len(b)
}

// ws skips white space (space, tab, CR, LF) and comments.
func (t *turtle) ws() {
	for t.i < len(t.b) {
		switch t.b[t.i] {
		case ' ', '\t', '\n', '\r':
			t.i++
		case '#':
			for t.i < len(t.b) && t.b[t.i] != '\n' && t.b[t.i] != '\r' {
				t.i++
			}
		default:
			return
		}
	}
}

func (t *turtle) emit(s, p, o Term) {
	t.pending = append(t.pending, Quad{S: s, P: p, O: o})
}

func (t *turtle) newBlank() Term {
	t.bnodes++
	return Term{Kind: Blank, Value: "b" + strconv.Itoa(t.bnodes-1)}
}

// isNameEnd reports whether the character at j cannot continue a keyword
// (so "a", "true", "PREFIX" etc. end there).
func (t *turtle) isNameEnd(j int) bool {
	r, _ := t.runeAt(j)
	if r == '.' {
		// Dots continue a name only when more name characters follow
		// ("true.x:y" is a prefixed name, "true." a boolean and a '.').
		for r == '.' {
			j++
			r, _ = t.runeAt(j)
		}
	}
	return !(isPNChars(r) || r == ':')
}

// keyword reports whether word (ASCII) is at t.i, case-insensitively when
// fold is set, and is not followed by a name character.
func (t *turtle) keyword(word string, fold bool) bool {
	if t.i+len(word) > len(t.b) {
		return false
	}
	for k := 0; k < len(word); k++ {
		c := t.b[t.i+k]
		if fold {
			c |= 0x20
		}
		if c != word[k] {
			return false
		}
	}
	return t.isNameEnd(t.i + len(word))
}

// statement ::= directive | triples '.'
func (t *turtle) statement() *posErr {
	switch {
	case t.b[t.i] == '@':
		switch {
		case t.atKeyword("@prefix"):
			t.i += len("@prefix")
			if e := t.prefixDecl(); e != nil {
				return e
			}
			return t.expectDot("@prefix directive")
		case t.atKeyword("@base"):
			t.i += len("@base")
			if e := t.baseDecl(); e != nil {
				return e
			}
			return t.expectDot("@base directive")
		}
		return t.errAt(t.i, "unknown directive: expected @prefix or @base")
	case t.keyword("prefix", true):
		t.i += len("prefix")
		return t.prefixDecl()
	case t.keyword("base", true):
		t.i += len("base")
		return t.baseDecl()
	}
	if e := t.triples(); e != nil {
		return e
	}
	return t.expectDot("triples")
}

func (t *turtle) atKeyword(word string) bool {
	if t.i+len(word) > len(t.b) || string(t.b[t.i:t.i+len(word)]) != word {
		return false
	}
	j := t.i + len(word)
	return j >= len(t.b) || !(isAlpha(t.b[j]) || isDigit(t.b[j]) || t.b[j] == '-')
}

func (t *turtle) expectDot(what string) *posErr {
	t.ws()
	if t.i >= len(t.b) || t.b[t.i] != '.' {
		return t.errAt(t.i, "expected '.' at the end of %s, found %s", what, t.describe(t.i))
	}
	t.i++
	return nil
}

// prefixDecl parses PNAME_NS IRIREF after the PREFIX/@prefix keyword.
func (t *turtle) prefixDecl() *posErr {
	t.ws()
	at := t.i
	prefix, ok := t.pnPrefix()
	if !ok || t.i >= len(t.b) || t.b[t.i] != ':' {
		return t.errAt(at, "expected a prefix name ending in ':' after PREFIX, found %s", t.describe(at))
	}
	t.i++
	t.ws()
	if t.i >= len(t.b) || t.b[t.i] != '<' {
		return t.errAt(t.i, "expected namespace IRI in <...> after prefix %s, found %s", textio.Quote(prefix+":"), t.describe(t.i))
	}
	ns, e := t.iri()
	if e != nil {
		return e
	}
	t.prefixes[prefix] = ns.Value
	t.st.addPrefix(prefix, ns.Value)
	return nil
}

// baseDecl parses IRIREF after the BASE/@base keyword.
func (t *turtle) baseDecl() *posErr {
	t.ws()
	if t.i >= len(t.b) || t.b[t.i] != '<' {
		return t.errAt(t.i, "expected base IRI in <...> after BASE, found %s", t.describe(t.i))
	}
	b, e := t.iri()
	if e != nil {
		return e
	}
	t.base = b.Value
	return nil
}

// pnPrefix scans an optional PN_PREFIX at t.i, stopping before ':'.
// ok is false when the text at t.i is neither a PN_PREFIX nor ':'.
func (t *turtle) pnPrefix() (string, bool) {
	start := t.i
	r, n := t.runeAt(t.i)
	if r == ':' {
		return "", true
	}
	if !isPNCharsBase(r) {
		return "", false
	}
	j := t.i + n
	end := j
	for {
		r, n = t.runeAt(j)
		if r == '.' {
			j += n
			continue
		}
		if !isPNChars(r) {
			break
		}
		j += n
		end = j
	}
	t.i = end
	return string(t.b[start:end]), true
}

// iri reads an IRIREF and resolves it against the base.
func (t *turtle) iri() (Term, *posErr) {
	at := t.i
	v, e := t.iriRef("")
	if e != nil {
		return Term{}, e
	}
	if !hasScheme(v) {
		if t.base == "" {
			return Term{}, t.errAt(at, "relative IRI %s but no base IRI (use @base or Options.Base)", textio.Quote(v))
		}
		v = Resolve(t.base, v)
	}
	return Term{Kind: IRI, Value: v}, nil
}

// startsPName reports whether a prefixed name can start at t.i.
func (t *turtle) startsPName() bool {
	r, _ := t.runeAt(t.i)
	return r == ':' || isPNCharsBase(r)
}

// prefixedName parses PNAME_LN | PNAME_NS and expands it.
func (t *turtle) prefixedName() (Term, *posErr) {
	at := t.i
	prefix, ok := t.pnPrefix()
	if !ok {
		return Term{}, t.errAt(at, "unexpected %s", t.describe(at))
	}
	if t.i >= len(t.b) || t.b[t.i] != ':' {
		t.i = at
		return Term{}, t.errAt(at, "unexpected word %s: expected an IRI, prefixed name (prefix:local) or literal", textio.QuoteBytes(t.b[at:t.i+len(prefix)]))
	}
	ns, ok := t.prefixes[prefix]
	if !ok {
		return Term{}, t.errAt(at, "undefined prefix %s", textio.Quote(prefix+":"))
	}
	t.i++
	iri, e := t.pnLocal(ns)
	if e != nil {
		return Term{}, e
	}
	return Term{Kind: IRI, Value: iri}, nil
}

func isLocalEsc(c byte) bool {
	switch c {
	case '_', '~', '.', '-', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', '/', '?', '#', '@', '%':
		return true
	}
	return false
}

// pnLocal scans an optional PN_LOCAL and returns ns followed by the local
// name with PN_LOCAL_ESC escapes removed (PERCENT escapes are kept as
// written), in one allocation:
// (PN_CHARS_U | ':' | [0-9] | PLX) ((PN_CHARS | '.' | ':' | PLX)* (PN_CHARS | ':' | PLX))?
func (t *turtle) pnLocal(ns string) (string, *posErr) {
	buf := append(t.scratch[:0], ns...)
	j, endIn, endOut := t.i, t.i, len(buf)
	first := true
	for j < len(t.b) {
		c := t.b[j]
		if c == '\\' {
			if j+1 >= len(t.b) || !isLocalEsc(t.b[j+1]) {
				return "", t.errAt(j, "bad escape in local name: \\%s", t.describe(j+1))
			}
			buf = append(buf, t.b[j+1])
			j += 2
			endIn, endOut, first = j, len(buf), false
			continue
		}
		if c == '%' {
			if j+2 >= len(t.b) || hexVal(t.b[j+1]) < 0 || hexVal(t.b[j+2]) < 0 {
				return "", t.errAt(j, "bad percent escape in local name: '%%' must be followed by two hex digits")
			}
			buf = append(buf, t.b[j:j+3]...)
			j += 3
			endIn, endOut, first = j, len(buf), false
			continue
		}
		r, n := t.runeAt(j)
		var ok bool
		if first {
			ok = isPNCharsU(r) || r == ':' || (r >= '0' && r <= '9')
		} else {
			ok = isPNChars(r) || r == ':' || r == '.'
		}
		if !ok {
			break
		}
		buf = append(buf, t.b[j:j+n]...)
		j += n
		if r != '.' {
			endIn, endOut = j, len(buf)
		}
		first = false
	}
	t.i = endIn
	t.scratch = buf
	return string(buf[:endOut]), nil
}

// blank reads BLANK_NODE_LABEL and maps it away from generated labels.
func (t *turtle) blank() (Term, *posErr) {
	v, e := t.blankLabel()
	if e != nil {
		return Term{}, e
	}
	if v[0] == 'b' {
		v = "b" + v
	}
	return Term{Kind: Blank, Value: v}, nil
}

// triples ::= subject predicateObjectList | blankNodePropertyList predicateObjectList?
func (t *turtle) triples() *posErr {
	var subj Term
	var e *posErr
	switch c := t.b[t.i]; {
	case c == '<':
		subj, e = t.iri()
	case c == '_':
		subj, e = t.blank()
	case c == '(':
		subj, e = t.collection()
	case c == '[':
		anon := t.isAnon()
		subj, e = t.blankNodePropertyList()
		if e != nil {
			return e
		}
		if !anon {
			t.ws()
			if t.i < len(t.b) && t.b[t.i] == '.' {
				return nil
			}
		}
	case c == '"' || c == '\'' || c == '+' || c == '-' || isDigit(c) || t.keyword("true", false) || t.keyword("false", false):
		return t.errAt(t.i, "a literal cannot be the subject of a triple")
	case t.startsPName():
		subj, e = t.prefixedName()
	default:
		return t.errAt(t.i, "expected a subject (IRI, prefixed name, blank node or collection), found %s", t.describe(t.i))
	}
	if e != nil {
		return e
	}
	t.ws()
	return t.predicateObjectList(subj)
}

// isAnon reports whether ANON ('[' WS* ']') is at t.i.
func (t *turtle) isAnon() bool {
	j := t.i + 1
	for j < len(t.b) && (t.b[j] == ' ' || t.b[j] == '\t' || t.b[j] == '\n' || t.b[j] == '\r') {
		j++
	}
	return j < len(t.b) && t.b[j] == ']'
}

// predicateObjectList ::= verb objectList (';' (verb objectList)?)*
func (t *turtle) predicateObjectList(subj Term) *posErr {
	for {
		pred, e := t.verb()
		if e != nil {
			return e
		}
		t.ws()
		if e := t.objectList(subj, pred); e != nil {
			return e
		}
		t.ws()
		if t.i >= len(t.b) || t.b[t.i] != ';' {
			return nil
		}
		for t.i < len(t.b) && t.b[t.i] == ';' {
			t.i++
			t.ws()
		}
		if t.i >= len(t.b) || !(t.b[t.i] == '<' || t.startsPName()) {
			return nil
		}
	}
}

// verb ::= predicate | 'a'
func (t *turtle) verb() (Term, *posErr) {
	if t.i >= len(t.b) {
		return Term{}, t.errAt(t.i, "expected a predicate, found end of input")
	}
	switch c := t.b[t.i]; {
	case c == 'a' && t.isNameEnd(t.i+1):
		t.i++
		return Term{Kind: IRI, Value: RDFType}, nil
	case c == '<':
		return t.iri()
	case t.startsPName():
		return t.prefixedName()
	case c == '"' || c == '\'' || c == '+' || c == '-' || isDigit(c):
		return Term{}, t.errAt(t.i, "a literal cannot be a predicate")
	case c == '[' || c == '_' || c == '(':
		return Term{}, t.errAt(t.i, "a blank node or collection cannot be a predicate")
	}
	return Term{}, t.errAt(t.i, "expected a predicate (IRI, prefixed name or 'a'), found %s", t.describe(t.i))
}

// objectList ::= object (',' object)*
func (t *turtle) objectList(subj, pred Term) *posErr {
	for {
		o, e := t.object()
		if e != nil {
			return e
		}
		t.emit(subj, pred, o)
		t.ws()
		if t.i >= len(t.b) || t.b[t.i] != ',' {
			return nil
		}
		t.i++
		t.ws()
	}
}

// object ::= iri | BlankNode | collection | blankNodePropertyList | literal
func (t *turtle) object() (Term, *posErr) {
	if t.i >= len(t.b) {
		return Term{}, t.errAt(t.i, "expected an object, found end of input")
	}
	switch c := t.b[t.i]; {
	case c == '<':
		return t.iri()
	case c == '_':
		return t.blank()
	case c == '[':
		return t.blankNodePropertyList()
	case c == '(':
		return t.collection()
	case c == '"' || c == '\'':
		return t.rdfLiteral()
	case isDigit(c) || c == '+' || c == '-' || (c == '.' && t.i+1 < len(t.b) && isDigit(t.b[t.i+1])):
		return t.numeric()
	case t.keyword("true", false):
		t.i += 4
		return Term{Kind: Literal, Value: "true", Datatype: XSDBoolean}, nil
	case t.keyword("false", false):
		t.i += 5
		return Term{Kind: Literal, Value: "false", Datatype: XSDBoolean}, nil
	case t.startsPName():
		return t.prefixedName()
	}
	return Term{}, t.errAt(t.i, "expected an object (IRI, prefixed name, blank node, collection or literal), found %s", t.describe(t.i))
}

// MaxNesting bounds the nesting of blank node property lists and
// collections in Turtle, so that hostile input cannot exhaust the stack.
const MaxNesting = 10000

func (t *turtle) enter() *posErr {
	if t.depth >= MaxNesting {
		return t.errAt(t.i, "'[' and '(' nested more than %d deep", MaxNesting)
	}
	t.depth++
	return nil
}

// blankNodePropertyList ::= '[' predicateObjectList ']', or ANON.
func (t *turtle) blankNodePropertyList() (Term, *posErr) {
	open := t.i
	if e := t.enter(); e != nil {
		return Term{}, e
	}
	defer func() { t.depth-- }()
	t.i++
	t.ws()
	node := t.newBlank()
	if t.i < len(t.b) && t.b[t.i] == ']' {
		t.i++
		return node, nil
	}
	if e := t.predicateObjectList(node); e != nil {
		return Term{}, e
	}
	t.ws()
	if t.i >= len(t.b) {
		return Term{}, t.errAt(open, "unterminated blank node property list: missing ']'")
	}
	if t.b[t.i] != ']' {
		return Term{}, t.errAt(t.i, "expected ']' to close the blank node property list, found %s", t.describe(t.i))
	}
	t.i++
	return node, nil
}

// collection ::= '(' object* ')', expanded to rdf:first/rdf:rest lists.
func (t *turtle) collection() (Term, *posErr) {
	open := t.i
	if e := t.enter(); e != nil {
		return Term{}, e
	}
	defer func() { t.depth-- }()
	t.i++
	t.ws()
	var head, cur Term
	for {
		if t.i >= len(t.b) {
			return Term{}, t.errAt(open, "unterminated collection: missing ')'")
		}
		if t.b[t.i] == ')' {
			t.i++
			if head.Value == "" {
				return Term{Kind: IRI, Value: RDFNil}, nil
			}
			t.emit(cur, Term{Kind: IRI, Value: RDFRest}, Term{Kind: IRI, Value: RDFNil})
			return head, nil
		}
		node := t.newBlank()
		if head.Value == "" {
			head = node
		} else {
			t.emit(cur, Term{Kind: IRI, Value: RDFRest}, node)
		}
		cur = node
		o, e := t.object()
		if e != nil {
			return Term{}, e
		}
		t.emit(cur, Term{Kind: IRI, Value: RDFFirst}, o)
		t.ws()
	}
}

// rdfLiteral ::= String (LANGTAG | '^^' iri)?
func (t *turtle) rdfLiteral() (Term, *posErr) {
	q := t.b[t.i]
	var v string
	var e *posErr
	if t.i+2 < len(t.b) && t.b[t.i+1] == q && t.b[t.i+2] == q {
		v, e = t.longString(q)
	} else {
		v, e = t.shortString(q)
	}
	if e != nil {
		return Term{}, e
	}
	lit := Term{Kind: Literal, Value: v}
	save := t.i
	t.ws()
	switch {
	case t.i < len(t.b) && t.b[t.i] == '@':
		lit.Lang, e = t.langTag()
		if e == nil && t.i < len(t.b) {
			if r, _ := t.runeAt(t.i); isPNChars(r) {
				return Term{}, t.errAt(t.i, "bad language tag: unexpected %s", t.describe(t.i))
			}
		}
	case t.i+1 < len(t.b) && t.b[t.i] == '^' && t.b[t.i+1] == '^':
		t.i += 2
		t.ws()
		var dt Term
		switch {
		case t.i < len(t.b) && t.b[t.i] == '<':
			dt, e = t.iri()
		case t.startsPName():
			dt, e = t.prefixedName()
		default:
			return Term{}, t.errAt(t.i, "expected a datatype IRI after '^^', found %s", t.describe(t.i))
		}
		lit.Datatype = dt.Value
	case t.i < len(t.b) && t.b[t.i] == '^':
		return Term{}, t.errAt(t.i, "expected '^^' before the datatype")
	default:
		t.i = save
	}
	if e != nil {
		return Term{}, e
	}
	return lit, nil
}

// longString scans STRING_LITERAL_LONG_QUOTE or
// STRING_LITERAL_LONG_SINGLE_QUOTE (three quotes q) at t.i.
func (t *turtle) longString(q byte) (string, *posErr) {
	start := t.i
	t.i += 3
	buf := t.scratch[:0]
	var e *posErr
	for t.i < len(t.b) {
		c := t.b[t.i]
		switch {
		case c == q && t.i+2 < len(t.b) && t.b[t.i+1] == q && t.b[t.i+2] == q:
			t.i += 3
			t.scratch = buf
			return string(buf), nil
		case c == '\\':
			if buf, e = t.escape(buf); e != nil {
				return "", e
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(t.b[t.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", t.errAt(t.i, "invalid UTF-8 byte 0x%02x", c)
			}
			buf = append(buf, t.b[t.i:t.i+n]...)
			t.i += n
		default:
			buf = append(buf, c)
			t.i++
		}
	}
	return "", t.errAt(start, "unterminated long string: missing closing %c%c%c", q, q, q)
}

// numeric scans INTEGER | DECIMAL | DOUBLE and types it xsd:integer,
// xsd:decimal or xsd:double. The lexical form is kept as written.
func (t *turtle) numeric() (Term, *posErr) {
	start := t.i
	j := t.i
	if t.b[j] == '+' || t.b[j] == '-' {
		j++
	}
	intStart := j
	for j < len(t.b) && isDigit(t.b[j]) {
		j++
	}
	intDigits := j - intStart
	dt := XSDInteger
	fracDigits := 0
	if j < len(t.b) && t.b[j] == '.' {
		k := j + 1
		for k < len(t.b) && isDigit(t.b[k]) {
			k++
		}
		fracDigits = k - j - 1
		switch {
		case fracDigits > 0:
			j, dt = k, XSDDecimal
		case intDigits > 0 && t.hasExponent(k):
			j = k // "1.e5"
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return Term{}, t.errAt(start, "expected a number, found %s", t.describe(start))
	}
	if j < len(t.b) && (t.b[j] == 'e' || t.b[j] == 'E') {
		if !t.hasExponent(j) {
			return Term{}, t.errAt(j, "bad exponent in number: expected digits after %q", t.b[j])
		}
		j++
		if t.b[j] == '+' || t.b[j] == '-' {
			j++
		}
		for j < len(t.b) && isDigit(t.b[j]) {
			j++
		}
		dt = XSDDouble
	}
	t.i = j
	return Term{Kind: Literal, Value: string(t.b[start:j]), Datatype: dt}, nil
}

// hasExponent reports whether EXPONENT ([eE] [+-]? [0-9]+) starts at j.
func (t *turtle) hasExponent(j int) bool {
	if j >= len(t.b) || (t.b[j] != 'e' && t.b[j] != 'E') {
		return false
	}
	j++
	if j < len(t.b) && (t.b[j] == '+' || t.b[j] == '-') {
		j++
	}
	return j < len(t.b) && isDigit(t.b[j])
}
