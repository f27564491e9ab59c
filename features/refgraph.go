package features

import (
	"math"
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
			i, ok := idx[c.vocabs[v].uri]
			if ok {
				x = pr[i] * jungScoreScale
			}
			c.vocabs[v].qi[FeatPageRankOwlImports+k] = x
			bd.noteVocab(int32(v), FeatPageRankOwlImports+k, "repository graph: %d nodes, %d edges; %s is a node: %v (JUNG PageRank, jump probability 0.85, x 1e5)",
				len(names), len(edges), c.vocabs[v].uri, ok)
		}
	}
}

// refOntologyGraphs builds, for every vocabulary O, the ontology graph of
// LOVRepository.getOntologyGraphTriples (line 556) and computes features
// 11-14 and the paths of feature 16 as the Java does:
//
//   - Graph: for every ?p typed in O with one of the twelve property types,
//     every ?d with ?p rdfs:domain|schema:domainIncludes ?d (else the node
//     http://lovbench.com/placeholder#source) and every ?r with ?p
//     rdfs:range|schema:rangeIncludes ?r (else
//     http://lovbench.com/placeholder#sink), one edge d -> r named
//     "p::d::r" (JungGraphUtil.createOntologyGraph, a SparseMultigraph: one
//     edge per property and pair). Nodes are whatever occurs as d or r:
//     classes of any vocabulary, datatypes (xsd:string), blank nodes
//     (owl:unionOf lists), the two placeholders.
//   - Hub_T (HubDWRankScorer.getHubScores line 303): JUNG PageRank x 1e5
//     on the reversed directed graph; a term of O that is no node gets 0.
//     Max_Hub_O starts at 0 and Min_Hub_O at Double.MAX_VALUE and both run
//     over all terms of O, classes and properties, a term without a score
//     counting as 0 for the minimum (lines 312-330): Min_Hub_O is 0 as soon
//     as one term of O (usually a property) is no node.
//   - Betweenness_T (BetweennessScorer.runBetweennessScorer line 190):
//     JUNG's vertex and edge betweenness on the undirected graph, not
//     halved; a term's score is its vertex score plus the scores of the
//     edges it labels (line 212 maps an edge "p::d::r" to p), so a property
//     gets the betweenness of its edges.
//   - Paths for Semantic_Similarity_O: hop counts in the undirected graph
//     (DijkstraDistance without weights), placeholders and datatypes
//     included.
func (bd *build) refOntologyGraphs(byOnt [][]int32, typedProps []map[int32]bool) {
	b, c := bd.b, bd.c
	for v := range c.vocabs {
		gi := bd.vocabGraph[v]
		props := typedProps[v]
		dom := make(map[int32][]int32)
		rng := make(map[int32][]int32)
		for _, t := range b.gtriples[gi] {
			switch b.nodes[t.p].Value {
			case iriDomain, refSchemaDomainIncludes:
				dom[t.s] = append(dom[t.s], t.o)
			case iriRange, refSchemaRangeIncludes:
				rng[t.s] = append(rng[t.s], t.o)
			}
		}
		type jedge struct {
			name     string
			label    int32
			from, to string
		}
		var jedges []jedge
		var nodeNames []string
		for p := range props {
			ds := []string{refPlaceholderSource}
			if len(dom[p]) > 0 {
				ds = ds[:0]
				for _, d := range dom[p] {
					ds = append(ds, b.nodes[d].Value)
				}
			}
			rs := []string{refPlaceholderSink}
			if len(rng[p]) > 0 {
				rs = rs[:0]
				for _, r := range rng[p] {
					rs = append(rs, b.nodes[r].Value)
				}
			}
			ps := b.nodes[p].Value
			for _, d := range ds {
				for _, r := range rs {
					jedges = append(jedges, jedge{ps + "::" + d + "::" + r, p, d, r})
				}
			}
			nodeNames = append(nodeNames, ds...)
			nodeNames = append(nodeNames, rs...)
		}
		sort.Slice(jedges, func(i, j int) bool { return jedges[i].name < jedges[j].name })
		nodeNames = sortedUnique(nodeNames)
		idx := make(map[string]int32, len(nodeNames))
		for i, s := range nodeNames {
			idx[s] = int32(i)
		}
		n := len(nodeNames)
		edges := make([]edge, len(jedges))
		rev := make([]edge, len(jedges))
		names := make([]string, len(jedges))
		for i, e := range jedges {
			edges[i] = edge{idx[e.from], idx[e.to]}
			rev[i] = edge{idx[e.to], idx[e.from]}
			names[i] = e.name
		}
		hub := jungPageRank(n, rev, jungAlpha)
		vb, eb := jungBetweenness(n, edges, names)
		byLabel := make(map[int32]float64)
		for i, e := range jedges {
			byLabel[e.label] += eb[i]
		}
		vr := &c.vocabs[v]
		vr.og = &ontGraph{paths: newPathRows(n, edges)}
		// The terms typed in O's graph, as Betweenness_O and
		// Semantic_Similarity_O of O see them (refentry.go).
		ri := c.ref
		for _, e := range ri.entByVocab[v] {
			en := &ri.ent[e]
			uri := c.terms[en.term].uri
			en.betw = byLabel[bd.nodeOfTerm(en.term)]
			if i, ok := idx[uri]; ok {
				en.node = i
				en.betw += vb[i]
			}
			if ri.ontology[en.term] != int32(v) && !ri.underPrefix(uri, int32(v)) {
				en.betw = 0 // BetweennessScorer.runBetweennessScorer: scores outside O's term prefix are dismissed
			}
		}
		for _, ti := range byOnt[v] {
			t := &c.terms[ti]
			t.qi[FeatBetweennessT] = byLabel[bd.nodeOfTerm(ti)]
			if i, ok := idx[t.uri]; ok {
				t.node = i
				t.qi[FeatHub] = hub[i] * jungScoreScale
				t.qi[FeatBetweennessT] += vb[i]
			}
			if bd.traced(ti) {
				_, node := idx[t.uri]
				bd.note(FeatHub, "ontology graph of %s: %d nodes, %d edges; the term is a node: %v", vr.uri, n, len(edges), node)
				bd.note(FeatBetweennessT, "ontology graph of %s: %d nodes, %d edges; vertex score %g (0 if no node), scores of the edges the term labels %g",
					vr.uri, n, len(edges), t.qi[FeatBetweennessT]-byLabel[bd.nodeOfTerm(ti)], byLabel[bd.nodeOfTerm(ti)])
			}
		}
		maxHub, minHub := 0.0, math.MaxFloat64
		argMax, argMin := "", ""
		for _, ti := range vr.terms { // getAllTerms(ontology)
			h := 0.0
			if i, ok := idx[c.terms[ti].uri]; ok {
				h = hub[i] * jungScoreScale
				if h > maxHub {
					argMax = c.terms[ti].uri
				}
				maxHub = math.Max(maxHub, h)
			}
			if h < minHub {
				argMin = c.terms[ti].uri
			}
			minHub = math.Min(minHub, h)
		}
		vr.qi[FeatMaxHub], vr.qi[FeatMinHub] = maxHub, minHub
		bd.noteVocab(int32(v), FeatMaxHub, "over the %d terms of %s: the largest hub is %s's (0 if none)", len(vr.terms), vr.uri, argMax)
		bd.noteVocab(int32(v), FeatMinHub, "over the %d terms of %s: the smallest is %s's (a term that is no node counts 0)", len(vr.terms), vr.uri, argMin)
	}
}

// refSemanticSimilarity is feature 16 as SemanticSimilarityMeasure.getScore
// (lines 36-79) computes it: 0 for no matched class, 1 for one; otherwise
// the sum of the shortest-path lengths (hops in the undirected ontology
// graph of refOntologyGraphs) over the unordered pairs of matched classes,
// divided by the number of pairs. A pair without a path, or with a class
// that is no node of the graph, adds 0 but counts as a pair. This is the
// mean path length, where equation (6) prints 1/length. nodes are the
// classes' nodes in og, -1 for none.
func refSemanticSimilarity(og *ontGraph, nodes []int32) float64 {
	return meanPairScore(og, nodes, func(d uint16) float64 { return float64(d) })
}
