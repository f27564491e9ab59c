package features

import (
	"sort"

	"github.com/lovbench/lovbench/features/rdf"
)

// How a file's default-graph statements are named (the "names" build phase).
//
// A vocabulary is named by its ontology IRI whatever the format of its file
// (docs/features.md, "Vocabulary names"): the default-graph statements of a
// file (Builder.SetSource; all statements of a Turtle or N-Triples file)
// form a graph named, in this order,
//
//  1. by the one IRI the statements type owl:Ontology
//     ("<O> rdf:type owl:Ontology"), when exactly one IRI is so typed;
//  2. else, when no IRI is typed owl:Ontology and the statements type a
//     class or property, by the one vann:preferredNamespaceUri value they
//     give, when exactly one distinct value is given;
//  3. else by the file's name (its file:// URI, as before), a fallback that
//     Load logs as a warning when the graph is a vocabulary: a file
//     declaring two ontologies, or one defining terms with no ontology
//     header and no single namespace.
//
// An N-Quads file's named graphs keep their graph names (LOV's dumps name
// every graph by its vocabulary URI). When a file's name found this way is
// already the name of another graph (a named graph, or another file of the
// same ontology), the statements are merged into that graph, duplicates
// counting once, so an ontology has one graph whatever the files it comes
// in. Rule 1 is what makes "?a owl:imports ?b" meet vocabularies: the
// subject and object of owl:imports are ontology IRIs.

// Naming rules recorded in SourceName.Rule.
const (
	NamedByOntology  = "owl:Ontology"
	NamedByNamespace = "vann:preferredNamespaceUri"
	NamedByFile      = "file"
)

// SourceName records how the default-graph statements of one source (a
// file) were named.
type SourceName struct {
	// Source is the source's name (the file:// URI Load gives it).
	Source string `json:"source"`
	// Name is the graph name given: the ontology IRI, the namespace, or
	// Source.
	Name string `json:"name"`
	// Rule is NamedByOntology, NamedByNamespace or NamedByFile.
	Rule string `json:"rule"`
	// Why says, for NamedByFile, why no other rule applied.
	Why string `json:"why,omitempty"`
	// Candidates lists the ontology IRIs (or namespaces) found when
	// several made the name ambiguous.
	Candidates []string `json:"candidates,omitempty"`
	// Vocabulary is true when the graph holds a vocabulary (it types a
	// class or property or declares an owl:Ontology).
	Vocabulary bool `json:"vocabulary"`
}

// nameSources renames each source graph (default-graph statements of a
// file given by SetSource) after its ontology, merging graphs that end up
// with one name (see the comment above). It returns one record per source
// graph, in graph order.
func (b *Builder) nameSources() []SourceName {
	var out []SourceName
	for gi := 0; gi < len(b.gnames); gi++ {
		if !b.gdefault[gi] || !b.gsource[gi] {
			continue
		}
		b.gsource[gi] = false // named once, even when Build runs again
		src := b.gnames[gi]
		sn := b.sourceName(gi)
		out = append(out, sn)
		if sn.Name == src {
			continue
		}
		if gj, ok := b.graphIdx[sn.Name]; ok {
			for _, t := range b.gtriples[gi] {
				if _, dup := b.gseen[gj][t]; !dup {
					b.gseen[gj][t] = struct{}{}
					b.gtriples[gj] = append(b.gtriples[gj], t)
				}
			}
			b.deleteGraph(gi)
			gi--
			continue
		}
		delete(b.graphIdx, src)
		b.graphIdx[sn.Name] = gi
		b.gnames[gi] = sn.Name
	}
	return out
}

// sourceName applies the naming rules to graph gi.
func (b *Builder) sourceName(gi int) SourceName {
	src := b.gnames[gi]
	sn := SourceName{Source: src, Name: src, Rule: NamedByFile}
	onts := map[string]bool{}
	nss := map[string]bool{}
	typesTerm := false
	for _, t := range b.gtriples[gi] {
		p := b.nodes[t.p].Value
		switch {
		case p == iriType && b.nodes[t.o].Kind == rdf.IRI && b.nodes[t.o].Value == iriOntology:
			if b.nodes[t.s].Kind == rdf.IRI {
				onts[b.nodes[t.s].Value] = true
			}
		case p == iriType && b.nodes[t.o].Kind == rdf.IRI && termKind(b.nodes[t.o].Value) != 0:
			typesTerm = true
		case p == iriVannURI && b.nodes[t.o].Kind != rdf.Blank && b.nodes[t.o].Value != "":
			nss[b.nodes[t.o].Value] = true
		}
	}
	sn.Vocabulary = typesTerm || len(onts) > 0
	switch {
	case len(onts) == 1:
		sn.Rule = NamedByOntology
		for o := range onts {
			sn.Name = o
		}
	case len(onts) > 1:
		sn.Why = "it declares several owl:Ontology IRIs"
		sn.Candidates = sortedKeys(onts)
	case !typesTerm:
		sn.Why = "it declares no owl:Ontology and types no class or property"
	case len(nss) == 1:
		sn.Rule = NamedByNamespace
		for ns := range nss {
			sn.Name = ns
		}
	case len(nss) > 1:
		sn.Why = "it declares no owl:Ontology and several vann:preferredNamespaceUri values"
		sn.Candidates = sortedKeys(nss)
	default:
		sn.Why = "it declares no owl:Ontology and no vann:preferredNamespaceUri"
	}
	return sn
}

// deleteGraph removes graph gi, renumbering the graphs after it.
func (b *Builder) deleteGraph(gi int) {
	delete(b.graphIdx, b.gnames[gi])
	b.gnames = append(b.gnames[:gi], b.gnames[gi+1:]...)
	b.gtriples = append(b.gtriples[:gi], b.gtriples[gi+1:]...)
	b.gseen = append(b.gseen[:gi], b.gseen[gi+1:]...)
	b.gdefault = append(b.gdefault[:gi], b.gdefault[gi+1:]...)
	b.gsource = append(b.gsource[:gi], b.gsource[gi+1:]...)
	for j := gi; j < len(b.gnames); j++ {
		b.graphIdx[b.gnames[j]] = j
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
