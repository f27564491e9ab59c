package features

import (
	"math"
	"slices"
	"sync"
)

// PageRank damping factor d (LOVBench equation (4)) and the scale the paper
// multiplies repository PageRank with (Section 5.1.3).
const (
	pageRankDamping = 0.85
	pageRankScale   = 1e5
	pageRankTol     = 1e-13
	pageRankMaxIter = 10000
)

// edge is a directed edge; parallel edges are separate entries.
type edge struct{ from, to int32 }

// pageRank computes PageRank over n nodes by power iteration (LOVBench
// equation (4), written as in [7] with the damping factor on the sum):
//
//	pr(i) = (1-d)/n + d * ( sum_{j->i} pr(j) * m(j,i)/out(j) + sum_{j dangling} pr(j)/n )
//
// where m(j,i) is the number of parallel edges j->i and out(j) the number of
// out-edges of j. The graph may be a multigraph (several properties between
// the same two ontologies or classes); nodes without out-edges spread their
// rank uniformly, so the result sums to 1. Equation (4) as printed omits the
// factor d before the sum and the dangling-node term; with them it is the
// PageRank of gonum's network.PageRank, which this function equals on simple
// graphs (tested) and generalises to multigraphs, which gonum's graph
// types cannot hold. Iteration stops when the L1 change is below 1e-13.
func pageRank(n int, edges []edge, d float64) []float64 {
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	for _, e := range edges {
		out[e.from]++
	}
	pr := make([]float64, n)
	next := make([]float64, n)
	for i := range pr {
		pr[i] = 1 / float64(n)
	}
	for iter := 0; iter < pageRankMaxIter; iter++ {
		var dangling float64
		for i, o := range out {
			if o == 0 {
				dangling += pr[i]
			}
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for _, e := range edges {
			next[e.to] += d * pr[e.from] / float64(out[e.from])
		}
		var delta float64
		for i := range pr {
			delta += math.Abs(next[i] - pr[i])
		}
		pr, next = next, pr
		if delta < pageRankTol {
			break
		}
	}
	return pr
}

// betweenness returns the betweenness centrality (LOVBench equation (5)) of
// the n nodes of the undirected graph with the given edges, counting each
// unordered pair {c_i, c_j} once (Freeman's definition; e.g. 14 for Heather
// in Krackhardt's kite). Parallel edges and self-loops do not change
// shortest paths and are dropped.
//
// It is Brandes' algorithm (U. Brandes, "A faster algorithm for betweenness
// centrality", J. Math. Sociol. 25(2), 2001), the algorithm of gonum's
// network.Betweenness, which it equals up to rounding (tested; gonum counts
// ordered pairs, hence the halving). It is written out here because
// gonum accumulates in map-iteration order, so its last bits change from run
// to run, and outputs must be byte-identical across runs.
func betweenness(n int, edges []edge) []float64 {
	adj := undirectedAdjacency(n, edges)
	cb := make([]float64, n)
	sigma := make([]float64, n)
	dist := make([]int, n)
	delta := make([]float64, n)
	order := make([]int32, 0, n)
	for s := 0; s < n; s++ {
		order = brandesForward(adj, s, sigma, dist, delta, order)
		// Dependencies in order of non-increasing distance; the
		// predecessors of w are its neighbours one step closer to s.
		for k := len(order) - 1; k > 0; k-- {
			w := order[k]
			for _, v := range adj[w] {
				if dist[v] == dist[w]-1 {
					delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
				}
			}
			cb[w] += delta[w]
		}
	}
	for i := range cb {
		cb[i] /= 2
	}
	return cb
}

// brandesForward is the breadth-first phase of Brandes' algorithm from
// source s over the adjacency lists adj: it resets delta, sets dist (hops
// from s, -1 when unreachable) and sigma (number of shortest paths from s)
// of every vertex, and returns the vertices reached in order of discovery
// (non-decreasing distance), reusing order. betweenness and
// jungBetweenness run their own dependency phase on it.
func brandesForward(adj [][]int32, s int, sigma []float64, dist []int, delta []float64, order []int32) []int32 {
	for i := range sigma {
		sigma[i], dist[i], delta[i] = 0, -1, 0
	}
	sigma[s], dist[s] = 1, 0
	order = append(order[:0], int32(s))
	for k := 0; k < len(order); k++ {
		v := order[k]
		for _, w := range adj[v] {
			if dist[w] < 0 {
				dist[w] = dist[v] + 1
				order = append(order, w)
			}
			if dist[w] == dist[v]+1 {
				sigma[w] += sigma[v]
			}
		}
	}
	return order
}

// undirectedAdjacency returns sorted, duplicate-free neighbour lists
// without self-loops.
func undirectedAdjacency(n int, edges []edge) [][]int32 {
	adj := make([][]int32, n)
	for _, e := range edges {
		if e.from == e.to {
			continue
		}
		adj[e.from] = append(adj[e.from], e.to)
		adj[e.to] = append(adj[e.to], e.from)
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	return adj
}

// unreachable marks "no path" in a distance row.
const unreachable = math.MaxUint16

// pathRows computes single-source shortest-path lengths (in edges) of an
// undirected graph by breadth-first search, on demand, and keeps them: an
// ontology graph only needs the rows of the classes some query matched, and
// an all-pairs matrix of a large ontology would not fit in memory. Safe for
// concurrent use; rows never change once computed.
type pathRows struct {
	adj  [][]int32
	mu   sync.Mutex
	rows map[int32][]uint16
}

func newPathRows(n int, edges []edge) *pathRows {
	return &pathRows{adj: undirectedAdjacency(n, edges), rows: make(map[int32][]uint16)}
}

// row returns the distances from s to every node (unreachable if none).
func (p *pathRows) row(s int32) []uint16 {
	p.mu.Lock()
	r, ok := p.rows[s]
	p.mu.Unlock()
	if ok {
		return r
	}
	r = make([]uint16, len(p.adj))
	for i := range r {
		r[i] = unreachable
	}
	r[s] = 0
	queue := []int32{s}
	for k := 0; k < len(queue); k++ {
		u := queue[k]
		for _, v := range p.adj[u] {
			if r[v] == unreachable {
				r[v] = r[u] + 1
				queue = append(queue, v)
			}
		}
	}
	p.mu.Lock()
	p.rows[s] = r
	p.mu.Unlock()
	return r
}
