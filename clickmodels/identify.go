package clickmodels

import (
	"context"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// What a log identifies, and what goes into the interval where it does not
// (docs/clickmodels.md, "What a log identifies"; docs/method.md section 3).
//
// PBM and UBM model a click as attractiveness times examination,
// P(C_r = 1) = alpha_qd * gamma_r (UBM: gamma_{r, previous click}), with no
// rank examined by definition. (alpha * c, gamma / c) then gives every
// SERP the same probability, so the likelihood is flat along this scale
// ridge and no amount of data fixes c: only every probability being at
// most 1 bounds it. Which parameters share one scale follows the
// identifiability graph of Chen et al., "Identifiability Matters:
// Revealing the Hidden Recoverable Condition in Unbiased Learning to
// Rank" (ICML 2024): its nodes are the ranks (the examination parameters),
// and an edge joins two ranks at which the same (query, document) pair
// was shown; the parameters are recoverable up to one scale iff the graph
// is connected, and each connected component has a scale of its own.
// For UBM the nodes are the ranks, not the (rank, previous click)
// parameters, so a connected graph is necessary for UBM, not sufficient:
// the scale of one rank's examination parameters among themselves is
// taken as fixed.
//
// Convention. The point estimate keeps the scale the EM reaches from
// PyClick's start (every parameter 0.5, prior Beta(1, 1)), so the
// relevance column stays equal to PyClick's. Along the ridge EM drifts
// until one parameter reaches its bound 1, so the fitted scale is near one
// end of the identified set; which end depends on the log (measured: the
// rank-1 examination at 0.998-0.999 after 200 iterations on the 10-60 k
// SERP logs of both simulators, whose truths are 0.95, 0.97 and 0.8; the
// largest attractiveness at 0.998 on 1 M SERPs over 300 queries, rank 1
// then at 0.923). The interval covers the identified set instead: for a
// component k of the graph, the scales c with every examination parameter gamma / c
// <= 1 and every attractiveness alpha * c <= 1. The first bound is c >=
// max_k gamma (the fitted maximum: examination parameters are global and
// known far more precisely than any pair's attractiveness). The second
// is c <= 1 / max_k alpha over the true attractiveness at the fitted
// scale, which the log gives only through each pair's posterior; the
// fitted maximum is the largest of thousands of noisy estimates, biased
// up (measured: 0.971 for a pair of 22 evidence whose true attractiveness
// is 0.92, 0.86 at the fitted scale), and
// it cut the set short of the truth. So the bound is taken on lower
// confidence bounds rather than on the point estimates: c_max = 1 / L_k,
// L_k the largest over the component's n_k pairs of the (1 - level) /
// (2 n_k) quantile of the pair's posterior at the fitted scale. The true
// scale exceeds c_max only if some pair's attractiveness lies below its
// bound, which by the union bound has probability at most (1 - level) /
// 2, the tail the interval leaves above. (Each pair's bound at its own
// level, the lower ends of the intervals, was measured too: the largest
// of many such bounds is itself biased up, and on 836,020 pairs of a 1 M
// SERP sparse log it stopped short of the truth, c_max 1.072 for a truth
// near 1.075 (fitted / true 0.93), best-observed fifth covered at 0.848; with the correction
// 1.108 and 0.875.) c_max is never below 1 / max_k alpha (a pair's bound
// may lie above its own point estimate, where the prior pulls it). The
// interval of a pair is the union over c in [c_min, c_max] of its
// posterior interval scaled by c: [c_min * lower, min(1, c_max * upper)].
// The Beta written beside it (alpha, beta; the labels' confidence) is the
// Beta with the first two moments of c * X, X the pair's posterior at the
// fitted scale and c uniform on [c_min, c_point], c_point = 1 / max_k
// alpha by the point estimates (the likelihood does not prefer any c): a
// label whose band the scale decides gets a low confidence. Spreading it
// over the whole [c_min, c_max] was measured and rejected: where a
// component holds only weakly observed pairs (one per rank of a log of
// fixed lists, a few SERPs per query) c_max reaches 2-3 and the labels'
// confidence fell far below their accuracy (ECE 0.026 -> 0.073 on the
// sparse corpus log of pipeline/calibration's TestCalibrationCorpusSparse).
// The interval covers the set; the confidence is that of its plug-in
// estimate.

// ScaleRidge reports whether the likelihood of kind is flat along a scale
// ridge (alpha * c, gamma / c): PBM and UBM, the models in which no rank
// is examined by definition. In the others the first rank is examined
// (cascade models) or no examination is modelled (CTR models).
func (k Kind) ScaleRidge() bool { return k == PBM || k == UBM }

// maxGraphRanks is the most ranks the identifiability graph is built for
// (a pair's ranks are one uint64 bit set, Evidence.Ranks).
const maxGraphRanks = 64

// Identification says in metrics.json what the log identifies of a model
// with a scale ridge (ScaleRidge): the connected components of its
// identifiability graph and the scales each leaves open.
type Identification struct {
	// Graph names the graph's nodes and edges.
	Graph string `json:"graph"`
	// Connected is true when the graph has one component: every
	// relevance is identified up to one common scale.
	Connected  bool                      `json:"connected"`
	Components []IdentificationComponent `json:"components"`
	// Warning is set when the graph is disconnected, in the words the fit
	// logs.
	Warning string `json:"warning,omitempty"`
}

// IdentificationComponent is one connected component of the
// identifiability graph.
type IdentificationComponent struct {
	// Ranks are the component's ranks (1-based).
	Ranks []int `json:"ranks"`
	// Pairs counts the (query, document) pairs shown at its ranks.
	Pairs int64 `json:"pairs"`
	// MaxExamination and MaxAttractiveness are the largest fitted
	// examination parameter of its ranks and attractiveness of its pairs;
	// AttractivenessBound is the largest lower confidence bound of its
	// pairs' attractiveness at the fitted scale (each pair's posterior
	// quantile at (1 - level) / (2 Pairs)). ScaleMin = MaxExamination and
	// ScaleMax = 1 / AttractivenessBound bound the scales c of
	// (alpha * c, gamma / c) that keep every probability at most 1 and
	// that the log does not reject.
	// ScaleMaxPoint = 1 / MaxAttractiveness is the upper end by the point
	// estimates, over which the Beta beside the interval spreads the
	// posterior; ScaleMax is at least ScaleMaxPoint.
	MaxExamination      float64 `json:"max_examination"`
	MaxAttractiveness   float64 `json:"max_attractiveness"`
	AttractivenessBound float64 `json:"attractiveness_bound"`
	ScaleMin            float64 `json:"scale_min"`
	ScaleMaxPoint       float64 `json:"scale_max_point"`
	ScaleMax            float64 `json:"scale_max"`
}

// IdentificationGraph is Identification.Graph.
const IdentificationGraph = "nodes: ranks (examination parameters); edges: two ranks at which one (query, document) pair was shown (Chen et al., ICML 2024)"

// ridgeAcc accumulates, over the pairs of a fit, what the identifiability
// graph needs: which ranks each rank shares a pair with, and per rank the
// pairs and the largest attractiveness of the pairs whose first rank it is.
type ridgeAcc struct {
	shown uint64                 // ranks at which some pair was shown
	adj   [maxGraphRanks]uint64  // adj[r]: ranks sharing a pair with r
	maxA  [maxGraphRanks]float64 // by a pair's lowest rank
	pairs [maxGraphRanks]int64   // by a pair's lowest rank
	// lower, by a pair's lowest rank, is the largest lower confidence
	// bound of an attractiveness (addLower): what bounds the scale from
	// above.
	lower [maxGraphRanks]float64
}

// addLower records L, a lower confidence bound of the attractiveness at
// the fitted scale of a pair shown at the ranks of the bit set ranks
// (pairWriter.boundAttractiveness).
func (r *ridgeAcc) addLower(ranks uint64, L float64) {
	if ranks == 0 {
		return
	}
	lo := bits.TrailingZeros64(ranks)
	r.lower[lo] = max(r.lower[lo], L)
}

// add adds a pair shown at the ranks of the bit set ranks with
// attractiveness a.
func (r *ridgeAcc) add(ranks uint64, a float64) {
	if ranks == 0 {
		return
	}
	lo := bits.TrailingZeros64(ranks)
	r.shown |= ranks
	r.maxA[lo] = max(r.maxA[lo], a)
	r.pairs[lo]++
	// A star from the lowest rank joins all the pair's ranks.
	r.adj[lo] |= ranks
	for m := ranks &^ (1 << lo); m != 0; m &= m - 1 {
		r.adj[bits.TrailingZeros64(m)] |= 1 << lo
	}
}

// ridge is the identified scale set of a fit's pairs: per rank, the scale
// interval of its component.
type ridge struct {
	comp [maxGraphRanks]int // component of each rank, -1 if never shown
	// comps are the components as metrics.json reports them; their
	// ScaleMin, ScaleMaxPoint and ScaleMax are the scale set.
	comps []IdentificationComponent
}

// examMax is the largest fitted examination parameter of rank r among
// global (PBM: by rank; UBM: by rank and previous click). UBM's
// parameters a log cannot reach (a previous click at or after r) are left
// out, and so are those at exactly Unseen, PyClick's value of a parameter
// no SERP counted: leaving out a counted one at 0.5 can only lower the
// maximum, which widens the interval.
func examMax(kind Kind, global []float64, R, r int) float64 {
	if kind == PBM {
		return global[r]
	}
	m := 0.0
	for p := range R {
		if (p < r || p == R-1) && global[r*R+p] != Unseen {
			m = max(m, global[r*R+p])
		}
	}
	return m
}

// components finds the connected components of acc's identifiability
// graph (gonum's topo.ConnectedComponents), each as its sorted ranks, the
// components ordered by their lowest rank.
func (acc *ridgeAcc) components() [][]int {
	g := simple.NewUndirectedGraph()
	for m := acc.shown; m != 0; m &= m - 1 {
		g.AddNode(simple.Node(bits.TrailingZeros64(m)))
	}
	for r := range maxGraphRanks {
		for m := acc.adj[r] &^ (1<<r | (1<<r - 1)); m != 0; m &= m - 1 {
			g.SetEdge(simple.Edge{F: simple.Node(r), T: simple.Node(bits.TrailingZeros64(m))})
		}
	}
	cc := topo.ConnectedComponents(g)
	comps := make([][]int, len(cc))
	for i, c := range cc {
		out := make([]int, len(c))
		for j, n := range c {
			out[j] = int(n.ID())
		}
		slices.Sort(out)
		comps[i] = out
	}
	slices.SortFunc(comps, func(a, b []int) int { return a[0] - b[0] })
	return comps
}

// identify builds the identifiability graph from acc, finds its connected
// components and each one's scale interval (acc.lower set by addLower,
// pairWriter.boundAttractiveness); components are ordered by their lowest
// rank.
func identify(kind Kind, global []float64, R int, acc *ridgeAcc) (*ridge, *Identification) {
	comps := acc.components()
	rd := &ridge{}
	for i := range rd.comp {
		rd.comp[i] = -1
	}
	id := &Identification{Graph: IdentificationGraph, Connected: len(comps) <= 1}
	for k, c := range comps {
		ic := IdentificationComponent{}
		for _, r := range c {
			rd.comp[r] = k
			ic.Ranks = append(ic.Ranks, r+1)
			ic.Pairs += acc.pairs[r]
			ic.MaxAttractiveness = max(ic.MaxAttractiveness, acc.maxA[r])
			ic.AttractivenessBound = max(ic.AttractivenessBound, acc.lower[r])
			if r < R {
				ic.MaxExamination = max(ic.MaxExamination, examMax(kind, global, R, r))
			}
		}
		// Fitted values are at most probMax < 1, so c = 1 is always in.
		ic.ScaleMin = min(ic.MaxExamination, 1)
		ic.ScaleMaxPoint = 1
		if ic.MaxAttractiveness > 0 {
			ic.ScaleMaxPoint = max(1/ic.MaxAttractiveness, 1)
		}
		ic.ScaleMax = ic.ScaleMaxPoint
		if ic.AttractivenessBound > 0 {
			ic.ScaleMax = max(1/ic.AttractivenessBound, ic.ScaleMax)
		}
		id.Components = append(id.Components, ic)
	}
	rd.comps = id.Components
	if !id.Connected {
		id.Warning = fmt.Sprintf("%v: the identifiability graph of the log has %d components (ranks %v): the relevances of pairs in different components are identified only up to a scale each, and labels that compare them compare unknown scales; a log that shows the same results at more ranks (shuffled or perturbed lists) joins them", kind, len(comps), rankLists(id.Components))
	}
	return rd, id
}

// rankLists prints the components' ranks, as the warning names them.
func rankLists(cs []IdentificationComponent) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += " | "
		}
		s += fmt.Sprint(c.Ranks)
	}
	return s
}

// scaleOf is the scale set of a pair shown at the ranks of the bit set
// ranks: c_min, c_point (the upper end by the point estimates, over which
// the Beta beside the interval spreads the posterior) and c_max (that of
// the interval); 1, 1, 1 when it has none or rd is nil.
func (rd *ridge) scaleOf(ranks uint64) (cMin, cPoint, cMax float64) {
	if rd == nil || ranks == 0 {
		return 1, 1, 1
	}
	k := rd.comp[bits.TrailingZeros64(ranks)]
	if k < 0 {
		return 1, 1, 1
	}
	c := &rd.comps[k]
	return c.ScaleMin, c.ScaleMaxPoint, c.ScaleMax
}

// ScaledRelevance returns the identified-set interval and Beta of a
// relevance X ~ Beta(alpha, beta) with interval [lo, hi] at the fitted
// scale, when the scale c is known only to lie in [cMin, cMax] (see
// above): the interval [cMin * lo, min(1, cMax * hi)] and the Beta with the
// mean and second moment of c * X for c uniform on [cMin, cMax],
// E[c] E[X] and E[c^2] E[X^2] (c and X independent). cMin = cMax = 1
// returns its inputs.
func ScaledRelevance(alpha, beta, lo, hi, cMin, cMax float64) (a, b, lo2, hi2 float64) {
	if cMin == 1 && cMax == 1 {
		return alpha, beta, lo, hi
	}
	n := alpha + beta
	ex := alpha / n
	ex2 := ex * (alpha + 1) / (n + 1)
	ec := (cMin + cMax) / 2
	ec2 := (cMin*cMin + cMin*cMax + cMax*cMax) / 3
	m1 := min(ec*ex, 1-1e-9)
	a, b = betaFromMoments(m1, ec2*ex2)
	return a, b, cMin * lo, min(1, cMax*hi)
}

// LogIdentification logs the warning of every disconnected
// identifiability graph among reports, at level Warn (Info with asInfo);
// nothing when log is nil.
func LogIdentification(log *slog.Logger, asInfo bool, reports []Report) {
	if log == nil {
		return
	}
	level := slog.LevelWarn
	if asInfo {
		level = slog.LevelInfo
	}
	for _, r := range reports {
		if u := r.Uncertainty; u != nil && u.Identification != nil && !u.Identification.Connected {
			log.Log(context.Background(), level, "the log does not identify the model's relevances up to one scale", "model", r.Model, "components", len(u.Identification.Components), "detail", u.Identification.Warning)
		}
	}
}
