package features

import (
	"fmt"

	"github.com/lovbench/lovbench/features/rdf"
)

// IRIs the reference semantics of the graph and structure features read
// beyond those of vocab.go (LOVRepository.java, AbstractOntologyRepository.java).
const (
	refSchemaDomainIncludes = "http://schema.org/domainIncludes"
	refSchemaRangeIncludes  = "http://schema.org/rangeIncludes"
	refRDFDomain            = nsRDF + "domain" // "rdf:domain", queried by countRelations
	refOWLThing             = nsOWL + "Thing"
	refPlaceholderSource    = "http://lovbench.com/placeholder#source"
	refPlaceholderSink      = "http://lovbench.com/placeholder#sink"
)

// refPropertyType reports whether an rdf:type object is one of the twelve
// property types of the Java's TYPE_PROPERTY_VALUES
// (AbstractOntologyRepository.java lines 54-67): the six of termKind plus
// owl:FunctionalProperty, InverseFunctionalProperty, IrreflexiveProperty,
// ReflexiveProperty, TransitiveProperty and AsymmetricProperty.
func refPropertyType(typeIRI string) bool {
	switch typeIRI {
	case iriRDFProperty, iriRDFSProperty, iriOWLObjProp, iriOWLDataProp, iriOWLAnnotProp, iriOWLOntProp,
		nsOWL + "FunctionalProperty", nsOWL + "InverseFunctionalProperty", nsOWL + "IrreflexiveProperty",
		nsOWL + "ReflexiveProperty", nsOWL + "TransitiveProperty", nsOWL + "AsymmetricProperty":
		return true
	}
	return false
}

// refTyped returns the nodes graph gi types as classes (rdfs:Class,
// owl:Class: TYPE_CLASS_VALUES) and as properties (refPropertyType). Any
// node kind counts, as in the SPARQL patterns "?x a ?classType".
func (bd *build) refTyped(gi int) (classes, props map[int32]bool) {
	b := bd.b
	classes, props = make(map[int32]bool), make(map[int32]bool)
	for _, t := range b.gtriples[gi] {
		if b.nodes[t.p].Value != iriType || b.nodes[t.o].Kind != rdf.IRI {
			continue
		}
		switch o := b.nodes[t.o].Value; {
		case o == iriRDFSClass || o == iriOWLClass:
			classes[t.s] = true
		case refPropertyType(o):
			props[t.s] = true
		}
	}
	return classes, props
}

// refStructure computes features 26-30, 32 and 33 of every term as
// LOVBench's Java does (SemanticsReference): the SPARQL of
// LOVRepository.java run in the graph of the term's own vocabulary O
// (TermStatsScorer.java lines 33-73 pass the term's ontology):
//
//   - Subclasses_T (countSubClasses, line 467): distinct ?x typed as a class
//     in O with ?x rdfs:subClassOf+ t: all descendants, through any
//     intermediate nodes of O (blank nodes and untyped IRIs included), t
//     itself when a cycle leads back to it.
//   - Superclasses_T (countSuperClasses, line 484): distinct ?x typed as a
//     class in O with t rdfs:subClassOf+ ?x.
//   - Relations_T (countRelations, line 501): distinct ?p typed as a
//     property in O (twelve types) with ?p rdf:domain|rdfs:domain|
//     schema:domainIncludes t. Ranges do not count.
//   - Siblings_T (countSiblings, line 509): distinct ?x typed as a class in O
//     with t rdfs:subClassOf ?s and ?x rdfs:subClassOf ?s for a direct
//     parent ?s other than owl:Thing; t itself counts (when typed as a
//     class in O) as soon as it has such a parent.
//   - Subproperties_T / Superproperties_T (countSubProperties, line 527,
//     countSuperProperties, line 533): as the class counts over
//     rdfs:subPropertyOf+, the other end typed as a property in O.
//   - Density_T (DensityMeasureTerm.java line 56): 1.0*sub + 0.25*super +
//     0.5*relations + 0.5*siblings.
//
// byOnt are the terms of each vocabulary (refTermsByOntology),
// typedClasses and typedProps its graph's typed nodes (refTyped).
//
// The Java computes all six counts for every term, class or property (a
// property usually has no subclasses, so its class counts are 0, and vice
// versa). The closures are computed once here, by breadth-first search per
// term.
func (bd *build) refStructure(byOnt [][]int32, typedClasses, typedProps []map[int32]bool) {
	b, c := bd.b, bd.c
	for v := range c.vocabs {
		gi := bd.vocabGraph[v]
		classes, props := typedClasses[v], typedProps[v]
		subC, supC := make(map[int32][]int32), make(map[int32][]int32) // child->parents, parent->children
		subP, supP := make(map[int32][]int32), make(map[int32][]int32)
		domainOf := make(map[int32]map[int32]bool) // class -> properties with it as domain
		for _, t := range b.gtriples[gi] {
			switch b.nodes[t.p].Value {
			case iriSubClassOf:
				subC[t.s] = append(subC[t.s], t.o)
				supC[t.o] = append(supC[t.o], t.s)
			case iriSubPropertyOf:
				subP[t.s] = append(subP[t.s], t.o)
				supP[t.o] = append(supP[t.o], t.s)
			case iriDomain, refRDFDomain, refSchemaDomainIncludes:
				if props[t.s] {
					if domainOf[t.o] == nil {
						domainOf[t.o] = make(map[int32]bool)
					}
					domainOf[t.o][t.s] = true
				}
			}
		}
		thing, hasThing := b.dict[rdf.NewIRI(refOWLThing)]
		// Typed children of every direct parent (sibling counts).
		typedChildren := make(map[int32]int)
		for p, ch := range supC {
			for _, x := range ch {
				if classes[x] {
					typedChildren[p]++
				}
			}
		}
		seen := make(map[int32]bool)
		var queue []int32
		closure := func(start int32, next map[int32][]int32, typed map[int32]bool) int {
			clear(seen)
			queue = queue[:0]
			for _, x := range next[start] {
				if !seen[x] {
					seen[x] = true
					queue = append(queue, x)
				}
			}
			n := 0
			for k := 0; k < len(queue); k++ {
				x := queue[k]
				if typed[x] {
					n++
				}
				for _, y := range next[x] {
					if !seen[y] {
						seen[y] = true
						queue = append(queue, y)
					}
				}
			}
			return n
		}
		for _, ti := range byOnt[v] {
			t := &c.terms[ti]
			n := bd.nodeOfTerm(ti)
			t.qi[FeatSubclasses] = float64(closure(n, supC, classes))
			if bd.traced(ti) {
				bd.note(FeatSubclasses, "in %s: %s", c.vocabs[v].uri, bd.typedNames(queue, classes))
			}
			t.qi[FeatSuperclasses] = float64(closure(n, subC, classes))
			if bd.traced(ti) {
				bd.note(FeatSuperclasses, "in %s: %s", c.vocabs[v].uri, bd.typedNames(queue, classes))
			}
			t.qi[FeatSubproperties] = float64(closure(n, supP, props))
			if bd.traced(ti) {
				bd.note(FeatSubproperties, "in %s: %s", c.vocabs[v].uri, bd.typedNames(queue, props))
			}
			t.qi[FeatSuperproperties] = float64(closure(n, subP, props))
			if bd.traced(ti) {
				bd.note(FeatSuperproperties, "in %s: %s", c.vocabs[v].uri, bd.typedNames(queue, props))
			}
			t.qi[FeatRelations] = float64(len(domainOf[n]))
			if bd.traced(ti) {
				var ps []int32
				for p := range domainOf[n] {
					ps = append(ps, p)
				}
				bd.note(FeatRelations, "in %s: %s", c.vocabs[v].uri, bd.typedNames(ps, props))
			}
			var parents []int32
			for _, p := range subC[n] {
				if !(hasThing && p == thing) {
					parents = append(parents, p)
				}
			}
			var sib int
			switch len(parents) {
			case 0:
			case 1:
				sib = typedChildren[parents[0]]
			default:
				set := make(map[int32]bool)
				for _, p := range parents {
					for _, x := range supC[p] {
						if classes[x] {
							set[x] = true
						}
					}
				}
				sib = len(set)
			}
			t.qi[FeatSiblings] = float64(sib)
			if bd.traced(ti) {
				var sibs []int32
				for _, p := range parents {
					sibs = append(sibs, supC[p]...)
				}
				bd.note(FeatSiblings, "in %s: direct parents other than owl:Thing %s; their typed children %s",
					c.vocabs[v].uri, bd.names(parents), bd.typedNames(sibs, classes))
			}
			t.qi[FeatDensityT] = densitySub*t.qi[FeatSubclasses] + densitySuper*t.qi[FeatSuperclasses] +
				densityRel*t.qi[FeatRelations] + densitySib*t.qi[FeatSiblings]
		}
	}
}

// refTermsByOntology groups the terms by the vocabulary in whose graph the
// Java evaluates their term features: TermStatsScorer (lines 33-73),
// HubDWRank and BetweennessMeasureTerm pass term.getOntologyUriOfTerm(),
// the Java's ontology of a term (longest LOV term prefix, else the URI up
// to its last '/' or '#'; refIndex.ontology). A term whose ontology is no
// graph of the corpus is in no group.
func (bd *build) refTermsByOntology() [][]int32 {
	c := bd.c
	out := make([][]int32, len(c.vocabs))
	if c.ref == nil || c.ref.ontology == nil {
		for v := range c.vocabs {
			out[v] = c.vocabs[v].terms
		}
		return out
	}
	for t, v := range c.ref.ontology {
		if v >= 0 {
			out[v] = append(out[v], int32(t))
		}
	}
	return out
}

// names lists nodes by their values, sorted and distinct, for a trace.
func (bd *build) names(nodes []int32) string {
	var out []string
	for _, n := range nodes {
		out = append(out, bd.b.nodes[n].Value)
	}
	out = sortedUnique(out)
	return fmt.Sprintf("%d %v", len(out), out)
}

// typedNames is names over the nodes in typed.
func (bd *build) typedNames(nodes []int32, typed map[int32]bool) string {
	var keep []int32
	for _, n := range nodes {
		if typed[n] {
			keep = append(keep, n)
		}
	}
	return bd.names(keep)
}
