package features

import "fmt"

// buildTrace records, while a corpus is built, the inputs behind the
// query-independent features of one term (Builder.SetTrace), for Explain.
// Build notes what it computes anyway; nothing is computed for the trace
// alone, and a corpus built without one pays a nil check per term.
type buildTrace struct {
	uri  string
	term int32 // index of the traced term, -1 until known
	// notes are the input lines per feature ID; 0 holds notes on the term
	// itself (its ontology and how it was chosen).
	notes map[int][]string
}

// SetTrace asks Build to record the inputs behind the query-independent
// features of the term uri, a full IRI or a prefixed name (Explain reads
// them). Empty: no trace.
func (b *Builder) SetTrace(uri string) { b.trace = uri }

// traced reports whether ti is the traced term.
func (bd *build) traced(ti int32) bool {
	tr := bd.c.trace
	return tr != nil && tr.term == ti
}

// note records an input line of feature f for the traced term.
func (bd *build) note(f int, format string, args ...any) {
	tr := bd.c.trace
	tr.notes[f] = append(tr.notes[f], fmt.Sprintf(format, args...))
}

// noteVocab records an input line of feature f when vocabulary v is the
// ontology whose values the traced term takes (its Java ontology in the
// reference semantics, its vocabulary in the paper semantics).
func (bd *build) noteVocab(v int32, f int, format string, args ...any) {
	tr := bd.c.trace
	if tr == nil || tr.term < 0 {
		return
	}
	ont := bd.c.terms[tr.term].vocab
	if bd.c.ref != nil && bd.c.ref.ontology != nil {
		ont = bd.c.ref.ontology[tr.term]
	}
	if ont == v {
		bd.note(f, format, args...)
	}
}
