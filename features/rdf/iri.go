package rdf

import "strings"

// hasScheme reports whether s starts with an RFC 3986 scheme followed by
// ':' (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), i.e. whether s is an
// absolute IRI rather than a relative reference.
func hasScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return true
		case isAlpha(c), isDigit(c), c == '+', c == '-', c == '.':
		default:
			return false
		}
	}
	return false
}

// iriParts are the five components of RFC 3986 section 3 (Appendix B).
type iriParts struct {
	scheme, authority, path, query, fragment string
	hasAuth, hasQuery, hasFrag               bool
}

func splitIRI(s string) iriParts {
	var p iriParts
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		p.scheme, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFrag, s = s[i+1:], true, s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery, s = s[i+1:], true, s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.authority, p.hasAuth, s = s[:i], true, s[i:]
	}
	p.path = s
	return p
}

func (p iriParts) String() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuth {
		b.WriteString("//")
		b.WriteString(p.authority)
	}
	b.WriteString(p.path)
	if p.hasQuery {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.hasFrag {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return b.String()
}

// Resolve resolves the IRI reference ref against the absolute base IRI
// following RFC 3986 section 5.2.2 (strict parser) with the merge of 5.2.3
// and remove_dot_segments of 5.2.4. An absolute ref is returned unchanged
// (its dot segments are not normalised, as most RDF parsers do).
func Resolve(base, ref string) string {
	if hasScheme(ref) {
		return ref
	}
	b := splitIRI(base)
	r := splitIRI(ref)
	var t iriParts
	switch {
	case r.hasAuth:
		t.authority, t.hasAuth = r.authority, true
		t.path = removeDotSegments(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	case r.path == "":
		t.authority, t.hasAuth = b.authority, b.hasAuth
		t.path = b.path
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	default:
		t.authority, t.hasAuth = b.authority, b.hasAuth
		if r.path[0] == '/' {
			t.path = removeDotSegments(r.path)
		} else {
			t.path = removeDotSegments(mergePaths(b, r.path))
		}
		t.query, t.hasQuery = r.query, r.hasQuery
	}
	t.scheme = b.scheme
	t.fragment, t.hasFrag = r.fragment, r.hasFrag
	return t.String()
}

// mergePaths is RFC 3986 section 5.2.3.
func mergePaths(b iriParts, rpath string) string {
	if b.hasAuth && b.path == "" {
		return "/" + rpath
	}
	i := strings.LastIndexByte(b.path, '/')
	return b.path[:i+1] + rpath
}

// removeDotSegments is RFC 3986 section 5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each starting with '/' except maybe the first
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i])
			in = in[i:]
		}
	}
	return strings.Join(out, "")
}
