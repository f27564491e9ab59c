package features

import (
	"context"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/lovbench/lovbench/internal/refdata"
)

// TestPageRankReference checks PageRank against the published values of
// the 11-page example graph of the Wikipedia article "PageRank" (figure
// "PageRanks-Example", d = 0.85; values in percent, rounded to one
// decimal): A 3.3, B 38.4, C 34.3, D 3.9, E 8.1, F 3.9, G..K 1.6. A has no
// out-links (dangling).
func TestPageRankReference(t *testing.T) {
	const (
		A = iota
		B
		C
		D
		E
		F
		G
		H
		I
		J
		K
	)
	edges := []edge{{B, C}, {C, B}, {D, A}, {D, B}, {E, B}, {E, D}, {E, F}, {F, B}, {F, E},
		{G, B}, {G, E}, {H, B}, {H, E}, {I, B}, {I, E}, {J, E}, {K, E}}
	want := []float64{3.3, 38.4, 34.3, 3.9, 8.1, 3.9, 1.6, 1.6, 1.6, 1.6, 1.6}
	pr := pageRank(11, edges, 0.85)
	var sum float64
	for i, p := range pr {
		sum += p
		if math.Abs(100*p-want[i]) > 0.05 {
			t.Errorf("node %c: %.3f%%, want %.1f%%", 'A'+i, 100*p, want[i])
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("sum %g, want 1", sum)
	}
}

// TestPageRankMatchesGonum: on simple graphs pageRank equals gonum's
// network.PageRank.
func TestPageRankMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 5; trial++ {
		n := 8 + rng.Intn(12)
		g := simple.NewDirectedGraph()
		for i := 0; i < n; i++ {
			g.AddNode(simple.Node(int64(i)))
		}
		var edges []edge
		for k := 0; k < 2*n; k++ {
			u, v := rng.Intn(n), rng.Intn(n)
			if u == v || g.HasEdgeFromTo(int64(u), int64(v)) {
				continue
			}
			g.SetEdge(simple.Edge{F: simple.Node(int64(u)), T: simple.Node(int64(v))})
			edges = append(edges, edge{int32(u), int32(v)})
		}
		want := network.PageRank(g, 0.85, 1e-12)
		got := pageRank(n, edges, 0.85)
		for i := 0; i < n; i++ {
			if math.Abs(got[i]-want[int64(i)]) > 1e-8 {
				t.Fatalf("trial %d node %d: %g, gonum %g", trial, i, got[i], want[int64(i)])
			}
		}
	}
}

// TestBetweennessReference checks betweenness against the values for
// Krackhardt's kite (D. Krackhardt, "Assessing the Political Landscape",
// Administrative Science Quarterly 35(2), 1990), as tabulated e.g. in the
// NetworkX documentation of betweenness_centrality (normalised by
// 2/((n-1)(n-2)) = 1/36 there): Andre 0.833, Beverly 0.833, Carol 0,
// Diane 3.667, Ed 0, Fernando 8.333, Garth 8.333, Heather 14, Ike 8, Jane 0.
func TestBetweennessReference(t *testing.T) {
	adj := [][]int32{0: {1, 2, 3, 5}, 1: {3, 4, 6}, 2: {3, 5}, 3: {4, 5, 6}, 4: {6}, 5: {6, 7}, 6: {7}, 7: {8}, 8: {9}}
	var edges []edge
	for u, vs := range adj {
		for _, v := range vs {
			edges = append(edges, edge{int32(u), v})
		}
	}
	want := []float64{5.0 / 6, 5.0 / 6, 0, 11.0 / 3, 0, 25.0 / 3, 25.0 / 3, 14, 8, 0}
	got := betweenness(10, edges)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("node %d: %g, want %g", i, got[i], want[i])
		}
	}
	// Distances: Andre (0) to Jane (9) is 0-5-7-8-9, 4 edges.
	if d := newPathRows(10, edges).row(0)[9]; d != 4 {
		t.Errorf("distance Andre-Jane = %d, want 4", d)
	}
}

// TestBetweennessMatchesGonum: on random undirected graphs betweenness
// equals gonum's network.Betweenness (which counts ordered pairs) halved.
func TestBetweennessMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 5; trial++ {
		n := 10 + rng.Intn(20)
		g := simple.NewUndirectedGraph()
		for i := 0; i < n; i++ {
			g.AddNode(simple.Node(int64(i)))
		}
		var edges []edge
		for k := 0; k < 2*n; k++ {
			u, v := rng.Intn(n), rng.Intn(n)
			edges = append(edges, edge{int32(u), int32(v)}) // duplicates and loops too
			if u != v {
				g.SetEdge(simple.Edge{F: simple.Node(int64(u)), T: simple.Node(int64(v))})
			}
		}
		want := network.Betweenness(g)
		got := betweenness(n, edges)
		for i := 0; i < n; i++ {
			if math.Abs(got[i]-want[int64(i)]/2) > 1e-9 {
				t.Fatalf("trial %d node %d: %g, gonum/2 %g", trial, i, got[i], want[int64(i)]/2)
			}
		}
	}
}

// TestSharedCorpusInvariants loads the 83 shared vocabularies and checks
// invariants of every feature on pairs built from term labels.
// TestSharedCorpusInvariants checks the paper semantics on the shared
// corpus (TestSharedCorpusReference the reference semantics).
func TestSharedCorpusInvariants(t *testing.T) {
	dir := refdata.Path(t, "vocabularies")
	if testing.Short() {
		t.Skip("-short: loads the full vocabulary corpus")
	}
	c, err := Load(context.Background(), []string{dir}, LoadOptions{Semantics: SemanticsPaper})
	if err != nil {
		t.Fatal(err)
	}
	vs := c.Vocabularies()
	if len(vs) != 83 {
		t.Errorf("%d vocabularies, want 83 (one per named graph; _index is metadata)", len(vs))
	}
	for k := 0; k < 3; k++ {
		var sum float64
		for _, v := range vs {
			sum += v.PageRank[k]
		}
		if math.Abs(sum-1e5) > 1e-6 {
			t.Errorf("repository graph %d: PageRank sums to %.9f, want 1e5", k, sum)
		}
	}
	// Pairs: for every 40th term, a query from its first label (or local
	// name) paired with the term and with up to 20 matching terms.
	terms := c.Terms()
	var pairs []Pair
	for i := 0; i < len(terms); i += 40 {
		ti, _ := c.Term(terms[i])
		q := LocalName(ti.URI)
		if len(ti.Labels) > 0 {
			q = ti.Labels[0].Value
		}
		pairs = append(pairs, Pair{Query: q, Term: ti.URI})
		for j, m := range c.Matches(q) {
			if j == 20 {
				break
			}
			pairs = append(pairs, Pair{Query: q, Term: m})
		}
	}
	tab, rep, err := c.Extract(context.Background(), pairs, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unknown != 0 || len(tab.Rows) != len(pairs) {
		t.Fatalf("report %+v", rep)
	}
	// Determinism: a second load and one worker give identical values.
	checkReload(t, dir, LoadOptions{Semantics: SemanticsPaper}, pairs, nil, tab)
	for _, r := range tab.Rows {
		for j, v := range r.Values {
			f := tab.Features[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s(%q, %s) = %g", FeatureName(f), r.Query, r.Term, v)
			}
			if v < 0 {
				t.Fatalf("%s(%q, %s) = %g < 0", FeatureName(f), r.Query, r.Term, v)
			}
			switch f {
			case FeatBooleanMatch:
				if v != 0 && v != 1 {
					t.Fatalf("Boolean_Match_T = %g", v)
				}
			case FeatTextRelevancy, FeatQueryLength, FeatSubclasses, FeatSuperclasses, FeatRelations,
				FeatSiblings, FeatSubproperties, FeatSuperproperties:
				if v != math.Trunc(v) {
					t.Fatalf("%s = %g, want a count", FeatureName(f), v)
				}
			case FeatTFT:
				// 0 in the reference semantics for a term whose Java ontology
				// is no graph of the corpus (TFIDFScorer.tf).
				if (v < 0.5 && v != 0) || v > 1 {
					t.Fatalf("TF_T = %g, want [0.5, 1]", v)
				}
			case FeatHub, FeatMaxHub, FeatMinHub, FeatSemanticSimilarity:
				if v > 1 {
					t.Fatalf("%s = %g > 1", FeatureName(f), v)
				}
			}
		}
		// Every pair built from Matches must match (feature 1), except, in
		// the reference semantics, a term not typed in the graph of its
		// Java ontology: TextRelevancy still reads its local name there.
		foreignTyped := c.ref != nil && !c.ref.typedInOnt[c.termIdx[r.Term]]
		if r.Values[FeatBooleanMatch-1] != 1 && r.Values[FeatTextRelevancy-1] != 0 && !foreignTyped {
			t.Fatalf("Boolean_Match_T and Text_Relevancy_T disagree for (%q, %s)", r.Query, r.Term)
		}
	}
}

// checkReload checks determinism: a second load of dir with lo and an
// extraction of feats (nil: all) with one worker give tab again.
func checkReload(t *testing.T, dir string, lo LoadOptions, pairs []Pair, feats []int, tab *Table) {
	t.Helper()
	c2, err := Load(context.Background(), []string{dir}, lo)
	if err != nil {
		t.Fatal(err)
	}
	tab2, _, err := c2.Extract(context.Background(), pairs, ExtractOptions{Features: feats, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tab, tab2) {
		t.Error("a second load with one worker gives different features")
	}
}
