package ltr

import (
	"fmt"
	"strconv"
	"strings"
)

// DocID returns the document id of the line, read from its comment in one
// of the forms documented in docs/ltr.md ("lovbench rank"):
//
//   - LETOR 3.0/4.0 (MQ2007, MQ2008, OHSUMED, ...): the comment starts with
//     "docid", optional spaces, "=", optional spaces and the id, e.g.
//     "#docid = GX000-00-0000000 inc = 1 prob = 0.086" gives
//     GX000-00-0000000; whatever follows the id is ignored.
//   - lovbench's own "# query term": the last word of the comment (query
//     words may contain spaces, the term never does). A one-word comment is
//     the id itself.
//
// A line without a comment has no id: DocID returns "" and no error, and
// WriteRun uses "row<N>". A comment that ends "= NUMBER" (a key = value
// list without a docid key, such as "inc = 1 prob = 0.086", whose last word
// is a value, not an id; a lovbench term is never a bare number) and a
// "docid =" with nothing after it are errors, rather than a wrong id.
func (d *Doc) DocID() (string, error) {
	c := strings.TrimSpace(d.Comment)
	if c == "" {
		return "", nil
	}
	if rest, ok := strings.CutPrefix(c, "docid"); ok {
		rest = strings.TrimLeft(rest, " \t")
		if rest, ok := strings.CutPrefix(rest, "="); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return "", fmt.Errorf("comment %q: \"docid =\" without an id", c)
			}
			return f[0], nil
		}
	}
	f := strings.Fields(c)
	if _, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil && len(f) >= 2 && f[len(f)-2] == "=" {
		return "", fmt.Errorf("comment %q is a key = value list without a docid key; lovbench reads \"#docid = ID ...\" (LETOR) or \"# query term\" (lovbench)", c)
	}
	return f[len(f)-1], nil
}

// Term returns the document id used in TREC runs (see DocID), or "" when
// the line has no comment or DocID fails on it.
func (d *Doc) Term() string {
	id, err := d.DocID()
	if err != nil {
		return ""
	}
	return id
}
