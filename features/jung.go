package features

import (
	"math"
	"slices"
)

// JUNG 2.1.1 (edu.uci.ics.jung, the graph library LOVBench's Java uses)
// emulated for the reference semantics (SemanticsReference). The Java's
// PageRankScorer runs JUNG's PageRank(graph, 0.85) with at most 100
// iterations and tolerance 1e-4 (PageRankScorer.java lines 385-395, 418-420)
// and multiplies every score by 1e5 (line 424); its BetweennessScorer runs
// importance.BetweennessCentrality(graph, true, true) on an undirected
// SparseMultigraph (BetweennessScorer.java line 192).
const (
	// jungAlpha is the second argument of JUNG's PageRank: the probability
	// of a random jump, so the damping factor in the usual sense is 0.15.
	jungAlpha      = 0.85
	jungMaxIter    = 100
	jungTolerance  = 0.0001
	jungScoreScale = 1e5
)

// jungPageRank computes what JUNG's PageRank(graph, alpha) (class
// PageRankWithPriors with uniform priors 1/n, AbstractIterativeScorer)
// computes on a directed graph with the given edges, in which parallel
// edges are separate edges (SparseMultigraph; the repository graphs are
// SparseGraphs built from sets of pairs and so have none):
//
//	x'(v) = (1-alpha) * sum_{e = w->v, w != v} x(w)/outdeg(w) + alpha/n
//	x''(v) = x'(v) + (1-alpha) * D/n,  D = sum of x(w) over w with outdeg 0
//
// outdeg counts parallel edges and self-loops; a self-loop carries nothing
// (JUNG divides by the adjusted incident count and skips w == v), so its
// share of the rank is lost. JUNG's quirks are kept: alpha is the jump
// probability; the change that stops the iteration is measured before the
// dangling rank D is added back; and max_delta is never reset between
// iterations (AbstractIterativeScorer.step/updateMaxDelta), so unless the
// very first iteration changes no score by 1e-4 or more, exactly 100
// iterations run.
func jungPageRank(n int, edges []edge, alpha float64) []float64 {
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	in := make([][]int32, n) // sources of in-edges, self-loops left out
	for _, e := range edges {
		out[e.from]++
		if e.from != e.to {
			in[e.to] = append(in[e.to], e.from)
		}
	}
	prior := 1 / float64(n)
	cur := make([]float64, n)
	next := make([]float64, n)
	for i := range cur {
		cur[i] = prior
	}
	maxDelta := 4.9e-324 // Double.MIN_VALUE, initialize()
	for iter := 1; ; iter++ {
		var dangling float64
		for v := 0; v < n; v++ {
			if out[v] == 0 {
				dangling += cur[v]
			}
			var input float64
			for _, w := range in[v] {
				input += cur[w] / float64(out[w])
			}
			next[v] = input*(1-alpha) + prior*alpha
			maxDelta = math.Max(maxDelta, math.Abs(cur[v]-next[v]))
		}
		if dangling > 0 {
			for v := range next {
				next[v] += (1 - alpha) * (dangling * prior)
			}
		}
		cur, next = next, cur
		if iter >= jungMaxIter || maxDelta < jungTolerance {
			return cur
		}
	}
}

// jungBetweenness computes what JUNG's importance.BetweennessCentrality
// with rankNodes and rankEdges computes on an undirected SparseMultigraph
// with n vertices and the given edges: Brandes' algorithm over all sources,
// vertex and edge scores NOT halved (JUNG halves only for instances of
// UndirectedGraph, which SparseMultigraph is not), so a vertex gets the
// Freeman value counted over ordered pairs.
//
// Paths run over distinct neighbours (getSuccessors is a set), so parallel
// edges do not multiply shortest paths. Each dependency sigma_v/sigma_w *
// (1+delta_w) of the pair (v predecessor of w) is credited to the one edge
// findEdge(v, w) returns: the first edge between v and w in v's
// HashSet of incident edges (javaFindEdge); names are the edges' JUNG
// names, in the order of edges.
func jungBetweenness(n int, edges []edge, names []string) (vertex, edgeScore []float64) {
	adj := undirectedAdjacency(n, edges)
	pick := javaFindEdge(n, edges, names, adj)
	vertex = make([]float64, n)
	edgeScore = make([]float64, len(edges))
	sigma := make([]float64, n)
	dist := make([]int, n)
	delta := make([]float64, n)
	order := make([]int32, 0, n)
	for s := 0; s < n; s++ {
		order = brandesForward(adj, s, sigma, dist, delta, order)
		for k := len(order) - 1; k >= 0; k-- {
			w := order[k]
			for i, v := range adj[w] {
				if dist[v] == dist[w]-1 {
					p := sigma[v] / sigma[w] * (1 + delta[w])
					delta[v] += p
					edgeScore[pick[w][i]] += p // findEdge(v, w)
				}
			}
			if int(w) != s {
				vertex[w] += delta[w]
			}
		}
	}
	return vertex, edgeScore
}

// javaFindEdge returns, for every vertex w and its k-th neighbour v
// (adj[w][k]), the edge JUNG's SparseMultigraph.findEdge(v, w) returns: the
// first edge joining v and w in the iteration order of v's outgoing-edge
// HashSet, which for undirected edges holds every edge incident to v.
// Java 8's HashSet iterates its buckets in index order, the index being
// (h ^ h>>>16) & (capacity-1) with h the String.hashCode of the edge name
// ("p::s::o", JungGraphUtil.createOntologyGraph line 112) and the capacity
// the one a default HashSet grows to for v's number of edges (16, doubled
// while more than 3/4 full); within a bucket, insertion order, which in the
// Java is the order of the SPARQL results and here the order of edges.
// (Buckets turned into trees, at 8 or more colliding names in a table of 64
// or more, are not emulated.)
func javaFindEdge(n int, edges []edge, names []string, adj [][]int32) [][]int32 {
	incident := make([][]int32, n)
	for i, e := range edges {
		incident[e.from] = append(incident[e.from], int32(i))
		if e.to != e.from {
			incident[e.to] = append(incident[e.to], int32(i))
		}
	}
	hashes := make([]uint32, len(edges))
	for i, s := range names {
		h := javaStringHash(s)
		hashes[i] = h ^ h>>16
	}
	// best[v][w]: the edge findEdge(v, w) returns.
	best := make([]map[int32]int32, n)
	for v := range incident {
		capacity := javaHashSetCapacity(len(incident[v]))
		m := make(map[int32]int32)
		bucket := make(map[int32]uint32)
		for _, ei := range incident[v] { // insertion order
			e := edges[ei]
			w := e.to
			if w == int32(v) {
				w = e.from
			}
			b := hashes[ei] & uint32(capacity-1)
			if _, ok := m[w]; !ok || b < bucket[w] {
				m[w], bucket[w] = ei, b
			}
		}
		best[v] = m
	}
	pick := make([][]int32, n)
	for w := range adj {
		pick[w] = make([]int32, len(adj[w]))
		for k, v := range adj[w] {
			pick[w][k] = best[v][int32(w)]
		}
	}
	return pick
}

// javaStringHash is Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over the UTF-16 code units, in 32-bit arithmetic.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + uint32(0xD800+(r>>10))
			h = 31*h + uint32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// javaHashSetCapacity is the table size of a java.util.HashSet created
// with the default constructor after k insertions of distinct elements.
func javaHashSetCapacity(k int) int {
	c := 16
	for k > c*3/4 {
		c *= 2
	}
	return c
}

// sortedUnique sorts and de-duplicates a slice of strings in place.
func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
