package features

import (
	"sort"
	"strings"

	"github.com/lovbench/lovbench/features/rdf"
)

// The graph features 8-16 under SemanticsReference: the graphs LOVBench's
// Java builds (LOVRepository.java, LOVMetadataRepository.java,
// JungGraphUtil.java) scored with JUNG 2.1.1's algorithms (jung.go).

// refVoafRelations are the voaf relations of the Java's voaf graph
// (LOVMetadataRepository.getAllVoafRelations, line 74): specializes,
// reliesOn, extends, metadataVoc, generalizes.
const refVoafRelations = relSpecializes | relReliesOn | relExtends | relMetadataVoc | relGeneralizes

// refRepositoryGraphs computes features 8-10 as PageRankImports,
// PageRankImplicit and PageRankVoaf do: JUNG PageRank (alpha 0.85 = random
// jump probability, 100 iterations) x 1e5 over a simple directed graph
// (SparseGraph, JungGraphUtil.createRepositoryGraph) whose nodes are only
// the URIs occurring in its pairs; a vocabulary whose graph name is no node
// gets 0 (PageRankImports.java lines 31-36).
//
//   - owl:imports (LOVRepository.getOwlImports, line 283): the pairs
//     (?a, ?b) of every "?a owl:imports ?b" in any graph, as written: a
//     vocabulary's node is its graph name, so an import naming
//     "http://x.org" does not reach the graph "http://x.org/".
//   - implicit imports (lines 306-330): the explicit pairs plus, for every
//     vocabulary O and every triple of O whose subject, predicate and object
//     are IRIs and one of which lies outside O (not a term of O, not
//     starting with O's URI, not in the rdf, rdfs, owl or xsd namespaces),
//     a pair (O, ontology(x)) for each of the three IRIs x starting with
//     http:// or https:// whose ontology differs from O and which is not O's
//     URI itself. So rdf:type in such a triple adds a pair to the rdf
//     vocabulary when the corpus holds one. ontology(x) is the graph name
//     of the vocabulary x belongs to (the corpus' namespace rule), else x
//     up to its last '/' or '#' (LOVPrefixes.getOntologyUriOfTermUri line
//     241).
//   - voaf: the pairs (O_i, O_j) with at least one of the five relations
//     above (derived as for the paper semantics when the corpus has no voaf
//     statements), each pair once.
func (bd *build) refRepositoryGraphs(voaf []edge) {
	b, c := bd.b, bd.c
	type pair struct{ from, to string }
	explicit := make(map[pair]bool)
	for _, ts := range b.gtriples {
		for _, t := range ts {
			if b.nodes[t.p].Value == iriImports {
				explicit[pair{b.nodes[t.s].Value, b.nodes[t.o].Value}] = true
			}
		}
	}
	implicit := make(map[pair]bool, len(explicit))
	for p := range explicit {
		implicit[p] = true
	}
	ontologyOf := func(id int32, s string) string {
		if u := bd.vocabOfNode(id); u >= 0 {
			return c.vocabs[u].uri
		}
		if i := strings.LastIndexAny(s, "/#"); i >= 0 {
			return s[:i]
		}
		return s
	}
	w3c := func(s string) bool {
		return strings.HasPrefix(s, "http://www.w3.org/1999/02/22-rdf-syntax-ns") || strings.HasPrefix(s, "http://www.w3.org/2000/01/rdf-schema") ||
			strings.HasPrefix(s, "http://www.w3.org/2002/07/owl") || strings.HasPrefix(s, "http://www.w3.org/2001/XMLSchema")
	}
	for v := range c.vocabs {
		o := c.vocabs[v].uri
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			ids := [3]int32{t.s, t.p, t.o}
			outside := false
			all := true
			for _, id := range ids {
				n := b.nodes[id]
				if n.Kind != rdf.IRI {
					all = false
					break
				}
				if bd.vocabOfNode(id) != int32(v) && !strings.HasPrefix(n.Value, o) && !w3c(n.Value) {
					outside = true
				}
			}
			if !all || !outside {
				continue
			}
			for _, id := range ids {
				s := b.nodes[id].Value
				if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
					continue
				}
				if to := ontologyOf(id, s); to != o && s != o {
					implicit[pair{o, to}] = true
				}
			}
		}
	}
	voafPairs := make(map[pair]bool)
	for _, e := range voaf {
		voafPairs[pair{c.vocabs[e.from].uri, c.vocabs[e.to].uri}] = true
	}
	for k, pairs := range []map[pair]bool{explicit, implicit, voafPairs} {
		var names []string
		for p := range pairs {
			names = append(names, p.from, p.to)
		}
		names = sortedUnique(names)
		idx := make(map[string]int32, len(names))
		for i, s := range names {
			idx[s] = int32(i)
		}
		edges := make([]edge, 0, len(pairs))
		for p := range pairs {
			edges = append(edges, edge{idx[p.from], idx[p.to]})
		}
		sort.Slice(edges, func(i, j int) bool {
			if edges[i].from != edges[j].from {
				return edges[i].from < edges[j].from
			}
			return edges[i].to < edges[j].to
		})
		pr := jungPageRank(len(names), edges, jungAlpha)
		for v := range c.vocabs {
			x := 0.0
			if i, ok := idx[c.vocabs[v].uri]; ok {
				x = pr[i] * jungScoreScale
			}
			c.vocabs[v].qi[FeatPageRankOwlImports+k] = x
		}
	}
}
