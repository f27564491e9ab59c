package features

import (
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// UnknownTermReason says why name is no term of the corpus (Resolve
// returned ok false), for the messages of every command that looks terms
// up (features, explain): a prefixed name whose prefix the corpus does not
// declare, with the two ways out (a LOV prefix file, or the full IRI); or
// a name that no graph of the corpus types as a class or property.
func (c *Corpus) UnknownTermReason(name string) string {
	name = strings.TrimSpace(name)
	if p, ok := prefixOf(name); ok {
		if len(c.prefixNS[p]) == 0 {
			return fmt.Sprintf("its prefix %s is not declared: the corpus declares no namespace for it (no Turtle @prefix, vann:preferredNamespacePrefix or rdfa:prefix declaration) and no prefix file gave one; "+
				"pass --prefixes with a prefix list (LOV's, SPARQL JSON; corpus.prefixes in a run configuration) or give the full IRI", textio.Quote(p+":"))
		}
		uri, _ := c.Resolve(name)
		return fmt.Sprintf("it expands to %s, which is not in the corpus (no graph types it as a class or property)", textio.Quote(uri))
	}
	return "not in the corpus (no graph types it as a class or property)"
}

// prefixOf returns the prefix of a prefixed name ("foaf" of
// "foaf:Person"), or ok false for a name that is no prefixed name: without
// a colon, an IRI ("http://...", with "//" after the colon), or a prefix
// that is not a Turtle prefix name (letters, digits, '_', '-', '.').
func prefixOf(name string) (string, bool) {
	i := strings.IndexByte(name, ':')
	if i < 0 || strings.HasPrefix(name[i+1:], "//") {
		return "", false
	}
	for _, r := range name[:i] {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			return "", false
		}
	}
	return name[:i], true
}
