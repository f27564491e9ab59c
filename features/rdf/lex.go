package rdf

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// This file holds the terminals shared by the N-Triples, N-Quads and Turtle
// grammars (IRIREF, STRING_LITERAL_QUOTE, UCHAR, ECHAR, LANGTAG,
// BLANK_NODE_LABEL and the PN_CHARS classes), scanned over a byte slice.

// posErr is a syntax error at a byte offset of the scanner's buffer; the
// caller turns it into a SyntaxError with line and column.
type posErr struct {
	off int
	msg string
}

func (e *posErr) Error() string { return e.msg }

// scanner is a cursor over a byte slice plus a scratch buffer for decoding
// escapes.
type scanner struct {
	b       []byte
	i       int
	scratch []byte
	// ntLabels selects the N-Triples BLANK_NODE_LABEL, whose PN_CHARS_U
	// also admits ':'.
	ntLabels bool
}

func (s *scanner) errAt(off int, format string, args ...any) *posErr {
	return &posErr{off: off, msg: fmt.Sprintf(format, args...)}
}

// describe names the character at offset off for error messages.
func (s *scanner) describe(off int) string {
	if off >= len(s.b) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(s.b[off:])
	switch r {
	case '\n':
		return `newline`
	case '\r':
		return `carriage return`
	case utf8.RuneError:
		return "invalid UTF-8"
	}
	return fmt.Sprintf("%q", r)
}

// iriByteOK reports whether ASCII byte c may appear literally in an IRIREF:
// [^#x00-#x20<>"{}|^`\].
func iriByteOK(c byte) bool {
	if c <= 0x20 {
		return false
	}
	switch c {
	case '<', '>', '"', '{', '}', '|', '^', '`', '\\':
		return false
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// uchar decodes a UCHAR whose backslash is at s.i: \uXXXX or \UXXXXXXXX.
// It advances past it.
func (s *scanner) uchar() (rune, *posErr) {
	start := s.i
	n := 4
	if s.b[s.i+1] == 'U' {
		n = 8
	}
	if s.i+2+n > len(s.b) {
		return 0, s.errAt(start, "incomplete \\%c escape: need %d hex digits", s.b[s.i+1], n)
	}
	var r rune
	for k := 0; k < n; k++ {
		h := hexVal(s.b[s.i+2+k])
		if h < 0 {
			return 0, s.errAt(s.i+2+k, "bad hex digit %s in \\%c escape", s.describe(s.i+2+k), s.b[s.i+1])
		}
		r = r<<4 | rune(h)
	}
	if r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, s.errAt(start, "escape \\%c%s is not a Unicode scalar value", s.b[s.i+1], s.b[s.i+2:s.i+2+n])
	}
	s.i += 2 + n
	return r, nil
}

// checkUTF8 returns an error at the first invalid UTF-8 sequence in
// s.b[from:to], or nil.
func (s *scanner) checkUTF8(from, to int) *posErr {
	for k := from; k < to; {
		if s.b[k] < utf8.RuneSelf {
			k++
			continue
		}
		r, n := utf8.DecodeRune(s.b[k:to])
		if r == utf8.RuneError && n <= 1 {
			return s.errAt(k, "invalid UTF-8 byte 0x%02x", s.b[k])
		}
		k += n
	}
	return nil
}

// Byte classes inside an IRIREF, indexed by byte value.
const (
	iriOK   = 0 // allowed literally
	iriEnd  = 1 // '>'
	iriEsc  = 2 // '\'
	iriBad  = 3 // [#x00-#x20<"{}|^`]
	iriHigh = 4 // first or later byte of a multi-byte UTF-8 sequence
)

// iriClass is the IRIREF byte class table; it is computed once and never
// written afterwards.
var iriClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = iriHigh
		case c == '>':
			t[c] = iriEnd
		case c == '\\':
			t[c] = iriEsc
		case !iriByteOK(byte(c)):
			t[c] = iriBad
		}
	}
	return t
}()

// iriRef scans an IRIREF starting at '<' (s.b[s.i] == '<') and returns its
// text with UCHAR escapes decoded, unresolved. When the text equals prev,
// prev itself is returned, so that repeated IRIs (the subject and graph of
// consecutive statements) share one string instead of allocating again.
func (s *scanner) iriRef(prev string) (string, *posErr) {
	start := s.i
	j := s.i + 1
	high := false
	for j < len(s.b) {
		switch iriClass[s.b[j]] {
		case iriOK:
			j++
			continue
		case iriEnd:
			if high {
				if e := s.checkUTF8(start+1, j); e != nil {
					return "", e
				}
			}
			s.i = j + 1
			if string(s.b[start+1:j]) == prev {
				return prev, nil
			}
			return string(s.b[start+1 : j]), nil
		case iriHigh:
			high = true
			j++
		case iriEsc:
			return s.iriRefSlow(start)
		default:
			return "", s.iriBadChar(start, j)
		}
	}
	return "", s.errAt(start, "unterminated IRI: missing '>'")
}

func (s *scanner) iriBadChar(start, j int) *posErr {
	if s.b[j] == '\n' || s.b[j] == '\r' {
		return s.errAt(start, "unterminated IRI: missing '>' before end of line")
	}
	return s.errAt(j, "character %s not allowed in IRI", s.describe(j))
}

// iriRefSlow handles IRIs with UCHAR escapes.
func (s *scanner) iriRefSlow(start int) (string, *posErr) {
	buf := s.scratch[:0]
	s.i = start + 1
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '>':
			s.i++
			s.scratch = buf
			return string(buf), nil
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", s.errAt(s.i, "invalid UTF-8 byte 0x%02x", c)
			}
			buf = append(buf, s.b[s.i:s.i+n]...)
			s.i += n
		case c == '\\':
			if s.i+1 >= len(s.b) || (s.b[s.i+1] != 'u' && s.b[s.i+1] != 'U') {
				return "", s.errAt(s.i, "bad escape in IRI: only \\uXXXX and \\UXXXXXXXX are allowed")
			}
			at := s.i
			r, e := s.uchar()
			if e != nil {
				return "", e
			}
			if r < utf8.RuneSelf && !iriByteOK(byte(r)) {
				return "", s.errAt(at, "escape %s encodes %q, which is not allowed in an IRI", s.b[at:s.i], r)
			}
			buf = utf8.AppendRune(buf, r)
		case !iriByteOK(c):
			return "", s.iriBadChar(start, s.i)
		default:
			buf = append(buf, c)
			s.i++
		}
	}
	return "", s.errAt(start, "unterminated IRI: missing '>'")
}

// echar decodes the ECHAR at s.i (a backslash followed by one of tbnrf"'\)
// or a UCHAR, appending the character to buf.
func (s *scanner) escape(buf []byte) ([]byte, *posErr) {
	if s.i+1 >= len(s.b) {
		return buf, s.errAt(s.i, "backslash at end of input")
	}
	c := s.b[s.i+1]
	var r byte
	switch c {
	case 't':
		r = '\t'
	case 'b':
		r = '\b'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 'f':
		r = '\f'
	case '"', '\'', '\\':
		r = c
	case 'u', 'U':
		u, e := s.uchar()
		if e != nil {
			return buf, e
		}
		return utf8.AppendRune(buf, u), nil
	default:
		return buf, s.errAt(s.i, "bad escape \\%s in string: allowed are \\t \\b \\n \\r \\f \\\" \\' \\\\ \\uXXXX \\UXXXXXXXX", s.describe(s.i+1))
	}
	s.i += 2
	return append(buf, r), nil
}

// shortString scans a single-line string delimited by q (s.b[s.i] == q):
// STRING_LITERAL_QUOTE or STRING_LITERAL_SINGLE_QUOTE. It returns the
// decoded lexical form.
func (s *scanner) shortString(q byte) (string, *posErr) {
	start := s.i
	// Fast path: no escape, no line break, valid UTF-8 up to the closing
	// quote, found with the vectorised bytes.IndexByte.
	if k := bytes.IndexByte(s.b[start+1:], q); k >= 0 {
		seg := s.b[start+1 : start+1+k]
		if bytes.IndexByte(seg, '\\') < 0 && bytes.IndexByte(seg, '\n') < 0 && bytes.IndexByte(seg, '\r') < 0 && utf8.Valid(seg) {
			s.i = start + 2 + k
			return string(seg), nil
		}
	}
	j := s.i + 1
	high := false
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == q:
			if high {
				if e := s.checkUTF8(start+1, j); e != nil {
					return "", e
				}
			}
			s.i = j + 1
			return string(s.b[start+1 : j]), nil
		case c == '\\':
			return s.shortStringSlow(start, q)
		case c == '\n' || c == '\r':
			return "", s.errAt(start, "unterminated string: missing closing %c before end of line", q)
		case c >= utf8.RuneSelf:
			high = true
		}
		j++
	}
	return "", s.errAt(start, "unterminated string: missing closing %c", q)
}

func (s *scanner) shortStringSlow(start int, q byte) (string, *posErr) {
	buf := s.scratch[:0]
	s.i = start + 1
	var e *posErr
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == q:
			s.i++
			s.scratch = buf
			return string(buf), nil
		case c == '\\':
			if buf, e = s.escape(buf); e != nil {
				return "", e
			}
		case c == '\n' || c == '\r':
			return "", s.errAt(start, "unterminated string: missing closing %c before end of line", q)
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", s.errAt(s.i, "invalid UTF-8 byte 0x%02x", c)
			}
			buf = append(buf, s.b[s.i:s.i+n]...)
			s.i += n
		default:
			buf = append(buf, c)
			s.i++
		}
	}
	return "", s.errAt(start, "unterminated string: missing closing %c", q)
}

// langTag scans LANGTAG at '@': '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*. It
// returns the tag without '@'.
func (s *scanner) langTag() (string, *posErr) {
	start := s.i
	j := s.i + 1
	for j < len(s.b) && isAlpha(s.b[j]) {
		j++
	}
	if j == start+1 {
		return "", s.errAt(start, "bad language tag: '@' must be followed by letters")
	}
	for j < len(s.b) && s.b[j] == '-' {
		k := j + 1
		for k < len(s.b) && (isAlpha(s.b[k]) || isDigit(s.b[k])) {
			k++
		}
		if k == j+1 {
			return "", s.errAt(j, "bad language tag: '-' must be followed by letters or digits")
		}
		j = k
	}
	s.i = j
	return string(s.b[start+1 : j]), nil
}

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isPNCharsBase implements PN_CHARS_BASE.
func isPNCharsBase(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// isPNCharsU implements PN_CHARS_U (Turtle): PN_CHARS_BASE | '_'.
func isPNCharsU(r rune) bool { return r == '_' || isPNCharsBase(r) }

// isPNChars implements PN_CHARS: PN_CHARS_U | '-' | [0-9] | #xB7 |
// [#x300-#x36F] | [#x203F-#x2040].
func isPNChars(r rune) bool {
	return isPNCharsU(r) || r == '-' || (r >= '0' && r <= '9') || r == 0xB7 ||
		(r >= 0x300 && r <= 0x36F) || r == 0x203F || r == 0x2040
}

// runeAt decodes the rune at offset j. It returns (-1, 0) at the end of
// input and (-1, 1) for invalid UTF-8, so that neither matches a character
// class.
func (s *scanner) runeAt(j int) (rune, int) {
	if j >= len(s.b) {
		return -1, 0
	}
	if c := s.b[j]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, n := utf8.DecodeRune(s.b[j:])
	if r == utf8.RuneError && n <= 1 {
		return -1, 1
	}
	return r, n
}

// blankLabel scans BLANK_NODE_LABEL at "_:" and returns the label:
// '_:' (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?
// In N-Triples mode PN_CHARS_U also admits ':'.
func (s *scanner) blankLabel() (string, *posErr) {
	start := s.i
	if s.i+1 >= len(s.b) || s.b[s.i+1] != ':' {
		return "", s.errAt(start, "expected '_:' to start a blank node label")
	}
	j := s.i + 2
	r, n := s.runeAt(j)
	if !(isPNCharsU(r) || (r >= '0' && r <= '9') || (s.ntLabels && r == ':')) {
		return "", s.errAt(j, "bad blank node label: %s cannot start a label", s.describe(j))
	}
	j += n
	end := j // end of the label so far (excludes trailing dots)
	for {
		r, n = s.runeAt(j)
		if r == '.' {
			j += n
			continue
		}
		if n == 0 || !(isPNChars(r) || (s.ntLabels && r == ':')) {
			break
		}
		j += n
		end = j
	}
	s.i = end
	return string(s.b[start+2 : end]), nil
}
